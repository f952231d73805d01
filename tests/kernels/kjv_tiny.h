// The shared kjv-tiny model and its held-out text, for the tests that check kvsim against the
// reference figures of its SOURCES.md. Callers skip first with KVSIM_REQUIRE_DATA.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "kernels/llama_checkpoint.h"
#include "tests/test_data.h"

namespace kvsim::testing {

inline constexpr const char* kKjvEvalText = "models/kjv-tiny/eval_a.txt";

inline std::filesystem::path kjv_tiny_dir() { return data_dir() / "models/kjv-tiny"; }

inline StatusOr<kernels::LlamaWeights> load_kjv_tiny() {
  return kernels::load_llama_checkpoint((kjv_tiny_dir() / "model.bin").string());
}

// The first `max_bytes` bytes of eval_a.txt (all of it by default).
inline std::string kjv_eval_text(size_t max_bytes = std::string::npos) {
  std::ifstream in(kjv_tiny_dir() / "eval_a.txt", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.substr(0, max_bytes);
}

}  // namespace kvsim::testing

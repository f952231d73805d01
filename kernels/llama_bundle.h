// A tiny LLaMA model ready to run: checkpoint + tokenizer loaded and checked against each
// other, and the KV store options named by their user-facing words. Shared by `kvsim
// generate`, `kvsim ppl`, PPL sweeps and the GUI.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/base/status.h"
#include "kernels/kv_store.h"
#include "kernels/llama_model.h"
#include "kernels/tokenizer.h"

namespace kvsim::kernels {

// The shared kjv-tiny model (core/base/data_dir.h "data:" paths).
inline constexpr const char* kDefaultCheckpoint = "data:models/kjv-tiny/model.bin";
inline constexpr const char* kDefaultTokenizer = "data:models/kjv-tiny/tokenizer.bin";
inline constexpr const char* kDefaultEvalText = "data:models/kjv-tiny/eval_a.txt";

struct LoadedLlama {
  std::unique_ptr<LlamaModel> model;
  std::unique_ptr<Tokenizer> tokenizer;
};

// Loads and validates both files ("data:" paths resolved), the tokenizer with the
// checkpoint's vocabulary size.
StatusOr<LoadedLlama> load_llama(const std::string& checkpoint, const std::string& tokenizer);

// KV store options from their names: layout "nd" | "nz", storage dtype "fp32" | "fp16",
// block_size tokens per block. Unknown names list the valid ones.
StatusOr<KvStoreOptions> make_kv_store_options(const std::string& layout, const std::string& dtype,
                                               uint32_t block_size);

// A whole text file ("data:" paths resolved).
StatusOr<std::string> read_text_file(const std::string& path);

}  // namespace kvsim::kernels

// Where tests find data: ../shared (the read-only models and traces) and the source tree.
// KVSIM_DATA_DIR overrides the shared folder; the default is <source>/../shared.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/base/data_dir.h"

namespace kvsim::testing {

inline std::filesystem::path source_dir() {
  const char* dir = std::getenv("KVSIM_SOURCE_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::current_path();
}

// The same folder the libraries use (core/base/data_dir.h).
inline std::filesystem::path data_dir() { return ::kvsim::data_dir(); }

}  // namespace kvsim::testing

// Skips the current test with a message when a file under the data dir is missing.
#define KVSIM_REQUIRE_DATA(relative_path)                                                   \
  do {                                                                                      \
    if (!std::filesystem::exists(::kvsim::testing::data_dir() / (relative_path))) {         \
      GTEST_SKIP() << "needs " << (::kvsim::testing::data_dir() / (relative_path)).string() \
                   << " (set KVSIM_DATA_DIR to the shared data folder)";                    \
    }                                                                                       \
  } while (0)

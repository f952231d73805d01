// --dp, --ep and --pp: the parallel layout's numbers beside --tp (core/engine/parallel_layout.h),
// the flags `kvsim capacity` and `kvsim cost` share. Zero passes the parser so that
// validate_parallel_layout names the flag and the value (exit 2).
#pragma once

#include <cstdint>

namespace CLI {
class App;
}

namespace kvsim::cli {

struct ParallelOptions {
  uint32_t dp = 1;  // attention data-parallel ranks inside the TP group
  uint32_t ep = 1;  // expert-parallel ranks
  uint32_t pp = 1;  // pipeline stages
};

// `pp`: whether the command takes --pp (kvsim cost does not time pipeline stages).
void add_parallel_options(CLI::App* command, ParallelOptions* options, bool pp = true);

}  // namespace kvsim::cli

#include "cli/parallel_options.h"

#include <CLI/CLI.hpp>

namespace kvsim::cli {

void add_parallel_options(CLI::App* command, ParallelOptions* options, bool pp) {
  command->add_option("--dp", options->dp,
                      "attention data-parallel ranks inside the TP group (attention TP = tp / dp; "
                      "SGLang --dp-size --enable-dp-attention, vLLM --data-parallel-size)");
  command->add_option("--ep", options->ep,
                      "expert-parallel ranks the routed experts are divided over (vLLM "
                      "--enable-expert-parallel: ep = tp)");
  if (pp) {
    command->add_option("--pp", options->pp, "pipeline stages (each rank holds layers / pp)");
  }
}

}  // namespace kvsim::cli

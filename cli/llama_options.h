// Options shared by the commands that run the tiny LLaMA model (`kvsim generate`,
// `kvsim ppl`): the checkpoint and tokenizer files (default: the shared kjv-tiny model,
// "data:" paths, core/base/data_dir.h) and how the KV cache is stored.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "core/base/status.h"
#include "kernels/kv_store.h"
#include "kernels/llama_bundle.h"

namespace kvsim::cli {

struct LlamaOptions {
  std::string checkpoint = kernels::kDefaultCheckpoint;
  std::string tokenizer = kernels::kDefaultTokenizer;
  std::string kv_layout = "nd";   // nd | nz
  std::string kv_dtype = "fp32";  // fp32 | fp16
  uint32_t block_size = 16;       // tokens per KV block
};

void add_llama_options(CLI::App* command, LlamaOptions* options);

// Loads and validates both files (kernels/llama_bundle.h).
StatusOr<kernels::LoadedLlama> load_llama(const LlamaOptions& options);

// The KV store options named by --kv-layout, --kv-dtype and --block-size.
StatusOr<kernels::KvStoreOptions> kv_store_options(const LlamaOptions& options);

}  // namespace kvsim::cli

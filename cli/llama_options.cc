#include "cli/llama_options.h"

namespace kvsim::cli {

void add_llama_options(CLI::App* command, LlamaOptions* options) {
  command
      ->add_option(
          "--checkpoint", options->checkpoint,
          "llama2.c checkpoint (model.bin: llama2.c's export.py --version 0, fp32; default: "
          "kvsim's bundled kjv-tiny)")
      ->capture_default_str();
  command->add_option("--tokenizer", options->tokenizer, "llama2.c tokenizer.bin")
      ->capture_default_str();
  command->add_option("--kv-layout", options->kv_layout, "KV cache block layout: nd or nz")
      ->capture_default_str();
  command->add_option("--kv-dtype", options->kv_dtype, "KV cache storage: fp32 or fp16")
      ->capture_default_str();
  command->add_option("--block-size", options->block_size, "tokens per KV cache block")
      ->check(CLI::Range(1u, 4096u))
      ->capture_default_str();
}

StatusOr<kernels::LoadedLlama> load_llama(const LlamaOptions& options) {
  return kernels::load_llama(options.checkpoint, options.tokenizer);
}

StatusOr<kernels::KvStoreOptions> kv_store_options(const LlamaOptions& options) {
  return kernels::make_kv_store_options(options.kv_layout, options.kv_dtype, options.block_size);
}

}  // namespace kvsim::cli

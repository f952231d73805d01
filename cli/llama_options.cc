#include "cli/llama_options.h"

#include "core/names.h"

namespace kvsim::cli {

void add_llama_options(CLI::App* command, LlamaOptions* options) {
  command->add_option("--checkpoint", options->checkpoint, "llama2.c checkpoint (model.bin)")
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
  kernels::KvStoreOptions store;
  if (options.kv_layout != "nd" && options.kv_layout != "nz") {
    return Status::invalid_argument(
        "--kv-layout: " + unknown_name_message("KV layout", options.kv_layout, {"nd", "nz"}));
  }
  store.nz = options.kv_layout == "nz";
  if (options.kv_dtype != "fp32" && options.kv_dtype != "fp16") {
    return Status::invalid_argument("--kv-dtype: " + unknown_name_message("KV storage dtype",
                                                                          options.kv_dtype,
                                                                          {"fp32", "fp16"}));
  }
  store.dtype = options.kv_dtype == "fp32" ? DType::kFp32 : DType::kFp16;
  store.block_size = options.block_size;
  return store;
}

}  // namespace kvsim::cli

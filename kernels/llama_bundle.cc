#include "kernels/llama_bundle.h"

#include <fstream>
#include <sstream>

#include "core/data_dir.h"
#include "core/names.h"

namespace kvsim::kernels {

StatusOr<LoadedLlama> load_llama(const std::string& checkpoint, const std::string& tokenizer) {
  KVSIM_ASSIGN_OR_RETURN(LlamaWeights weights,
                         load_llama_checkpoint(resolve_data_path(checkpoint)));
  const uint32_t vocab_size = weights.config.vocab_size;
  KVSIM_ASSIGN_OR_RETURN(Tokenizer loaded_tokenizer,
                         Tokenizer::load(resolve_data_path(tokenizer), vocab_size));
  LoadedLlama loaded;
  loaded.model = std::make_unique<LlamaModel>(std::move(weights));
  loaded.tokenizer = std::make_unique<Tokenizer>(std::move(loaded_tokenizer));
  return loaded;
}

StatusOr<KvStoreOptions> make_kv_store_options(const std::string& layout, const std::string& dtype,
                                               uint32_t block_size) {
  KvStoreOptions store;
  if (layout != "nd" && layout != "nz") {
    return Status::invalid_argument(unknown_name_message("KV layout", layout, {"nd", "nz"}));
  }
  store.nz = layout == "nz";
  if (dtype != "fp32" && dtype != "fp16") {
    return Status::invalid_argument(
        unknown_name_message("KV storage dtype", dtype, {"fp32", "fp16"}));
  }
  store.dtype = dtype == "fp32" ? DType::kFp32 : DType::kFp16;
  if (block_size == 0 || block_size > 4096) {
    return Status::invalid_argument("KV block size must be in [1, 4096]");
  }
  store.block_size = block_size;
  return store;
}

StatusOr<std::string> read_text_file(const std::string& path) {
  std::ifstream in(resolve_data_path(path), std::ios::binary);
  if (!in) return Status::not_found(path + ": cannot open the text file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kvsim::kernels

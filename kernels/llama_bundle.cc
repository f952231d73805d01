#include "kernels/llama_bundle.h"

#include <fstream>
#include <sstream>

#include "core/base/data_dir.h"
#include "core/base/enum_names.h"
#include "core/model/device_spec.h"

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
  // The storage dtypes the float kernels implement (quantized stores come from a KV policy).
  static constexpr EnumNames<DType, 2> kStorageDTypes{{{
      {DType::kFp32, "fp32"},
      {DType::kFp16, "fp16"},
  }}};
  KvStoreOptions store;
  KVSIM_ASSIGN_OR_RETURN(const KvLayout kv_layout, kKvLayoutNames.parse(layout, "KV layout"));
  store.nz = kv_layout == KvLayout::kNz;
  KVSIM_ASSIGN_OR_RETURN(store.dtype, kStorageDTypes.parse(dtype, "KV storage dtype"));
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

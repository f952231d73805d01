#include "core/weight_memory.h"

#include <algorithm>
#include <cmath>

#include "core/checked_math.h"
#include "core/units.h"

namespace kvsim {
namespace {

constexpr uint32_t kEmbeddingBits = 16;     // the model's fp16/bf16 dtype
constexpr long double kInt4GroupBits = 20;  // fp16 scale + 4-bit zero point per group
constexpr long double kInt4GroupSize = 128;

}  // namespace

uint64_t embedding_params(const ModelSpec& model) {
  const uint64_t one = uint64_t{model.vocab_size} * model.hidden_size;
  return model.tie_word_embeddings ? one : 2 * one;
}

uint64_t loaded_weight_bytes(const ModelSpec& model, DType weight_dtype, uint32_t tp) {
  if (!model.weight_quantization.method.empty()) {
    // The checkpoint names its quantized parameters and their groups (core/model_spec.h):
    // count those exactly, the rest at the weight dtype.
    return ceil_div(weight_bits(model, weight_dtype),
                    uint64_t{kBitsPerByte} * std::max<uint32_t>(tp, 1));
  }
  const long double params = static_cast<long double>(model.num_params);
  const uint32_t bits = dtype_bits(weight_dtype);
  long double total_bits = params * bits;
  if (bits < kEmbeddingBits) {
    const long double embedding =
        std::min(params, static_cast<long double>(embedding_params(model)));
    const long double linear = params - embedding;
    total_bits = linear * bits + embedding * kEmbeddingBits;
    if (weight_dtype == DType::kInt4) total_bits += linear * kInt4GroupBits / kInt4GroupSize;
  }
  return static_cast<uint64_t>(std::ceil(total_bits / 8.0L / std::max<uint32_t>(tp, 1)));
}

}  // namespace kvsim

// quantization_config -> WeightQuantization (core/model/hf_config.h lists the methods and what each
// stores per weight).
#include <fmt/format.h>

#include <string>

#include "core/model/hf_architectures.h"

namespace kvsim {
namespace {

using nlohmann::json;

constexpr uint32_t kFp16ScaleBits = 16;
constexpr uint32_t kFp32ScaleBits = 32;
constexpr uint32_t kMxScaleBits = 8;  // one shared e8m0 exponent
constexpr uint32_t kMxGroup = 32;

// The decoder's linear weights, less the attention ones when modules_to_not_convert names
// self_attn (gpt-oss's mxfp4 leaves attention in bf16).
uint64_t quantized_params(HfFields& q, const ParamCount& p) {
  bool keep_attention = false;
  for (const std::string& module : q.strings("modules_to_not_convert")) {
    if (module.find("self_attn") != std::string::npos) keep_attention = true;
  }
  return (keep_attention ? 0 : p.attention_linear) + p.mlp_linear + p.expert_linear +
         p.mixer_linear;
}

Status integer_width(HfFields& q, std::string_view key, DType* dtype) {
  const uint32_t bits = q.need(key);
  if (bits == 4 || bits == 8) {
    *dtype = bits == 4 ? DType::kInt4 : DType::kInt8;
    return Status::ok();
  }
  q.fail(key, fmt::format("must be 4 or 8, got {}", bits));
  return q.status();
}

// -1 (per channel) reads as 0: no group scales counted.
uint32_t group_size(HfFields& q) {
  const json* group = q.find("group_size");
  if (group != nullptr && group->is_number_integer() && group->get<int64_t>() < 0) return 0;
  return q.get("group_size", 0);
}

void read_fp8(HfFields& q, WeightQuantization* out) {
  out->dtype = DType::kFp8;
  const json* block = q.find("weight_block_size");
  if (block == nullptr) return;
  if (!block->is_array() || block->size() != 2 || !(*block)[0].is_number_unsigned() ||
      !(*block)[1].is_number_unsigned() || (*block)[0] == 0 || (*block)[1] == 0) {
    q.fail("weight_block_size", "must be two positive integers such as [128, 128]");
    return;
  }
  out->group_size = (*block)[0].get<uint32_t>() * (*block)[1].get<uint32_t>();
  out->group_bits = kFp32ScaleBits;  // weight_scale_inv: one fp32 per block
}

// compressed-tensors: the first config group's weight scheme.
void read_compressed_tensors(HfFields& q, WeightQuantization* out) {
  const json* groups = q.find("config_groups");
  if (groups == nullptr || !groups->is_object() || groups->empty() ||
      !groups->begin()->is_object() || !groups->begin()->contains("weights")) {
    q.fail("config_groups", "needs a group with a 'weights' scheme");
    return;
  }
  HfFields weights((*groups->begin())["weights"], q.file() + " quantization_config");
  const uint32_t bits = weights.need("num_bits");
  const bool is_float = weights.text_field("type", "int") == "float";
  out->dtype = is_float ? DType::kFp8 : bits == 4 ? DType::kInt4 : DType::kInt8;
  if ((is_float && bits != 8) || (!is_float && bits != 4 && bits != 8)) {
    q.fail("config_groups", fmt::format("weights of {} bits are not supported", bits));
  }
  if (weights.text_field("strategy", "") == "group") {
    out->group_size = group_size(weights);
    out->group_bits = kFp16ScaleBits + (weights.flag("symmetric", true) ? 0 : bits);
  }
  if (!weights.status().is_ok()) q.fail(weights.status().message());
}

}  // namespace

Status read_hf_quantization(const json& root, const std::string& file, const ParamCount& params,
                            WeightQuantization* out) {
  const auto config = root.find("quantization_config");
  if (config == root.end() || config->is_null()) return Status::ok();
  if (!config->is_object()) {
    return Status::invalid_argument(file + ": field 'quantization_config' must be an object");
  }
  HfFields q(*config, file + " quantization_config");
  out->method = q.text_field("quant_method", "");
  if (out->method == "fp8") {
    read_fp8(q, out);
  } else if (out->method == "awq" || out->method == "gptq") {
    KVSIM_RETURN_IF_ERROR(integer_width(q, "bits", &out->dtype));
    out->group_size = group_size(q);
    const bool zero = out->method == "gptq" || q.flag("zero_point", true);
    out->group_bits =
        out->group_size == 0 ? 0 : kFp16ScaleBits + (zero ? dtype_bits(out->dtype) : 0);
  } else if (out->method == "mxfp4") {
    out->dtype = DType::kInt4;  // fp4 e2m1: 4 bits, stored as int4's width
    out->group_size = kMxGroup;
    out->group_bits = kMxScaleBits;
  } else if (out->method == "compressed-tensors") {
    read_compressed_tensors(q, out);
  } else {
    q.fail("quant_method", "'" + out->method +
                               "' is not supported; kvsim reads fp8, awq, gptq, mxfp4 and "
                               "compressed-tensors");
  }
  out->num_params = quantized_params(q, params);
  return q.status();
}

}  // namespace kvsim

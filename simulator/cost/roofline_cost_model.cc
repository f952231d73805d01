#include "simulator/cost/roofline_cost_model.h"

#include <algorithm>
#include <cmath>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/cost/layer_kind_costs.h"

namespace kvsim::sim {
namespace {

constexpr double kTera = 1e12;

// FLOPs per (query, key) pair over `layers` attention layers.
double attention_flops_per_pair(const ModelSpec& model, uint32_t layers) {
  const double per_layer_heads = static_cast<double>(layers) * model.num_attention_heads;
  return model.attention == AttentionKind::kMla
             ? 2.0 * per_layer_heads * (2.0 * model.kv_lora_rank + model.qk_rope_head_dim)
             : 4.0 * per_layer_heads * model.head_dim;
}

}  // namespace

double device_peak_flops(const DeviceSpec& device, DType weight_dtype) {
  if (weight_dtype == DType::kBf16 && device.bf16_tflops > 0) return device.bf16_tflops * kTera;
  if (weight_dtype == DType::kInt8 && device.int8_tops > 0) return device.int8_tops * kTera;
  if (weight_dtype == DType::kFp8 && device.fp8_tflops > 0) return device.fp8_tflops * kTera;
  return device.fp16_tflops * kTera;  // fp8 without FP8 tensor cores: weight-only, 16-bit math
}

DType activation_dtype(DType weight_dtype) {
  return weight_dtype == DType::kBf16 ? DType::kBf16 : DType::kFp16;
}

double IterationCost::total_s() const {
  return std::max(compute_s, memory_s) + communication_s + overhead_s;
}

RooflineInputs roofline_inputs(const ModelSpec& model, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype, uint32_t tp) {
  KVSIM_CHECK(capacity.weight_bytes.has_value(), "the roofline needs the model's parameter count");
  RooflineInputs in;
  in.active_params =
      static_cast<double>(model.num_active_params > 0 ? model.num_active_params : model.num_params);
  in.num_layers = model.num_layers;
  in.hidden_size = model.hidden_size;
  const LayerKindCosts kinds = layer_kind_costs(model, capacity);
  in.attention_flops_per_pair = attention_flops_per_pair(model, kinds.full_layers);
  in.sliding_attention_flops_per_pair = attention_flops_per_pair(model, kinds.sliding_layers);
  in.tp = tp;
  in.weight_bytes_per_device = static_cast<double>(*capacity.weight_bytes);
  in.kv_bytes_per_token_per_device =
      capacity.hybrid ? kinds.full_layers * kinds.full_kv_bytes_per_token_layer
                      : static_cast<double>(capacity.kv_bytes_per_block) / capacity.block_size;
  in.window_tokens = kinds.window_tokens;
  in.sliding_kv_bytes_per_token_per_device =
      kinds.sliding_layers * kinds.sliding_kv_bytes_per_token_layer;
  in.state_bytes_per_seq_per_device = kinds.recurrent_layers * kinds.state_bytes_per_layer;
  in.activation_bytes = dtype_bits(activation_dtype(weight_dtype)) / 8.0;
  in.peak_flops = device_peak_flops(device, weight_dtype);
  in.memory_bytes_per_s = device.memory_bandwidth_gbps * kGB;
  in.interconnect_bytes_per_s = device.interconnect_gbps * kGB;
  return in;
}

RooflineCostModel::RooflineCostModel(RooflineInputs inputs, CostModelConfig config)
    : inputs_(inputs), config_(config) {
  KVSIM_CHECK(inputs_.peak_flops > 0 && inputs_.memory_bytes_per_s > 0,
              "the roofline needs a device with peak FLOP/s and bandwidth");
}

IterationCost RooflineCostModel::breakdown(const BatchShape& batch) const {
  const RooflineInputs& in = inputs_;
  const double tp = in.tp;
  IterationCost cost;
  KVSIM_CHECK(batch.window_tokens == in.window_tokens,
              "the batch's sliding window is not the model's (cost_window_tokens)");
  // The sliding and recurrent terms are 0 for a model without such layers.
  const double flops =
      2.0 * in.active_params * static_cast<double>(batch.new_tokens) +
      in.attention_flops_per_pair * static_cast<double>(batch.attention_pairs) +
      in.sliding_attention_flops_per_pair * static_cast<double>(batch.window_attention_pairs);
  cost.compute_s = flops / tp / (in.peak_flops * config_.compute_efficiency);
  const double kv_tokens = static_cast<double>(batch.context_tokens + batch.new_tokens);
  const double window_kv_tokens = static_cast<double>(
      batch.window_prefill_context_tokens + batch.window_decode_context_tokens + batch.new_tokens);
  const double bytes =
      in.weight_bytes_per_device + kv_tokens * in.kv_bytes_per_token_per_device +
      window_kv_tokens * in.sliding_kv_bytes_per_token_per_device +
      2.0 * static_cast<double>(batch.num_seqs) * in.state_bytes_per_seq_per_device;
  cost.memory_s = bytes / (in.memory_bytes_per_s * config_.bandwidth_efficiency);
  if (in.tp > 1) {
    const double payload =
        static_cast<double>(batch.new_tokens) * in.hidden_size * in.activation_bytes;
    const double ring_bytes = 2.0 * (tp - 1.0) / tp * payload;
    const double one =
        ring_bytes / (in.interconnect_bytes_per_s * config_.interconnect_efficiency) +
        config_.allreduce_latency_s;
    cost.communication_s = 2.0 * in.num_layers * one;
  }
  cost.overhead_s = config_.iteration_overhead_s;
  return cost;
}

int64_t RooflineCostModel::iteration_ns(const BatchShape& batch) const {
  return seconds_to_ns(breakdown(batch).total_s());
}

}  // namespace kvsim::sim

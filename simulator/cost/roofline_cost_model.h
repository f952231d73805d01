// RooflineCostModel: the time of an iteration from the device's peak figures.
//
//   time      = max(compute, memory) + communication + overhead
//   compute   = FLOPs / tp / (peak FLOP/s x compute_efficiency)
//     FLOPs   = 2 x active params x new tokens                          (the matmuls)
//             + 4 x layers x query heads x head_dim x attention pairs   (QK^T and AV, 2 FLOPs
//               per multiply-add each; attention pairs = sum of q*c + q(q+1)/2, BatchShape)
//               MLA: 2 x layers x heads x (2 x kv_lora_rank + qk_rope_head_dim) x pairs
//               (scores over the latent plus rope part, values over the latent, absorbed)
//   memory    = (weight bytes + KV bytes read + KV bytes written) / (bandwidth x bw_efficiency)
//     weight bytes  = params x bytes(weight dtype) / tp        (capacity's weight_bytes)
//     KV read       = context tokens x KV bytes per token per device
//     KV written    = new tokens x KV bytes per token per device
//     KV bytes per token per device = bytes per block / block size: NZ padding included
//   communication (tp > 1) = 2 x layers all-reduces of new tokens x hidden x bytes(weight dtype):
//     each (2 (tp - 1) / tp x bytes) / (interconnect x interconnect_efficiency) + latency
//     (ring all-reduce; two per layer: after attention and after the FFN, Megatron-style)
//   overhead  = a fixed time per iteration (scheduling, kernel launches, sampling)
// Hybrid models (simulator/cost/layer_kind_costs.h): the attention FLOPs and KV read above
// count the full (and MLA) layers; sliding-window layers add their FLOPs per pair x the
// window's pairs and read (sum over requests of min(c, W - 1) + new tokens) x their KV bytes
// per token (BatchShape's window sums); recurrent layers read and write every sequence's
// state: 2 x sequences x state bytes per sequence (all recurrent layers, per device).
// Peak FLOP/s: the device's bf16 figure for bf16 weights (fp16 when it has none), int8 TOPS
// for int8 weights, fp8 TFLOPS for fp8 weights where the chip has FP8 tensor cores (Hopper, Ada,
// Blackwell, MI300; an A100 runs FP8 checkpoints weight-only, at its fp16 rate), fp16 TFLOPS
// otherwise (int4 weights are dequantized to fp16).
#pragma once

#include <cstdint>
#include <string>

#include "core/engine/capacity.h"
#include "core/model/device_spec.h"
#include "core/model/dtype.h"
#include "core/model/model_spec.h"
#include "simulator/cost/cost_model_config.h"
#include "simulator/engine/cost_model.h"

namespace kvsim::sim {

// The figures the roofline needs, derived once from the presets.
struct RooflineInputs {
  double active_params = 0;  // parameters used per token
  uint32_t num_layers = 0;
  uint32_t hidden_size = 0;
  double attention_flops_per_pair = 0;  // FLOPs per (query, key) pair, all full layers, heads
  double sliding_attention_flops_per_pair = 0;  // the same over the sliding-window layers
  uint32_t tp = 1;
  double weight_bytes_per_device = 0;
  double kv_bytes_per_token_per_device = 0;          // full layers; NZ padding included
  uint32_t window_tokens = 0;                        // the sliding layers' window (0 = none)
  double sliding_kv_bytes_per_token_per_device = 0;  // sliding layers
  double state_bytes_per_seq_per_device = 0;         // recurrent layers: one sequence's states
  double activation_bytes = 2;          // bytes per activation element (all-reduce payload)
  double peak_flops = 0;                // per device, FLOP/s
  double memory_bytes_per_s = 0;        // per device
  double interconnect_bytes_per_s = 0;  // per device
};

// Peak FLOP/s of one device for weights of `weight_dtype` (the rule above).
double device_peak_flops(const DeviceSpec& device, DType weight_dtype);
// The dtype activations travel in: bf16 for bf16 weights, fp16 otherwise.
DType activation_dtype(DType weight_dtype);

// Builds the inputs. Checked: capacity has weight bytes (the model has a parameter count).
RooflineInputs roofline_inputs(const ModelSpec& model, const DeviceSpec& device,
                               const CapacityResult& capacity, DType weight_dtype, uint32_t tp);

// The parts of one iteration's time, seconds.
struct IterationCost {
  double compute_s = 0;
  double memory_s = 0;
  double communication_s = 0;
  double overhead_s = 0;
  double total_s() const;
};

class RooflineCostModel final : public CostModel {
 public:
  RooflineCostModel(RooflineInputs inputs, CostModelConfig config);

  std::string name() const override { return "roofline"; }
  int64_t iteration_ns(const BatchShape& batch) const override;
  IterationCost breakdown(const BatchShape& batch) const;
  const RooflineInputs& inputs() const { return inputs_; }

 private:
  RooflineInputs inputs_;
  CostModelConfig config_;
};

}  // namespace kvsim::sim

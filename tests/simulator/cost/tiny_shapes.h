// The small model and device the cost-model tests compute by hand: numbers chosen so that
// every FLOP, byte and second in a test's comment is easy to check.
#pragma once

#include <cstdint>

#include "core/base/units.h"
#include "core/model/device_spec.h"
#include "core/model/model_spec.h"

namespace kvsim::sim::cost_test {

// 2 layers, hidden 256, 4 heads of 64 (MHA), FFN 512, vocab 1000, `num_params` parameters
// (all active).
inline ModelSpec tiny_model(uint64_t num_params) {
  ModelSpec m;
  m.name = "tiny";
  m.num_layers = 2;
  m.hidden_size = 256;
  m.num_attention_heads = 4;
  m.num_kv_heads = 4;
  m.head_dim = 64;
  m.intermediate_size = 512;
  m.vocab_size = 1000;
  m.max_position_embeddings = 4096;
  m.num_params = num_params;
  m.num_active_params = num_params;
  m.attention = AttentionKind::kMha;
  return m;
}

// 16 GiB, 100 TFLOP/s fp16, 1 TB/s (1e12 B/s), 100 GB/s interconnect, 10 GB/s host link.
inline DeviceSpec tiny_device() {
  DeviceSpec d;
  d.name = "tiny-device";
  d.memory_bytes = 16 * kGiB;
  d.memory_bandwidth_gbps = 1000;
  d.fp16_tflops = 100;
  d.interconnect_gbps = 100;
  d.host_link_gbps = 10;
  d.kv_dtypes = {DType::kFp16};
  return d;
}

}  // namespace kvsim::sim::cost_test

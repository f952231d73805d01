// AttentionShape: the head geometry every attention kernel shares, and the query-to-KV-head
// mapping of multi-head (MHA), grouped-query (GQA) and multi-query (MQA) attention.
//
//   query heads  0 1 2 3 | 4 5 6 7        num_heads = 8, kv_heads = 2, group_size = 4
//   KV heads        0    |    1           query head h reads KV head h / group_size
//
// MHA is kv_heads == num_heads, MQA is kv_heads == 1. Scores are scaled by 1/sqrt(head_dim).
// Invariant (validate()): all counts positive and kv_heads divides num_heads.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/base/status.h"

namespace kvsim::kernels {

struct AttentionShape {
  uint32_t num_heads = 0;  // query heads
  uint32_t kv_heads = 0;   // KV heads (divides num_heads)
  uint32_t head_dim = 0;   // elements per head vector

  uint32_t group_size() const { return num_heads / kv_heads; }
  uint32_t kv_head(uint32_t head) const { return head / group_size(); }
  uint32_t q_width() const { return num_heads * head_dim; }  // floats per query token
  uint32_t kv_width() const { return kv_heads * head_dim; }  // floats per K (or V) token
  float scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

  Status validate() const {
    if (num_heads == 0 || kv_heads == 0 || head_dim == 0) {
      return Status::invalid_argument("attention shape: heads, kv_heads and head_dim must be > 0");
    }
    if (num_heads % kv_heads != 0) {
      return Status::invalid_argument("attention shape: kv_heads (" + std::to_string(kv_heads) +
                                      ") must divide num_heads (" + std::to_string(num_heads) +
                                      ")");
    }
    return Status::ok();
  }
};

}  // namespace kvsim::kernels

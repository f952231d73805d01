#include "kernels/decode_core.h"

#include <limits>

namespace kvsim::kernels {

void softmax_row(float* row, uint32_t n) {
  // The maximum is exact whatever the order: lane-wise, then across lanes.
  Vec16 lane_max = broadcast16(-std::numeric_limits<float>::infinity());
  uint32_t k = 0;
  for (; k + kLanes <= n; k += kLanes) lane_max = max16(lane_max, load16(row + k));
  float max_score = reduce_max16(lane_max);
  for (; k < n; ++k) max_score = std::max(max_score, row[k]);
  Eigen::Map<Eigen::ArrayXf, Eigen::AlignedMax> values(row, n);
  values = (values - max_score).exp();
  // Sum lane-wise (element i in lane i % 16) so the result depends on n only.
  Vec16 acc = zero16();
  uint32_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc = add16(acc, load16(row + i));
  if (i < n) acc = add16(acc, load16_partial(row + i, n - i));
  values *= 1.0f / reduce16(acc);
}

void add_attention_sums(const float* probs, uint32_t num_heads, uint32_t stride, uint32_t n,
                        std::span<float> sums) {
  for (uint32_t h = 0; h < num_heads; ++h) {
    const float* row = probs + size_t{h} * stride;
    for (uint32_t i = 0; i < n; ++i) sums[i] += row[i];
  }
}

}  // namespace kvsim::kernels

#include "kernels/decode_core.h"

#include <limits>

namespace kvsim::kernels {

void softmax_row(float* row, uint32_t n) {
  float max_score = -std::numeric_limits<float>::infinity();
  for (uint32_t i = 0; i < n; ++i) max_score = std::max(max_score, row[i]);
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

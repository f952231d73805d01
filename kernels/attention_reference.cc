#include "kernels/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/check.h"

namespace kvsim::kernels {
namespace {

constexpr uint32_t kDoubleLanes = 8;

// a . b in double, eight independent partial sums (vectorisable without reassociation).
double dot_double(const float* a, const float* b, uint32_t n) {
  double partial[kDoubleLanes] = {};
  uint32_t d = 0;
  for (; d + kDoubleLanes <= n; d += kDoubleLanes) {
    for (uint32_t lane = 0; lane < kDoubleLanes; ++lane) {
      partial[lane] += static_cast<double>(a[d + lane]) * static_cast<double>(b[d + lane]);
    }
  }
  for (; d < n; ++d) partial[0] += static_cast<double>(a[d]) * static_cast<double>(b[d]);
  double sum = 0.0;
  for (double x : partial) sum += x;
  return sum;
}

// One query head at position `pos` against keys 0..pos of its KV head.
void attend_one(const AttentionShape& shape, const float* q, const float* k, const float* v,
                uint32_t pos, uint32_t kv_head, std::vector<double>* scores,
                std::vector<double>* acc, float* out) {
  const uint32_t d = shape.head_dim;
  const uint32_t stride = shape.kv_width();
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  scores->resize(pos + 1);
  double max_score = -INFINITY;
  for (uint32_t j = 0; j <= pos; ++j) {
    (*scores)[j] = scale * dot_double(q, k + size_t{j} * stride + kv_head * d, d);
    max_score = std::max(max_score, (*scores)[j]);
  }
  double sum = 0.0;
  for (double& s : *scores) {
    s = std::exp(s - max_score);
    sum += s;
  }
  acc->assign(d, 0.0);
  for (uint32_t j = 0; j <= pos; ++j) {
    const float* v_row = v + size_t{j} * stride + kv_head * d;
    const double p = (*scores)[j];
    for (uint32_t e = 0; e < d; ++e) (*acc)[e] += p * static_cast<double>(v_row[e]);
  }
  for (uint32_t e = 0; e < d; ++e) out[e] = static_cast<float>((*acc)[e] / sum);
}

}  // namespace

void attention_reference(const AttentionShape& shape, uint32_t num_queries, uint32_t num_keys,
                         std::span<const float> q, std::span<const float> k,
                         std::span<const float> v, std::span<float> out) {
  KVSIM_CHECK(shape.validate().is_ok(), "attention_reference: invalid shape");
  KVSIM_CHECK(num_queries >= 1 && num_queries <= num_keys, "attention_reference: bad counts");
  KVSIM_CHECK(q.size() == size_t{num_queries} * shape.q_width() && out.size() == q.size(),
              "attention_reference: Q/O size");
  KVSIM_CHECK(k.size() == size_t{num_keys} * shape.kv_width() && v.size() == k.size(),
              "attention_reference: K/V size");
  std::vector<double> scores;
  std::vector<double> acc;
  const uint32_t first_pos = num_keys - num_queries;
  for (uint32_t i = 0; i < num_queries; ++i) {
    for (uint32_t h = 0; h < shape.num_heads; ++h) {
      const size_t offset = size_t{i} * shape.q_width() + size_t{h} * shape.head_dim;
      attend_one(shape, q.data() + offset, k.data(), v.data(), first_pos + i, shape.kv_head(h),
                 &scores, &acc, out.data() + offset);
    }
  }
}

}  // namespace kvsim::kernels

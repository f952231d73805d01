#include "kernels/attention_case.h"

#include <algorithm>
#include <array>

#include "kernels/attention_reference.h"

namespace kvsim::kernels {
namespace {

template <typename T, size_t N>
T pick(const std::array<T, N>& values, std::mt19937_64* rng) {
  return values[std::uniform_int_distribution<size_t>(0, N - 1)(*rng)];
}

std::vector<float> random_values(size_t n, float scale, std::mt19937_64* rng) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> x(n);
  for (float& value : x) value = normal(*rng);
  return x;
}

AttentionShape random_shape(std::mt19937_64* rng) {
  constexpr std::array<uint32_t, 9> kHeadDims = {16, 32, 64, 128, 8, 20, 40, 72, 100};
  constexpr std::array<uint32_t, 4> kKvHeads = {1, 2, 3, 4};
  constexpr std::array<uint32_t, 4> kGroups = {1, 1, 2, 4};  // MHA twice as often
  AttentionShape shape;
  shape.head_dim = pick(kHeadDims, rng);
  shape.kv_heads = pick(kKvHeads, rng);
  shape.num_heads = shape.kv_heads * pick(kGroups, rng);
  return shape;
}

// Random attended subset of [0, n) that keeps n - 1 (the decode query's own position).
std::vector<uint32_t> random_positions(uint32_t n, std::mt19937_64* rng) {
  std::bernoulli_distribution keep(0.6);
  std::vector<uint32_t> positions;
  for (uint32_t p = 0; p + 1 < n; ++p) {
    if (keep(*rng)) positions.push_back(p);
  }
  positions.push_back(n - 1);
  return positions;
}

}  // namespace

AttentionCase random_case(CaseKind kind, std::mt19937_64* rng) {
  constexpr std::array<uint32_t, 7> kBlockSizes = {1, 5, 8, 16, 24, 32, 48};
  AttentionCase c;
  c.shape = random_shape(rng);
  c.block_size = pick(kBlockSizes, rng);
  c.nz_row_align = std::bernoulli_distribution(0.5)(*rng) ? 16 : 1;
  const uint32_t batch = std::uniform_int_distribution<uint32_t>(1, 4)(*rng);
  const float q_scale = std::uniform_real_distribution<float>(0.3f, 3.0f)(*rng);
  for (uint32_t b = 0; b < batch; ++b) {
    CaseSequence seq;
    seq.num_keys = std::uniform_int_distribution<uint32_t>(1, 300)(*rng);
    if (kind == CaseKind::kPrefill) {
      seq.num_queries = std::uniform_int_distribution<uint32_t>(1, seq.num_keys)(*rng);
    } else if (std::bernoulli_distribution(0.3)(*rng)) {
      seq.positions = random_positions(seq.num_keys, rng);
    }
    seq.q = random_values(size_t{seq.num_queries} * c.shape.q_width(), q_scale, rng);
    seq.k = random_values(size_t{seq.num_keys} * c.shape.kv_width(), 1.0f, rng);
    seq.v = random_values(seq.k.size(), 1.0f, rng);
    c.sequences.push_back(std::move(seq));
  }
  return c;
}

std::vector<float> select_rows(const std::vector<float>& x, uint32_t width,
                               const std::vector<uint32_t>& positions) {
  std::vector<float> rows;
  rows.reserve(positions.size() * width);
  for (uint32_t p : positions) {
    rows.insert(rows.end(), x.begin() + size_t{p} * width, x.begin() + size_t{p + 1} * width);
  }
  return rows;
}

std::vector<std::vector<float>> oracle_outputs(const AttentionCase& c,
                                               const StorageRounding& rounding) {
  std::vector<std::vector<float>> outputs;
  for (const CaseSequence& seq : c.sequences) {
    std::vector<float> k = rounding(seq.k, true);
    std::vector<float> v = rounding(seq.v, false);
    uint32_t num_keys = seq.num_keys;
    if (!seq.positions.empty()) {
      k = select_rows(k, c.shape.kv_width(), seq.positions);
      v = select_rows(v, c.shape.kv_width(), seq.positions);
      num_keys = static_cast<uint32_t>(seq.positions.size());
    }
    std::vector<float> out(seq.q.size());
    attention_reference(c.shape, seq.num_queries, num_keys, seq.q, k, v, out);
    outputs.push_back(std::move(out));
  }
  return outputs;
}

}  // namespace kvsim::kernels

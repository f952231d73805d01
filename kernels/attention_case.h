// AttentionCase: one attention problem in logical form — a batch of sequences, each with the
// fp32 Q of its new tokens and the fp32 K, V of all its positions — and the oracle's answer.
// Kernel adapters (kernel_adapters.h) store the K, V in their own layout and run their kernel
// on it; the validator and the behavioural test suite compare the two.
//
//   sequence b:  Q [num_queries, num_heads, head_dim]   queries at the last num_queries
//                K [num_keys,    kv_heads,  head_dim]   positions of [0, num_keys)
//                V [num_keys,    kv_heads,  head_dim]
//                positions: the attended subset (decode only; empty = all), ascending,
//                           always holding num_keys - 1 (the query's own position)
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "kernels/attention_shape.h"

namespace kvsim::kernels {

struct CaseSequence {
  uint32_t num_keys = 0;
  uint32_t num_queries = 1;
  std::vector<float> q;
  std::vector<float> k;
  std::vector<float> v;
  std::vector<uint32_t> positions;
};

struct AttentionCase {
  AttentionShape shape;
  uint32_t block_size = 16;    // tokens per block of the paged kernels
  uint32_t nz_row_align = 16;  // NZ row padding (1 = none), see core/model/kv_layout.h
  std::vector<CaseSequence> sequences;
};

// What to draw: decode cases have one query per sequence (and may attend a subset);
// prefill cases have a cached prefix and a chunk of new queries.
enum class CaseKind { kDecode, kPrefill };

// A random case: MHA, GQA or MQA; head_dim and block_size drawn from lists that include
// values that are not multiples of 16; 1-4 sequences of different lengths.
AttentionCase random_case(CaseKind kind, std::mt19937_64* rng);

// Maps K or V values to what a storage holds (fp16 rounding, quantization round trip) for one
// sequence: (values [num_keys, kv_heads, head_dim], is_key) -> stored values.
using StorageRounding = std::function<std::vector<float>(const std::vector<float>&, bool)>;

// The oracle's output for each sequence ([num_queries, num_heads, head_dim]), computed by
// attention_reference on the K, V as `rounding` stores them, restricted to the attended
// positions.
std::vector<std::vector<float>> oracle_outputs(const AttentionCase& c,
                                               const StorageRounding& rounding);

// Rows `positions` of a [rows, width] matrix.
std::vector<float> select_rows(const std::vector<float>& x, uint32_t width,
                               const std::vector<uint32_t>& positions);

}  // namespace kvsim::kernels

// How an AttentionCase is put into paged storage, shared by the kernel adapters and the
// storage checks of the validator: block tables and the chunked write_kv batches.
//
//   plan_blocks:     disjoint, shuffled block ids with spare blocks (ids neither contiguous
//                    nor dense), deterministic for a case
//   write_in_chunks: three write batches; batch r holds chunk r of every sequence, so one
//                    write_kv call sees sequences with different token_offset and seqlen
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/kv_layout.h"
#include "kernels/attention_case.h"
#include "kernels/write_kv.h"

namespace kvsim::kernels {

struct BlockPlan {
  uint32_t num_blocks = 0;
  std::vector<std::vector<uint32_t>> tables;  // one per sequence
};

BlockPlan plan_blocks(const AttentionCase& c);

// The block geometry of a case (NZ fractal width 16).
BlockLayout layout_of(const AttentionCase& c);

// Calls write(writes, k_new, v_new) once per round.
template <typename WriteFn>
void write_in_chunks(const AttentionCase& c, const BlockPlan& plan, const WriteFn& write) {
  const size_t width = c.shape.kv_width();
  for (uint32_t round = 0; round < 3; ++round) {
    std::vector<KvWrite> writes;
    std::vector<float> k_new, v_new;
    for (size_t b = 0; b < c.sequences.size(); ++b) {
      const CaseSequence& seq = c.sequences[b];
      const uint32_t lo = seq.num_keys * round / 3;
      const uint32_t hi = seq.num_keys * (round + 1) / 3;
      if (hi == lo) continue;
      writes.push_back({plan.tables[b], lo, hi - lo});
      k_new.insert(k_new.end(), seq.k.begin() + lo * width, seq.k.begin() + hi * width);
      v_new.insert(v_new.end(), seq.v.begin() + lo * width, seq.v.begin() + hi * width);
    }
    if (!writes.empty()) write(writes, k_new, v_new);
  }
}

}  // namespace kvsim::kernels

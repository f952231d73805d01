#include "kernels/prefill_flash.h"

#include <algorithm>
#include <limits>

#include "core/base/check.h"
#include "core/base/checked_math.h"

namespace kvsim::kernels {
namespace {

constexpr uint32_t kQueryRows = 64;  // rows of a query tile (queries x group heads)
constexpr uint32_t kKeyTile = 64;    // positions of a key tile
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One (sequence, KV head, query tile): queries [q_begin, q_end) of the chunk.
struct TileJob {
  const PrefillSequence* seq;
  uint32_t kv_head;
  uint32_t q_begin;
  uint32_t q_end;
};

// Copies positions [begin, end) of one KV head's K and V into ws->k, ws->v as fp32 rows.
template <KvElement T>
void gather_keys(const PagedKv<const T>& cache, const TileJob& job, uint32_t begin, uint32_t end,
                 FlashWorkspace* ws) {
  const BlockLayout& layout = cache.layout;
  const uint32_t d = layout.head_dim;
  ws->k.resize(end - begin, d);
  ws->v.resize(end - begin, d);
  for (uint32_t pos = begin; pos < end; ++pos) {
    const size_t offset =
        (size_t{job.seq->block_table[pos / layout.block_size]} * layout.block_size +
         pos % layout.block_size) *
            layout.columns() +
        size_t{job.kv_head} * d;
    convert_to_float(cache.k.data() + offset, ws->k.row(pos - begin).data(), d);
    convert_to_float(cache.v.data() + offset, ws->v.row(pos - begin).data(), d);
  }
}

// Online-softmax update of the tile state with key tile [begin, end).
void update_tile(uint32_t group, uint32_t first_query_pos, uint32_t begin, uint32_t end,
                 FlashWorkspace* ws) {
  ws->s.noalias() = ws->q * ws->k.transpose();
  const Eigen::Index rows = ws->s.rows();
  for (Eigen::Index r = 0; r < rows; ++r) {
    const uint32_t pos = first_query_pos + static_cast<uint32_t>(r) / group;
    auto s_row = ws->s.row(r);
    const uint32_t visible = pos >= end ? end - begin : pos + 1 - std::min(pos + 1, begin);
    s_row.tail(s_row.size() - visible).setConstant(kNegInf);
    const float m_new = std::max(ws->m(r), visible > 0 ? s_row.head(visible).maxCoeff() : kNegInf);
    const float correction = std::exp(ws->m(r) - m_new);
    s_row = (s_row.array() - m_new).exp().matrix();
    s_row.tail(s_row.size() - visible).setZero();  // exp(-inf) exactly 0
    ws->l(r) = ws->l(r) * correction + s_row.sum();
    ws->o.row(r) *= correction;
    ws->m(r) = m_new;
  }
  ws->o.noalias() += ws->s * ws->v;
}

template <KvElement T>
void run_tile(const AttentionShape& shape, const PagedKv<const T>& cache, const TileJob& job,
              const float* q_seq, float* out_seq, FlashWorkspace* ws) {
  const uint32_t d = shape.head_dim;
  const uint32_t group = shape.group_size();
  const uint32_t rows = (job.q_end - job.q_begin) * group;
  ws->q.resize(rows, d);
  for (uint32_t i = job.q_begin; i < job.q_end; ++i) {
    for (uint32_t j = 0; j < group; ++j) {
      const float* src = q_seq + size_t{i} * shape.q_width() + size_t{job.kv_head * group + j} * d;
      ws->q.row((i - job.q_begin) * group + j) =
          Eigen::Map<const Eigen::RowVectorXf>(src, d) * shape.scale();
    }
  }
  ws->o.setZero(rows, d);
  ws->m.setConstant(rows, kNegInf);
  ws->l.setZero(rows);
  const uint32_t first_pos = job.seq->num_cached + job.q_begin;
  const uint32_t last_pos = job.seq->num_cached + job.q_end - 1;
  for (uint32_t begin = 0; begin <= last_pos; begin += kKeyTile) {
    const uint32_t end = std::min(begin + kKeyTile, last_pos + 1);
    gather_keys(cache, job, begin, end, ws);
    update_tile(group, first_pos, begin, end, ws);
  }
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t i = job.q_begin + r / group;
    float* dst =
        out_seq + size_t{i} * shape.q_width() + size_t{job.kv_head * group + r % group} * d;
    Eigen::Map<Eigen::RowVectorXf>(dst, d) = ws->o.row(r) / ws->l(r);
  }
}

}  // namespace

template <KvElement T>
void prefill_attention_flash(const AttentionShape& shape, const PagedKv<const T>& cache,
                             std::span<const PrefillSequence> seqs, std::span<const float> q,
                             std::span<float> out, FlashWorkspace* ws) {
  KVSIM_CHECK(shape.validate().is_ok(), "prefill_flash: invalid attention shape");
  const BlockLayout& layout = cache.layout;
  KVSIM_CHECK(layout.kv_heads == shape.kv_heads && layout.head_dim == shape.head_dim &&
                  layout.block_size > 0 && cache.k.size() == cache.v.size() &&
                  cache.k.size() % layout.nd_elements() == 0,
              "prefill_flash: cache layout does not match the attention shape");
  const uint64_t num_blocks = cache.k.size() / layout.nd_elements();
  size_t total = 0;
  for (const PrefillSequence& seq : seqs) {
    KVSIM_CHECK(seq.num_new >= 1, "prefill_flash: a chunk has at least one token");
    const uint64_t blocks = ceil_div(uint64_t{seq.num_cached} + seq.num_new, layout.block_size);
    KVSIM_CHECK(seq.block_table.size() >= blocks, "prefill_flash: block table too short");
    for (uint64_t b = 0; b < blocks; ++b) {
      KVSIM_CHECK(seq.block_table[b] < num_blocks, "prefill_flash: block id out of range");
    }
    total += seq.num_new;
  }
  KVSIM_CHECK(q.size() == total * shape.q_width() && out.size() == q.size(),
              "prefill_flash: Q and O must be [sum num_new, num_heads, head_dim]");
  const uint32_t tile_queries = std::max(1u, kQueryRows / shape.group_size());
  size_t offset = 0;
  for (const PrefillSequence& seq : seqs) {
    const float* q_seq = q.data() + offset * shape.q_width();
    float* out_seq = out.data() + offset * shape.q_width();
    for (uint32_t g = 0; g < shape.kv_heads; ++g) {
      for (uint32_t begin = 0; begin < seq.num_new; begin += tile_queries) {
        const TileJob job{&seq, g, begin, std::min(begin + tile_queries, seq.num_new)};
        run_tile(shape, cache, job, q_seq, out_seq, ws);
      }
    }
    offset += seq.num_new;
  }
}

template void prefill_attention_flash<float>(const AttentionShape&, const PagedKv<const float>&,
                                             std::span<const PrefillSequence>,
                                             std::span<const float>, std::span<float>,
                                             FlashWorkspace*);
template void prefill_attention_flash<Eigen::half>(const AttentionShape&,
                                                   const PagedKv<const Eigen::half>&,
                                                   std::span<const PrefillSequence>,
                                                   std::span<const float>, std::span<float>,
                                                   FlashWorkspace*);

}  // namespace kvsim::kernels

#include "kernels/kernel_adapters.h"

#include "kernels/case_storage.h"
#include "kernels/decode_contiguous.h"
#include "kernels/decode_nz.h"
#include "kernels/decode_paged.h"
#include "kernels/decode_quantized.h"
#include "kernels/kv_quant.h"
#include "kernels/prefill_flash.h"
#include "kernels/write_kv.h"

namespace kvsim::kernels {
namespace {

// fp32 kernels differ from the double-precision oracle by rounding only: over 900 random cases
// (seeds 1-3) the worst max_rel was 1.1e-6 for decode and 2.1e-6 for the flash kernel, whose
// online softmax rescales partial sums; the tolerances leave about 10x room.
constexpr double kDecodeTolerance = 1e-5;
constexpr double kFlashTolerance = 2e-5;

template <KvElement T>
std::string type_suffix() {
  return std::is_same_v<T, float> ? "_fp32" : "_fp16";
}

template <KvElement T>
std::vector<float> round_all(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = round_to_storage<T>(x[i]);
  return out;
}

// The decode batch of a case, and where the outputs go.
struct DecodeBatch {
  std::vector<DecodeSequence> seqs;
  std::vector<float> q;
  std::vector<float> out;
};

DecodeBatch decode_batch(const AttentionCase& c, const BlockPlan* plan,
                         std::vector<std::vector<float>>* sums) {
  DecodeBatch batch;
  if (sums != nullptr) sums->clear();
  for (size_t b = 0; b < c.sequences.size(); ++b) {
    const CaseSequence& seq = c.sequences[b];
    DecodeSequence d;
    if (plan != nullptr) d.block_table = plan->tables[b];
    d.context_len = seq.num_keys;
    d.positions = seq.positions;
    batch.q.insert(batch.q.end(), seq.q.begin(), seq.q.end());
    batch.seqs.push_back(d);
  }
  if (sums != nullptr) {
    for (DecodeSequence& d : batch.seqs) sums->emplace_back(d.num_attended(), 0.0f);
    for (size_t b = 0; b < batch.seqs.size(); ++b) batch.seqs[b].attention_sums = (*sums)[b];
  }
  batch.out.resize(batch.q.size());
  return batch;
}

std::vector<std::vector<float>> split_outputs(const AttentionCase& c,
                                              const std::vector<float>& out) {
  std::vector<std::vector<float>> outputs;
  size_t offset = 0;
  for (const CaseSequence& seq : c.sequences) {
    const size_t n = size_t{seq.num_queries} * c.shape.q_width();
    outputs.emplace_back(out.begin() + offset, out.begin() + offset + n);
    offset += n;
  }
  return outputs;
}

// The paged pools of a case: ND or NZ, T storage, filled by write_kv.
template <KvElement T>
struct Pool {
  Pool() = default;
  Pool(const Pool&) = delete;  // `view` points into k and v
  Pool(Pool&&) = default;
  std::vector<T> k, v;
  PagedKv<T> view;
};

template <KvElement T>
Pool<T> fill_pool(const AttentionCase& c, const BlockPlan& plan, bool nz) {
  Pool<T> pool;
  const BlockLayout layout = layout_of(c);
  const uint64_t elements = nz ? layout.nz_elements() : layout.nd_elements();
  pool.k.assign(plan.num_blocks * elements, from_float<T>(0.0f));
  pool.v.assign(pool.k.size(), from_float<T>(0.0f));
  pool.view = {layout, pool.k, pool.v};
  write_in_chunks(
      c, plan,
      [&](const std::vector<KvWrite>& w, const std::vector<float>& k, const std::vector<float>& v) {
        if (nz)
          write_kv_nz<T>(pool.view, w, k, v);
        else
          write_kv_nd<T>(pool.view, w, k, v);
      });
  return pool;
}

template <KvElement T>
class DecodeAdapterBase : public AttentionKernelAdapter {
 public:
  CaseKind kind() const override { return CaseKind::kDecode; }
  double tolerance() const override { return kDecodeTolerance; }
  std::vector<float> stored(const AttentionCase&, const std::vector<float>& x,
                            bool) const override {
    return round_all<T>(x);
  }
};

template <KvElement T>
class ContiguousAdapter final : public DecodeAdapterBase<T> {
 public:
  std::string name() const override { return "decode_contiguous" + type_suffix<T>(); }
  std::vector<std::vector<float>> run(const AttentionCase& c,
                                      std::vector<std::vector<float>>* sums) const override {
    std::vector<std::vector<T>> storage;
    for (const CaseSequence& seq : c.sequences) {
      for (const auto* x : {&seq.k, &seq.v}) {
        storage.emplace_back(x->size());
        convert_from_float(x->data(), storage.back().data(), x->size());
      }
    }
    std::vector<ContiguousKv<T>> kv;
    for (size_t b = 0; b < c.sequences.size(); ++b)
      kv.push_back({storage[2 * b], storage[2 * b + 1]});
    DecodeBatch batch = decode_batch(c, nullptr, sums);
    DecodeWorkspace ws;
    decode_attention_contiguous<T>(c.shape, kv, batch.seqs, batch.q, batch.out, &ws);
    return split_outputs(c, batch.out);
  }
};

template <KvElement T, bool kNz>
class PagedAdapter final : public DecodeAdapterBase<T> {
 public:
  std::string name() const override {
    return std::string(kNz ? "decode_nz" : "decode_paged") + type_suffix<T>();
  }
  std::vector<std::vector<float>> run(const AttentionCase& c,
                                      std::vector<std::vector<float>>* sums) const override {
    const BlockPlan plan = plan_blocks(c);
    const Pool<T> pool = fill_pool<T>(c, plan, kNz);
    DecodeBatch batch = decode_batch(c, &plan, sums);
    DecodeWorkspace ws;
    if (kNz)
      decode_attention_nz<T>(c.shape, pool.view, batch.seqs, batch.q, batch.out, &ws);
    else
      decode_attention_paged<T>(c.shape, pool.view, batch.seqs, batch.q, batch.out, &ws);
    return split_outputs(c, batch.out);
  }
};

class Int8Adapter final : public DecodeAdapterBase<float> {
 public:
  std::string name() const override { return "decode_int8"; }
  std::vector<float> stored(const AttentionCase& c, const std::vector<float>& x,
                            bool) const override {
    return int8_round_trip(c.shape.head_dim, x);
  }
  std::vector<std::vector<float>> run(const AttentionCase& c,
                                      std::vector<std::vector<float>>* sums) const override {
    const BlockPlan plan = plan_blocks(c);
    Int8KvCache cache(layout_of(c), plan.num_blocks);
    write_in_chunks(c, plan,
                    [&](const std::vector<KvWrite>& w, const std::vector<float>& k,
                        const std::vector<float>& v) { write_kv_int8(&cache, w, k, v); });
    DecodeBatch batch = decode_batch(c, &plan, sums);
    DecodeWorkspace ws;
    decode_attention_int8(c.shape, cache, batch.seqs, batch.q, batch.out, &ws);
    return split_outputs(c, batch.out);
  }
};

// KIVI with G the largest divisor of the block size up to 8 and R = 20 tokens.
KiviConfig kivi_config_for(const AttentionCase& c) {
  KiviConfig config;
  config.group = 1;
  for (uint32_t g = 1; g <= 8; ++g) {
    if (c.block_size % g == 0) config.group = g;
  }
  config.residual = 20;
  return config;
}

class KiviAdapter final : public DecodeAdapterBase<float> {
 public:
  std::string name() const override { return "decode_int4_kivi"; }
  std::vector<float> stored(const AttentionCase& c, const std::vector<float>& x,
                            bool is_key) const override {
    return kivi_round_trip(kivi_config_for(c), c.shape.kv_heads, c.shape.head_dim, x, is_key);
  }
  std::vector<std::vector<float>> run(const AttentionCase& c,
                                      std::vector<std::vector<float>>* sums) const override {
    const KiviConfig config = kivi_config_for(c);
    const BlockPlan plan = plan_blocks(c);
    const Pool<float> residual = fill_pool<float>(c, plan, false);
    Int4KiviCache cache(layout_of(c), plan.num_blocks, config);
    std::vector<uint32_t> num_quantized;
    for (size_t b = 0; b < c.sequences.size(); ++b) {
      num_quantized.push_back(kivi_num_quantized(config, c.sequences[b].num_keys));
      for (uint32_t first = 0; first < num_quantized.back(); first += config.group) {
        kivi_quantize_group<float>(residual.view, plan.tables[b], first, &cache);
      }
    }
    DecodeBatch batch = decode_batch(c, &plan, sums);
    DecodeWorkspace ws;
    decode_attention_kivi<float>(c.shape, cache, residual.view, batch.seqs, num_quantized, batch.q,
                                 batch.out, &ws);
    return split_outputs(c, batch.out);
  }
};

template <KvElement T>
class FlashAdapter final : public AttentionKernelAdapter {
 public:
  std::string name() const override { return "prefill_flash" + type_suffix<T>(); }
  CaseKind kind() const override { return CaseKind::kPrefill; }
  double tolerance() const override { return kFlashTolerance; }
  std::vector<float> stored(const AttentionCase&, const std::vector<float>& x,
                            bool) const override {
    return round_all<T>(x);
  }
  std::vector<std::vector<float>> run(const AttentionCase& c,
                                      std::vector<std::vector<float>>*) const override {
    const BlockPlan plan = plan_blocks(c);
    const Pool<T> pool = fill_pool<T>(c, plan, false);
    std::vector<PrefillSequence> seqs;
    std::vector<float> q;
    for (size_t b = 0; b < c.sequences.size(); ++b) {
      const CaseSequence& seq = c.sequences[b];
      seqs.push_back({plan.tables[b], seq.num_keys - seq.num_queries, seq.num_queries});
      q.insert(q.end(), seq.q.begin(), seq.q.end());
    }
    std::vector<float> out(q.size());
    FlashWorkspace ws;
    prefill_attention_flash<T>(c.shape, pool.view, seqs, q, out, &ws);
    return split_outputs(c, out);
  }
};

}  // namespace

std::vector<std::unique_ptr<AttentionKernelAdapter>> attention_kernel_adapters() {
  std::vector<std::unique_ptr<AttentionKernelAdapter>> adapters;
  adapters.push_back(std::make_unique<ContiguousAdapter<float>>());
  adapters.push_back(std::make_unique<ContiguousAdapter<Eigen::half>>());
  adapters.push_back(std::make_unique<PagedAdapter<float, false>>());
  adapters.push_back(std::make_unique<PagedAdapter<Eigen::half, false>>());
  adapters.push_back(std::make_unique<PagedAdapter<float, true>>());
  adapters.push_back(std::make_unique<PagedAdapter<Eigen::half, true>>());
  adapters.push_back(std::make_unique<Int8Adapter>());
  adapters.push_back(std::make_unique<KiviAdapter>());
  adapters.push_back(std::make_unique<FlashAdapter<float>>());
  adapters.push_back(std::make_unique<FlashAdapter<Eigen::half>>());
  return adapters;
}

}  // namespace kvsim::kernels

// Attention kernels against this machine's physical limit (issue 4's targets).
//
//   BM_StreamRead          vectorised sum over a 2 GiB buffer: the streaming-read bandwidth
//   BM_Decode<layout, T>   one decode query (32 query heads, 8 KV heads, head_dim 128) over
//                          1k / 4k / 16k cached tokens, contiguous, paged ND (block 16) and
//                          NZ, fp32 and fp16; GB/s of K+V read. Each iteration reads the cache
//                          of the next of several sequences (>= 1 GiB in all) so that the
//                          KV comes from memory, not from the last-level cache.
//   BM_Prefill<kind>       causal attention over a 2k-token chunk (8 heads, head_dim 128):
//                          the flash kernel on a paged fp32 cache vs attention_reference.
// Single-threaded throughout. After the runs a summary prints the ratios of the medians
// against the targets: contiguous >= 60% of stream at 16k, paged >= 85% of contiguous,
// NZ >= 80% of ND, flash >= 3x the reference. Run with --benchmark_repetitions=N (default 5).
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "kernels/attention_reference.h"
#include "kernels/decode_contiguous.h"
#include "kernels/decode_nz.h"
#include "kernels/decode_paged.h"
#include "kernels/nz_pack.h"
#include "kernels/prefill_flash.h"
#include "kernels/simd16.h"
#include "kernels/write_kv.h"

namespace kvsim::kernels {
namespace {

constexpr size_t kStreamBytes = 2 * kGiB;  // far larger than the 260 MiB LLC
constexpr size_t kRotationBytes = kGiB;    // KV touched before a cache is reused
constexpr uint32_t kBlockSize = 16;
const AttentionShape kDecodeShape{32, 8, 128};
const AttentionShape kPrefillShape{8, 8, 128};

enum class Layout { kContiguous, kPaged, kNz };

// Large buffers on 2 MiB pages where the kernel allows it (madvise), for the stream buffer
// and the KV caches alike: the TLB then covers the whole working set, as in a serving engine's
// pinned KV pool.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: allocator rebind
  T* allocate(size_t n) {
    constexpr size_t kHugePage = 2 * kMiB;
    const size_t bytes = ceil_div(n * sizeof(T), kHugePage) * kHugePage;
    void* p = std::aligned_alloc(kHugePage, bytes);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  bool operator==(const HugePageAllocator&) const { return true; }
};
template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = uniform(rng);
  return x;
}

// ---------------------------------------------------------------------------------------------
void BM_StreamRead(benchmark::State& state) {
  static const HugeVector<float> buffer = [] {
    HugeVector<float> b(kStreamBytes / sizeof(float));
    const std::vector<float> pattern = random_floats(1 << 20, 1);
    for (size_t i = 0; i < b.size(); ++i) b[i] = pattern[i % pattern.size()];
    return b;
  }();
  for (auto _ : state) {
    Vec16 acc[4] = {zero16(), zero16(), zero16(), zero16()};
    const float* p = buffer.data();
    for (size_t i = 0; i + 4 * kLanes <= buffer.size(); i += 4 * kLanes) {
      for (int j = 0; j < 4; ++j) acc[j] = add16(acc[j], load16(p + i + j * kLanes));
    }
    float sum = reduce16(add16(add16(acc[0], acc[1]), add16(acc[2], acc[3])));
    benchmark::DoNotOptimize(sum);
  }
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(kStreamBytes),
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamRead)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// The KV caches of `copies` sequences of `tokens` tokens in one layout, built once per
// configuration and kept while its repetitions run.
template <KvElement T>
struct DecodeData {
  Layout layout;
  uint32_t tokens = 0;
  uint32_t copies = 0;
  HugeVector<T> k, v;                         // contiguous: copies x [tokens, 8, 128]
  std::vector<std::vector<uint32_t>> tables;  // paged / NZ: one block table per sequence
  BlockLayout block;
  std::vector<float> q = random_floats(kDecodeShape.q_width(), 2);
};

template <KvElement T>
std::unique_ptr<DecodeData<T>> make_decode_data(Layout layout, uint32_t tokens) {
  auto data = std::make_unique<DecodeData<T>>();
  data->layout = layout;
  data->tokens = tokens;
  const size_t kv_bytes = size_t{2} * tokens * kDecodeShape.kv_width() * sizeof(T);
  data->copies = static_cast<uint32_t>(std::max<size_t>(1, kRotationBytes / kv_bytes));
  data->block = {kBlockSize, kDecodeShape.kv_heads, kDecodeShape.head_dim, kLanes, kLanes};
  const uint32_t blocks_per_seq = tokens / kBlockSize;
  const size_t nd_elements = size_t{data->copies} * tokens * kDecodeShape.kv_width();
  std::vector<float> source = random_floats(std::min<size_t>(nd_elements, size_t{1} << 24), 3);
  HugeVector<T> nd(nd_elements);
  for (size_t i = 0; i < nd.size(); ++i) nd[i] = from_float<T>(source[i % source.size()]);
  if (layout != Layout::kContiguous) {  // shuffled block ids: sequences interleave in the pool
    std::vector<uint32_t> ids(size_t{data->copies} * blocks_per_seq);
    std::iota(ids.begin(), ids.end(), 0u);
    std::shuffle(ids.begin(), ids.end(), std::mt19937(4));
    for (uint32_t s = 0; s < data->copies; ++s) {
      data->tables.emplace_back(ids.begin() + size_t{s} * blocks_per_seq,
                                ids.begin() + size_t{s + 1} * blocks_per_seq);
    }
  }
  if (layout == Layout::kNz) {
    data->k.resize(nd.size());
    pack_nd_to_nz<T>(data->block, std::span<const T>(nd), std::span<T>(data->k));
    data->v = data->k;
  } else {
    data->k = nd;
    data->v = std::move(nd);
  }
  return data;
}

template <KvElement T>
void BM_Decode(benchmark::State& state, Layout layout) {
  static std::unique_ptr<DecodeData<T>> data;
  const uint32_t tokens = static_cast<uint32_t>(state.range(0));
  if (!data || data->layout != layout || data->tokens != tokens) {
    data.reset();
    data = make_decode_data<T>(layout, tokens);
  }
  std::vector<float> out(kDecodeShape.q_width());
  DecodeWorkspace ws;
  const size_t seq_elements = size_t{tokens} * kDecodeShape.kv_width();
  const PagedKv<const T> cache{data->block, data->k, data->v};
  uint32_t next = 0;
  for (auto _ : state) {
    DecodeSequence seq;
    seq.context_len = tokens;
    if (layout == Layout::kContiguous) {
      const ContiguousKv<T> kv{{data->k.data() + next * seq_elements, seq_elements},
                               {data->v.data() + next * seq_elements, seq_elements}};
      decode_attention_contiguous<T>(kDecodeShape, {&kv, 1}, {&seq, 1}, data->q, out, &ws);
    } else {
      seq.block_table = data->tables[next];
      if (layout == Layout::kPaged) {
        decode_attention_paged<T>(kDecodeShape, cache, {&seq, 1}, data->q, out, &ws);
      } else {
        decode_attention_nz<T>(kDecodeShape, cache, {&seq, 1}, data->q, out, &ws);
      }
    }
    benchmark::DoNotOptimize(out.data());
    next = (next + 1) % data->copies;
  }
  const double kv_bytes = 2.0 * seq_elements * sizeof(T);
  state.counters["GB/s"] =
      benchmark::Counter(kv_bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["sequences"] = data->copies;
}

void BM_DecodeFp32(benchmark::State& state, Layout layout) { BM_Decode<float>(state, layout); }
void BM_DecodeFp16(benchmark::State& state, Layout layout) {
  BM_Decode<Eigen::half>(state, layout);
}

#define KVSIM_DECODE_BENCH(function, name, layout) \
  BENCHMARK_CAPTURE(function, name, layout)        \
      ->Arg(1024)                                  \
      ->Arg(4096)                                  \
      ->Arg(16384)                                 \
      ->Unit(benchmark::kMicrosecond)              \
      ->UseRealTime()
KVSIM_DECODE_BENCH(BM_DecodeFp32, contiguous, Layout::kContiguous);
KVSIM_DECODE_BENCH(BM_DecodeFp32, paged, Layout::kPaged);
KVSIM_DECODE_BENCH(BM_DecodeFp32, nz, Layout::kNz);
KVSIM_DECODE_BENCH(BM_DecodeFp16, contiguous, Layout::kContiguous);
KVSIM_DECODE_BENCH(BM_DecodeFp16, paged, Layout::kPaged);
KVSIM_DECODE_BENCH(BM_DecodeFp16, nz, Layout::kNz);

// ---------------------------------------------------------------------------------------------
struct PrefillData {
  uint32_t tokens;
  std::vector<float> q, k, v;
  std::vector<uint32_t> table;
};

const PrefillData& prefill_data(uint32_t tokens) {
  static std::map<uint32_t, PrefillData> cache;
  auto it = cache.find(tokens);
  if (it == cache.end()) {
    PrefillData d{tokens, random_floats(size_t{tokens} * kPrefillShape.q_width(), 5),
                  random_floats(size_t{tokens} * kPrefillShape.kv_width(), 6),
                  random_floats(size_t{tokens} * kPrefillShape.kv_width(), 7),
                  std::vector<uint32_t>(tokens / kBlockSize)};
    std::iota(d.table.begin(), d.table.end(), 0u);
    std::shuffle(d.table.begin(), d.table.end(), std::mt19937(8));
    it = cache.emplace(tokens, std::move(d)).first;
  }
  return it->second;
}

void BM_PrefillFlash(benchmark::State& state) {
  const PrefillData& d = prefill_data(static_cast<uint32_t>(state.range(0)));
  const BlockLayout block{kBlockSize, kPrefillShape.kv_heads, kPrefillShape.head_dim, kLanes,
                          kLanes};
  std::vector<float> k(d.k.size()), v(d.v.size()), out(d.q.size());
  const PagedKv<float> cache{block, k, v};
  const KvWrite write{d.table, 0, d.tokens};
  write_kv_nd<float>(cache, {&write, 1}, d.k, d.v);
  const PrefillSequence seq{d.table, 0, d.tokens};
  FlashWorkspace ws;
  for (auto _ : state) {
    prefill_attention_flash<float>(kPrefillShape, cache, {&seq, 1}, d.q, out, &ws);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_PrefillFlash)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PrefillReference(benchmark::State& state) {
  const PrefillData& d = prefill_data(static_cast<uint32_t>(state.range(0)));
  std::vector<float> out(d.q.size());
  for (auto _ : state) {
    attention_reference(kPrefillShape, d.tokens, d.tokens, d.q, d.k, d.v, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_PrefillReference)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---------------------------------------------------------------------------------------------
// Collects the median of every benchmark (or the single run without repetitions).
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (!median && run.run_type == Run::RT_Aggregate) continue;
      const std::string name = run.run_name.str();
      if (!median && medians_.count(name) > 0 && has_median_.count(name) > 0) continue;
      const auto gbps = run.counters.find("GB/s");
      medians_[name] =
          gbps != run.counters.end() ? gbps->second.value / kGB : run.GetAdjustedRealTime();
      if (median) has_median_[name] = true;
    }
  }
  double get(const std::string& name) const {
    const auto it = medians_.find(name);
    return it == medians_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> medians_;  // GB/s (1e9 bytes/s), or real time (ms) for prefill
  std::map<std::string, bool> has_median_;
};

void print_target(const char* what, double value, double target) {
  std::printf("  %-52s %7.3f  (target >= %.2f)  %s\n", what, value, target,
              value >= target ? "met" : "MISSED");
}

void print_summary(const MedianCollector& m) {
  const double stream = m.get("BM_StreamRead/real_time");
  const auto decode = [&](const char* type, const char* layout, const char* tokens) {
    return m.get(std::string("BM_Decode") + type + "/" + layout + "/" + tokens + "/real_time");
  };
  std::printf("\nMedians: stream read %.2f GB/s\n", stream);
  for (const char* type : {"Fp32", "Fp16"}) {
    std::printf("decode %s, GB/s of KV read:\n", type);
    for (const char* tokens : {"1024", "4096", "16384"}) {
      std::printf("  %5s tokens: contiguous %6.2f (%3.0f%% of stream)  paged %6.2f  nz %6.2f\n",
                  tokens, decode(type, "contiguous", tokens),
                  100.0 * decode(type, "contiguous", tokens) / stream,
                  decode(type, "paged", tokens), decode(type, "nz", tokens));
    }
  }
  std::printf("targets:\n");
  for (const char* type : {"Fp32", "Fp16"}) {
    const double contiguous = decode(type, "contiguous", "16384");
    const double paged = decode(type, "paged", "16384");
    const double nz = decode(type, "nz", "16384");
    const std::string suffix = std::string(" (") + type + ", 16k)";
    print_target(("contiguous / stream" + suffix).c_str(), contiguous / stream, 0.60);
    print_target(("paged block 16 / contiguous" + suffix).c_str(), paged / contiguous, 0.85);
    print_target(("NZ / paged ND" + suffix).c_str(), nz / paged, 0.80);
  }
  const double flash = m.get("BM_PrefillFlash/2048/real_time");
  const double reference = m.get("BM_PrefillReference/2048/real_time");
  std::printf("prefill 2k tokens: flash %.1f ms, reference %.1f ms\n", flash, reference);
  print_target("flash speed-up over the reference (2k tokens)", reference / flash, 3.0);
}

}  // namespace
}  // namespace kvsim::kernels

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  std::string repetitions = "--benchmark_repetitions=5";
  bool has_repetitions = false;
  for (int i = 1; i < argc; ++i) {
    has_repetitions |= std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0;
  }
  if (!has_repetitions) args.push_back(repetitions.data());
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  kvsim::kernels::MedianCollector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  kvsim::kernels::print_summary(collector);
  benchmark::Shutdown();
  return 0;
}

// FlatIdMap (core/base/flat_id_map.h) against absl::flat_hash_map<uint64_t, uint32_t>, at the sizes
// the simulator gives it: a prefix cache of ~30k blocks (HBM) and the tier tables of 149,796
// (DRAM) and 1,198,372 (SSD) blocks of tiered-prefix-pool, with random 64-bit keys (block
// hashes). Each map is sized for its entries up front, as BlockPool does. docs/flat_id_map.md
// has the medians and the conclusion.
//
//   BM_Insert           builds a map of n entries from empty (construction included)
//   BM_FindHit          looks up present keys in random order
//   BM_FindHitPrefetch  the same, prefetching 16 keys ahead as the simulator's loops do
//   BM_FindMiss         looks up absent keys
//   BM_Erase            erases all n entries in random order
//   BM_EvictInsert      a full map: erase the oldest key, insert a new one (the block pool
//                       evicting a cached block's hash and caching the new block's)
// items_per_second counts map operations; <Kvsim> is FlatIdMap, <Absl> absl::flat_hash_map.
#include <absl/container/flat_hash_map.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "core/base/flat_id_map.h"

namespace {

constexpr uint32_t kEmpty = kvsim::FlatIdMap::kEmpty;
constexpr int kPrefetchAhead = 16;  // the simulator's prefetch_ahead<16> for prefix lookups
constexpr uint32_t kLookupsPerIteration = 1024;

// The two maps behind one interface; both are built with room for `entries`.
class Kvsim {
 public:
  explicit Kvsim(uint32_t entries) : map_(entries) {}
  bool insert(uint64_t key, uint32_t value) { return map_.insert(key, value); }
  uint32_t find(uint64_t key) const { return map_.find(key); }
  bool erase(uint64_t key) { return map_.erase(key); }
  void prefetch(uint64_t key) const { map_.prefetch(key); }

 private:
  kvsim::FlatIdMap map_;
};

class Absl {
 public:
  explicit Absl(uint32_t entries) { map_.reserve(entries); }
  bool insert(uint64_t key, uint32_t value) { return map_.try_emplace(key, value).second; }
  uint32_t find(uint64_t key) const {
    const auto it = map_.find(key);
    return it == map_.end() ? kEmpty : it->second;
  }
  bool erase(uint64_t key) { return map_.erase(key) == 1; }
  void prefetch(uint64_t key) const { map_.prefetch(key); }

 private:
  absl::flat_hash_map<uint64_t, uint32_t> map_;
};

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// n distinct random keys: key i is splitmix64(salt + i), a bijection of the counter, so keys
// of one salt never repeat and two salts far apart never meet.
std::vector<uint64_t> random_keys(size_t n, uint64_t salt) {
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = splitmix64(salt + i);
  return keys;
}

constexpr uint64_t kPresentSalt = 0;
constexpr uint64_t kAbsentSalt = uint64_t{1} << 62;
constexpr uint64_t kFreshSalt = uint64_t{2} << 62;

template <typename Map>
void fill(Map& map, const std::vector<uint64_t>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) map.insert(keys[i], static_cast<uint32_t>(i));
}

std::vector<uint64_t> shuffled(std::vector<uint64_t> keys) {
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(42));
  return keys;
}

template <typename Map>
void BM_Insert(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const std::vector<uint64_t> keys = random_keys(n, kPresentSalt);
  std::optional<Map> map;
  for (auto _ : state) {
    map.emplace(n);
    fill(*map, keys);
    state.PauseTiming();
    map.reset();  // freeing is not part of building
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}

// kLookupsPerIteration lookups of `probes` (cycled) per iteration, optionally prefetching.
template <typename Map, bool kPrefetch>
void lookups(benchmark::State& state, const Map& map, const std::vector<uint64_t>& probes) {
  size_t next = 0;
  uint64_t checksum = 0;
  for (auto _ : state) {
    for (uint32_t i = 0; i < kLookupsPerIteration; ++i) {
      if constexpr (kPrefetch) map.prefetch(probes[(next + kPrefetchAhead) % probes.size()]);
      checksum += map.find(probes[next]);
      next = next + 1 == probes.size() ? 0 : next + 1;
    }
  }
  benchmark::DoNotOptimize(checksum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kLookupsPerIteration);
}

template <typename Map, bool kPrefetch>
void BM_FindHitImpl(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const std::vector<uint64_t> keys = random_keys(n, kPresentSalt);
  Map map(n);
  fill(map, keys);
  lookups<Map, kPrefetch>(state, map, shuffled(keys));
}

template <typename Map>
void BM_FindHit(benchmark::State& state) {
  BM_FindHitImpl<Map, false>(state);
}

template <typename Map>
void BM_FindHitPrefetch(benchmark::State& state) {
  BM_FindHitImpl<Map, true>(state);
}

template <typename Map>
void BM_FindMiss(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  Map map(n);
  fill(map, random_keys(n, kPresentSalt));
  lookups<Map, false>(state, map, random_keys(n, kAbsentSalt));
}

template <typename Map>
void BM_Erase(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const std::vector<uint64_t> keys = random_keys(n, kPresentSalt);
  const std::vector<uint64_t> order = shuffled(keys);
  Map map(n);
  for (auto _ : state) {
    state.PauseTiming();
    fill(map, keys);
    state.ResumeTiming();
    for (uint64_t key : order) map.erase(key);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}

// A full map and the ring of its keys, oldest first: each step erases the oldest and inserts
// a new key in its place. Counted as two operations.
template <typename Map>
void BM_EvictInsert(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  std::vector<uint64_t> ring = random_keys(n, kPresentSalt);
  Map map(n);
  fill(map, ring);
  size_t oldest = 0;
  uint64_t fresh = kFreshSalt;
  for (auto _ : state) {
    for (uint32_t i = 0; i < kLookupsPerIteration; ++i) {
      map.erase(ring[oldest]);
      ring[oldest] = splitmix64(fresh++);
      map.insert(ring[oldest], static_cast<uint32_t>(oldest));
      oldest = oldest + 1 == ring.size() ? 0 : oldest + 1;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kLookupsPerIteration * 2);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (const int64_t n : {30'000, 149'796, 1'198'372}) b->Arg(n);
}

BENCHMARK_TEMPLATE(BM_Insert, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Insert, Absl)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindHit, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindHit, Absl)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindHitPrefetch, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindHitPrefetch, Absl)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindMiss, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_FindMiss, Absl)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Erase, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_Erase, Absl)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_EvictInsert, Kvsim)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_EvictInsert, Absl)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();

// The paged KV cache's hot paths: allocate + free cycles of 32-block requests, prefix hits on a
// cached 32-block prefix, and forks with copy-on-write, for every eviction policy; plus the
// raw BlockPool for reference, and a lower tier (TierPool) storing what HBM evicts.
//
// Counters:
//   block_ops       block operations per second (one per block allocated, released, looked
//                   up, touched, shared or copied); the target is >= 20 M/s.
//                   BM_DecodeTokens counts decode tokens (allocate_slots calls) instead.
//   allocs_per_op   heap allocations per block operation made by the measured code, counted
//                   by the replacement global operator new below (every new / new[] /
//                   make_unique / vector growth in this process goes through it) around each
//                   iteration's body, so the benchmark library's own bookkeeping is excluded.
//                   Target: 0 in steady state, i.e. after the untimed warm-up iterations.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdlib>
#include <new>
#include <string>

#include "core/cache/block_pool.h"
#include "core/cache/kv_cache_manager.h"
#include "core/cache/prefix_hash.h"
#include "core/cache/tier_pool.h"

namespace {

uint64_t g_num_allocations = 0;  // benchmarks are single-threaded

}  // namespace

void* operator new(std::size_t size) {
  ++g_num_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC sees free() on memory from "operator new" once these are inlined and warns; they are
// the replacement pair, so the pairing is right.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

using kvsim::BlockHash;
using kvsim::BlockId;
using kvsim::KvCacheManager;
using kvsim::RequestId;

constexpr uint32_t kBlockSize = 16;
constexpr uint32_t kRequestBlocks = 32;
constexpr uint32_t kPoolBlocks = 4096;
const kvsim::EvictionKind kPolicies[] = {kvsim::EvictionKind::kLru, kvsim::EvictionKind::kLfu,
                                         kvsim::EvictionKind::kFifo, kvsim::EvictionKind::kNone};

KvCacheManager make_cache(int64_t policy) {
  kvsim::KvCacheConfig config;
  config.num_blocks = kPoolBlocks;
  config.block_size = kBlockSize;
  config.eviction = kPolicies[policy];
  return std::move(KvCacheManager::create(config)).value();
}

// Runs `body` a few times untimed (so vectors reach their steady capacity), then times it and
// reports block ops/s and allocations per block op.
// `label`: the policy of state.range(0) unless given.
template <typename Body>
void run_timed(benchmark::State& state, uint64_t ops_per_iteration, Body body,
               const std::string& label = "") {
  for (uint32_t i = 0; i < 2 * kPoolBlocks / kRequestBlocks; ++i) body();
  uint64_t allocations = 0;
  for (auto _ : state) {
    const uint64_t before = g_num_allocations;
    body();
    allocations += g_num_allocations - before;
  }
  const double ops = static_cast<double>(state.iterations() * ops_per_iteration);
  state.counters["block_ops"] = benchmark::Counter(ops, benchmark::Counter::kIsRate);
  state.counters["allocs_per_op"] = static_cast<double>(allocations) / ops;
  state.SetLabel(label.empty() ? std::string(kvsim::eviction_name(kPolicies[state.range(0)]))
                               : label);
}

// add_request + allocate_slots(512 tokens) + free: 32 blocks allocated (each evicting a cached
// block once the pool has filled with unique prefixes) and 32 released.
void BM_AllocateFreeCycle(benchmark::State& state) {
  KvCacheManager cache = make_cache(state.range(0));
  std::array<BlockHash, kRequestBlocks> hashes{};
  RequestId id = 0;
  run_timed(state, 2 * kRequestBlocks, [&] {
    for (uint32_t i = 0; i < kRequestBlocks; ++i) hashes[i] = id * kRequestBlocks + i;
    cache.add_request(id, kRequestBlocks * kBlockSize, hashes);
    benchmark::DoNotOptimize(cache.allocate_slots(id, kRequestBlocks * kBlockSize));
    cache.free(id++);
  });
}
BENCHMARK(BM_AllocateFreeCycle)->DenseRange(0, 3);

// A request whose 32-block prompt is cached: get_computed_blocks (32 lookups), allocate_slots
// taking the hit (32 lookups + 32 touches + 1 new block for the last token), free (33).
void BM_PrefixHit(benchmark::State& state) {
  KvCacheManager cache = make_cache(state.range(0));
  std::array<BlockHash, kRequestBlocks> hashes{};
  for (uint32_t i = 0; i < kRequestBlocks; ++i) hashes[i] = 1'000'000 + i;
  const uint64_t prompt_tokens = kRequestBlocks * kBlockSize + 1;
  cache.add_request(0, prompt_tokens, hashes);
  benchmark::DoNotOptimize(cache.allocate_slots(0, prompt_tokens));
  cache.free(0);
  RequestId id = 1;
  run_timed(state, 4 * kRequestBlocks + 2, [&] {
    cache.add_request(id, prompt_tokens, hashes);
    const kvsim::PrefixHit hit = cache.get_computed_blocks(id);
    benchmark::DoNotOptimize(cache.allocate_slots(id, prompt_tokens - hit.num_tokens, hit));
    cache.free(id++);
  });
}
BENCHMARK(BM_PrefixHit)->DenseRange(0, 3);

// fork of a 32-block sequence whose last block is partial (32 shares), one decode token in the
// child (copy-on-write: 1 block allocated, 1 released), free of the child (32 releases).
void BM_ForkCopyOnWrite(benchmark::State& state) {
  KvCacheManager cache = make_cache(state.range(0));
  cache.add_request(0, (kRequestBlocks - 1) * kBlockSize + 1, {});
  benchmark::DoNotOptimize(cache.allocate_slots(0, (kRequestBlocks - 1) * kBlockSize + 1));
  RequestId id = 1;
  run_timed(state, 2 * kRequestBlocks + 2, [&] {
    cache.fork(0, id);
    benchmark::DoNotOptimize(cache.allocate_slots(id, 1));
    cache.free(id++);
  });
}
BENCHMARK(BM_ForkCopyOnWrite)->DenseRange(0, 3);

// What a simulator's decode loop costs: a 1-block prompt, then 511 decode tokens one
// allocate_slots call each (a new block every 16 tokens, its hash registered), then free.
// Counted per token (one allocate_slots call), not per block.
void BM_DecodeTokens(benchmark::State& state) {
  KvCacheManager cache = make_cache(state.range(0));
  constexpr uint32_t kTokens = kRequestBlocks * kBlockSize;
  RequestId id = 0;
  run_timed(state, kTokens, [&] {
    cache.add_request(id, kBlockSize, {});
    benchmark::DoNotOptimize(cache.allocate_slots(id, kBlockSize));
    for (uint32_t t = kBlockSize; t < kTokens; ++t) {
      benchmark::DoNotOptimize(cache.allocate_slots(id, 1));
      if ((t + 1) % kBlockSize == 0) {
        const BlockHash hash = id * kRequestBlocks + t / kBlockSize;
        cache.append_block_hashes(id, std::span(&hash, 1));
      }
    }
    cache.free(id++);
  });
}
BENCHMARK(BM_DecodeTokens)->DenseRange(0, 3);

// The BlockPool alone: allocate 32 blocks, register each, release them tail first.
void BM_PoolAllocateRelease(benchmark::State& state) {
  kvsim::BlockPool pool(kPoolBlocks,
                        kvsim::make_eviction_policy(kPolicies[state.range(0)], kPoolBlocks));
  std::array<BlockId, kRequestBlocks> blocks{};
  uint64_t next_hash = 0;
  run_timed(state, 2 * kRequestBlocks, [&] {
    for (BlockId& block : blocks) {
      block = pool.allocate();
      pool.cache(block, next_hash++);
    }
    for (uint32_t i = kRequestBlocks; i-- > 0;) pool.release(blocks[i]);
  });
}
BENCHMARK(BM_PoolAllocateRelease)->DenseRange(0, 3);

// A full lru tier of state.range(0) slots (149,796 and 1,198,372: tiered-prefix-pool's DRAM
// and SSD) taking batches of 64 blocks evicted from above, 48 new and 16 already here
// (refreshed), as the simulator's tiers do; block_ops counts blocks arriving. The tier's
// evictions are dropped (no tier below). Tiers larger than the cache miss on most lookups:
// this is the per-block cost that makes tiered simulations slower than HBM-only ones.
void BM_TierStore(benchmark::State& state) {
  const auto slots = static_cast<uint32_t>(state.range(0));
  auto tier = std::move(kvsim::TierPool::create("dram", slots, kvsim::EvictionKind::kLru)).value();
  constexpr uint32_t kBatch = 64;
  constexpr uint32_t kNew = 48;
  std::array<BlockHash, kBatch> batch{};
  uint64_t next = 0;
  const auto hash = [](uint64_t i) { return kvsim::hash_combine(kvsim::kPrefixHashSeed, i); };
  while (next < slots) {  // fill it first, untimed
    for (uint32_t i = 0; i < kBatch; ++i) batch[i] = hash(next++);
    tier->on_evicted(batch);
  }
  uint64_t round = 0;
  run_timed(
      state, kBatch,
      [&] {
        for (uint32_t i = 0; i < kNew; ++i) batch[i] = hash(next++);
        // Re-arrivals from the newest quarter of the tier, 16 distinct ones per batch.
        const uint64_t base = next - kNew - slots / 4 + (round++ * 7919) % (slots / 4 - 2 * kBatch);
        for (uint32_t i = kNew; i < kBatch; ++i) batch[i] = hash(base + (i - kNew) * 3);
        tier->on_evicted(batch);
      },
      "lru tier, " + std::to_string(slots) + " slots");
}
BENCHMARK(BM_TierStore)->Arg(149'796)->Arg(1'198'372);

}  // namespace

BENCHMARK_MAIN();

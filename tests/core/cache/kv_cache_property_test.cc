// A seeded random driver for KvCacheManager: 1,000,000 operations (admit with prefix hits,
// decode appends, forks with copy-on-write, free, preempt, swap out/in, retention trims with
// and without scores) with check_invariants() after every one, all-or-nothing checked on
// every failed allocation, and a digest of every outcome so that the same seed gives the
// same result (in every build: the digest is pinned).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <unordered_map>

#include "core/cache/kv_cache_manager.h"
#include "core/cache/prefix_hash.h"
#include "tests/core/cache/policy_text.h"

namespace kvsim {
namespace {

constexpr uint32_t kBlockSize = 4;

struct DriverOptions {
  const char* eviction = "lru";
  const char* retention = nullptr;  // automatic trim in allocate_slots
  uint64_t seed = 1;
  uint64_t num_ops = 0;
};

class CacheDriver {
 public:
  explicit CacheDriver(const DriverOptions& options) : rng_(options.seed) {
    KvCacheConfig config;
    config.num_blocks = 40;  // 39 usable: block 0 is the null block
    config.block_size = kBlockSize;
    config.eviction = eviction_of(options.eviction);
    config.num_host_blocks = 24;
    config.bytes_per_block = 4096;
    if (options.retention != nullptr) {
      config.retention = retention_of(options.retention);
    }
    cache_.emplace(std::move(KvCacheManager::create(config)).value());
    for (const char* spec : {"window:10", "sink:4,8", "h2o:4,8", "full"}) {
      trim_policies_.push_back(retention_of(spec));
    }
  }

  // Runs `num_ops` random operations; returns the digest of all outcomes.
  uint64_t run(uint64_t num_ops) {
    for (uint64_t op = 0; op < num_ops; ++op) {
      step();
      cache_->check_invariants();
    }
    // Nothing leaks: freeing every request frees every block and the host tier.
    for (RequestId id : live_) cache_->free(id);
    cache_->check_invariants();
    const KvCacheStats stats = cache_->stats();
    EXPECT_EQ(stats.num_used_blocks, 0u);
    EXPECT_EQ(stats.num_host_used_blocks, 0u);
    EXPECT_EQ(stats.num_requests, 0u);
    for (uint64_t value : {stats.num_prefix_hit_tokens, stats.num_evictions, stats.num_cow_copies,
                           stats.num_trimmed_blocks, stats.swap_out_bytes, stats.swap_in_bytes}) {
      mix(value);
    }
    return digest_;
  }

  const KvCacheStats stats() const { return cache_->stats(); }

 private:
  uint64_t uniform(uint64_t n) { return rng_() % n; }
  void mix(uint64_t value) { digest_ = hash_combine(digest_, value); }

  void step() {
    const uint64_t dice = uniform(100);
    if (live_.empty() || (dice < 14 && live_.size() < 14)) return add();
    const RequestId id = live_[uniform(live_.size())];
    mix(dice);
    if (dice < 50) return decode(id);
    if (dice < 58) return admit(id);
    if (dice < 64) return fork(id);
    if (dice < 74) return finish(id);
    if (dice < 78) return preempt(id);
    if (dice < 84) return swap(id);
    if (dice < 92) return trim(id);
    mix(cache_->has_request(id) && cache_->num_tokens(id) == 0 && !cache_->is_swapped(id)
            ? cache_->get_computed_blocks(id).num_tokens
            : 1);
  }

  // A new request whose prompt shares up to 24 tokens with one of four prompt families.
  void add() {
    const RequestId id = next_id_++;
    const uint64_t family = uniform(4);
    const uint64_t shared = uniform(25);
    std::vector<int32_t>& tokens = tokens_[id];
    const uint64_t length = 1 + uniform(30);
    for (uint64_t i = 0; i < length; ++i) {
      tokens.push_back(i < shared ? static_cast<int32_t>(family * 1000 + i)
                                  : static_cast<int32_t>(uniform(50'000)));
    }
    std::vector<BlockHash> hashes;
    hash_token_blocks(tokens, kBlockSize, &hashes);
    cache_->add_request(id, tokens.size(), hashes);
    hashed_[id] = hashes.size();
    live_.push_back(id);
    admit(id);
  }

  // A waiting request takes its prefix hit and allocates the rest of its known tokens.
  void admit(RequestId id) {
    if (cache_->num_tokens(id) != 0 || cache_->is_swapped(id)) return decode(id);
    const PrefixHit hit = cache_->get_computed_blocks(id);
    const uint64_t known = tokens_[id].size();
    expect_all_or_nothing(id, known - hit.num_tokens, hit);
  }

  // One to three decode tokens; hashes for every block they fill.
  void decode(RequestId id) {
    if (cache_->num_tokens(id) == 0 || cache_->is_swapped(id)) return;
    const uint64_t count = 1 + uniform(3);
    std::vector<int32_t>& tokens = tokens_[id];
    if (tokens.size() > 200) return finish(id);
    if (!expect_all_or_nothing(id, count, PrefixHit{})) return;
    // Tokens beyond the slots held were known before a preemption; new ones are random.
    while (tokens.size() < cache_->num_tokens(id))
      tokens.push_back(static_cast<int32_t>(uniform(50'000)));
    std::vector<BlockHash> hashes;
    const uint64_t full = tokens.size() / kBlockSize;
    for (uint64_t& b = hashed_[id]; b < full; ++b) {
      const BlockHash parent = b == 0 ? kPrefixHashSeed : last_hash_[id];
      last_hash_[id] =
          hash_block_tokens(parent, std::span(tokens).subspan(b * kBlockSize, kBlockSize));
      hashes.push_back(last_hash_[id]);
    }
    cache_->append_block_hashes(id, hashes);
  }

  // Allocates and checks that a failure changed nothing. Returns success.
  bool expect_all_or_nothing(RequestId id, uint64_t num_tokens, const PrefixHit& hit) {
    const std::span<const BlockId> table = cache_->block_table(id);
    const std::vector<BlockId> before(table.begin(), table.end());
    const uint64_t tokens_before = cache_->num_tokens(id);
    const uint32_t free_before = cache_->num_free_blocks();
    const std::optional<SlotAllocation> allocation = cache_->allocate_slots(id, num_tokens, hit);
    mix(allocation.has_value() ? allocation->num_new_blocks + 1 : 0);
    if (allocation.has_value()) {
      for (BlockId block : cache_->block_table(id)) mix(block);
      return true;
    }
    const std::span<const BlockId> after = cache_->block_table(id);
    EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin(), after.end()));
    EXPECT_EQ(cache_->num_tokens(id), tokens_before);
    EXPECT_EQ(cache_->num_free_blocks(), free_before);
    return false;
  }

  void fork(RequestId id) {
    if (cache_->is_swapped(id) || live_.size() >= 14) return;
    const RequestId child = next_id_++;
    cache_->fork(id, child);
    tokens_[child] = tokens_[id];
    hashed_[child] = hashed_[id];
    last_hash_[child] = last_hash_[id];
    live_.push_back(child);
    decode(child);  // usually writes into the shared partial block: copy-on-write
  }

  void finish(RequestId id) {
    cache_->free(id);
    std::erase(live_, id);
    tokens_.erase(id);
    hashed_.erase(id);
    last_hash_.erase(id);
  }

  // The request keeps its tokens; admit() recomputes them after a prefix hit.
  void preempt(RequestId id) { cache_->preempt(id); }

  void swap(RequestId id) {
    const std::optional<uint64_t> bytes =
        cache_->is_swapped(id) ? cache_->swap_in(id) : cache_->swap_out(id);
    mix(bytes.has_value() ? *bytes + 1 : 0);
  }

  void trim(RequestId id) {
    if (cache_->is_swapped(id)) return;
    const RetentionPolicy& policy = *trim_policies_[uniform(trim_policies_.size())];
    std::vector<float> scores;
    if (policy.uses_scores() && uniform(2) == 0) {
      for (uint64_t i = 0; i < cache_->num_tokens(id); ++i)
        scores.push_back(static_cast<float>(uniform(100)));
    }
    mix(cache_->trim(id, policy, scores));
  }

  std::mt19937_64 rng_;
  std::optional<KvCacheManager> cache_;
  std::vector<std::shared_ptr<const RetentionPolicy>> trim_policies_;
  std::vector<RequestId> live_;
  // Looked up by id only: iteration order never decides anything.
  std::unordered_map<RequestId, std::vector<int32_t>> tokens_;
  std::unordered_map<RequestId, uint64_t> hashed_;      // full blocks whose hash was given
  std::unordered_map<RequestId, BlockHash> last_hash_;  // hash of the last of them
  RequestId next_id_ = 0;
  uint64_t digest_ = kPrefixHashSeed;
};

uint64_t run_driver(const DriverOptions& options) {
  CacheDriver driver(options);
  const uint64_t digest = driver.run(options.num_ops);
  const KvCacheStats stats = driver.stats();
  // The run exercised every path, not just the easy ones.
  const bool caching = std::string(options.eviction) != "none";
  EXPECT_EQ(stats.num_prefix_hit_tokens > 0, caching);
  EXPECT_GT(stats.num_cow_copies, 0u);
  EXPECT_GT(stats.num_swap_outs, 0u);
  EXPECT_GT(stats.num_swap_ins, 0u);
  EXPECT_GT(stats.num_trimmed_blocks, 0u);
  EXPECT_GT(stats.num_preemptions, 0u);
  EXPECT_EQ(stats.num_evictions > 0, caching);
  std::printf(
      "%s: hit %llu/%llu tokens, %llu evictions, %llu copies, %llu trimmed, %llu swaps "
      "out, %llu in, %llu preemptions\n",
      options.eviction, static_cast<unsigned long long>(stats.num_prefix_hit_tokens),
      static_cast<unsigned long long>(stats.num_prefix_query_tokens),
      static_cast<unsigned long long>(stats.num_evictions),
      static_cast<unsigned long long>(stats.num_cow_copies),
      static_cast<unsigned long long>(stats.num_trimmed_blocks),
      static_cast<unsigned long long>(stats.num_swap_outs),
      static_cast<unsigned long long>(stats.num_swap_ins),
      static_cast<unsigned long long>(stats.num_preemptions));
  return digest;
}

TEST(KvCacheProperty, OneMillionRandomOperationsKeepEveryInvariant) {
  DriverOptions options;
  options.eviction = "lru";
  options.retention = "sink:4,40";
  options.seed = 20240611;
  options.num_ops = 1'000'000;
  const uint64_t digest = run_driver(options);
  // Same seed, same result, in every build type: a change here means behaviour changed (it
  // did with vLLM's null block, single lru queue and several blocks per hash: issue 20).
  EXPECT_EQ(digest, 0x96e43c050cc2f1b3ull) << std::hex << digest;
}

TEST(KvCacheProperty, SameSeedSameResultEveryPolicy) {
  for (const char* eviction : {"lru", "lfu", "fifo", "none"}) {
    DriverOptions options;
    options.eviction = eviction;
    options.seed = 7;
    options.num_ops = 50'000;
    const uint64_t first = run_driver(options);
    EXPECT_EQ(run_driver(options), first) << eviction;
    options.seed = 8;
    EXPECT_NE(run_driver(options), first) << eviction;
  }
}

}  // namespace
}  // namespace kvsim

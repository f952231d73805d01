#include "core/cache/block_demo.h"

#include <algorithm>
#include <numeric>

#include "core/base/check.h"
#include "core/base/enum_names.h"
#include "core/cache/prefix_hash.h"

namespace kvsim {
namespace {

constexpr uint32_t kDemoBlocks = 17;  // block 0 is the null block: 16 are lent out
constexpr uint32_t kDemoBlockSize = 4;

// The system prompt (8 tokens) followed by `own` tokens unique to the request.
std::vector<int32_t> prompt(int32_t own_first, int own) {
  std::vector<int32_t> tokens(8 + own);
  std::iota(tokens.begin(), tokens.begin() + 8, 1000);
  std::iota(tokens.begin() + 8, tokens.end(), own_first);
  return tokens;
}

std::vector<BlockHash> block_hashes(const std::vector<int32_t>& tokens) {
  std::vector<BlockHash> out;
  hash_token_blocks(tokens, kDemoBlockSize, &out);
  return out;
}

// Runs the scenario's operations against one manager and records a step after each.
class DemoRecorder {
 public:
  explicit DemoRecorder(KvCacheManager cache) : cache_(std::move(cache)) {
    cache_.set_event_log(&events_);
  }
  ~DemoRecorder() { cache_.set_event_log(nullptr); }
  DemoRecorder(const DemoRecorder&) = delete;
  DemoRecorder& operator=(const DemoRecorder&) = delete;

  KvCacheManager& cache() { return cache_; }
  void add(RequestId id) { live_.push_back(id); }
  void remove(RequestId id) { std::erase(live_, id); }

  // Admits a request: prefix hit, then slots for the rest of its prompt.
  bool admit(RequestId id) {
    const PrefixHit hit = cache_.get_computed_blocks(id);
    const uint64_t rest = known_.at(id) - hit.num_tokens;
    return cache_.allocate_slots(id, rest, hit).has_value();
  }
  void set_known(RequestId id, uint64_t tokens) { known_[id] = tokens; }

  void record(std::string action, std::string note, std::vector<DemoStep>* steps) {
    cache_.check_invariants();
    DemoStep step;
    step.action = std::move(action);
    step.note = std::move(note);
    if (!cache_.pool().caches_prefixes()) {
      step.note += " (Prefix caching is off in this run: nothing is cached, hit or evicted.)";
    }
    step.events = events_;
    events_.clear();
    std::sort(live_.begin(), live_.end());
    for (RequestId id : live_) {
      const std::span<const BlockId> table = cache_.block_table(id);
      step.requests.push_back({id, cache_.num_tokens(id), {table.begin(), table.end()}});
    }
    for (BlockId block = 0; block < cache_.pool().num_blocks(); ++block) {
      step.blocks.push_back(
          {block, cache_.pool().ref_count(block), cache_.pool().block_hash(block)});
    }
    cache_.pool().eviction_order(&step.free_queue);
    step.stats = cache_.stats();
    steps->push_back(std::move(step));
  }

 private:
  KvCacheManager cache_;
  std::vector<CacheEvent> events_;
  std::vector<RequestId> live_;
  std::vector<uint64_t> known_ = std::vector<uint64_t>(8, 0);
};

void arrive(DemoRecorder& demo, RequestId id, const std::vector<int32_t>& tokens) {
  demo.cache().add_request(id, tokens.size(), block_hashes(tokens));
  demo.set_known(id, tokens.size());
  demo.add(id);
}

// Steps 1-5: sharing a prefix, forking, copy-on-write.
void run_sharing(DemoRecorder& demo, std::vector<DemoStep>* steps) {
  const std::vector<int32_t> tokens1 = prompt(1, 6);
  arrive(demo, 1, tokens1);
  KVSIM_CHECK(demo.admit(1), "demo: request 1 fits");
  demo.record("request 1 arrives with 14 prompt tokens (8 system prompt + 6 own)",
              "4 blocks of 4 tokens (block 0 is the null block, never handed out); the 3 full "
              "blocks are cached under their prefix hashes as soon as they are allocated, the "
              "partial 4th block is not.",
              steps);
  arrive(demo, 2, prompt(101, 5));
  KVSIM_CHECK(demo.admit(2), "demo: request 2 fits");
  demo.record("request 2 arrives with 13 prompt tokens sharing the 8-token system prompt",
              "Prefix hit: the 2 system-prompt blocks are taken from the cache (ref count 2); "
              "only tokens 8-12 are computed, in 2 new blocks.",
              steps);
  demo.cache().fork(1, 3);
  demo.add(3);
  demo.record("request 1 forks request 3 (parallel sampling)",
              "The child shares every block of its parent: ref counts rise, nothing is copied.",
              steps);
  KVSIM_CHECK(demo.cache().allocate_slots(3, 1).has_value(), "demo: request 3 decodes");
  demo.record("request 3 decodes 1 token into the shared, partially filled block 4",
              "Copy-on-write: block 4 is shared, so request 3 first copies its 2 tokens into a "
              "new block and writes there; request 1 keeps block 4.",
              steps);
  KVSIM_CHECK(demo.cache().allocate_slots(1, 2).has_value(), "demo: request 1 decodes");
  std::vector<int32_t> decoded = tokens1;
  decoded.push_back(7);
  decoded.push_back(8);
  const std::vector<BlockHash> hashes = block_hashes(decoded);
  demo.cache().append_block_hashes(1, std::span(hashes).subspan(3, 1));
  demo.set_known(1, decoded.size());
  demo.record("request 1 decodes 2 tokens",
              "Block 4 is now full and cached; no copy is needed "
              "since request 1 holds it alone.",
              steps);
}

// Steps 6-11: no room, preemption, eviction, resumption.
void run_pressure(DemoRecorder& demo, std::vector<DemoStep>* steps) {
  std::vector<int32_t> long_prompt(44);
  std::iota(long_prompt.begin(), long_prompt.end(), 5000);
  arrive(demo, 4, long_prompt);
  KVSIM_CHECK(!demo.admit(4), "demo: request 4 must not fit yet");
  demo.record("request 4 arrives with 44 prompt tokens (11 blocks) but only 9 blocks are free",
              "allocate_slots is all-or-nothing: it returns no allocation and changes nothing. "
              "The scheduler must preempt a request.",
              steps);
  demo.cache().preempt(2);
  demo.record("the scheduler preempts request 2 (recompute)",
              "Its blocks are released tail first to the back of the free queue: the partial "
              "block, then the full one, which stays cached; the shared head is still held by "
              "requests 1 and 3.",
              steps);
  KVSIM_CHECK(demo.admit(4), "demo: request 4 fits after the preemption");
  demo.record("request 4 is admitted",
              "Blocks are reused in free-queue order: the 9 never used, request 2's partial "
              "block, then its cached block, which is evicted (its hash leaves the prefix "
              "cache).",
              steps);
  demo.cache().free(4);
  demo.remove(4);
  demo.record("request 4 finishes",
              "Its blocks return tail first: its last block will be "
              "evicted first, its first block last.",
              steps);
  KVSIM_CHECK(demo.admit(2), "demo: request 2 resumes");
  demo.record("request 2 resumes",
              "The system-prompt blocks are still cached (hit); the "
              "evicted block must be recomputed.",
              steps);
  for (RequestId id : {1, 2, 3}) {
    demo.cache().free(id);
    demo.remove(id);
  }
  demo.record("requests 1, 2 and 3 finish",
              "Every block is free; the cached ones stay "
              "findable until the free queue reaches them.",
              steps);
}

}  // namespace

StatusOr<BlockDemo> run_block_demo(EvictionKind eviction) {
  KvCacheConfig config;
  config.num_blocks = kDemoBlocks;
  config.block_size = kDemoBlockSize;
  config.eviction = eviction;
  KVSIM_ASSIGN_OR_RETURN(KvCacheManager cache, KvCacheManager::create(config));
  BlockDemo demo;
  demo.num_blocks = kDemoBlocks;
  demo.block_size = kDemoBlockSize;
  demo.eviction = config.eviction;
  DemoRecorder recorder(std::move(cache));
  run_sharing(recorder, &demo.steps);
  run_pressure(recorder, &demo.steps);
  return demo;
}

DemoBlockState demo_block_state(const DemoBlock& block) {
  if (block.id == kReservedNullBlock) return DemoBlockState::kNull;  // the demo's is a device pool
  if (block.ref_count > 0) return DemoBlockState::kUsed;
  return block.hash.has_value() ? DemoBlockState::kCachedFree : DemoBlockState::kFree;
}

std::string_view demo_block_state_name(DemoBlockState state) {
  static constexpr EnumNames<DemoBlockState, 4> kNames{{{
      {DemoBlockState::kUsed, "used"},
      {DemoBlockState::kCachedFree, "cached_free"},
      {DemoBlockState::kFree, "free"},
      {DemoBlockState::kNull, "null"},
  }}};
  return kNames.name(state);
}

}  // namespace kvsim

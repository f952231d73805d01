// FreeBlockQueue's cost claims (core/cache/free_block_queue.h), checked by counting instead of
// timing: the only work that is not O(1) per call is rewriting a ring (compacting it or
// doubling it), and each rewrite allocates the new ring, so the entries allocated measure
// that work exactly. A replacement operator new counts them while `g_counting` is set, which
// is why this suite is an executable of its own.
//
// The bound, from make_room(): a rewrite happens when every position of a ring of capacity C
// is in use. A compaction (at least half of it stale) keeps the capacity and at most C / 2
// live entries, so at least C / 2 pushes came since the ring was last rewritten: compactions
// allocate at most 2 entries per push. A doubling (more than half live) allocates 2C, and
// doublings are geometric: together at most twice the largest ring. So over a run
//   entries allocated <= 2 x pushes + 2 x largest ring,   largest ring <= max(16, 4 x most held)
// (a ring doubles only when more than half of it is live), whatever the queue's size: O(1)
// amortized per push once the rings have grown.
// Not observable here, and not checked: skipping stale entries at a lane's front, which only
// moves the front forward, so each stale entry (one per remove()) is skipped at most once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>

#include "core/cache/free_block_queue.h"

namespace {

bool g_counting = false;
uint64_t g_bytes = 0;
uint64_t g_largest = 0;

}  // namespace

void* operator new(std::size_t size) {
  if (g_counting) {
    g_bytes += size;
    g_largest = std::max<uint64_t>(g_largest, size);
  }
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

namespace kvsim {
namespace {

constexpr uint64_t kEntryBytes = sizeof(BlockId);

struct Cost {
  uint64_t pushes = 0;
  uint64_t max_held = 0;      // most blocks queued at once
  uint64_t entries = 0;       // ring entries allocated
  uint64_t largest_ring = 0;  // entries of the largest ring allocated
};

// Counts the ring entries a one-lane queue of `num_blocks` blocks (all queued first) allocates
// over `ops` calls of step(queue, random block, random number, push).
template <typename Step>
Cost run(uint32_t num_blocks, uint64_t ops, Step step) {
  FreeBlockQueue queue(num_blocks, 1);
  std::mt19937_64 random(num_blocks);
  Cost cost;
  g_bytes = g_largest = 0;
  g_counting = true;
  const auto push = [&](BlockId block, bool front) {
    front ? queue.push_front(0, block) : queue.push_back(0, block);
    ++cost.pushes;
    cost.max_held = std::max<uint64_t>(cost.max_held, queue.size());
  };
  for (BlockId block = 0; block < num_blocks; ++block) push(block, false);
  for (uint64_t op = 0; op < ops; ++op) {
    step(queue, static_cast<BlockId>(random() % num_blocks), random(), push);
  }
  g_counting = false;
  queue.check_invariants();
  cost.entries = g_bytes / kEntryBytes;
  cost.largest_ring = g_largest / kEntryBytes;
  return cost;
}

void expect_amortized_constant(const Cost& cost) {
  EXPECT_LE(cost.largest_ring, std::max<uint64_t>(16, 4 * cost.max_held));
  EXPECT_LE(cost.entries, 2 * cost.pushes + 2 * cost.largest_ring) << "pushes " << cost.pushes;
}

constexpr uint32_t kSizes[] = {1'000, 100'000};

// A random block: pushed when it is not queued (at the front one time in eight), else removed
// with probability remove_percent (a prefix hit) or the front popped (an allocation).
auto random_step(uint64_t remove_percent) {
  return [remove_percent](FreeBlockQueue& queue, BlockId block, uint64_t dice, auto& push) {
    if (!queue.contains(block)) {
      push(block, dice % 8 == 0);
    } else if (dice % 100 < remove_percent) {
      queue.remove(block);
    } else {
      queue.pop_front(0);
    }
  };
}

// Removals only (hits and frees, no pops): stale entries pile up until rings are compacted.
TEST(FreeBlockQueueCost, CompactionIsAmortizedConstantPerPush) {
  for (const uint32_t num_blocks : kSizes) {
    SCOPED_TRACE(num_blocks);
    const Cost cost = run(num_blocks, 20 * uint64_t{num_blocks}, random_step(100));
    expect_amortized_constant(cost);
    EXPECT_GT(cost.entries, 4 * uint64_t{num_blocks});  // it did compact, many times
  }
}

// A mix of removals, pops and pushes at both ends.
TEST(FreeBlockQueueCost, MixedOperationsAreAmortizedConstantPerPush) {
  for (const uint32_t num_blocks : kSizes) {
    SCOPED_TRACE(num_blocks);
    expect_amortized_constant(run(num_blocks, 20 * uint64_t{num_blocks}, random_step(30)));
  }
}

// Every block stays queued: each step takes one out (a hit on a free cached block) and puts it
// back (its release). Most of a full ring is live here, so a ring that compacted instead of
// doubling would be rewritten every few pushes.
TEST(FreeBlockQueueCost, HitAndReleaseOnAFullQueueIsAmortizedConstantPerPush) {
  for (const uint32_t num_blocks : kSizes) {
    SCOPED_TRACE(num_blocks);
    const Cost cost = run(num_blocks, 20 * uint64_t{num_blocks},
                          [](FreeBlockQueue& queue, BlockId block, uint64_t, auto& push) {
                            queue.remove(block);
                            push(block, false);
                          });
    expect_amortized_constant(cost);
    EXPECT_EQ(cost.max_held, num_blocks);
  }
}

}  // namespace
}  // namespace kvsim

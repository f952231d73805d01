// The scheduler on its own, step by step (the vllm policy; the harness and its rules are in
// tests/simulator/engine/scheduler_table.h). Every expected value is derived by hand from the
// rules in simulator/engine/scheduler.h; each case's comment gives the derivation.
#include <gtest/gtest.h>

#include "tests/simulator/engine/scheduler_table.h"

namespace kvsim::sim {
namespace {

using scheduler_table::Arrival;
using scheduler_table::Case;
using scheduler_table::expect_table;
using scheduler_table::limits;
using scheduler_table::Row;

// Two requests of 10 prompt and 4 output tokens (13 tokens = 4 blocks at the end) in a pool
// of 6 blocks with a budget of 8; a third (4 + 2) arrives at iteration 3.
Case recompute_case(bool prefix_caching) {
  Case c;
  c.limits = limits(8, /*chunked_prefill=*/true, prefix_caching);
  c.num_blocks = 6;
  c.arrivals = {{0, 10, 4, {0x10, 0x11}}, {0, 10, 4, {0x20, 0x21}}, {3, 4, 2, {0x30}}};
  if (!prefix_caching) {
    for (Arrival& a : c.arrivals) a.hashes.clear();
  }
  return c;
}

// The first five iterations of recompute_case, with or without prefix caching (the prefix
// cache changes nothing until r1 comes back).
//   it 0  r0: 8 of 10 (budget 8 spent), 2 blocks.                                 free 4
//   it 1  r0: its last 2 (10 tokens, 3 blocks); r1 admitted with the 6 left, 2 blocks.
//         r0's prompt is done: first token.                                        free 1
//   it 2  r0 decodes (11 tokens, 3 blocks); r1 its last 4 (3 blocks), first token. free 0
//   it 3  r2 arrives; both decode (12 and 11 tokens, no new block); no free block for r2.
//   it 4  r0's 13th token needs a 4th block, none is free: the newest running request, r1,
//         is preempted (3 blocks released, to the front of the waiting queue, ahead of r2);
//         r0 gets its block. Nothing is admitted in a step that preempted. r0 samples its
//         4th and last token and frees its 4 blocks.                           free 2, 6
std::vector<Row> recompute_first_rows() {
  return {
      {.batch = {{0, 8}}, .admitted = {0}, .running = {0}, .waiting = {1}, .free = {4, 4}},
      {.batch = {{0, 2}, {1, 6}},
       .admitted = {1},
       .first_tokens = {0},
       .running = {0, 1},
       .free = {1, 1}},
      {.batch = {{0, 1}, {1, 4}}, .first_tokens = {1}, .running = {0, 1}, .free = {0, 0}},
      {.batch = {{0, 1}, {1, 1}}, .running = {0, 1}, .waiting = {2}, .free = {0, 0}},
      {.batch = {{0, 1}}, .preempted = {1}, .finished = {0}, .waiting = {1, 2}, .free = {2, 6}},
  };
}

// The last two iterations of both, once r1 has computed all but the last 4 of its 12 known
// tokens again (from scratch in (a), after its own prefix hit in (a')).
//   r1: its last 4 (3 blocks), 3 of them recomputed (positions 8..10, computed before it was
//       preempted); r2 admitted with the 4 tokens of budget left (1 block), its first token.
//   both decode, each into a new block (13 and 5 tokens); both finish.
std::vector<Row> recompute_last_rows() {
  return {
      {.batch = {{1, 4}, {2, 4}},
       .admitted = {2},
       .recomputed = 3,
       .first_tokens = {2},
       .running = {1, 2},
       .free = {2, 2}},
      {.batch = {{1, 1}, {2, 1}}, .finished = {1, 2}, .free = {0, 6}},
  };
}

std::vector<Row> concat(std::vector<Row> head, const std::vector<Row>& middle,
                        const std::vector<Row>& tail) {
  head.insert(head.end(), middle.begin(), middle.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// (a) Recompute preemption with chunked prefill, no prefix caching: r1 comes back with
// computed = 0 and its 12 known tokens (10 prompt + 2 sampled) are computed again in chunks.
//   it 5  r1: 8 of 12 (2 blocks), all 8 recomputed (it had computed 11 before).   free 4
//   it 6  r1's last 4 and r2's 4 (recompute_last_rows).                          free 2
//   it 7  both decode and finish.                                               free 0, 6
TEST(SchedulerTable, RecomputePreemptionWithChunkedPrefill) {
  expect_table(
      recompute_case(/*prefix_caching=*/false),
      concat(recompute_first_rows(),
             {{.batch = {{1, 8}}, .recomputed = 8, .running = {1}, .waiting = {2}, .free = {4, 4}}},
             recompute_last_rows()));
}

// (a') The same with prefix caching: a preempted request's blocks stay cached until evicted.
// At it 4 r1 released its blocks tail first: its partial third block (no hash) joined the
// empty lane, its two full prompt blocks the cached lane, and r0's new block came from the
// empty lane, so both survive.
//   it 5  r1 hits its own 2 blocks (8 tokens; a hit leaves at least one token, and the cache
//         knows 11 tokens of r1): it computes its last 4 (12 known), 3 of them recomputed;
//         taking the 2 free hit blocks and 1 new one leaves 3. r2 (no hit: a 1-block prompt
//         keeps its last token to compute) gets the 4 tokens left, 1 block: the same step as
//         (a)'s it 6, one iteration earlier.                                       free 2
//   it 6  both decode and finish.                                               free 0, 6
TEST(SchedulerTable, RecomputePreemptionFindsItsOwnBlocksInThePrefixCache) {
  expect_table(recompute_case(/*prefix_caching=*/true),
               concat(recompute_first_rows(), {}, recompute_last_rows()));
}

// (b) Recompute without chunked prefill: a prompt is admitted whole or waits, and the token
// budget (8) is shared with the running decodes. Pool of 5 blocks. r0 = 7 + 4, r1 = 6 + 4,
// r2 = 1 + 2, all at iteration 0.
//   it 0  r0's 7 tokens (2 blocks) leave 1 token of budget; r1 needs 6: admission stops,
//         and r2 (1 token, it would fit) does not overtake it. r0's first token.   free 3
//   it 1  r0 decodes (8 tokens, 2 blocks); r1's 6 (2 blocks) and r2's 1 (1 block) fill the
//         budget exactly (1 + 6 + 1). r1 and r2 sample their first tokens.         free 0
//   it 2  r0's 9th token needs a block: the newest, r2, is preempted (1 block back), r0
//         takes it; r1 decodes (7 tokens, 2 blocks).                               free 0
//   it 3  both decode without a new block; no free block for r2. r0 finishes (3 blocks).
//   it 4  r1's 9th token takes a block; r2 is admitted again with all its 2 known tokens
//         (1 prompt + 1 sampled) at once, 1 of them recomputed; both finish.   free 1, 5
TEST(SchedulerTable, RecomputeWithoutChunkedPrefill) {
  Case c;
  c.limits = limits(8, /*chunked_prefill=*/false, /*prefix_caching=*/false);
  c.num_blocks = 5;
  c.arrivals = {{0, 7, 4, {}}, {0, 6, 4, {}}, {0, 1, 2, {}}};
  expect_table(c,
               {
                   {.batch = {{0, 7}},
                    .admitted = {0},
                    .first_tokens = {0},
                    .running = {0},
                    .waiting = {1, 2},
                    .free = {3, 3}},
                   {.batch = {{0, 1}, {1, 6}, {2, 1}},
                    .admitted = {1, 2},
                    .first_tokens = {1, 2},
                    .running = {0, 1, 2},
                    .free = {0, 0}},
                   {.batch = {{0, 1}, {1, 1}},
                    .preempted = {2},
                    .running = {0, 1},
                    .waiting = {2},
                    .free = {0, 0}},
                   {.batch = {{0, 1}, {1, 1}},
                    .finished = {0},
                    .running = {1},
                    .waiting = {2},
                    .free = {0, 3}},
                   {.batch = {{1, 1}, {2, 2}}, .recomputed = 1, .finished = {1, 2}, .free = {1, 5}},
               });
}

// Two requests of 12 prompt and 3 output tokens (3 blocks each after the prefill, 4 at the
// end) in a pool of 6 blocks with a budget of 32; r2 (4 + 1) arrives at iteration 1.
Case swap_case(uint32_t num_host_blocks) {
  Case c;
  c.limits = limits(32, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.limits.preemption = PreemptionMode::kSwap;
  c.num_blocks = 6;
  c.num_host_blocks = num_host_blocks;
  c.arrivals = {{0, 12, 3, {}}, {0, 12, 3, {}}, {1, 4, 1, {}}};
  return c;
}

// (c) Swap preemption, a host tier of 8 blocks (100 bytes a block).
//   it 0  both prompts (3 blocks each), both first tokens.                        free 0
//   it 1  r2 arrives. r0's 13th token needs a block: r1 is swapped out (3 blocks, 300
//         bytes), r0 takes one. No admission in a step that preempted. The swap-out ends:
//         r1 is in the swapped queue.                                              free 2
//   it 2  r0 decodes (14 tokens, no new block). r1 cannot come back (3 blocks, 2 free), and
//         while a request is swapped out no waiting request is admitted: r2 (1 block) waits.
//         r0 finishes.                                                          free 2, 6
//   it 3  r1 is swapped in (3 blocks copied back, 300 bytes); the swapped queue is empty, so
//         r2 is admitted (1 block; a request swapping in is no longer swapped out) and
//         finishes. The swap-in ends: r1 rejoins the running batch.             free 2, 3
//   it 4  r1 decodes into a 4th block (13 tokens, computed kept by the swap).      free 2
//   it 5  r1's last token (14 tokens, no new block); it finishes.               free 2, 6
TEST(SchedulerTable, SwapPreemptionBlocksAdmissionUntilSwappedIn) {
  expect_table(
      swap_case(/*num_host_blocks=*/8),
      {
          {.batch = {{0, 12}, {1, 12}},
           .admitted = {0, 1},
           .first_tokens = {0, 1},
           .running = {0, 1},
           .free = {0, 0}},
          {.batch = {{0, 1}},
           .swapped_out = {{1, 300}},
           .running = {0},
           .waiting = {2},
           .swapped = {1},
           .free = {2, 2}},
          {.batch = {{0, 1}}, .finished = {0}, .waiting = {2}, .swapped = {1}, .free = {2, 6}},
          {.batch = {{2, 4}},
           .admitted = {2},
           .swapped_in = {{1, 300}},
           .first_tokens = {2},
           .finished = {2},
           .running = {1},
           .free = {2, 3}},
          {.batch = {{1, 1}}, .running = {1}, .free = {2, 2}},
          {.batch = {{1, 1}}, .finished = {1}, .free = {2, 6}},
      });
}

// (c') The same with a host tier of 2 blocks: r1's 3 blocks do not fit, so the swap falls
// back to recompute.
//   it 1  r1 is preempted by recompute (to the front of the waiting queue, ahead of r2).
//   it 2  r1 needs its 13 known tokens again: 4 blocks, 2 free; admission stops. r0 ends.
//   it 3  r1: 13 tokens (4 blocks; 12 of them recomputed), its second token; r2: 4 tokens
//         (1 block) within the budget left (19), first and last token.          free 1, 2
//   it 4  r1's last token (14 tokens, no new block).                            free 2, 6
TEST(SchedulerTable, SwapFallsBackToRecomputeWhenTheHostTierIsFull) {
  expect_table(
      swap_case(/*num_host_blocks=*/2),
      {
          {.batch = {{0, 12}, {1, 12}},
           .admitted = {0, 1},
           .first_tokens = {0, 1},
           .running = {0, 1},
           .free = {0, 0}},
          {.batch = {{0, 1}}, .preempted = {1}, .running = {0}, .waiting = {1, 2}, .free = {2, 2}},
          {.batch = {{0, 1}}, .finished = {0}, .waiting = {1, 2}, .free = {2, 6}},
          {.batch = {{1, 13}, {2, 4}},
           .admitted = {2},
           .recomputed = 12,
           .first_tokens = {2},
           .finished = {2},
           .running = {1},
           .free = {1, 2}},
          {.batch = {{1, 1}}, .finished = {1}, .free = {2, 6}},
      });
}

// (d) Prefix hits at admission. Pool of 8, budget 16, lru. Block hashes H1 H2 H3 H4:
// r0 = 12 + 2 tokens over H1 H2 H3; r1 = 10 + 1 over H1 H2; r2 (iteration 1) = 12 + 1 over
// H1 H2 H3, r0's prompt; r3 (iteration 2) = 16 + 1 over H1 H2 H3 H4.
//   it 0  r0: 12 tokens, 3 blocks, registered as they are allocated. r1, admitted after r0
//         in the same step, hits H1 H2 (8 tokens, blocks held by r0, so no free block used)
//         and computes only its last 2 tokens in 1 new block. r1 finishes: its own block is
//         freed, the shared ones stay with r0.                                  free 4, 5
//   it 1  r0 decodes (13 tokens, a 4th block). r2's prompt is all cached, but a hit leaves
//         one token: (12 - 1) / 4 = 2 blocks hit, 4 tokens computed (1 new block; its copy
//         of H3 stays unregistered, the first registration wins). Both finish; H1 H2 H3
//         stay cached in free blocks.                                           free 3, 8
//   it 2  r3 hits H1 H2 H3 (12 tokens), all three free: they count against the free blocks
//         with its 1 new block (8 - 4).                                         free 4, 8
TEST(SchedulerTable, PrefixHitsAtAdmissionReduceTheTokensComputed) {
  constexpr BlockHash kH1 = 0xA1, kH2 = 0xA2, kH3 = 0xA3, kH4 = 0xA4;
  Case c;
  c.limits = limits(16, /*chunked_prefill=*/true, /*prefix_caching=*/true);
  c.num_blocks = 8;
  c.arrivals = {{0, 12, 2, {kH1, kH2, kH3}},
                {0, 10, 1, {kH1, kH2}},
                {1, 12, 1, {kH1, kH2, kH3}},
                {2, 16, 1, {kH1, kH2, kH3, kH4}}};
  expect_table(c, {
                      {.batch = {{0, 12}, {1, 2}},
                       .admitted = {0, 1},
                       .hits = {{1, 8}},
                       .first_tokens = {0, 1},
                       .finished = {1},
                       .running = {0},
                       .free = {4, 5}},
                      {.batch = {{0, 1}, {2, 4}},
                       .admitted = {2},
                       .hits = {{2, 8}},
                       .first_tokens = {2},
                       .finished = {0, 2},
                       .free = {3, 8}},
                      {.batch = {{3, 4}},
                       .admitted = {3},
                       .hits = {{3, 12}},
                       .first_tokens = {3},
                       .finished = {3},
                       .free = {4, 8}},
                  });
}

// (e) max_num_seqs = 2 limits admission although the budget (16) and the pool (16 blocks)
// would take all four requests of 4 prompt tokens: r0 = 4 + 3, r1 r2 r3 = 4 + 1.
//   it 0  r0 and r1 admitted (1 block each); r1 finishes at once.              free 14, 15
//   it 1  r0 decodes into a 2nd block; one seat: r2.                           free 13, 14
//   it 2  r0 decodes; one seat: r3. Both finish.                               free 13, 16
TEST(SchedulerTable, MaxNumSeqsLimitsAdmission) {
  Case c;
  c.limits = limits(16, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.limits.max_num_seqs = 2;
  c.num_blocks = 16;
  c.arrivals = {{0, 4, 3, {}}, {0, 4, 1, {}}, {0, 4, 1, {}}, {0, 4, 1, {}}};
  expect_table(c, {
                      {.batch = {{0, 4}, {1, 4}},
                       .admitted = {0, 1},
                       .first_tokens = {0, 1},
                       .finished = {1},
                       .running = {0},
                       .waiting = {2, 3},
                       .free = {14, 15}},
                      {.batch = {{0, 1}, {2, 4}},
                       .admitted = {2},
                       .first_tokens = {2},
                       .finished = {2},
                       .running = {0},
                       .waiting = {3},
                       .free = {13, 14}},
                      {.batch = {{0, 1}, {3, 4}},
                       .admitted = {3},
                       .first_tokens = {3},
                       .finished = {0, 3},
                       .free = {13, 16}},
                  });
}

// (f) Requests that can never fit, in a pool of 3 blocks (12 tokens), budget 16:
// r0 = 11 + 3 would end holding 13 tokens (4 blocks); r1 = 16 + 1 needs 4 blocks for its
// prompt; r2 = 4 + 1 fits.
//   it 0  r0: 11 tokens, 3 blocks; no free block left for r1.                       free 0
//   it 1  r0 decodes into its 3rd block (12 tokens).                                free 0
//   it 2  r0's 13th token needs a 4th block; it runs alone and nothing is in transit: it is
//         dropped (its blocks freed). Nothing else is scheduled in that step.        free 3
//   it 3  r1's 16 tokens (one chunk within the budget) need 4 blocks, 3 free: nothing runs,
//         nothing moves, so the engine drops the waiting head (drop_head()).         free 3
//   it 4  r2 runs and finishes.                                                  free 2, 3
TEST(SchedulerTable, RequestsThatCanNeverFitAreDropped) {
  Case c;
  c.limits = limits(16, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.num_blocks = 3;
  c.arrivals = {{0, 11, 3, {}}, {0, 16, 1, {}}, {0, 4, 1, {}}};
  expect_table(c, {
                      {.batch = {{0, 11}},
                       .admitted = {0},
                       .first_tokens = {0},
                       .running = {0},
                       .waiting = {1, 2},
                       .free = {0, 0}},
                      {.batch = {{0, 1}}, .running = {0}, .waiting = {1, 2}, .free = {0, 0}},
                      {.dropped = {0}, .waiting = {1, 2}, .free = {3, 3}},
                      {.head_dropped = 1, .waiting = {2}, .free = {3, 3}},
                      {.batch = {{2, 4}},
                       .admitted = {2},
                       .first_tokens = {2},
                       .finished = {2},
                       .free = {2, 3}},
                  });
}

// The cost model's sliding window reaches the batch's shape: a request of 20 prompt tokens
// with W = 8 and a budget of 16 runs a chunk of 16 after nothing (rows 0..7 the causal
// triangle 1 + ... + 8 = 36, rows 8..15 a dense band of 8 x 8), then its last 4 after 16
// cached (query i sees W - 1 - i of them: 7 + 6 + 5 + 4 = 22 dense pairs, min(16, W - 1) = 7
// cached keys read).
TEST(SchedulerShape, TheCostWindowFillsTheWindowSums) {
  KvCacheConfig config;
  config.num_blocks = 17;
  config.block_size = scheduler_table::kBlockSize;
  config.eviction = EvictionKind::kLru;
  config.bytes_per_block = scheduler_table::kBytesPerBlock;
  KvCacheCoordinator cache = KvCacheCoordinator::create(config).value();
  RequestTable requests;
  SchedulerLimits l = limits(16, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  l.cost_window_tokens = 8;
  Scheduler scheduler(l, &cache, &requests);
  scheduler_table::arrive({0, 20, 2, {}}, 0, &cache, &requests, &scheduler);
  StepPlan plan;
  StepResult result;
  scheduler.schedule(&plan);
  EXPECT_EQ(plan.shape.window_tokens, 8u);
  EXPECT_EQ(plan.shape.window_prefill_causal_pairs, 36u);
  EXPECT_EQ(plan.shape.window_prefill_cross_pairs, 64u);
  scheduler.complete(plan, &result);
  scheduler.schedule(&plan);
  EXPECT_EQ(plan.shape.prefill_context_tokens, 16u);
  EXPECT_EQ(plan.shape.window_prefill_context_tokens, 7u);
  EXPECT_EQ(plan.shape.window_prefill_cross_pairs, 22u);
}

}  // namespace
}  // namespace kvsim::sim

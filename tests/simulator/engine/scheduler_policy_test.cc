// The batching policies step by step (simulator/engine/scheduler.h, scheduler_policies.cc),
// each against a table derived by hand; the harness is tests/simulator/engine/
// scheduler_table.h (blocks of 4 tokens). Where a policy differs from vllm the same case is
// run under vllm too, so the difference is pinned from both sides.
#include <gtest/gtest.h>

#include "tests/simulator/engine/scheduler_table.h"

namespace kvsim::sim {
namespace {

using scheduler_table::Case;
using scheduler_table::expect_table;
using scheduler_table::limits;
using scheduler_table::Row;

// r0 = 8 + 2 and r1 = 12 + 1 at iteration 0; pool of 5 blocks, budget 8, chunked prefill.
Case reserve_case(bool reserve_full_prompt) {
  Case c;
  c.limits = limits(8, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.limits.reserve_full_prompt = reserve_full_prompt;
  c.num_blocks = 5;
  c.arrivals = {{0, 8, 2, {}}, {0, 12, 1, {}}};
  return c;
}

// vllm without the full-prompt reservation: an admission needs room for its chunk only.
//   it 0  r0: 8 tokens (2 blocks), the budget is spent; r0's first token.         free 3
//   it 1  r0 decodes into a 3rd block (9 tokens) and finishes; r1 is admitted with a chunk
//         of 7 (budget 8 - 1), 2 blocks — the 2 left.                          free 0, 3
//   it 2  r1's last 5 tokens (3 blocks); first and last token.                  free 2, 5
TEST(SchedulerPolicy, VllmAdmitsAChunkWhenOnlyTheChunkMustFit) {
  expect_table(reserve_case(false),
               {
                   {.batch = {{0, 8}},
                    .admitted = {0},
                    .first_tokens = {0},
                    .running = {0},
                    .waiting = {1},
                    .free = {3, 3}},
                   {.batch = {{0, 1}, {1, 7}},
                    .admitted = {1},
                    .finished = {0},
                    .running = {1},
                    .free = {0, 3}},
                   {.batch = {{1, 5}}, .first_tokens = {1}, .finished = {1}, .free = {2, 5}},
               });
}

// vllm with reserve_full_prompt (vLLM v1's default scheduler_reserve_full_isl): r1's 12
// tokens need 3 free blocks before its first chunk is admitted.
//   it 1  r0 decodes into its 3rd block and finishes; 2 blocks are free, r1 needs 3: it
//         waits although its chunk would fit.                                   free 2, 5
//   it 2  r1: a chunk of 8 (2 blocks; 3 were free for its whole prompt).         free 3
//   it 3  r1's last 4 (3 blocks); first and last token.                          free 2, 5
TEST(SchedulerPolicy, VllmReservesTheWholePromptAtAdmission) {
  expect_table(reserve_case(true),
               {
                   {.batch = {{0, 8}},
                    .admitted = {0},
                    .first_tokens = {0},
                    .running = {0},
                    .waiting = {1},
                    .free = {3, 3}},
                   {.batch = {{0, 1}}, .finished = {0}, .waiting = {1}, .free = {2, 5}},
                   {.batch = {{1, 8}}, .admitted = {1}, .running = {1}, .free = {3, 3}},
                   {.batch = {{1, 4}}, .first_tokens = {1}, .finished = {1}, .free = {2, 5}},
               });
}

// r0 = 4 + 3 and r1 = 4 + 2 at iteration 0, r2 = 4 + 1 at iteration 1; pool of 16, budget 8.
Case v0_case(SchedulerPolicy policy, uint32_t watermark_blocks) {
  Case c;
  c.limits = limits(8, /*chunked_prefill=*/policy != SchedulerPolicy::kVllmV0, false);
  c.limits.policy = policy;
  c.limits.watermark_blocks = watermark_blocks;
  c.num_blocks = 16;
  c.arrivals = {{0, 4, 3, {}}, {0, 4, 2, {}}, {1, 4, 1, {}}};
  return c;
}

// vllm-v0: an iteration that admits prompts holds only prompts; the decodes wait for one
// without admissions.
//   it 0  r0 and r1 admitted whole (4 + 4 = the budget), 1 block each; first tokens. free 14
//   it 1  r2 arrives and is admitted: the iteration is its prompt alone (r0, r1 wait); it
//         finishes at once.                                                    free 13, 14
//   it 2  nothing waits: r0 and r1 decode (5 tokens: a 2nd block each); r1 ends. free 12, 14
//   it 3  r0's last token (6 tokens, no new block).                            free 14, 16
TEST(SchedulerPolicy, VllmV0RunsPromptOnlyIterationsWhileRequestsWait) {
  expect_table(v0_case(SchedulerPolicy::kVllmV0, 0),
               {
                   {.batch = {{0, 4}, {1, 4}},
                    .admitted = {0, 1},
                    .first_tokens = {0, 1},
                    .running = {0, 1},
                    .free = {14, 14}},
                   {.batch = {{2, 4}},
                    .admitted = {2},
                    .first_tokens = {2},
                    .finished = {2},
                    .running = {0, 1},
                    .free = {13, 14}},
                   {.batch = {{0, 1}, {1, 1}}, .finished = {1}, .running = {0}, .free = {12, 14}},
                   {.batch = {{0, 1}}, .finished = {0}, .free = {14, 16}},
               });
}

// The same requests under vllm: r2's prompt joins the decodes at iteration 1.
TEST(SchedulerPolicy, VllmMixesTheSamePromptWithDecodes) {
  expect_table(v0_case(SchedulerPolicy::kVllm, 0),
               {
                   {.batch = {{0, 4}, {1, 4}},
                    .admitted = {0, 1},
                    .first_tokens = {0, 1},
                    .running = {0, 1},
                    .free = {14, 14}},
                   {.batch = {{0, 1}, {1, 1}, {2, 4}},
                    .admitted = {2},
                    .first_tokens = {2},
                    .finished = {1, 2},
                    .running = {0},
                    .free = {11, 14}},
                   {.batch = {{0, 1}}, .finished = {0}, .free = {14, 16}},
               });
}

// vllm-v0 with a watermark of 14 blocks: an admission must leave 14 free.
//   it 0  r0 (1 block, 15 left) and r1 (1 block, 14 left) are admitted.               free 14
//   it 1  r2 would leave 13: not admitted, so r0 and r1 decode (a 2nd block each); r1 ends.
//   it 2  r2 still would leave 13 (14 free); r0 decodes its last token and ends.   free 14, 16
//   it 3  r2 is admitted (15 left) and finishes.                                free 15, 16
TEST(SchedulerPolicy, VllmV0AdmissionsLeaveTheWatermarkFree) {
  expect_table(v0_case(SchedulerPolicy::kVllmV0, 14),
               {
                   {.batch = {{0, 4}, {1, 4}},
                    .admitted = {0, 1},
                    .first_tokens = {0, 1},
                    .running = {0, 1},
                    .free = {14, 14}},
                   {.batch = {{0, 1}, {1, 1}},
                    .finished = {1},
                    .running = {0},
                    .waiting = {2},
                    .free = {12, 14}},
                   {.batch = {{0, 1}}, .finished = {0}, .waiting = {2}, .free = {14, 16}},
                   {.batch = {{2, 4}},
                    .admitted = {2},
                    .first_tokens = {2},
                    .finished = {2},
                    .free = {15, 16}},
               });
}

// r0 = 4 + 2 and r1 = 8 + 1 at iteration 0; pool of 3 blocks, budget 8, chunked.
Case chunk_room_case(SchedulerPolicy policy) {
  Case c;
  c.limits = limits(8, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.limits.policy = policy;
  c.num_blocks = 3;
  c.arrivals = {{0, 4, 2, {}}, {0, 8, 1, {}}};
  return c;
}

// sarathi: decodes first; a prompt chunk that finds no free block waits (only decodes
// preempt).
//   it 0  r0: 4 tokens (1 block); r1's 8 need 2 blocks, 2 are free: admitted with the 4 of
//         budget left (1 block). r0's first token.                                free 1
//   it 1  r0 decodes into a 2nd block (the last free one) and finishes; r1's next chunk
//         needs a block, none is free: it waits, holding its block.             free 0, 2
//   it 2  r1's last 4 (2 blocks); first and last token.                          free 1, 3
TEST(SchedulerPolicy, SarathiChunksWaitForRoomInsteadOfPreempting) {
  expect_table(chunk_room_case(SchedulerPolicy::kSarathi),
               {
                   {.batch = {{0, 4}, {1, 4}},
                    .admitted = {0, 1},
                    .first_tokens = {0},
                    .running = {0, 1},
                    .free = {1, 1}},
                   {.batch = {{0, 1}}, .finished = {0}, .running = {1}, .free = {0, 2}},
                   {.batch = {{1, 4}}, .first_tokens = {1}, .finished = {1}, .free = {1, 3}},
               });
}

// vllm on the same case: r1's chunk preempts the newest running request — itself.
//   it 1  r0 takes the last block; r1 finds none and is preempted by recompute (its block
//         released); r0 finishes.                                                free 1, 3
//   it 2  r1 is admitted again: all 8 tokens (2 blocks), 4 of them recomputed.   free 1, 3
TEST(SchedulerPolicy, VllmPreemptsForTheSameChunk) {
  expect_table(
      chunk_room_case(SchedulerPolicy::kVllm),
      {
          {.batch = {{0, 4}, {1, 4}},
           .admitted = {0, 1},
           .first_tokens = {0},
           .running = {0, 1},
           .free = {1, 1}},
          {.batch = {{0, 1}}, .preempted = {1}, .finished = {0}, .waiting = {1}, .free = {1, 3}},
          {.batch = {{1, 8}},
           .recomputed = 4,
           .first_tokens = {1},
           .finished = {1},
           .free = {1, 3}},
      });
}

// sarathi's chunk budget is what the decodes leave: r0 = 2 + 3 and r1 = 2 + 3 decode while
// r2 = 12 + 1 (iteration 1) is chunked; pool of 16, budget 4.
//   it 0  r0 and r1: 2 tokens each (the budget); first tokens.                    free 14
//   it 1  both decode (2 of the budget); r2 is admitted with the 2 left.           free 13
//   it 2  both decode and finish; r2 gets 2 more (4 of 12).                     free 13, 15
//   it 3  r2: 4 (8 of 12).   it 4  r2: its last 4; first and last token.         free 13, 16
TEST(SchedulerPolicy, SarathiDecodesFirstThenChunksFromWhatIsLeft) {
  Case c;
  c.limits = limits(4, /*chunked_prefill=*/true, /*prefix_caching=*/false);
  c.limits.policy = SchedulerPolicy::kSarathi;
  c.num_blocks = 16;
  c.arrivals = {{0, 2, 3, {}}, {0, 2, 3, {}}, {1, 12, 1, {}}};
  expect_table(
      c,
      {
          {.batch = {{0, 2}, {1, 2}},
           .admitted = {0, 1},
           .first_tokens = {0, 1},
           .running = {0, 1},
           .free = {14, 14}},
          {.batch = {{0, 1}, {1, 1}, {2, 2}},
           .admitted = {2},
           .running = {0, 1, 2},
           .free = {13, 13}},
          {.batch = {{0, 1}, {1, 1}, {2, 2}}, .finished = {0, 1}, .running = {2}, .free = {13, 15}},
          {.batch = {{2, 4}}, .running = {2}, .free = {14, 14}},
          {.batch = {{2, 4}}, .first_tokens = {2}, .finished = {2}, .free = {13, 16}},
      });
}

}  // namespace
}  // namespace kvsim::sim

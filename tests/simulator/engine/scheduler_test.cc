// The scheduler on its own, step by step: a tiny pool (blocks of 4 tokens), a few requests,
// and per iteration the expected batch, admissions, preemptions, swaps, drops, queues, first
// tokens, finished requests and free blocks. Every expected value is derived by hand from the
// rules in simulator/engine/scheduler.h; each case's comment gives the derivation.
//
// The driver plays the engine's part (simulator/engine/engine.cc), minus the clock: requests
// arrive before a given iteration's schedule(); admitted requests get their first-scheduled
// mark; dropped ones are forgotten; when nothing can run, nothing moves and requests wait, the
// waiting head is dropped (drop_head()); every swap transfer ends within the iteration that
// started it (swap_out_done / swap_in_done right after complete()). Slots are never released
// (the scheduler does not look at them after the end), so request i has slot i.
#include "simulator/engine/scheduler.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kvsim::sim {
namespace {

constexpr uint32_t kBlockSize = 4;
constexpr uint64_t kBytesPerBlock = 100;

struct Arrival {
  uint32_t iteration = 0;  // joins the waiting queue before this iteration's schedule()
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  std::vector<BlockHash> hashes;  // its full prompt blocks' (prefix caching)
};

using SlotTokens = std::pair<uint32_t, uint64_t>;  // (slot, tokens) or (slot, bytes)

// One iteration (members default to empty, so a row names only what happened): what
// schedule() decided, then the state after complete() and the transfers.
struct Row {
  std::vector<SlotTokens> batch{};  // slot -> tokens scheduled, in schedule order
  std::vector<uint32_t> admitted{};
  std::vector<SlotTokens> hits{};  // admitted with a prefix hit: slot -> cached prompt tokens
  uint64_t recomputed = 0;         // StepPlan::recomputed_tokens
  std::vector<uint32_t> preempted{};
  std::vector<SlotTokens> swapped_out{};  // slot -> bytes
  std::vector<SlotTokens> swapped_in{};   // slot -> bytes
  std::vector<uint32_t> dropped{};        // by schedule()
  int64_t head_dropped = -1;              // by drop_head(), the engine's call; -1: none
  std::vector<uint32_t> first_tokens{};
  std::vector<uint32_t> finished{};
  std::vector<uint32_t> running{};
  std::vector<uint32_t> waiting{};
  std::vector<uint32_t> swapped{};
  std::pair<uint32_t, uint32_t> free{};  // free blocks after schedule(), after complete()
};

struct Case {
  SchedulerLimits limits;
  uint32_t num_blocks = 0;
  uint32_t num_host_blocks = 0;
  std::vector<Arrival> arrivals;  // in iteration order
};

void print(std::ostream& out, const char* name, const std::vector<uint32_t>& slots) {
  out << ' ' << name << " [";
  for (size_t i = 0; i < slots.size(); ++i) out << (i > 0 ? " " : "") << slots[i];
  out << ']';
}

void print(std::ostream& out, const char* name, const std::vector<SlotTokens>& pairs) {
  out << ' ' << name << " {";
  for (size_t i = 0; i < pairs.size(); ++i) {
    out << (i > 0 ? " " : "") << pairs[i].first << ':' << pairs[i].second;
  }
  out << '}';
}

// The table, one line per iteration: every field of the row, those still at their default
// left out (except the batch, the queues and the free blocks), so that two tables are equal iff
// their texts are and a mismatch reads as a short line diff.
std::string format(const std::vector<Row>& rows) {
  std::ostringstream out;
  for (size_t it = 0; it < rows.size(); ++it) {
    const Row& r = rows[it];
    out << "it " << it << ':';
    print(out, "batch", r.batch);
    if (!r.admitted.empty()) print(out, "admitted", r.admitted);
    if (!r.hits.empty()) print(out, "hits", r.hits);
    if (r.recomputed > 0) out << " recomputed " << r.recomputed;
    if (!r.preempted.empty()) print(out, "preempted", r.preempted);
    if (!r.swapped_out.empty()) print(out, "swapped_out", r.swapped_out);
    if (!r.swapped_in.empty()) print(out, "swapped_in", r.swapped_in);
    if (!r.dropped.empty()) print(out, "dropped", r.dropped);
    if (r.head_dropped >= 0) out << " head_dropped " << r.head_dropped;
    if (!r.first_tokens.empty()) print(out, "first", r.first_tokens);
    if (!r.finished.empty()) print(out, "finished", r.finished);
    print(out, "| running", r.running);
    print(out, "waiting", r.waiting);
    print(out, "swapped", r.swapped);
    out << " free " << r.free.first << '/' << r.free.second << '\n';
  }
  return out.str();
}

template <typename Queue>
std::vector<uint32_t> slots_of(const Queue& queue) {
  return {queue.begin(), queue.end()};
}

// Request `index` of a case arrives, as the engine admits one: into the cache manager, the
// request table and the waiting queue.
void arrive(const Arrival& a, size_t index, KvCacheManager* cache, RequestTable* requests,
            Scheduler* scheduler) {
  SimRequest request;
  request.id = 100 + index;  // ids differ from slots, so a mix-up shows
  request.prompt_tokens = a.prompt_tokens;
  request.output_tokens = a.output_tokens;
  request.num_hashes = static_cast<uint32_t>(a.hashes.size());
  request.phase = RequestPhase::kWaiting;
  cache->add_request(request.id, a.prompt_tokens, a.hashes);
  const uint32_t slot = requests->add(request);
  EXPECT_EQ(slot, index);
  scheduler->add_waiting(slot);
}

// What schedule() decided, into a new row. As the engine does, a request in its first batch
// gets its first-scheduled mark: those are the row's admitted.
Row decisions(const StepPlan& plan, uint32_t iteration, RequestTable* requests) {
  Row row;
  for (const ScheduledChunk& chunk : plan.chunks) {
    row.batch.emplace_back(chunk.slot, chunk.num_tokens);
    SimRequest& request = requests->at(chunk.slot);
    if (request.first_scheduled_ns) continue;
    request.first_scheduled_ns = iteration;
    row.admitted.push_back(chunk.slot);
    if (request.cached_prompt_tokens > 0) {
      row.hits.emplace_back(chunk.slot, request.cached_prompt_tokens);
    }
  }
  row.recomputed = plan.recomputed_tokens;
  row.preempted = plan.preempted;
  for (const SwapTransfer& swap : plan.swapped_out)
    row.swapped_out.emplace_back(swap.slot, swap.bytes);
  for (const SwapTransfer& swap : plan.swapped_in)
    row.swapped_in.emplace_back(swap.slot, swap.bytes);
  row.dropped = plan.dropped;
  return row;
}

// Runs the case until the scheduler is idle and every request has arrived (at most 64
// iterations) and returns the table it went through.
std::vector<Row> run_case(const Case& c) {
  KvCacheConfig config;
  config.num_blocks = c.num_blocks;
  config.block_size = kBlockSize;
  config.eviction = "lru";
  config.num_host_blocks = c.num_host_blocks;
  config.bytes_per_block = kBytesPerBlock;
  StatusOr<KvCacheManager> created = KvCacheManager::create(config);
  EXPECT_TRUE(created.is_ok()) << created.status().message();
  if (!created.is_ok()) return {};
  KvCacheManager cache = std::move(*created);
  RequestTable requests;
  Scheduler scheduler(c.limits, &cache, &requests);
  StepPlan plan;
  StepResult result;
  std::vector<Row> rows;
  size_t next = 0;
  for (uint32_t it = 0; it < 64 && (next < c.arrivals.size() || !scheduler.idle()); ++it) {
    for (; next < c.arrivals.size() && c.arrivals[next].iteration == it; ++next) {
      arrive(c.arrivals[next], next, &cache, &requests, &scheduler);
    }
    scheduler.schedule(&plan);
    Row row = decisions(plan, it, &requests);
    for (uint32_t slot : plan.dropped) scheduler.forget(slot);
    if (!plan.has_work() && scheduler.num_in_transit() == 0 && !scheduler.idle() &&
        plan.dropped.empty() && plan.preempted.empty()) {
      if (const std::optional<uint32_t> head = scheduler.drop_head()) {
        row.head_dropped = *head;
        scheduler.forget(*head);
      }
    }
    row.free.first = cache.num_free_blocks();
    scheduler.complete(plan, &result);
    for (const SwapTransfer& swap : plan.swapped_out) scheduler.swap_out_done(swap.slot);
    for (const SwapTransfer& swap : plan.swapped_in) scheduler.swap_in_done(swap.slot);
    row.first_tokens = result.first_tokens;
    row.finished = result.finished;
    row.running = scheduler.running();
    row.waiting = slots_of(scheduler.waiting());
    row.swapped = slots_of(scheduler.swapped());
    row.free.second = cache.num_free_blocks();
    cache.check_invariants();
    rows.push_back(std::move(row));
  }
  EXPECT_TRUE(scheduler.idle()) << "still busy after 64 iterations";
  EXPECT_EQ(scheduler.outstanding_tokens(), 0u);
  EXPECT_EQ(cache.num_free_blocks(), c.num_blocks);
  return rows;
}

void expect_table(const Case& c, const std::vector<Row>& expected) {
  const std::vector<Row> actual = run_case(c);
  EXPECT_EQ(format(actual), format(expected)) << "actual table:\n" << format(actual);
}

SchedulerLimits limits(uint32_t max_num_batched_tokens, bool chunked_prefill, bool prefix_caching) {
  SchedulerLimits l;
  l.max_num_batched_tokens = max_num_batched_tokens;
  l.chunked_prefill = chunked_prefill;
  l.prefix_caching = prefix_caching;
  return l;
}

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

}  // namespace
}  // namespace kvsim::sim

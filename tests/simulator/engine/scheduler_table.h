// The scheduler's table-driven test harness (tests/simulator/engine/scheduler_test.cc,
// scheduler_policy_test.cc): a tiny pool (blocks of 4 tokens), a few requests, and per
// iteration the expected batch, admissions, preemptions, swaps, drops, queues, first tokens,
// finished requests and free blocks.
//
// The driver plays the engine's part (simulator/engine/engine.cc), minus the clock: requests
// arrive before a given iteration's schedule(); admitted requests get their first-scheduled
// mark; dropped ones are forgotten; when nothing can run, nothing moves and requests wait, the
// waiting head is dropped (drop_head()); every swap transfer ends within the iteration that
// started it (swap_out_done / swap_in_done right after complete()). Slots are never released
// (the scheduler does not look at them after the end), so request i has slot i.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "simulator/engine/scheduler.h"

namespace kvsim::sim::scheduler_table {

inline constexpr uint32_t kBlockSize = 4;
inline constexpr uint64_t kBytesPerBlock = 100;

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

inline void print(std::ostream& out, const char* name, const std::vector<uint32_t>& slots) {
  out << ' ' << name << " [";
  for (size_t i = 0; i < slots.size(); ++i) out << (i > 0 ? " " : "") << slots[i];
  out << ']';
}

inline void print(std::ostream& out, const char* name, const std::vector<SlotTokens>& pairs) {
  out << ' ' << name << " {";
  for (size_t i = 0; i < pairs.size(); ++i) {
    out << (i > 0 ? " " : "") << pairs[i].first << ':' << pairs[i].second;
  }
  out << '}';
}

// The table, one line per iteration: every field of the row, those still at their default
// left out (except the batch, the queues and the free blocks), so that two tables are equal iff
// their texts are and a mismatch reads as a short line diff.
inline std::string format(const std::vector<Row>& rows) {
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
inline void arrive(const Arrival& a, size_t index, KvCacheCoordinator* cache,
                   RequestTable* requests, Scheduler* scheduler) {
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
inline Row decisions(const StepPlan& plan, uint32_t iteration, RequestTable* requests) {
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
inline std::vector<Row> run_case(const Case& c) {
  KvCacheConfig config;
  config.num_blocks = c.num_blocks + 1;  // c.num_blocks usable, + the null block
  config.block_size = kBlockSize;
  config.eviction = EvictionKind::kLru;
  config.num_host_blocks = c.num_host_blocks;
  config.bytes_per_block = kBytesPerBlock;
  StatusOr<KvCacheCoordinator> created = KvCacheCoordinator::create(config);
  EXPECT_TRUE(created.is_ok()) << created.status().message();
  if (!created.is_ok()) return {};
  KvCacheCoordinator cache = std::move(*created);
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

inline void expect_table(const Case& c, const std::vector<Row>& expected) {
  const std::vector<Row> actual = run_case(c);
  EXPECT_EQ(format(actual), format(expected)) << "actual table:\n" << format(actual);
}

inline SchedulerLimits limits(uint32_t max_num_batched_tokens, bool chunked_prefill,
                              bool prefix_caching) {
  SchedulerLimits l;
  l.max_num_batched_tokens = max_num_batched_tokens;
  l.chunked_prefill = chunked_prefill;
  l.prefix_caching = prefix_caching;
  return l;
}

}  // namespace kvsim::sim::scheduler_table

// The engine's behaviour on hand-built workloads: exact timing against the cost model, token
// accounting, the pool bound, preemption by recompute and by swap, saturation, drops.
#include "simulator/engine/engine.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/base/units.h"
#include "core/model/load_spec.h"
#include "simulator/cost/roofline_cost_model.h"
#include "simulator/output/metrics.h"
#include "simulator/output/request_latency.h"
#include "tests/core/cache/policy_text.h"
#include "tests/simulator/sim_test_util.h"

namespace kvsim::sim {
namespace {

using testing::FixedCostModel;
using testing::VectorSource;

// Records every finished request and checks the pool after every iteration.
class Recorder final : public SimObserver {
 public:
  void on_request_finished(const RequestRecord& r) override { finished.push_back(r); }
  void on_request_dropped(const RequestRecord& r, DropReason reason) override {
    dropped.emplace_back(r.id, reason);
  }
  void on_iteration(const IterationRecord& it, const EngineSnapshot& s) override {
    ++iterations;
    EXPECT_EQ(uint64_t{s.kv_blocks_used} + s.kv_blocks_cached_free + s.kv_blocks_free, num_blocks);
    EXPECT_LE(s.kv_blocks_used, num_blocks);
    EXPECT_LE(it.shape.new_tokens, token_budget);
    EXPECT_LE(s.running, max_seqs);
    if (engine != nullptr && iterations % 7 == 0) engine->cache().check_invariants();
  }
  std::vector<RequestRecord> finished;
  std::vector<std::pair<uint64_t, DropReason>> dropped;
  uint64_t iterations = 0;
  uint64_t num_blocks = 0;  // usable: the pool's less the null block
  uint64_t token_budget = 0;
  uint64_t max_seqs = 0;
  const Engine* engine = nullptr;
};

struct Run {
  std::unique_ptr<Engine> engine;
  Recorder recorder;
  MetricsCollector metrics;
  Summary summary;
};

// An engine over the workload with the recorder and the metrics attached, not yet run.
std::unique_ptr<Run> prepare(const EngineConfig& config, std::unique_ptr<CostModel> cost,
                             std::vector<RequestSpec> requests) {
  auto out = std::make_unique<Run>();
  auto engine =
      Engine::create(config, std::move(cost), std::make_unique<VectorSource>(std::move(requests)));
  EXPECT_TRUE(engine.is_ok()) << engine.status().message();
  out->engine = std::move(*engine);
  out->recorder.num_blocks = config.cache.num_usable_blocks();
  out->recorder.token_budget = config.scheduler.max_num_batched_tokens;
  out->recorder.max_seqs = config.scheduler.max_num_seqs;
  out->recorder.engine = out->engine.get();
  out->engine->add_observer(&out->recorder);
  out->engine->add_observer(&out->metrics);
  return out;
}

// Runs a prepared engine to the end and builds its summary.
void finish(Run* out) {
  const Status status = out->engine->run();
  EXPECT_TRUE(status.is_ok()) << status.message();
  out->engine->cache().check_invariants();
  RunInfo info;
  info.num_blocks = out->recorder.num_blocks + 1;
  info.num_usable_blocks = out->recorder.num_blocks;
  out->summary = out->metrics.build(info, out->engine->stats(), {});
}

std::unique_ptr<Run> run(const EngineConfig& config, std::unique_ptr<CostModel> cost,
                         std::vector<RequestSpec> requests) {
  auto out = prepare(config, std::move(cost), std::move(requests));
  finish(out.get());
  return out;
}

struct Roofline {
  EngineConfig config;
  RooflineInputs inputs;
  CostModelConfig cost;
};

Roofline llama_on_a100() {
  const ModelSpec model = *load_model("llama3-8b");
  const DeviceSpec device = *load_device("a100-80g");
  CapacityQuery query;
  query.block_size = 16;
  query.kv_budget_bytes = 40 * kGiB;  // a fixed pool: this test is about the cost model
  const CapacityResult capacity = *compute_capacity(model, &device, query);
  Roofline r;
  r.config = testing::small_config(static_cast<uint32_t>(*capacity.num_blocks));
  r.config.scheduler.max_num_batched_tokens = 4096;
  r.config.max_model_len = model.max_position_embeddings;
  r.inputs = roofline_inputs(model, device, capacity, DType::kFp16, 1);
  return r;
}

TEST(Engine, OneRequestOnAnIdleDeviceTakesExactlyTheCostModelsTime) {
  for (const uint32_t prompt : {1000u, 5000u}) {  // one prefill, then two chunks of 4096
    const Roofline r = llama_on_a100();
    const RooflineCostModel cost(r.inputs, r.cost);
    const uint32_t output = 50;
    const int64_t arrival = 3'000'000'000;
    auto result = run(r.config, std::make_unique<RooflineCostModel>(cost),
                      {testing::request(0, arrival, prompt, output)});
    ASSERT_EQ(result->recorder.finished.size(), 1u);
    int64_t prefill_ns = 0;
    for (uint32_t done = 0; done < prompt; done += 4096) {
      BatchShape chunk;
      chunk.add(std::min(4096u, prompt - done), done, true, done + 4096 >= prompt);
      prefill_ns += cost.iteration_ns(chunk);
    }
    int64_t decode_ns = 0;
    for (uint32_t k = 1; k < output; ++k) {
      BatchShape step;
      step.add(1, prompt + k - 1, false, true);
      decode_ns += cost.iteration_ns(step);
    }
    const RequestRecord& record = result->recorder.finished[0];
    EXPECT_EQ(*record.first_token_ns - record.arrival_ns, prefill_ns);
    EXPECT_EQ(*record.finish_ns - *record.first_token_ns, decode_ns);
    EXPECT_EQ(result->summary.ttft_s.mean, static_cast<double>(prefill_ns) / 1e9);
    EXPECT_EQ(result->summary.tpot_s.mean, static_cast<double>(decode_ns) / 1e9 / (output - 1));
    EXPECT_EQ(result->summary.queue_s.mean, 0.0);
    EXPECT_EQ(result->engine->stats().iterations, (prompt + 4095) / 4096 + output - 1);
  }
}

// vLLM's async scheduling decides the batch after the one in flight when that one starts
// (core.py step_with_batch_queue), so a request arriving while a batch runs joins the batch
// after the next: one iteration more to its first token. An idle engine takes it at once.
TEST(Engine, AsyncSchedulingAddsAnIterationToARequestArrivingMidBatch) {
  const int64_t step = 10'000'000;  // every iteration 10 ms
  for (const bool async : {false, true}) {
    SCOPED_TRACE(async ? "async" : "sync");
    EngineConfig config = testing::small_config(/*num_blocks=*/100);
    config.async_scheduling = async;
    // 0 arrives on an idle engine and decodes through [0, 200 ms); 1 arrives at 15 ms,
    // inside the batch [10, 20 ms).
    auto result = run(config, std::make_unique<FixedCostModel>(step),
                      {testing::request(0, 0, 8, 20), testing::request(1, 15'000'000, 8, 5)});
    ASSERT_EQ(result->recorder.finished.size(), 2u);
    for (const RequestRecord& r : result->recorder.finished) {
      const int64_t ttft = *r.first_token_ns - r.arrival_ns;
      // 0: an idle engine, no lag either way. 1: sync scheduled at 20 ms, first token at 30;
      // async scheduled at 30, first token at 40.
      const int64_t expected = r.id == 0 ? step : (async ? 25'000'000 : 15'000'000);
      EXPECT_EQ(ttft, expected) << r.id;
    }
  }
}

// A client sees the engine's times plus its front end (EngineConfig::frontend_ns): TTFT and
// E2E add it once, TPOT and queueing do not change; the record keeps the engine's times.
TEST(Engine, TheClientsLatenciesAreTheEnginesPlusItsFrontEnd) {
  const int64_t step = 10'000'000;
  EngineConfig config = testing::small_config(/*num_blocks=*/100);
  config.frontend_ns = 7'000'000;
  auto result =
      run(config, std::make_unique<FixedCostModel>(step), {testing::request(0, 0, 8, 11)});
  ASSERT_EQ(result->recorder.finished.size(), 1u);
  const RequestRecord& r = result->recorder.finished[0];
  EXPECT_EQ(r.frontend_ns, 7'000'000);
  const RequestLatency l = latency_of(r);
  EXPECT_DOUBLE_EQ(l.server_ttft_s, 0.010);  // one prefill step
  EXPECT_DOUBLE_EQ(l.ttft_s, 0.017);
  EXPECT_DOUBLE_EQ(l.server_e2e_s, 0.110);  // + 10 decode steps
  EXPECT_DOUBLE_EQ(l.e2e_s, 0.117);
  EXPECT_DOUBLE_EQ(*l.tpot_s, 0.010);
  EXPECT_DOUBLE_EQ(result->summary.ttft_s.mean, 0.017);
  EXPECT_DOUBLE_EQ(result->summary.e2e_s.mean, 0.117);
  EXPECT_DOUBLE_EQ(result->summary.queue_s.mean, 0.0);
}

// A pool of 300 blocks that 400 requests (sums of their prompt and output tokens returned)
// outgrow: the token-accounting runs below.
EngineConfig accounting_config() {
  EngineConfig config = testing::small_config(/*num_blocks=*/300);
  config.cache.eviction = EvictionKind::kNone;
  config.scheduler.prefix_caching = false;
  config.scheduler.max_num_batched_tokens = 512;
  config.scheduler.max_num_seqs = 16;
  return config;
}

std::vector<RequestSpec> accounting_workload(uint64_t* prompt_sum, uint64_t* output_sum) {
  std::vector<RequestSpec> requests;
  for (uint64_t i = 0; i < 400; ++i) {
    const uint32_t prompt = 20 + static_cast<uint32_t>(i * 37 % 700);
    const uint32_t output = 1 + static_cast<uint32_t>(i * 53 % 200);
    requests.push_back(testing::request(i, static_cast<int64_t>(i) * 20'000'000, prompt, output));
    *prompt_sum += prompt;
    *output_sum += output;
  }
  return requests;
}

TEST(Engine, EveryTokenIsAccountedForAndThePoolIsNeverExceeded) {
  EngineConfig config = accounting_config();
  uint64_t prompt_sum = 0, output_sum = 0;
  const std::vector<RequestSpec> requests = accounting_workload(&prompt_sum, &output_sum);
  auto result = run(config, std::make_unique<FixedCostModel>(5'000'000, 2'000), requests);
  const EngineStats& stats = result->engine->stats();
  const Summary& s = result->summary;
  EXPECT_EQ(s.requests_completed, 400u);
  EXPECT_EQ(s.prompt_tokens, prompt_sum);
  EXPECT_EQ(s.output_tokens, output_sum);
  EXPECT_EQ(stats.output_tokens, output_sum);
  // Every token position computed once, plus what recompute preemptions made it do again.
  EXPECT_EQ(stats.prefill_tokens + stats.decode_tokens,
            prompt_sum + (output_sum - 400) + stats.recomputed_tokens);
  EXPECT_GT(stats.recomputed_tokens, 0u);
  EXPECT_GT(stats.preemptions_recompute, 0u);  // the pool was tight
  EXPECT_LE(s.kv_usage_peak, 1.0);
  EXPECT_GT(s.kv_usage_peak, 0.9);
  EXPECT_EQ(result->engine->cache().num_free_blocks(),
            299u);  // nothing leaked: 300 less the null block
}

// The same workload with speculative decoding (k = 3, p = 0.6): every draft is accounted for
// (computed tokens = each position once + recomputed + rejected drafts), the lookahead slots
// never take the pool past its blocks (the Recorder checks every iteration) and preemption
// still frees everything.
TEST(Engine, SpeculativeDraftsAreAccountedForAndTheLookaheadStaysInThePool) {
  EngineConfig config = accounting_config();
  config.scheduler.speculative.method = SpeculativeMethod::kEagle;
  config.scheduler.speculative.num_speculative_tokens = 3;
  config.scheduler.speculative.acceptance = *acceptance_rates({0.6}, 3);
  uint64_t prompt_sum = 0, output_sum = 0;
  const std::vector<RequestSpec> requests = accounting_workload(&prompt_sum, &output_sum);
  auto result = run(config, std::make_unique<FixedCostModel>(5'000'000, 2'000), requests);
  const EngineStats& stats = result->engine->stats();
  EXPECT_EQ(result->summary.requests_completed, 400u);
  EXPECT_EQ(stats.output_tokens, output_sum);
  EXPECT_GT(stats.accepted_draft_tokens, 0u);
  EXPECT_LT(stats.accepted_draft_tokens, stats.draft_tokens);
  EXPECT_EQ(stats.prefill_tokens + stats.decode_tokens,
            prompt_sum + (output_sum - 400) + stats.recomputed_tokens +
                (stats.draft_tokens - stats.accepted_draft_tokens));
  EXPECT_GT(stats.preemptions_recompute, 0u);
  EXPECT_EQ(result->engine->cache().num_free_blocks(), 299u);
}

// 60 requests of 200 prompt + 300 output tokens on a pool of 120 x 16 = 1,920 token slots:
// the batch outgrows the pool and requests are preempted.
std::unique_ptr<Run> preemption_run(PreemptionMode mode) {
  EngineConfig config = testing::small_config(/*num_blocks=*/120);
  config.cache.eviction = EvictionKind::kNone;
  config.scheduler.prefix_caching = false;
  config.scheduler.preemption = mode;
  config.cache.bytes_per_block = 1'000'000;
  config.host_link_bytes_per_s = 1e9;  // 1 ms per block moved
  return run(config, std::make_unique<FixedCostModel>(10'000'000),
             testing::constant_requests(60, 1'000'000, 200, 300));
}

TEST(Engine, SwapAndRecomputePreemptionBothRunAndDifferAsExpected) {
  auto recompute = preemption_run(PreemptionMode::kRecompute);
  auto swap = preemption_run(PreemptionMode::kSwap);
  const EngineStats& r = recompute->engine->stats();
  const EngineStats& w = swap->engine->stats();
  for (const EngineStats* stats : {&r, &w}) {
    EXPECT_EQ(stats->completed, 60u);
    EXPECT_EQ(stats->output_tokens, 60u * 300);
  }
  // Recompute: blocks dropped, tokens computed again, nothing over the host link.
  EXPECT_GT(r.preemptions_recompute, 0u);
  EXPECT_EQ(r.preemptions_swap, 0u);
  EXPECT_GT(r.recomputed_tokens, 0u);
  EXPECT_EQ(r.swap_out_bytes + r.swap_in_bytes, 0u);
  // Swap: every token computed exactly once; blocks go out and come back whole.
  EXPECT_GT(w.preemptions_swap, 0u);
  EXPECT_EQ(w.preemptions_recompute, 0u);
  EXPECT_EQ(w.recomputed_tokens, 0u);
  EXPECT_EQ(w.prefill_tokens + w.decode_tokens, 60u * (200 + 299));
  EXPECT_GT(w.swap_out_bytes, 0u);
  EXPECT_EQ(w.swap_in_bytes, w.swap_out_bytes);
  EXPECT_EQ(w.swap_out_bytes % 1'000'000, 0u);
  EXPECT_GT(r.prefill_tokens, w.prefill_tokens);
  EXPECT_GT(recompute->summary.preemptions, 0u);
  EXPECT_EQ(swap->summary.swap_bytes, w.swap_out_bytes * 2);
}

// Fixed 10 ms iterations, a 256-token budget and 64 + 16 token requests: each request uses
// 64 + 15 = 79 tokens of budget, so the engine serves at most 256 / 79 requests per 10 ms.
Summary saturation_run(double offered_per_s) {
  EngineConfig config = testing::small_config(/*num_blocks=*/100000);
  config.scheduler.max_num_batched_tokens = 256;
  config.scheduler.max_num_seqs = 1024;
  config.scheduler.prefix_caching = false;
  config.cache.eviction = EvictionKind::kNone;
  const auto gap = static_cast<int64_t>(1e9 / offered_per_s);
  auto result = run(config, std::make_unique<FixedCostModel>(10'000'000),
                    testing::constant_requests(6000, gap, 64, 16));
  return result->summary;
}

TEST(Engine, PastSaturationThroughputFlattensAtTheBoundAndQueueingGrows) {
  const double bound = 256.0 / 79.0 / 0.010;  // requests per second, ~324
  const Summary below = saturation_run(0.5 * bound);
  const Summary over = saturation_run(1.5 * bound);
  const Summary far_over = saturation_run(3.0 * bound);
  const auto requests_per_s = [](const Summary& s) {
    return static_cast<double>(s.requests_completed) / s.sim_duration_s;
  };
  EXPECT_NEAR(requests_per_s(below), 0.5 * bound, 0.02 * bound);  // serves what is offered
  EXPECT_NEAR(requests_per_s(over), bound, 0.03 * bound);
  EXPECT_NEAR(requests_per_s(far_over), bound, 0.03 * bound);
  EXPECT_NEAR(far_over.output_tokens_per_s, 16 * bound, 0.03 * 16 * bound);
  EXPECT_LT(below.queue_s.mean, 0.02);
  EXPECT_GT(over.queue_s.mean, 50 * below.queue_s.mean);
  EXPECT_GT(far_over.queue_s.mean, 1.5 * over.queue_s.mean);
  EXPECT_GT(far_over.ttft_s.p99, over.ttft_s.p99);
}

TEST(Engine, RequestsThatCanNeverFitAreDroppedAndCounted) {
  // 11 blocks, 10 usable (block 0 is the null block): 160 slots.
  EngineConfig config = testing::small_config(/*num_blocks=*/11);
  config.max_model_len = 1000;
  config.scheduler.max_num_batched_tokens = 100;
  const std::vector<RequestSpec> requests = {
      testing::request(0, 0, 50, 20),    // fits
      testing::request(1, 1, 900, 200),  // longer than the model's context
      testing::request(2, 2, 150, 20),   // 169 tokens: 11 blocks > 10
      testing::request(3, 3, 100, 60),   // fits: 159 tokens, 10 blocks
  };
  auto result = run(config, std::make_unique<FixedCostModel>(1'000'000), requests);
  EXPECT_EQ(result->summary.requests_completed, 2u);
  EXPECT_EQ(result->summary.requests_dropped, 2u);
  ASSERT_EQ(result->recorder.dropped.size(), 2u);
  EXPECT_EQ(result->recorder.dropped[0], std::make_pair(uint64_t{1}, DropReason::kTooLong));
  EXPECT_EQ(result->recorder.dropped[1], std::make_pair(uint64_t{2}, DropReason::kTooLarge));

  config.scheduler.chunked_prefill = false;
  auto unchunked = run(config, std::make_unique<FixedCostModel>(1'000'000),
                       {testing::request(0, 0, 120, 2), testing::request(1, 0, 80, 2)});
  EXPECT_EQ(unchunked->summary.dropped_budget, 1u);  // 120 > 100 tokens per iteration
  EXPECT_EQ(unchunked->summary.requests_completed, 1u);
}

TEST(Engine, RetentionWindowCapsEachSequencesBlocks) {
  EngineConfig config = testing::small_config(/*num_blocks=*/60);  // 960 slots
  config.cache.eviction = EvictionKind::kNone;
  config.scheduler.prefix_caching = false;
  config.scheduler.max_num_batched_tokens = 64;
  config.cache.retention = retention_of("window:128");
  config.scheduler.attention_window_tokens = 128;
  // 3,000 tokens each, far more than the pool, yet each keeps ~128 tokens of KV.
  auto result = run(config, std::make_unique<FixedCostModel>(1'000'000),
                    testing::constant_requests(3, 0, 1000, 2000));
  EXPECT_EQ(result->summary.requests_completed, 3u);
  EXPECT_EQ(result->summary.requests_dropped, 0u);
  EXPECT_EQ(result->engine->stats().preemptions_recompute, 0u);
  EXPECT_LE(result->engine->stats().kv_blocks_peak, 3u * (128 / 16 + 64 / 16 + 2));
  EXPECT_GT(result->engine->cache().stats().num_trimmed_blocks, 3u * 150);
}

// A run's whole outcome as text: its counters and every finished and dropped request.
std::string outcome(const Run& r) {
  const EngineStats& s = r.engine->stats();
  std::ostringstream out;
  out << "events " << s.events << " iterations " << s.iterations << " completed " << s.completed
      << " dropped " << s.dropped_total() << " preemptions " << s.preemptions_recompute << '/'
      << s.preemptions_swap << " swap bytes " << s.swap_out_bytes << '/' << s.swap_in_bytes
      << " tokens " << s.prefill_tokens << '/' << s.decode_tokens << '/' << s.recomputed_tokens
      << '/' << s.output_tokens << " peak " << s.kv_blocks_peak << " busy " << s.busy_ns << " end "
      << s.last_event_ns << '\n';
  for (const RequestRecord& q : r.recorder.finished) {
    out << q.id << ": " << q.arrival_ns << ' ' << q.first_scheduled_ns.value_or(-1) << ' '
        << q.first_token_ns.value_or(-1) << ' ' << q.finish_ns.value_or(-1) << " cached "
        << q.cached_prompt_tokens << " preempted " << q.preemptions << '\n';
  }
  for (const auto& [id, reason] : r.recorder.dropped) {
    out << id << " dropped " << static_cast<int>(reason) << '\n';
  }
  return out.str();
}

// Holds two engines in step for their first kIterations iterations: an engine that ends
// iteration i waits until the other has ended iteration i too. So the two runs provably
// overlap: neither can finish while the other has not started. A wait gives up after 60 s
// (and the test fails) instead of hanging.
class Lockstep {
 public:
  static constexpr uint64_t kIterations = 200;

  class Side final : public SimObserver {
   public:
    Side(Lockstep* lockstep, int side) : lockstep_(lockstep), side_(side) {}
    void on_iteration(const IterationRecord& it, const EngineSnapshot&) override {
      if (it.index < kIterations) lockstep_->arrive(side_, it.index + 1);
    }

   private:
    Lockstep* lockstep_;
    int side_;
  };

  // Both engines reached kIterations, each waiting for the other at every step.
  bool held_in_step() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !timed_out_ && ended_[0] == kIterations && ended_[1] == kIterations;
  }

 private:
  void arrive(int side, uint64_t ended) {
    std::unique_lock<std::mutex> lock(mutex_);
    ended_[side] = ended;
    changed_.notify_all();
    const bool met = changed_.wait_for(lock, std::chrono::seconds(60),
                                       [&] { return timed_out_ || ended_[1 - side] >= ended; });
    if (!met) timed_out_ = true;
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t ended_[2] = {0, 0};
  bool timed_out_ = false;
};

// "Two simulations can run side by side in one process" (sweeps do): two engines with
// different workloads run at the same time on two threads, held in step for their first 200
// iterations, and each ends exactly as a lone run of the same input does.
TEST(Engine, TwoEnginesRunSideBySide) {
  struct Input {
    EngineConfig config;
    std::vector<RequestSpec> requests;
  };
  Input inputs[2] = {
      {testing::small_config(200), testing::constant_requests(300, 1'000'000, 100, 30)},
      {testing::small_config(120), testing::constant_requests(120, 1'000'000, 200, 300)}};
  inputs[1].config.scheduler.preemption = PreemptionMode::kSwap;  // a tight pool: it swaps
  const auto prepared = [&](const Input& input) {
    return prepare(input.config, std::make_unique<FixedCostModel>(1'000'000, 1000), input.requests);
  };
  std::string alone[2];
  for (int i = 0; i < 2; ++i) {
    auto lone = prepared(inputs[i]);
    finish(lone.get());
    alone[i] = outcome(*lone);
    ASSERT_GT(lone->engine->stats().iterations, Lockstep::kIterations);
  }
  ASSERT_NE(alone[0], alone[1]);  // so that crossed state would show

  Lockstep lockstep;
  Lockstep::Side sides[2] = {{&lockstep, 0}, {&lockstep, 1}};
  std::array runs = {prepared(inputs[0]), prepared(inputs[1])};
  std::latch start(2);
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    runs[i]->engine->add_observer(&sides[i]);
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      finish(runs[i].get());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_TRUE(lockstep.held_in_step()) << "the engines did not run at the same time";
  for (int i = 0; i < 2; ++i) EXPECT_EQ(outcome(*runs[i]), alone[i]) << "engine " << i;
}

}  // namespace
}  // namespace kvsim::sim

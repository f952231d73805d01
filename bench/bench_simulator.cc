// Simulator throughput: whole runs of the shipped scenarios, as `kvsim simulate` does them
// (no output files; bench/simulator_speed.sh times the CLI with files and peak memory).
//   BM_MooncakeTrace       the Mooncake conversation trace (12,031 requests, ~12k-token
//                          prompts) with prefix caching on qwen2.5-7b x a100-80g; target <= 2 s
//   BM_SyntheticRequests/N the default synthetic chat workload with N requests; the 1,000,000
//                          run's target is <= 60 s, and 1M / 100k must stay within 12x
// Counters: events/s and simulated requests per wall-second.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/base/data_dir.h"
#include "simulator/simulation.h"

namespace {

using kvsim::sim::Summary;

bool run_scenario(benchmark::State& state, const std::string& name,
                  const std::vector<std::string>& overrides) {
  auto scenario = kvsim::sim::load_scenario(name, overrides);
  if (!scenario.is_ok()) {
    state.SkipWithError(scenario.status().message().c_str());
    return false;
  }
  auto setup = kvsim::sim::prepare_simulation(*scenario);
  if (!setup.is_ok()) {
    state.SkipWithError(setup.status().message().c_str());
    return false;
  }
  uint64_t events = 0, requests = 0;
  for (auto _ : state) {
    auto summary = kvsim::sim::run_simulation(*setup, {});
    if (!summary.is_ok()) {
      state.SkipWithError(summary.status().message().c_str());
      return false;
    }
    events += summary->events;
    requests += summary->requests_arrived;
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
  return true;
}

void BM_MooncakeTrace(benchmark::State& state) {
  if (!std::filesystem::exists(kvsim::data_dir() / "traces" / "conversation_trace.jsonl")) {
    state.SkipWithError("needs the shared traces (set KVSIM_DATA_DIR)");
    return;
  }
  run_scenario(state, "mooncake-conversation", {});
}
BENCHMARK(BM_MooncakeTrace)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_SyntheticRequests(benchmark::State& state) {
  run_scenario(state, "default",
               {"workload.synthetic.num_requests=" + std::to_string(state.range(0))});
}
BENCHMARK(BM_SyntheticRequests)
    ->Arg(100'000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK(BM_SyntheticRequests)
    ->Arg(1'000'000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

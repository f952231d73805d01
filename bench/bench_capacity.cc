// Capacity math is on the path of every sweep point; this keeps an eye on its cost.
#include <benchmark/benchmark.h>

#include "core/capacity.h"
#include "core/presets.h"

namespace {

void BM_ComputeCapacity(benchmark::State& state) {
  const auto model = kvsim::load_model("llama3-70b");
  const auto device = kvsim::load_device("ascend-310p3");
  kvsim::CapacityQuery query;
  query.tp = 8;
  for (auto _ : state) {
    auto result = kvsim::compute_capacity(*model, &*device, query);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_ComputeCapacity);

void BM_LoadPresetFromYaml(benchmark::State& state) {
  for (auto _ : state) {
    auto model = kvsim::load_model("llama3-8b");
    benchmark::DoNotOptimize(model);
  }
}
BENCHMARK(BM_LoadPresetFromYaml);

}  // namespace

BENCHMARK_MAIN();

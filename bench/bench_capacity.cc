// Capacity math is on the path of every sweep point; this keeps an eye on its cost, and on
// the start-up log parser's.
#include <benchmark/benchmark.h>

#include "core/engine/capacity.h"
#include "core/engine/startup_log.h"
#include "core/model/load_spec.h"

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

// `kvsim calibrate --from-log` reads whole start-up logs, DEBUG ones included: 10,000 ordinary
// lines with the figures among them, about 1.3 MB.
void BM_ParseStartupLog(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 10'000; ++i) {
    text += "(Worker_TP" + std::to_string(i % 4) + " pid=77" + std::to_string(i % 4) +
            ") INFO 08-21 18:22:06 [some_module.py:" + std::to_string(i) +
            "] an ordinary line of the log, number " + std::to_string(i) + ", 12.34 GiB\n";
    if (i == 5'000) {
      text +=
          "INFO [gpu_worker.py:789] Free memory on device (94.05/95.01 GiB) on startup. "
          "Desired GPU memory utilization is (0.9, 85.51 GiB). Actual usage is 56.89 GiB for "
          "consumed memory (weights + non-torch), 0.76 GiB for peak activation, and 0.32 GiB "
          "for CUDAGraph memory.\nGPU KV cache size: 621,392 tokens\n";
    }
  }
  for (auto _ : state) {
    auto log = kvsim::parse_startup_log(text, "bench.log");
    benchmark::DoNotOptimize(log);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseStartupLog)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// One iteration's cost, the simulator's inner call (issue 19: at least 5 M evaluations per
// second for batches of 64 sequences). Each benchmark evaluates a fixed batch built as the
// scheduler builds it — 64 decodes at varied contexts, and 63 decodes plus a prefill chunk —
// with every cost model kind that needs no data files; items_per_second is evaluations/s.
#include <benchmark/benchmark.h>

#include <memory>

#include "core/engine/capacity.h"
#include "core/model/load_spec.h"
#include "simulator/cost/make_cost_model.h"

namespace {

using kvsim::sim::BatchShape;

BatchShape batch_of_64(bool with_chunk) {
  BatchShape shape;
  for (int i = 0; i < (with_chunk ? 63 : 64); ++i) shape.add(1, 500 + 37 * i, false, true);
  if (with_chunk) shape.add(2048, 4096, true, false);
  return shape;
}

std::unique_ptr<kvsim::sim::CostModel> make(kvsim::sim::CostModelKind kind, uint32_t tp) {
  const auto model = kvsim::load_model("llama2-70b");
  const auto device = kvsim::load_device("a100-80g");
  kvsim::CapacityQuery query;
  query.tp = tp;
  const auto capacity = kvsim::compute_capacity(*model, &*device, query);
  kvsim::sim::CostModelConfig config;
  config.kind = kind;
  auto made =
      kvsim::sim::make_cost_model(config, *model, *device, *capacity, kvsim::DType::kFp16, tp);
  return std::move(*made);
}

void run(benchmark::State& state, kvsim::sim::CostModelKind kind) {
  const auto model = make(kind, static_cast<uint32_t>(state.range(1)));
  BatchShape shape = batch_of_64(state.range(0) != 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(shape);  // the shape changes every iteration as far as it knows
    benchmark::DoNotOptimize(model->iteration_ns(shape));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_OperatorCost64Seqs(benchmark::State& state) {
  run(state, kvsim::sim::CostModelKind::kOperators);
}
void BM_RooflineCost64Seqs(benchmark::State& state) {
  run(state, kvsim::sim::CostModelKind::kRoofline);
}
// Args: {with a prefill chunk, tp}.
BENCHMARK(BM_OperatorCost64Seqs)->Args({0, 1})->Args({1, 1})->Args({0, 4})->Args({1, 4});
BENCHMARK(BM_RooflineCost64Seqs)->Args({0, 1})->Args({1, 4});

}  // namespace

BENCHMARK_MAIN();

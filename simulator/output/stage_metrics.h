// Per-stage figures (Summary::stages, simulator/output/metrics.h) of a staged workload
// (workload.synthetic.stages), as inference-perf and staged benchmarks report each load stage on
// its own. A request belongs to the stage in which it arrived (was sent: with max_concurrency, the
// time the client sent it); one sent after the last stage's end counts in the last stage.
//   completed, dropped       the stage's requests that finished / were dropped
//   ttft_s, tpot_s, e2e_s    {mean, p50, p90, p99} over the stage's finished requests
//   output_tokens_per_s      their output tokens / (last finish - stage start): the stage's
//                            offered output when the server keeps up, less when it falls behind
// summary.json gains "stages" (a list) only for a staged workload, so other runs' files are
// unchanged.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simulator/engine/sim_observer.h"
#include "simulator/output/metrics.h"

namespace kvsim::sim {

class StageCollector final : public SimObserver {
 public:
  // `ends_ns`: each stage's end (simulator/workload/synthetic_workload.h stage_ends_ns);
  // `rates`: each stage's nominal rate.
  StageCollector(std::vector<int64_t> ends_ns, std::vector<double> rates);

  void on_request_finished(const RequestRecord& request) override;
  void on_request_dropped(const RequestRecord& request, DropReason reason) override;

  // Sorts the latencies; call once, after the run.
  std::vector<StageSummary> build();

 private:
  struct Stage {
    LatencySamples ttft_s, tpot_s, e2e_s;
    uint64_t dropped = 0, output_tokens = 0;
    int64_t last_finish_ns = 0;
  };
  size_t stage_of(int64_t arrival_ns) const;

  std::vector<int64_t> ends_ns_;
  std::vector<double> rates_;
  std::vector<Stage> stages_;
};

nlohmann::ordered_json stages_json(const std::vector<StageSummary>& stages);
// The text summary's lines: one per stage (empty for no stages).
std::string stages_text(const std::vector<StageSummary>& stages);

}  // namespace kvsim::sim

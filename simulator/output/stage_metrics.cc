#include "simulator/output/stage_metrics.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/text_format.h"
#include "core/base/units.h"
#include "simulator/output/request_latency.h"

namespace kvsim::sim {

StageCollector::StageCollector(std::vector<int64_t> ends_ns, std::vector<double> rates)
    : ends_ns_(std::move(ends_ns)), rates_(std::move(rates)), stages_(ends_ns_.size()) {}

size_t StageCollector::stage_of(int64_t arrival_ns) const {
  const auto it = std::upper_bound(ends_ns_.begin(), ends_ns_.end(), arrival_ns);
  return std::min<size_t>(static_cast<size_t>(it - ends_ns_.begin()), ends_ns_.size() - 1);
}

void StageCollector::on_request_finished(const RequestRecord& r) {
  Stage& stage = stages_[stage_of(r.arrival_ns)];
  const RequestLatency latency = latency_of(r);
  stage.ttft_s.add(latency.ttft_s);
  stage.e2e_s.add(latency.e2e_s);
  if (latency.tpot_s) stage.tpot_s.add(*latency.tpot_s);
  stage.output_tokens += r.output_tokens;
  stage.last_finish_ns = std::max(stage.last_finish_ns, *r.finish_ns);
}

void StageCollector::on_request_dropped(const RequestRecord& r, DropReason /*reason*/) {
  ++stages_[stage_of(r.arrival_ns)].dropped;
}

std::vector<StageSummary> StageCollector::build() {
  std::vector<StageSummary> out;
  for (size_t i = 0; i < stages_.size(); ++i) {
    Stage& stage = stages_[i];
    StageSummary s;
    s.rate_per_s = rates_[i];
    const int64_t start_ns = i == 0 ? 0 : ends_ns_[i - 1];
    s.start_s = ns_to_s(start_ns);
    s.end_s = ns_to_s(ends_ns_[i]);
    s.completed = stage.e2e_s.count();
    s.dropped = stage.dropped;
    s.ttft_s = stage.ttft_s.summary();
    s.tpot_s = stage.tpot_s.summary();
    s.e2e_s = stage.e2e_s.summary();
    const double span_s = ns_to_s(stage.last_finish_ns - start_ns);
    s.output_tokens_per_s = span_s > 0 ? static_cast<double>(stage.output_tokens) / span_s : 0;
    out.push_back(s);
  }
  return out;
}

nlohmann::ordered_json stages_json(const std::vector<StageSummary>& stages) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const StageSummary& s : stages) {
    nlohmann::ordered_json j;
    j["rate_per_s"] = s.rate_per_s;
    j["start_s"] = s.start_s;
    j["end_s"] = s.end_s;
    j["completed"] = s.completed;
    j["dropped"] = s.dropped;
    j["ttft_s"] = latency_json(s.ttft_s);
    j["tpot_s"] = latency_json(s.tpot_s);
    j["e2e_s"] = latency_json(s.e2e_s);
    j["output_tokens_per_s"] = s.output_tokens_per_s;
    list.push_back(std::move(j));
  }
  return list;
}

std::string stages_text(const std::vector<StageSummary>& stages) {
  std::string text;
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageSummary& s = stages[i];
    text += fmt::format(
        "stage {}  {}/s over {}-{} s: {} done, {} dropped; TTFT p50 {} s, TPOT p50 {} s, E2E p50 "
        "{} s; {} output tokens/s\n",
        i, format_fixed(s.rate_per_s, 2), format_fixed(s.start_s, 1), format_fixed(s.end_s, 1),
        format_count(s.completed), format_count(s.dropped), format_fixed(s.ttft_s.p50, 4),
        format_fixed(s.tpot_s.p50, 4), format_fixed(s.e2e_s.p50, 4),
        format_fixed(s.output_tokens_per_s, 1));
  }
  return text;
}

}  // namespace kvsim::sim

// RequestsCsvWriter: DIR/requests.csv, one row per finished request, streamed to disk as the
// requests finish (so a million-request run holds none of them):
//   id,arrival_s,prompt_tokens,output_tokens,cached_prompt_tokens,ttft_s,tpot_s,e2e_s,preemptions
// Times in seconds (shortest round-trip decimals); tpot_s is empty for one-token outputs.
// Rows come in finishing order. Dropped requests have no row (the summary counts them).
#pragma once

#include <memory>
#include <string>

#include "simulator/output_file.h"
#include "simulator/sim_observer.h"

namespace kvsim::sim {

class RequestsCsvWriter final : public SimObserver {
 public:
  static StatusOr<std::unique_ptr<RequestsCsvWriter>> create(const std::string& path);

  void on_request_finished(const RequestRecord& request) override;
  Status finish(const EngineSnapshot& last) override;

 private:
  explicit RequestsCsvWriter(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}
  std::unique_ptr<OutputFile> file_;
};

}  // namespace kvsim::sim

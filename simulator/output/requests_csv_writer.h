// RequestsCsvWriter: DIR/requests.csv, one row per finished request, streamed to disk as the
// requests finish (so a million-request run holds none of them). Its columns are
// request_columns() (simulator/output/table_columns.h, where each is described); a cluster's
// file adds cluster_request_columns() (replica, prefill_replica, kv_transfer_s).
// Times in seconds (shortest round-trip decimals); tpot_s is empty for one-token outputs.
// Rows come in finishing order. Dropped requests have no row (the summary counts them).
#pragma once

#include <memory>
#include <string>

#include "simulator/engine/sim_observer.h"
#include "simulator/io/output_file.h"

namespace kvsim::sim {

class RequestsCsvWriter final : public SimObserver {
 public:
  static StatusOr<std::unique_ptr<RequestsCsvWriter>> create(const std::string& path,
                                                             bool cluster_columns = false);

  void on_request_finished(const RequestRecord& request) override;
  Status finish(const EngineSnapshot& last) override;

 private:
  RequestsCsvWriter(std::unique_ptr<OutputFile> file, bool cluster_columns)
      : file_(std::move(file)), cluster_columns_(cluster_columns) {}
  std::unique_ptr<OutputFile> file_;
  bool cluster_columns_;
};

}  // namespace kvsim::sim

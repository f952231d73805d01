// ChromeTraceWriter: the run as Chrome trace-event JSON (opens in Perfetto / chrome://tracing),
// streamed to disk.
//   pid 1 "engine":   tid 1 one complete event ("X") per iteration, args: seqs, prefill and
//                     decode tokens, context tokens; a counter ("C") of KV blocks used and
//                     cached-free after each iteration
//                     tid 2 swap-outs and tid 3 swap-ins over the host link ("X")
//   pid 2 "requests": one async span ("b"/"e", id = request id) per request from arrival to
//                     finish (or drop), with an instant ("n") at its first token
// A cluster's trace (create() with replica names) has one process per replica instead of
// "engine" (pid 3 + replica index, named after it), with two more threads: tid 4 loads from
// lower KV tiers, tid 5 KV received from a prefill replica.
// Timestamps are microseconds of simulated time.
//
// Each event is built as a JSON object (nlohmann, keys in insertion order) and dumped on a line
// of its own, so names (a replica's, say) are escaped and the file is always valid JSON:
//   {"displayTimeUnit":"ms","traceEvents":[
//   {"name":"process_name","ph":"M","pid":1,"args":{"name":"engine"}},
//   ...
//   ]}
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/engine/sim_observer.h"
#include "simulator/io/output_file.h"

namespace kvsim::sim {

class ChromeTraceWriter final : public SimObserver {
 public:
  static StatusOr<std::unique_ptr<ChromeTraceWriter>> create(const std::string& path);
  static StatusOr<std::unique_ptr<ChromeTraceWriter>> create(
      const std::string& path, const std::vector<std::string>& replica_names);

  void on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) override;
  void on_request_finished(const RequestRecord& request) override;
  void on_request_dropped(const RequestRecord& request, DropReason reason) override;
  void on_transfer(const TransferRecord& transfer) override;
  Status finish(const EngineSnapshot& last) override;

 private:
  ChromeTraceWriter(std::unique_ptr<OutputFile> file, bool cluster);
  int engine_pid(int32_t replica) const;
  // Names a process (pid) or one of its threads (tid >= 1) in the viewer.
  void name_process(int pid, std::string_view name);
  void name_thread(int pid, int tid, std::string_view name);
  // Appends one event on its own line.
  void write(const nlohmann::ordered_json& event);

  std::unique_ptr<OutputFile> file_;
  bool cluster_;
  uint64_t num_events_ = 0;
};

}  // namespace kvsim::sim

// TimeseriesWriter: DIR/timeseries.csv, the engine's state every `interval` of simulated time:
//   time_s,kv_blocks_used,kv_blocks_cached_free,kv_blocks_free,running,waiting,swapped,
//   tokens_per_s
// Row k stands for time k x interval (k = 1, 2, ...): the state after the last iteration that
// ended at or before it, and tokens_per_s = tokens computed (prefill + decode) by iterations
// ending in ((k-1) interval, k interval], divided by the interval. The state is sampled at
// iteration ends (an idle engine has nothing running or waiting). Streamed to disk.
#pragma once

#include <memory>
#include <string>

#include "simulator/io/output_file.h"
#include "simulator/engine/sim_observer.h"

namespace kvsim::sim {

class TimeseriesWriter final : public SimObserver {
 public:
  static StatusOr<std::unique_ptr<TimeseriesWriter>> create(const std::string& path,
                                                            int64_t interval_ns);

  void on_iteration(const IterationRecord& iteration, const EngineSnapshot& after) override;
  Status finish(const EngineSnapshot& last) override;

 private:
  TimeseriesWriter(std::unique_ptr<OutputFile> file, int64_t interval_ns);
  // Writes the rows whose time is before `time_ns` (or up to it, inclusive).
  void emit_rows_until(int64_t time_ns, bool inclusive);

  std::unique_ptr<OutputFile> file_;
  int64_t interval_ns_;
  int64_t next_row_ns_;
  EngineSnapshot state_;        // the latest state
  uint64_t window_tokens_ = 0;  // tokens computed in the current row's window
};

}  // namespace kvsim::sim

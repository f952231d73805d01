// The per-format trace readers behind open_trace_reader (simulator/workload/trace_reader.h). Each
// takes the opened file; the CSV readers read and check the header first.
#pragma once

#include <memory>

#include "core/base/status.h"
#include "simulator/io/line_reader.h"
#include "simulator/workload/trace_reader.h"

namespace kvsim::sim {

std::unique_ptr<TraceReader> make_mooncake_reader(std::unique_ptr<LineReader> lines);
StatusOr<std::unique_ptr<TraceReader>> make_csv_trace_reader(std::unique_ptr<LineReader> lines,
                                                             TraceFormat format);

// The first non-empty line of a CSV header, split into columns (shared with detection).
StatusOr<std::vector<std::string>> read_csv_header(LineReader* lines);

}  // namespace kvsim::sim

// Trace readers: the request logs kvsim replays, read row by row (never loaded whole).
//
//   format     columns / fields                                            arrival unit
//   mooncake   JSONL: timestamp, input_length, output_length, hash_ids    milliseconds
//              (one id per 512 prompt tokens; equal ids = identical prefix content)
//   azure      CSV: TIMESTAMP ("2023-11-16 18:15:46.6805900", optional      date-time
//              "+00:00"), ContextTokens, GeneratedTokens
//   burstgpt   CSV: Timestamp, Model, Request tokens, Response tokens,     seconds
//              Total tokens, Log Type (later releases add more columns)
//   csv        CSV: arrival_s, prompt_tokens, output_tokens               seconds
//              [, prefix_group [, prefix_tokens]]
//   auto       chosen from the first line (a JSON object, or the CSV header's columns)
//
// A row that is not what its format promises (a missing field, a negative or non-numeric
// count, a zero-token prompt, a JSON syntax error) comes back as a Status naming
// "file:line: what was wrong"; the reader can go on with the next row (the caller decides).
// Rows of requests that failed in production (BurstGPT and Azure rows with zero generated
// tokens) are flagged `failed`, not errors.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "simulator/io/line_reader.h"

namespace kvsim::sim {

enum class TraceFormat : uint8_t { kAuto, kMooncake, kAzure, kBurstGpt, kCsv };

std::string_view trace_format_name(TraceFormat format);
// "auto", "mooncake", "azure", "burstgpt", "csv"; an unknown name lists the valid ones.
StatusOr<TraceFormat> parse_trace_format(std::string_view name);
std::vector<std::string> trace_format_names();

// Hash ids of Mooncake traces cover this many prompt tokens each.
inline constexpr uint32_t kMooncakeHashBlockTokens = 512;

// One parsed row, in the file's own time base.
struct TraceRow {
  int64_t timestamp_ns = 0;  // as in the file, converted to ns (absolute for azure)
  uint64_t prompt_tokens = 0;
  uint64_t output_tokens = 0;
  std::vector<uint64_t> hash_ids;        // mooncake only
  std::optional<uint64_t> prefix_group;  // csv only
  uint64_t prefix_tokens = 0;            // csv only; 0 = the workload's default
  std::optional<double> acceptance;      // csv only: speculative acceptance rate in [0, 1]
  bool failed = false;                   // a failed request in the log (zero generated tokens)
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The next row in *row and true; false at the end; a malformed row is a Status with
  // file:line, after which next_row() may be called again for the following row.
  virtual StatusOr<bool> next_row(TraceRow* row) = 0;
  virtual TraceFormat format() const = 0;
  const LineReader& lines() const { return *lines_; }

 protected:
  explicit TraceReader(std::unique_ptr<LineReader> lines) : lines_(std::move(lines)) {}
  // "file:line: message" as a parse error for the line just read.
  Status row_error(const std::string& message) const;
  std::unique_ptr<LineReader> lines_;
};

// Opens `path` as `format` (kAuto detects it) and reads the header when there is one.
StatusOr<std::unique_ptr<TraceReader>> open_trace_reader(const std::string& path,
                                                         TraceFormat format);

// The format of a file from its first line.
StatusOr<TraceFormat> detect_trace_format(const std::string& path);

}  // namespace kvsim::sim

#include "simulator/workload/trace_reader.h"

#include <algorithm>

#include "core/base/enum_names.h"
#include "simulator/workload/trace_reader_formats.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<TraceFormat, 5> kFormatNames{{{
    {TraceFormat::kAuto, "auto"},
    {TraceFormat::kMooncake, "mooncake"},
    {TraceFormat::kAzure, "azure"},
    {TraceFormat::kBurstGpt, "burstgpt"},
    {TraceFormat::kCsv, "csv"},
}}};

bool has_column(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string_view trace_format_name(TraceFormat format) { return kFormatNames.name(format); }

std::vector<std::string> trace_format_names() { return kFormatNames.names(); }

StatusOr<TraceFormat> parse_trace_format(std::string_view name) {
  return kFormatNames.parse(name, "trace format");
}

Status TraceReader::row_error(const std::string& message) const {
  return Status::parse_error(lines_->where() + ": " + message);
}

StatusOr<TraceFormat> detect_trace_format(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  std::string_view line;
  KVSIM_ASSIGN_OR_RETURN(const bool more, lines->next_non_blank(&line));
  if (!more) return Status::parse_error(path + ": empty file, cannot detect the trace format");
  if (line[line.find_first_not_of(" \t")] == '{') return TraceFormat::kMooncake;
  KVSIM_ASSIGN_OR_RETURN(auto reopened, LineReader::open(path));
  KVSIM_ASSIGN_OR_RETURN(const std::vector<std::string> names, read_csv_header(reopened.get()));
  if (has_column(names, "ContextTokens")) return TraceFormat::kAzure;
  if (has_column(names, "Request tokens")) return TraceFormat::kBurstGpt;
  if (has_column(names, "arrival_s")) return TraceFormat::kCsv;
  return Status::parse_error(
      reopened->where() +
      ": cannot tell the trace format: the first line is neither a JSON "
      "object (mooncake) nor a CSV header with ContextTokens (azure), 'Request tokens' "
      "(burstgpt) or arrival_s (csv); name it with --trace-format");
}

StatusOr<std::unique_ptr<TraceReader>> open_trace_reader(const std::string& path,
                                                         TraceFormat format) {
  if (format == TraceFormat::kAuto) {
    KVSIM_ASSIGN_OR_RETURN(format, detect_trace_format(path));
  }
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  if (format == TraceFormat::kMooncake) return make_mooncake_reader(std::move(lines));
  return make_csv_trace_reader(std::move(lines), format);
}

}  // namespace kvsim::sim

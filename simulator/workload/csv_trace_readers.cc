// The CSV trace formats: Azure LLM inference traces, BurstGPT and kvsim's plain CSV. A shared
// base reads the header, finds the columns by name (any order, extra columns ignored) and
// splits each row; each format turns its fields into a TraceRow.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/base/units.h"
#include "simulator/io/csv_row.h"
#include "simulator/io/timestamp.h"
#include "simulator/workload/trace_reader_formats.h"

namespace kvsim::sim {
namespace {

constexpr uint64_t kMaxTokens = uint64_t{1} << 31;
constexpr uint64_t kMaxGroup = uint64_t{1} << 62;
constexpr double kMaxSeconds = 9e9;  // times in ns still fit in int64

class CsvTraceReader : public TraceReader {
 public:
  StatusOr<bool> next_row(TraceRow* row) final {
    std::string_view line;
    KVSIM_ASSIGN_OR_RETURN(const bool more, lines_->next_non_blank(&line, " \t,"));
    if (!more) return false;
    if (!split_csv_line(line, &fields_, &scratch_)) return row_error("unclosed quote");
    if (fields_.size() < min_fields_) {
      return row_error(fmt::format("expected {} columns, got {}", header_size_, fields_.size()));
    }
    row->hash_ids.clear();
    row->prefix_group.reset();
    row->prefix_tokens = 0;
    row->acceptance.reset();
    row->failed = false;
    const Status parsed = parse_fields(row);
    if (!parsed.is_ok()) return row_error(parsed.message());
    return true;
  }

 protected:
  CsvTraceReader(std::unique_ptr<LineReader> lines, size_t header_size)
      : TraceReader(std::move(lines)), header_size_(header_size) {}

  // Columns must exist up to the highest required position.
  void need_column(int position) {
    min_fields_ = std::max(min_fields_, static_cast<size_t>(position) + 1);
  }
  std::string_view field(int position) const { return fields_[static_cast<size_t>(position)]; }
  // An optional column: empty when the header lacks it or the row ends early.
  std::string_view optional_field(int position) const {
    return position >= 0 && static_cast<size_t>(position) < fields_.size() ? field(position)
                                                                           : std::string_view();
  }

  Status token_count(int position, std::string_view column, uint64_t min, uint64_t* out) const {
    KVSIM_RETURN_IF_ERROR(parse_count_field(field(position), column, out));
    if (*out < min || *out > kMaxTokens) {
      return Status::parse_error(fmt::format("column '{}': expected {} to {} tokens, got {}",
                                             column, min, kMaxTokens, *out));
    }
    return Status::ok();
  }

  virtual Status parse_fields(TraceRow* row) const = 0;

 private:
  size_t header_size_;
  size_t min_fields_ = 0;
  std::vector<std::string_view> fields_;
  std::string scratch_;
};

class AzureReader final : public CsvTraceReader {
 public:
  AzureReader(std::unique_ptr<LineReader> lines, const CsvHeader& header, int time, int context,
              int generated)
      : CsvTraceReader(std::move(lines), header.size()),
        time_(time),
        context_(context),
        generated_(generated) {
    for (int position : {time, context, generated}) need_column(position);
  }
  TraceFormat format() const override { return TraceFormat::kAzure; }

 private:
  Status parse_fields(TraceRow* row) const override {
    auto time = parse_timestamp_ns(field(time_));
    if (!time.is_ok()) return time.status().with_context("column 'TIMESTAMP'");
    row->timestamp_ns = *time;
    KVSIM_RETURN_IF_ERROR(token_count(context_, "ContextTokens", 1, &row->prompt_tokens));
    KVSIM_RETURN_IF_ERROR(token_count(generated_, "GeneratedTokens", 0, &row->output_tokens));
    row->failed = row->output_tokens == 0;
    return Status::ok();
  }
  int time_, context_, generated_;
};

class BurstGptReader final : public CsvTraceReader {
 public:
  BurstGptReader(std::unique_ptr<LineReader> lines, const CsvHeader& header, int time, int request,
                 int response)
      : CsvTraceReader(std::move(lines), header.size()),
        time_(time),
        request_(request),
        response_(response) {
    for (int position : {time, request, response}) need_column(position);
  }
  TraceFormat format() const override { return TraceFormat::kBurstGpt; }

 private:
  Status parse_fields(TraceRow* row) const override {
    double seconds = 0;
    KVSIM_RETURN_IF_ERROR(parse_number_field(field(time_), "Timestamp", &seconds));
    if (std::fabs(seconds) > kMaxSeconds)
      return Status::parse_error("column 'Timestamp': out of range");
    row->timestamp_ns = std::llround(seconds * kNsPerS);
    KVSIM_RETURN_IF_ERROR(token_count(response_, "Response tokens", 0, &row->output_tokens));
    row->failed = row->output_tokens == 0;
    // A failed request may have logged no prompt either; it is skipped, so do not reject it.
    return token_count(request_, "Request tokens", row->failed ? 0 : 1, &row->prompt_tokens);
  }
  int time_, request_, response_;
};

class PlainCsvReader final : public CsvTraceReader {
 public:
  PlainCsvReader(std::unique_ptr<LineReader> lines, const CsvHeader& header, int arrival,
                 int prompt, int output)
      : CsvTraceReader(std::move(lines), header.size()),
        arrival_(arrival),
        prompt_(prompt),
        output_(output),
        group_(header.find("prefix_group")),
        prefix_tokens_(header.find("prefix_tokens")),
        acceptance_(header.find("acceptance")) {
    for (int position : {arrival, prompt, output}) need_column(position);
  }
  TraceFormat format() const override { return TraceFormat::kCsv; }

 private:
  Status parse_fields(TraceRow* row) const override {
    double seconds = 0;
    KVSIM_RETURN_IF_ERROR(parse_number_field(field(arrival_), "arrival_s", &seconds));
    if (seconds < 0 || seconds > kMaxSeconds) {
      return Status::parse_error("column 'arrival_s': must be in [0, 9e9] seconds");
    }
    row->timestamp_ns = std::llround(seconds * kNsPerS);
    KVSIM_RETURN_IF_ERROR(token_count(prompt_, "prompt_tokens", 1, &row->prompt_tokens));
    KVSIM_RETURN_IF_ERROR(token_count(output_, "output_tokens", 1, &row->output_tokens));
    const std::string_view group = optional_field(group_);
    if (!group.empty()) {
      uint64_t value = 0;
      KVSIM_RETURN_IF_ERROR(parse_count_field(group, "prefix_group", &value));
      if (value > kMaxGroup) return Status::parse_error("column 'prefix_group': too large");
      row->prefix_group = value;
    }
    const std::string_view tokens = optional_field(prefix_tokens_);
    if (!tokens.empty()) {
      KVSIM_RETURN_IF_ERROR(parse_count_field(tokens, "prefix_tokens", &row->prefix_tokens));
      if (row->prefix_tokens > row->prompt_tokens) {
        return Status::parse_error(fmt::format("prefix_tokens {} exceeds prompt_tokens {}",
                                               row->prefix_tokens, row->prompt_tokens));
      }
    }
    const std::string_view acceptance = optional_field(acceptance_);
    if (!acceptance.empty()) {
      double rate = 0;
      KVSIM_RETURN_IF_ERROR(parse_number_field(acceptance, "acceptance", &rate));
      if (!(rate >= 0 && rate <= 1)) {
        return Status::parse_error("column 'acceptance': a rate in [0, 1]");
      }
      row->acceptance = rate;
    }
    return Status::ok();
  }
  int arrival_, prompt_, output_, group_, prefix_tokens_, acceptance_;
};

std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return std::vector<std::string_view>(names.begin(), names.end());
}

}  // namespace

StatusOr<std::vector<std::string>> read_csv_header(LineReader* lines) {
  std::string_view line;
  KVSIM_ASSIGN_OR_RETURN(const bool more, lines->next_non_blank(&line));
  if (!more) return Status::parse_error(lines->path() + ": empty file, expected a CSV header");
  std::vector<std::string_view> fields;
  std::string scratch;
  if (!split_csv_line(line, &fields, &scratch)) {
    return Status::parse_error(lines->where() + ": unclosed quote in the header");
  }
  std::vector<std::string> names(fields.begin(), fields.end());
  if (!names.empty() && names[0].rfind("\xEF\xBB\xBF", 0) == 0) names[0].erase(0, 3);
  return names;
}

StatusOr<std::unique_ptr<TraceReader>> make_csv_trace_reader(std::unique_ptr<LineReader> lines,
                                                             TraceFormat format) {
  KVSIM_ASSIGN_OR_RETURN(const std::vector<std::string> names, read_csv_header(lines.get()));
  const CsvHeader header(views(names));
  const std::string where = fmt::format("{} ({})", lines->where(), trace_format_name(format));
  const auto columns =
      [&](std::initializer_list<std::string_view> wanted) -> StatusOr<std::vector<int>> {
    std::vector<int> out;
    for (std::string_view name : wanted) {
      KVSIM_ASSIGN_OR_RETURN(const int at, header.require(name, where));
      out.push_back(at);
    }
    return out;
  };
  std::unique_ptr<TraceReader> reader;
  if (format == TraceFormat::kAzure) {
    KVSIM_ASSIGN_OR_RETURN(auto c, columns({"TIMESTAMP", "ContextTokens", "GeneratedTokens"}));
    reader = std::make_unique<AzureReader>(std::move(lines), header, c[0], c[1], c[2]);
  } else if (format == TraceFormat::kBurstGpt) {
    KVSIM_ASSIGN_OR_RETURN(auto c, columns({"Timestamp", "Request tokens", "Response tokens"}));
    reader = std::make_unique<BurstGptReader>(std::move(lines), header, c[0], c[1], c[2]);
  } else {
    KVSIM_ASSIGN_OR_RETURN(auto c, columns({"arrival_s", "prompt_tokens", "output_tokens"}));
    reader = std::make_unique<PlainCsvReader>(std::move(lines), header, c[0], c[1], c[2]);
  }
  return reader;
}

}  // namespace kvsim::sim

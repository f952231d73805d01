// Mooncake JSONL traces (kvcache-ai/Mooncake FAST'25): one JSON object per line,
//   {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
// timestamp in milliseconds from the start of the trace; one hash id per 512 prompt tokens,
// so len(hash_ids) <= ceil(input_length / 512) (fewer: the rest of the prompt is unique).
//
// Lines of exactly that shape (an object of numbers and one list of whole numbers) take a
// scanner that allocates nothing; anything else (strings, nesting, escapes, syntax errors)
// goes through nlohmann::json, which also words the error. Both feed the same checks.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/base/checked_math.h"
#include "core/base/units.h"
#include "simulator/workload/trace_reader_formats.h"

namespace kvsim::sim {
namespace {

constexpr double kMaxTokens = 2147483648.0;  // 2^31, as the CSV readers
constexpr double kMaxTimestampMs = 9.0e12;   // ns still fit in int64

// The fields a row needs, from either parser; hash ids go straight into the row.
struct RowFields {
  std::optional<double> timestamp_ms, input, output;
};

class Scanner {
 public:
  explicit Scanner(std::string_view line) : line_(line) {}

  // The whole line as a flat object of numbers and a `hash_ids` list; false = not that shape.
  bool object(RowFields* fields, std::vector<uint64_t>* ids) {
    if (!expect('{')) return false;
    if (peek('}')) return at_end();
    for (;;) {
      std::string_view key;
      if (!string(&key) || !expect(':')) return false;
      if (key == "hash_ids") {
        if (!id_list(ids)) return false;
      } else {
        double value = 0;
        if (!number(&value)) return false;
        if (key == "timestamp") fields->timestamp_ms = value;
        if (key == "input_length") fields->input = value;
        if (key == "output_length") fields->output = value;
      }
      if (peek('}')) return at_end();
      if (!expect(',')) return false;
    }
  }

 private:
  void skip_space() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool peek(char c) {  // consumes c when it is next
    skip_space();
    if (pos_ >= line_.size() || line_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool expect(char c) { return peek(c); }
  bool at_end() {
    skip_space();
    return pos_ == line_.size();
  }
  bool string(std::string_view* out) {
    if (!expect('"')) return false;
    const size_t end = line_.find('"', pos_);
    if (end == std::string_view::npos) return false;
    *out = line_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out->find('\\') == std::string_view::npos;
  }
  template <typename T>
  bool number(T* out) {
    skip_space();
    const auto [end, error] =
        std::from_chars(line_.data() + pos_, line_.data() + line_.size(), *out);
    if (error != std::errc()) return false;
    pos_ = static_cast<size_t>(end - line_.data());
    return true;
  }
  bool id_list(std::vector<uint64_t>* ids) {
    ids->clear();
    if (!expect('[')) return false;
    if (peek(']')) return true;
    for (;;) {
      uint64_t id = 0;
      if (!number(&id)) return false;
      ids->push_back(id);
      if (peek(']')) return true;
      if (!expect(',')) return false;
    }
  }

  std::string_view line_;
  size_t pos_ = 0;
};

class MooncakeReader final : public TraceReader {
 public:
  explicit MooncakeReader(std::unique_ptr<LineReader> lines) : TraceReader(std::move(lines)) {}
  TraceFormat format() const override { return TraceFormat::kMooncake; }

  StatusOr<bool> next_row(TraceRow* row) override {
    std::string_view line;
    KVSIM_ASSIGN_OR_RETURN(const bool more, lines_->next_non_blank(&line));
    if (!more) return false;
    RowFields fields;
    if (!Scanner(line).object(&fields, &row->hash_ids)) {
      fields = RowFields{};
      KVSIM_RETURN_IF_ERROR(parse_json(line, &fields, &row->hash_ids));
    }
    KVSIM_RETURN_IF_ERROR(check(fields, row));
    return true;
  }

 private:
  Status parse_json(std::string_view line, RowFields* fields, std::vector<uint64_t>* ids) const {
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& error) {
      return row_error(
          fmt::format("not valid JSON at column {} (expected one object per line)", error.byte));
    }
    if (!object.is_object()) return row_error("expected a JSON object");
    for (const char* key : {"timestamp", "input_length", "output_length"}) {
      const auto field = object.find(key);
      if (field == object.end()) continue;
      if (!field->is_number()) return row_error(fmt::format("field '{}' must be a number", key));
      const double value = field->get<double>();
      (key[0] == 't'   ? fields->timestamp_ms
       : key[0] == 'i' ? fields->input
                       : fields->output) = value;
    }
    ids->clear();
    const auto list = object.find("hash_ids");
    if (list == object.end()) return Status::ok();
    if (!list->is_array()) return row_error("field 'hash_ids' must be a list of ids");
    for (const nlohmann::json& id : *list) {
      if (!id.is_number_unsigned()) return row_error("hash_ids must be non-negative integers");
      ids->push_back(id.get<uint64_t>());
    }
    return Status::ok();
  }

  Status in_range(const std::optional<double>& value, const char* key, double min,
                  double max) const {
    if (!value) return row_error(fmt::format("missing field '{}'", key));
    if (std::isfinite(*value) && *value >= min && *value <= max) return Status::ok();
    char text[32];
    const auto end = std::to_chars(text, text + sizeof(text), *value).ptr;
    return row_error(fmt::format("field '{}' must be a number in [{}, {}], got {}", key,
                                 static_cast<int64_t>(min), static_cast<int64_t>(max),
                                 std::string_view(text, end)));
  }

  Status check(const RowFields& f, TraceRow* row) const {
    KVSIM_RETURN_IF_ERROR(in_range(f.timestamp_ms, "timestamp", 0, kMaxTimestampMs));
    KVSIM_RETURN_IF_ERROR(in_range(f.input, "input_length", 1, kMaxTokens));
    KVSIM_RETURN_IF_ERROR(in_range(f.output, "output_length", 1, kMaxTokens));
    if (*f.input != std::floor(*f.input) || *f.output != std::floor(*f.output)) {
      return row_error("input_length and output_length must be whole numbers");
    }
    row->timestamp_ns = std::llround(*f.timestamp_ms * kNsPerMs);
    row->prompt_tokens = static_cast<uint64_t>(*f.input);
    row->output_tokens = static_cast<uint64_t>(*f.output);
    row->prefix_group.reset();
    row->prefix_tokens = 0;
    row->failed = false;
    const uint64_t max_ids = ceil_div(row->prompt_tokens, kMooncakeHashBlockTokens);
    if (row->hash_ids.size() > max_ids) {
      return row_error(
          fmt::format("{} hash_ids for {} input tokens; expected at most "
                      "ceil(input_length / 512) = {}",
                      row->hash_ids.size(), row->prompt_tokens, max_ids));
    }
    return Status::ok();
  }
};

}  // namespace

std::unique_ptr<TraceReader> make_mooncake_reader(std::unique_ptr<LineReader> lines) {
  return std::make_unique<MooncakeReader>(std::move(lines));
}

}  // namespace kvsim::sim

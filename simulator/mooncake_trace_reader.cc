// Mooncake JSONL traces (kvcache-ai/Mooncake FAST'25): one JSON object per line,
//   {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
// timestamp in milliseconds from the start of the trace; one hash id per 512 prompt tokens,
// so len(hash_ids) <= ceil(input_length / 512) (fewer: the rest of the prompt is unique).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "simulator/trace_reader_formats.h"

namespace kvsim::sim {
namespace {

constexpr double kMaxTokens = 2147483648.0;  // 2^31, as the CSV readers
constexpr double kMaxTimestampMs = 9.0e12;   // ns still fit in int64

class MooncakeReader final : public TraceReader {
 public:
  explicit MooncakeReader(std::unique_ptr<LineReader> lines) : TraceReader(std::move(lines)) {}
  TraceFormat format() const override { return TraceFormat::kMooncake; }

  StatusOr<bool> next_row(TraceRow* row) override {
    std::string_view line;
    KVSIM_ASSIGN_OR_RETURN(const bool more, lines_->next_non_blank(&line));
    if (!more) return false;
    nlohmann::json object;
    try {
      object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& error) {
      return row_error("not valid JSON at column " + std::to_string(error.byte) +
                       " (expected one object per line)");
    }
    if (!object.is_object()) return row_error("expected a JSON object");
    return parse_object(object, row);
  }

 private:
  StatusOr<double> number(const nlohmann::json& object, const char* key, double min,
                          double max) const {
    const auto field = object.find(key);
    if (field == object.end()) return row_error(std::string("missing field '") + key + "'");
    if (!field->is_number()) return row_error(std::string("field '") + key + "' must be a number");
    const double value = field->get<double>();
    if (!std::isfinite(value) || value < min || value > max) {
      return row_error(std::string("field '") + key + "' must be a number in [" +
                       std::to_string(static_cast<int64_t>(min)) + ", " +
                       std::to_string(static_cast<int64_t>(max)) + "], got " + field->dump());
    }
    return value;
  }

  StatusOr<bool> parse_object(const nlohmann::json& object, TraceRow* row) const {
    KVSIM_ASSIGN_OR_RETURN(const double timestamp_ms,
                           number(object, "timestamp", 0, kMaxTimestampMs));
    KVSIM_ASSIGN_OR_RETURN(const double input, number(object, "input_length", 1, kMaxTokens));
    KVSIM_ASSIGN_OR_RETURN(const double output, number(object, "output_length", 1, kMaxTokens));
    if (input != std::floor(input) || output != std::floor(output)) {
      return row_error("input_length and output_length must be whole numbers");
    }
    row->timestamp_ns = std::llround(timestamp_ms * 1e6);
    row->prompt_tokens = static_cast<uint64_t>(input);
    row->output_tokens = static_cast<uint64_t>(output);
    row->prefix_group = -1;
    row->prefix_tokens = 0;
    row->failed = false;
    row->hash_ids.clear();
    const auto ids = object.find("hash_ids");
    if (ids == object.end()) return true;
    if (!ids->is_array()) return row_error("field 'hash_ids' must be a list of ids");
    const uint64_t max_ids =
        (row->prompt_tokens + kMooncakeHashBlockTokens - 1) / kMooncakeHashBlockTokens;
    if (ids->size() > max_ids) {
      return row_error(std::to_string(ids->size()) + " hash_ids for " +
                       std::to_string(row->prompt_tokens) + " input tokens; expected at most " +
                       "ceil(input_length / 512) = " + std::to_string(max_ids));
    }
    for (const nlohmann::json& id : *ids) {
      if (!id.is_number_unsigned()) return row_error("hash_ids must be non-negative integers");
      row->hash_ids.push_back(id.get<uint64_t>());
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<TraceReader> make_mooncake_reader(std::unique_ptr<LineReader> lines) {
  return std::make_unique<MooncakeReader>(std::move(lines));
}

}  // namespace kvsim::sim

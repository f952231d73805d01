#include "simulator/cost/calibration_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "core/base/check.h"
#include "core/base/units.h"
#include "simulator/io/csv_row.h"
#include "simulator/io/line_reader.h"

namespace kvsim::sim {
namespace {

// Index i of the segment [axis[i], axis[i+1]] used for x (the first or last segment beyond
// the ends), and the weight of axis[i+1]; a one-value axis gives (0, 0).
std::pair<size_t, double> segment(const std::vector<double>& axis, double x) {
  if (axis.size() == 1) return {0, 0.0};
  const auto upper = std::upper_bound(axis.begin(), axis.end(), x);
  size_t i = upper == axis.begin() ? 0 : static_cast<size_t>(upper - axis.begin()) - 1;
  i = std::min(i, axis.size() - 2);
  return {i, (x - axis[i]) / (axis[i + 1] - axis[i])};
}

struct Row {
  double new_tokens, context_tokens, time_ms;
};

StatusOr<std::vector<Row>> read_rows(LineReader* lines) {
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  KVSIM_ASSIGN_OR_RETURN(bool more, lines->next(&line));
  if (!more || !split_csv_line(line, &fields, &scratch)) {
    return Status::parse_error(lines->path() +
                               ":1: expected the header "
                               "new_tokens,context_tokens,time_ms");
  }
  const CsvHeader header(fields);
  int at[3];
  const char* names[3] = {"new_tokens", "context_tokens", "time_ms"};
  for (int k = 0; k < 3; ++k) {
    KVSIM_ASSIGN_OR_RETURN(at[k], header.require(names[k], lines->where()));
  }
  std::vector<Row> rows;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(more, lines->next_non_blank(&line, " \t,"));
    if (!more) break;
    if (!split_csv_line(line, &fields, &scratch) ||
        fields.size() < static_cast<size_t>(*std::max_element(at, at + 3)) + 1) {
      return Status::parse_error(
          fmt::format("{}: expected {} columns", lines->where(), header.size()));
    }
    double values[3];
    for (int k = 0; k < 3; ++k) {
      const Status parsed =
          parse_number_field(fields[static_cast<size_t>(at[k])], names[k], &values[k]);
      if (!parsed.is_ok()) return parsed.with_context(lines->where());
      if (values[k] < 0 || (k == 2 && values[k] == 0)) {
        return Status::parse_error(fmt::format("{}: column '{}' must be {} 0", lines->where(),
                                               names[k], k == 2 ? ">" : ">="));
      }
    }
    rows.push_back({values[0], values[1], values[2]});
  }
  if (rows.empty()) return Status::parse_error(lines->path() + ": no measurements");
  return rows;
}

}  // namespace

StatusOr<std::unique_ptr<CalibratedCostModel>> CalibratedCostModel::load(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  KVSIM_ASSIGN_OR_RETURN(const std::vector<Row> rows, read_rows(lines.get()));
  std::map<std::pair<double, double>, double> grid;
  std::vector<double> new_axis, context_axis;
  for (const Row& row : rows) {
    if (!grid.emplace(std::make_pair(row.new_tokens, row.context_tokens), row.time_ms).second) {
      return Status::parse_error(
          fmt::format("{}: the shape new_tokens={:f}, context_tokens={:f} is measured twice", path,
                      row.new_tokens, row.context_tokens));
    }
    new_axis.push_back(row.new_tokens);
    context_axis.push_back(row.context_tokens);
  }
  for (auto* axis : {&new_axis, &context_axis}) {
    std::sort(axis->begin(), axis->end());
    axis->erase(std::unique(axis->begin(), axis->end()), axis->end());
  }
  std::vector<double> times_s;
  for (double n : new_axis) {
    for (double c : context_axis) {
      const auto found = grid.find({n, c});
      if (found == grid.end()) {
        return Status::parse_error(
            fmt::format("{}: the rows must form a full grid; missing new_tokens={:f}, "
                        "context_tokens={:f}",
                        path, n, c));
      }
      times_s.push_back(found->second / kMsPerS);
    }
  }
  return std::make_unique<CalibratedCostModel>("calibration:" + path, std::move(new_axis),
                                               std::move(context_axis), std::move(times_s));
}

CalibratedCostModel::CalibratedCostModel(std::string name, std::vector<double> new_axis,
                                         std::vector<double> context_axis,
                                         std::vector<double> times_s)
    : name_(std::move(name)),
      new_axis_(std::move(new_axis)),
      context_axis_(std::move(context_axis)),
      times_s_(std::move(times_s)) {
  KVSIM_CHECK(!new_axis_.empty() && !context_axis_.empty() &&
                  times_s_.size() == new_axis_.size() * context_axis_.size(),
              "calibration grid shape");
  min_time_s_ = *std::min_element(times_s_.begin(), times_s_.end());
}

double CalibratedCostModel::time_s(double new_tokens, double context_tokens) const {
  const auto [i, u] = segment(new_axis_, new_tokens);
  const auto [j, v] = segment(context_axis_, context_tokens);
  const size_t columns = context_axis_.size();
  const auto at = [&](size_t a, size_t b) {
    a = std::min(a, new_axis_.size() - 1);
    b = std::min(b, columns - 1);
    return times_s_[a * columns + b];
  };
  const double t = (1 - u) * (1 - v) * at(i, j) + u * (1 - v) * at(i + 1, j) +
                   (1 - u) * v * at(i, j + 1) + u * v * at(i + 1, j + 1);
  return std::max(t, min_time_s_);
}

int64_t CalibratedCostModel::iteration_ns(const BatchShape& batch) const {
  return seconds_to_ns(
      time_s(static_cast<double>(batch.new_tokens), static_cast<double>(batch.context_tokens)));
}

}  // namespace kvsim::sim

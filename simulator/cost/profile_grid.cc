#include "simulator/cost/profile_grid.h"

#include <algorithm>

namespace kvsim::sim {
namespace {

// Linear interpolation of (x0, t0)-(x1, t1) at x, beyond x1 never below t1.
double line(double x0, double t0, double x1, double t1, double x) {
  const double t = t0 + (t1 - t0) * (x - x0) / (x1 - x0);
  return x > x1 ? std::max(t, t1) : t;
}

}  // namespace

void ProfileGrid::add(double x, double y, double time_s) {
  auto row = std::lower_bound(rows_.begin(), rows_.end(), x,
                              [](const Row& r, double value) { return r.x < value; });
  if (row == rows_.end() || row->x != x) row = rows_.insert(row, Row{x, {}});
  auto& points = row->points;
  auto point = std::lower_bound(points.begin(), points.end(), y,
                                [](const auto& p, double value) { return p.first < value; });
  if (point != points.end() && point->first == y) return;
  points.insert(point, {y, time_s});
}

size_t ProfileGrid::size() const {
  size_t n = 0;
  for (const Row& row : rows_) n += row.points.size();
  return n;
}

double ProfileGrid::along(const std::vector<std::pair<double, double>>& points, double y) {
  if (points.size() == 1 || y <= points.front().first) return points.front().second;
  auto upper = std::upper_bound(points.begin(), points.end(), y,
                                [](double value, const auto& p) { return value < p.first; });
  if (upper == points.end()) upper = points.end() - 1;
  const auto& [y1, t1] = *upper;
  const auto& [y0, t0] = *(upper - 1);
  return line(y0, t0, y1, t1, y);
}

double ProfileGrid::at(double x, double y) const {
  if (rows_.size() == 1 || x <= rows_.front().x) return along(rows_.front().points, y);
  auto upper = std::upper_bound(rows_.begin(), rows_.end(), x,
                                [](double value, const Row& r) { return value < r.x; });
  if (upper == rows_.end()) upper = rows_.end() - 1;
  const Row& r1 = *upper;
  const Row& r0 = *(upper - 1);
  return line(r0.x, along(r0.points, y), r1.x, along(r1.points, y), x);
}

}  // namespace kvsim::sim

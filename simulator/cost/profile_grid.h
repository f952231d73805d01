// ProfileGrid: measured times over one or two shape coordinates (tokens; batch x KV length;
// chunk x KV length; bytes), looked up by linear interpolation.
//
// The rows need not form a full grid: each x value has its own sorted y values (Vidur's
// prefill rows stop where chunk + KV reaches the model's length). A lookup interpolates along
// y within the two x rows around x, then along x. Exact at measured points; between two
// neighbours the value lies between theirs. Below the first x (or y) the first row's value
// holds; beyond the last it extends linearly from the last two (a single row: constant), and
// never drops below the last measured value.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace kvsim::sim {

class ProfileGrid {
 public:
  // Adds a measured time; a repeated (x, y) keeps the first.
  void add(double x, double y, double time_s);
  void add(double x, double time_s) { add(x, 0, time_s); }
  bool empty() const { return rows_.empty(); }
  size_t size() const;
  // The interpolated time, seconds. Precondition: !empty().
  double at(double x, double y = 0) const;

 private:
  struct Row {
    double x = 0;
    std::vector<std::pair<double, double>> points;  // (y, time), sorted by y
  };
  static double along(const std::vector<std::pair<double, double>>& points, double y);
  std::vector<Row> rows_;  // sorted by x
};

}  // namespace kvsim::sim

// Bounded nonlinear least squares: Levenberg-Marquardt over a residual function, each parameter
// kept in its range, the Jacobian by forward differences. The one fitter behind `kvsim
// calibrate`: iteration times (simulator/cost/calibrate.h) and whole benchmark runs replayed
// (simulator/sweep/bench_fit.h).
#pragma once

#include <functional>
#include <vector>

#include "core/base/status.h"

namespace kvsim::sim {

struct LeastSquaresProblem {
  // The residuals at a point (the same count at every point); an error ends the fit with it.
  std::function<StatusOr<std::vector<double>>(const std::vector<double>&)> residuals;
  std::vector<double> min, max;  // each parameter's range
  // Forward-difference step: relative to the value, at least the absolute one. A residual that
  // is piecewise constant at small scales (a simulation's schedule, its nanosecond clock) needs
  // larger ones.
  double relative_step = 1e-6;
  double absolute_step = 1e-12;
  int max_steps = 200;
};

struct LeastSquaresFit {
  std::vector<double> values;
  double cost = 0;     // the sum of squared residuals at `values`
  int iterations = 0;  // steps taken
};

// Minimises the sum of squared residuals from `start` (clamped into range). Stops when a step
// no longer lowers it by more than 1e-16 of itself, it falls below 1e-24, or after max_steps.
StatusOr<LeastSquaresFit> least_squares(const LeastSquaresProblem& problem,
                                        std::vector<double> start);

}  // namespace kvsim::sim

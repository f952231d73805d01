// The bounded Levenberg-Marquardt fitter (simulator/cost/least_squares.h).
#include "simulator/cost/least_squares.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kvsim::sim {
namespace {

// y = a exp(b x) sampled without noise: the fit finds a and b from a distant start.
TEST(LeastSquares, RecoversTheParametersOfAnExactCurve) {
  LeastSquaresProblem p;
  p.residuals = [](const std::vector<double>& v) -> StatusOr<std::vector<double>> {
    std::vector<double> r;
    for (int x = 0; x < 8; ++x) r.push_back(v[0] * std::exp(v[1] * x) - 2.0 * std::exp(0.3 * x));
    return r;
  };
  p.min = {0.0, -1.0};
  p.max = {10.0, 1.0};
  auto fit = least_squares(p, {1.0, 0.0});
  ASSERT_TRUE(fit.is_ok());
  EXPECT_NEAR(fit->values[0], 2.0, 1e-6);
  EXPECT_NEAR(fit->values[1], 0.3, 1e-6);
  EXPECT_LT(fit->cost, 1e-12);
}

// The best value beyond a bound is the bound; a start outside the range is clamped into it.
TEST(LeastSquares, KeepsEachParameterInItsRange) {
  LeastSquaresProblem p;
  p.residuals = [](const std::vector<double>& v) -> StatusOr<std::vector<double>> {
    return std::vector<double>{v[0] - 5.0};
  };
  p.min = {0.0};
  p.max = {1.0};
  auto fit = least_squares(p, {3.0});
  ASSERT_TRUE(fit.is_ok());
  EXPECT_DOUBLE_EQ(fit->values[0], 1.0);
}

TEST(LeastSquares, AResidualsErrorEndsTheFitWithIt) {
  LeastSquaresProblem p;
  p.residuals = [](const std::vector<double>&) -> StatusOr<std::vector<double>> {
    return Status::invalid_argument("no replay");
  };
  p.min = {0.0};
  p.max = {1.0};
  auto fit = least_squares(p, {0.5});
  ASSERT_FALSE(fit.is_ok());
  EXPECT_EQ(fit.status().message(), "no replay");
}

}  // namespace
}  // namespace kvsim::sim

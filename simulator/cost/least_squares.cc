#include "simulator/cost/least_squares.h"

#include <algorithm>
#include <cmath>

namespace kvsim::sim {
namespace {

// Solves the n x n system a x = b (Gaussian elimination, partial pivoting); false when it is
// singular.
bool solve(std::vector<double> a, std::vector<double> b, size_t n, std::vector<double>* x) {
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
    }
    if (std::abs(a[pivot * n + col]) < 1e-300) return false;
    for (size_t c = 0; c < n; ++c) std::swap(a[col * n + c], a[pivot * n + c]);
    std::swap(b[col], b[pivot]);
    for (size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (size_t c = col; c < n; ++c) a[r * n + c] -= f * a[col * n + c];
      b[r] -= f * b[col];
    }
  }
  x->assign(n, 0);
  for (size_t r = n; r-- > 0;) {
    double sum = b[r];
    for (size_t c = r + 1; c < n; ++c) sum -= a[r * n + c] * (*x)[c];
    (*x)[r] = sum / a[r * n + r];
  }
  return true;
}

double squared(const std::vector<double>& r) {
  double sum = 0;
  for (double v : r) sum += v * v;
  return sum;
}

void clamp(const LeastSquaresProblem& p, std::vector<double>* values) {
  for (size_t i = 0; i < values->size(); ++i) {
    (*values)[i] = std::clamp((*values)[i], p.min[i], p.max[i]);
  }
}

// The candidate of one damped Gauss-Newton step from `values` (residuals r), damping lambda.
std::vector<double> lm_step(const LeastSquaresProblem& p, const std::vector<double>& values,
                            const std::vector<double>& r, const std::vector<double>& jacobian,
                            double lambda) {
  const size_t n = values.size(), m = r.size();
  std::vector<double> jtj(n * n, 0), jtr(n, 0);
  for (size_t k = 0; k < m; ++k) {
    for (size_t i = 0; i < n; ++i) {
      jtr[i] -= jacobian[k * n + i] * r[k];
      for (size_t j = 0; j < n; ++j) jtj[i * n + j] += jacobian[k * n + i] * jacobian[k * n + j];
    }
  }
  for (size_t i = 0; i < n; ++i) jtj[i * n + i] *= 1 + lambda;
  std::vector<double> delta;
  std::vector<double> next = values;
  if (!solve(jtj, jtr, n, &delta)) return next;
  for (size_t i = 0; i < n; ++i) next[i] += delta[i];
  clamp(p, &next);
  return next;
}

// Forward differences; a step that would leave the range goes the other way.
StatusOr<std::vector<double>> jacobian_at(const LeastSquaresProblem& p,
                                          const std::vector<double>& values,
                                          const std::vector<double>& r) {
  const size_t n = values.size(), m = r.size();
  std::vector<double> jacobian(m * n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> moved = values;
    double h = std::max(std::abs(values[i]) * p.relative_step, p.absolute_step);
    if (values[i] + h > p.max[i]) h = -h;
    moved[i] += h;
    KVSIM_ASSIGN_OR_RETURN(const std::vector<double> r2, p.residuals(moved));
    for (size_t k = 0; k < m; ++k) jacobian[k * n + i] = (r2[k] - r[k]) / h;
  }
  return jacobian;
}

}  // namespace

StatusOr<LeastSquaresFit> least_squares(const LeastSquaresProblem& p, std::vector<double> start) {
  LeastSquaresFit fit;
  fit.values = std::move(start);
  clamp(p, &fit.values);
  KVSIM_ASSIGN_OR_RETURN(std::vector<double> r, p.residuals(fit.values));
  fit.cost = squared(r);
  double lambda = 1e-3;
  for (; fit.iterations < p.max_steps && fit.cost > 1e-24; ++fit.iterations) {
    KVSIM_ASSIGN_OR_RETURN(const std::vector<double> jacobian, jacobian_at(p, fit.values, r));
    bool improved = false;
    while (lambda < 1e12) {
      const std::vector<double> next = lm_step(p, fit.values, r, jacobian, lambda);
      KVSIM_ASSIGN_OR_RETURN(std::vector<double> r2, p.residuals(next));
      const double cost = squared(r2);
      if (cost < fit.cost) {
        improved = fit.cost - cost > 1e-16 * fit.cost;
        fit.values = next;
        r = std::move(r2);
        fit.cost = cost;
        lambda = std::max(lambda / 10, 1e-12);
        break;
      }
      lambda *= 10;
    }
    if (!improved) break;
  }
  return fit;
}

}  // namespace kvsim::sim

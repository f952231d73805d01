#include "simulator/cost/calibrate.h"

#include <algorithm>
#include <cmath>

#include "core/config/config_reader.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/io/csv_row.h"
#include "simulator/io/line_reader.h"

namespace kvsim::sim {
namespace {

constexpr int kMaxSteps = 200;
constexpr double kRelativeStep = 1e-6;  // finite-difference step, relative to the value

// Solves the n x n system a x = b in place (Gaussian elimination, partial pivoting); false
// when it is singular.
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

struct Problem {
  const std::vector<Measurement>* rows;
  const OperatorInputs* inputs;
  OperatorFit start;
  CudaGraphs cuda_graphs;
  std::vector<const FitParameter*> parameters;

  OperatorFit fit_at(const std::vector<double>& values) const {
    OperatorFit fit = start;
    for (size_t i = 0; i < parameters.size(); ++i) parameters[i]->field(fit) = values[i];
    return fit;
  }
  // log(model / measured) per row.
  std::vector<double> residuals(const std::vector<double>& values) const {
    const OperatorCostModel model(*inputs, fit_at(values), with_cuda_graphs({}, cuda_graphs));
    std::vector<double> out;
    for (const Measurement& m : *rows)
      out.push_back(std::log(modelled_seconds(model, m) / m.seconds));
    return out;
  }
  void clamp(std::vector<double>* values) const {
    for (size_t i = 0; i < values->size(); ++i) {
      (*values)[i] = std::clamp((*values)[i], parameters[i]->min, parameters[i]->max);
    }
  }
};

double squared(const std::vector<double>& r) {
  double sum = 0;
  for (double v : r) sum += v * v;
  return sum;
}

// One Levenberg-Marquardt step from `values` (residuals r): the candidate for damping lambda.
std::vector<double> lm_step(const Problem& p, const std::vector<double>& values,
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
  p.clamp(&next);
  return next;
}

std::vector<double> jacobian_at(const Problem& p, const std::vector<double>& values,
                                const std::vector<double>& r) {
  const size_t n = values.size(), m = r.size();
  std::vector<double> jacobian(m * n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> moved = values;
    const double h = std::max(std::abs(values[i]) * kRelativeStep, 1e-12);
    moved[i] += h;
    const std::vector<double> r2 = p.residuals(moved);
    for (size_t k = 0; k < m; ++k) jacobian[k * n + i] = (r2[k] - r[k]) / h;
  }
  return jacobian;
}

}  // namespace

StatusOr<std::vector<BatchShape>> measurement_iterations(const std::string& batch,
                                                         uint32_t window_tokens) {
  if (batch.rfind("request:", 0) != 0) {
    KVSIM_ASSIGN_OR_RETURN(BatchShape shape, parse_batch_spec(batch, window_tokens));
    return std::vector<BatchShape>{shape};
  }
  // request:BxP+O -> prefill:BxP, then decode:Bx(P + k - 1) for k = 1 .. O - 1.
  const std::string body = batch.substr(8);
  const size_t x = body.find('x'), plus = body.find('+');
  uint64_t b = 0, p = 0, o = 0;
  if (x == std::string::npos || plus == std::string::npos || plus < x ||
      !parse_uint64(body.substr(0, x), &b).is_ok() ||
      !parse_uint64(body.substr(x + 1, plus - x - 1), &p).is_ok() ||
      !parse_uint64(body.substr(plus + 1), &o).is_ok() || b == 0 || p == 0 || o == 0 ||
      b > (1u << 20) || o > (1u << 20)) {
    return Status::invalid_argument("'" + batch +
                                    "': expected request:BxP+O (B requests of P prompt and O "
                                    "output tokens, each >= 1)");
  }
  KVSIM_ASSIGN_OR_RETURN(
      BatchShape prefill,
      parse_batch_spec("prefill:" + std::to_string(b) + "x" + std::to_string(p), window_tokens));
  std::vector<BatchShape> out = {prefill};
  for (uint64_t k = 1; k < o; ++k) {
    BatchShape decode;
    decode.window_tokens = window_tokens;
    for (uint64_t i = 0; i < b; ++i) decode.add(1, p + k - 1, false, true);
    out.push_back(decode);
  }
  return out;
}

StatusOr<std::vector<Measurement>> read_measurements(const std::string& path,
                                                     uint32_t window_tokens) {
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  KVSIM_ASSIGN_OR_RETURN(bool more, lines->next(&line));
  if (!more || !split_csv_line(line, &fields, &scratch)) {
    return Status::parse_error(path + ":1: expected the header batch,seconds");
  }
  const CsvHeader header(fields);
  KVSIM_ASSIGN_OR_RETURN(const int batch_at, header.require("batch", path + ":1"));
  KVSIM_ASSIGN_OR_RETURN(const int seconds_at, header.require("seconds", path + ":1"));
  std::vector<Measurement> rows;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(more, lines->next_non_blank(&line, " \t,"));
    if (!more) break;
    if (!split_csv_line(line, &fields, &scratch) ||
        fields.size() <= static_cast<size_t>(std::max(batch_at, seconds_at))) {
      return Status::parse_error(lines->where() + ": expected " + std::to_string(header.size()) +
                                 " columns (quote a batch spec that holds commas)");
    }
    Measurement m;
    m.where = lines->where();
    m.batch = std::string(fields[static_cast<size_t>(batch_at)]);
    const Status number =
        parse_number_field(fields[static_cast<size_t>(seconds_at)], "seconds", &m.seconds);
    if (!number.is_ok()) return number.with_context(m.where);
    if (!(m.seconds > 0)) return Status::parse_error(m.where + ": column 'seconds' must be > 0");
    auto iterations = measurement_iterations(m.batch, window_tokens);
    if (!iterations.is_ok()) return iterations.status().with_context(m.where);
    m.iterations = std::move(*iterations);
    rows.push_back(std::move(m));
  }
  if (rows.empty()) return Status::parse_error(path + ": no measurements");
  return rows;
}

double modelled_seconds(const OperatorCostModel& model, const Measurement& m) {
  double sum = 0;
  for (const BatchShape& shape : m.iterations) sum += model.iteration_s(shape);
  return sum;
}

std::vector<std::string> default_calibration_parameters(uint32_t tp) {
  std::vector<std::string> names = {"gemm.compute_efficiency_max", "gemm.memory_efficiency",
                                    "prefill_attention.causal_efficiency_max",
                                    "decode_attention.memory_efficiency", "iteration_overhead_s"};
  if (tp > 1)
    names.push_back(tp <= 2   ? "all_reduce_2.latency_s"
                    : tp <= 4 ? "all_reduce_4.latency_s"
                              : "all_reduce_8.latency_s");
  return names;
}

StatusOr<CalibrationResult> calibrate(const std::vector<Measurement>& rows,
                                      const OperatorInputs& inputs, const OperatorFit& start,
                                      CudaGraphs cuda_graphs,
                                      const std::vector<std::string>& parameters) {
  Problem p{&rows, &inputs, start, cuda_graphs, {}};
  std::vector<double> values;
  for (const std::string& name : parameters) {
    const auto& all = fit_parameters();
    const auto found =
        std::find_if(all.begin(), all.end(), [&](const FitParameter& f) { return f.name == name; });
    if (found == all.end()) {
      const Status unknown = set_fit_parameter(&p.start, name, 0);  // says what the names are
      return unknown.is_ok() ? Status::invalid_argument("unknown parameter " + name) : unknown;
    }
    p.parameters.push_back(&*found);
    values.push_back(get_fit_parameter(start, name));
  }
  if (rows.size() < parameters.size()) {
    return Status::invalid_argument(std::to_string(rows.size()) + " measurements cannot fix " +
                                    std::to_string(parameters.size()) + " parameters");
  }
  CalibrationResult result;
  std::vector<double> r = p.residuals(values);
  double cost = squared(r);
  double lambda = 1e-3;
  for (; result.iterations < kMaxSteps && cost > 1e-24; ++result.iterations) {
    const std::vector<double> jacobian = jacobian_at(p, values, r);
    bool improved = false;
    while (lambda < 1e12) {
      const std::vector<double> next = lm_step(p, values, r, jacobian, lambda);
      const std::vector<double> r2 = p.residuals(next);
      if (squared(r2) < cost) {
        improved = cost - squared(r2) > 1e-16 * cost;
        values = next;
        r = r2;
        cost = squared(r2);
        lambda = std::max(lambda / 10, 1e-12);
        break;
      }
      lambda *= 10;
    }
    if (!improved) break;
  }
  result.fit = p.fit_at(values);
  const OperatorCostModel before(inputs, start, with_cuda_graphs({}, cuda_graphs)),
      after(inputs, result.fit, with_cuda_graphs({}, cuda_graphs));
  for (const Measurement& m : rows) {
    result.before_s.push_back(modelled_seconds(before, m));
    result.after_s.push_back(modelled_seconds(after, m));
  }
  return result;
}

}  // namespace kvsim::sim

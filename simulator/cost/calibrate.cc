#include "simulator/cost/calibrate.h"

#include <algorithm>
#include <cmath>

#include "core/config/config_reader.h"
#include "simulator/cost/batch_spec.h"
#include "simulator/cost/least_squares.h"
#include "simulator/io/csv_row.h"
#include "simulator/io/line_reader.h"

namespace kvsim::sim {
namespace {

// log(model / measured) per row, with `parameters` set to `values` in `start`.
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
  std::vector<double> residuals(const std::vector<double>& values) const {
    const OperatorCostModel model(*inputs, fit_at(values), with_cuda_graphs({}, cuda_graphs));
    std::vector<double> out;
    for (const Measurement& m : *rows)
      out.push_back(std::log(modelled_seconds(model, m) / m.seconds));
    return out;
  }
};

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
    KVSIM_ASSIGN_OR_RETURN(const FitParameter* parameter, find_fit_parameter(name));
    p.parameters.push_back(parameter);
    values.push_back(get_fit_parameter(start, name));
  }
  if (rows.size() < parameters.size()) {
    return Status::invalid_argument(std::to_string(rows.size()) + " measurements cannot fix " +
                                    std::to_string(parameters.size()) + " parameters");
  }
  LeastSquaresProblem problem;
  problem.residuals = [&p](const std::vector<double>& at) -> StatusOr<std::vector<double>> {
    return p.residuals(at);
  };
  for (const FitParameter* parameter : p.parameters) {
    problem.min.push_back(parameter->min);
    problem.max.push_back(parameter->max);
  }
  KVSIM_ASSIGN_OR_RETURN(const LeastSquaresFit solved, least_squares(problem, values));
  CalibrationResult result;
  result.iterations = solved.iterations;
  result.fit = p.fit_at(solved.values);
  const OperatorCostModel before(inputs, start, with_cuda_graphs({}, cuda_graphs)),
      after(inputs, result.fit, with_cuda_graphs({}, cuda_graphs));
  for (const Measurement& m : rows) {
    result.before_s.push_back(modelled_seconds(before, m));
    result.after_s.push_back(modelled_seconds(after, m));
  }
  return result;
}

}  // namespace kvsim::sim

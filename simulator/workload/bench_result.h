// BenchResult: a serving benchmark's result file as `vllm bench serve --save-result
// --save-detailed` writes it (vllm/benchmarks/serve.py: the client's settings merged with the
// benchmark's result dict), the input of `kvsim calibrate --from-bench` (issue 38, item 5): the
// workload the client sent, rebuilt, and what it measured per request.
//
//   keys read     request_rate   a number, or "inf" or null (every request eligible at t = 0)
//                 burstiness     the gamma shape of the gaps (1 = Poisson); default 1
//                 max_concurrency  null or N (the client's in-flight limit)
//                 duration       s;  model_id, backend: names, optional
//                 input_lens, output_lens, ttfts (s), itls (s, a list per request), errors
//                                (per request; a non-empty one is a failed request, left out),
//                 start_times    s, optional (newer releases): when each request was sent
// SGLang's `python -m sglang.bench_serving --output-file F --output-details` writes the same keys
// (sglang/bench_serving.py: its result dict merged with the per-request lists), one JSON line
// per run appended, its rate of inf as Python's bare Infinity: a file of several lines is
// several runs, named file:LINE, and Python's non-finite numbers read as JSON's null
// (core/base/json_text.h; a null rate is inf).
// A file without the per-request lists (saved without --save-detailed / --output-details, or
// another tool's) is an error naming the missing key and the flag; lists of different lengths,
// or a value of the wrong type, name the key and the request's index. Syntax errors name
// line:column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace kvsim::sim {

struct BenchRequest {
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  double ttft_s = 0;
  std::vector<double> itls_s;          // the gaps between the streamed chunks after the first
  std::optional<double> start_time_s;  // when the client sent it (its own clock)
};

struct BenchResult {
  std::string name;  // the file, or file:LINE for one line of several
  std::string model_id;
  std::string backend;
  double request_rate = 0;  // per second; 0 = "inf"
  double burstiness = 1;
  uint32_t max_concurrency = 0;  // 0 = none
  double duration_s = 0;
  std::vector<BenchRequest> requests;  // the ones that succeeded, in the file's order
  uint64_t failed = 0;                 // left out: a non-empty error
};

// Reads the runs of `path`: one JSON object, or one per line; `text` when not empty stands for
// its contents (tests), `path` then names it.
StatusOr<std::vector<BenchResult>> read_bench_results(const std::string& path,
                                                      const std::string& text = "");

// The requests as the client sent them, as a csv trace (arrival_s,prompt_tokens,output_tokens;
// simulator/workload/trace_reader.h) at `path`: at the times the client recorded (start_times,
// from the first), else every request at 0 for a rate of "inf" (a limit of max_concurrency then
// paces them), else gaps drawn as vllm bench serve draws them: gamma(shape = burstiness,
// scale = 1 / (rate x burstiness)), from `seed`.
Status write_bench_trace(const BenchResult& result, uint64_t seed, const std::string& path);

}  // namespace kvsim::sim

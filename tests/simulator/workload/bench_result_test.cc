// A `vllm bench serve --save-result --save-detailed` file read back (simulator/workload/
// bench_result.h): the client's settings, every request's lengths and latencies, failed
// requests left out; files it cannot use are errors naming the key, the flag or line:column.
#include "simulator/workload/bench_result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

using ::testing::HasSubstr;

// The file's one run.
StatusOr<BenchResult> read_bench_result(const std::string& path, const std::string& text = "") {
  KVSIM_ASSIGN_OR_RETURN(std::vector<BenchResult> results, read_bench_results(path, text));
  if (results.size() != 1) return Status::invalid_argument("expected one run");
  return std::move(results.front());
}

// The shape vllm/benchmarks/serve.py writes (keys trimmed to those read, plus one it ignores).
constexpr char kResult[] = R"({
  "backend": "vllm", "model_id": "Qwen/Qwen3-8B", "num_prompts": 3,
  "request_rate": 4.0, "burstiness": 1.0, "max_concurrency": 2, "duration": 2.5,
  "input_lens": [100, 200, 300], "output_lens": [3, 1, 2],
  "ttfts": [0.05, 0.06, 0.0], "itls": [[0.01, 0.02], [], []],
  "start_times": [10.0, 10.25, 10.5], "errors": ["", "", "timeout"],
  "generated_texts": ["a", "b", ""]
})";

TEST(BenchResult, ReadsTheSettingsAndEveryRequestLeavingFailedOnesOut) {
  auto result = read_bench_result("run.json", kResult);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(result->model_id, "Qwen/Qwen3-8B");
  EXPECT_EQ(result->backend, "vllm");
  EXPECT_DOUBLE_EQ(result->request_rate, 4.0);
  EXPECT_DOUBLE_EQ(result->burstiness, 1.0);
  EXPECT_EQ(result->max_concurrency, 2u);
  EXPECT_DOUBLE_EQ(result->duration_s, 2.5);
  EXPECT_EQ(result->failed, 1u);
  ASSERT_EQ(result->requests.size(), 2u);
  EXPECT_EQ(result->requests[0].prompt_tokens, 100u);
  EXPECT_EQ(result->requests[0].output_tokens, 3u);
  EXPECT_DOUBLE_EQ(result->requests[0].ttft_s, 0.05);
  EXPECT_EQ(result->requests[0].itls_s, (std::vector<double>{0.01, 0.02}));
  EXPECT_EQ(result->requests[1].start_time_s, 10.25);
}

TEST(BenchResult, AnInfiniteRateAndNoLimitAreABurst) {
  std::string text = kResult;
  text.replace(text.find("4.0"), 3, "\"inf\"");
  text.replace(text.find("\"max_concurrency\": 2"), 20, "\"max_concurrency\": null");
  auto result = read_bench_result("run.json", text);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(result->request_rate, 0.0);
  EXPECT_EQ(result->max_concurrency, 0u);
}

// SGLang's bench_serving appends a line per run, its rate of inf as Python writes it.
TEST(BenchResult, AJsonLinesFileIsARunALineAndPythonsInfinityReadsAsInf) {
  const std::string sglang =
      R"({"backend": "sglang", "request_rate": Infinity, "max_concurrency": 4, "duration": 1.5,)"
      R"( "std_itl_ms": NaN, "input_lens": [10, 20], "output_lens": [2, 2], "ttfts": [0.1, 0.2],)"
      R"( "itls": [[0.01], [0.02]], "errors": ["", ""], "generated_texts": ["Infinity", "x"]})";
  std::string second = sglang;
  second.replace(second.find("Infinity"), 8, "2.0");
  auto results = read_bench_results("runs.jsonl", sglang + "\n" + second + "\n");
  ASSERT_TRUE(results.is_ok()) << results.status().message();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].name, "runs.jsonl:1");
  EXPECT_EQ((*results)[0].request_rate, 0.0);
  EXPECT_EQ((*results)[0].max_concurrency, 4u);
  EXPECT_EQ((*results)[1].name, "runs.jsonl:2");
  EXPECT_EQ((*results)[1].request_rate, 2.0);
  EXPECT_EQ((*results)[1].requests.size(), 2u);
  auto bad = read_bench_results("runs.jsonl", sglang + "\n{\"input_lens\": [1]}\n");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("runs.jsonl:2: no 'output_lens'"));
}

TEST(BenchResult, FilesItCannotUseSayWhy) {
  auto message = [](const std::string& text) {
    auto result = read_bench_result("run.json", text);
    EXPECT_FALSE(result.is_ok());
    return result.is_ok() ? std::string() : result.status().message();
  };
  // Saved without --save-detailed: the per-request lists are not there.
  EXPECT_THAT(message(R"({"request_rate": "inf", "duration": 1.0})"),
              HasSubstr("no 'input_lens': not a `vllm bench serve --save-result --save-detailed`"));
  EXPECT_THAT(message(R"({"input_lens": [1, 2], "output_lens": [1], "ttfts": [0, 0]})"),
              HasSubstr("'output_lens' has 1 entries where 'input_lens' has 2"));
  EXPECT_THAT(message(R"({"input_lens": [-1], "output_lens": [1], "ttfts": [0], "itls": [[]]})"),
              HasSubstr("'input_lens'[0] must be a token count"));
  EXPECT_THAT(message(R"({"request_rate": 0, "input_lens": []})"),
              HasSubstr("'request_rate' must be a positive number or \"inf\""));
  EXPECT_THAT(message("{\n  \"input_lens\": [1,\n  ]\n}"), HasSubstr("run.json:3:"));
  EXPECT_THAT(message("[1, 2]"), HasSubstr("expected a JSON object"));
  EXPECT_FALSE(read_bench_result("/nonexistent/run.json").is_ok());
}

}  // namespace
}  // namespace kvsim::sim

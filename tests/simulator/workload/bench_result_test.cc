// A `vllm bench serve --save-result --save-detailed` file read back (simulator/workload/
// bench_result.h): the client's settings, every request's lengths and latencies, failed
// requests left out; files it cannot use are errors naming the key, the flag or line:column.
#include "simulator/workload/bench_result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

using ::testing::HasSubstr;

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

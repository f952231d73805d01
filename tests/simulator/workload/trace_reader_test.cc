#include "simulator/workload/trace_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "simulator/io/timestamp.h"
#include "simulator/workload/trace_source.h"
#include "tests/test_data.h"

namespace kvsim::sim {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every request of a trace, or the first error.
StatusOr<std::vector<RequestSpec>> read_all(const std::string& path, TraceFormat format,
                                            TraceSourceOptions options = {},
                                            WorkloadStats* stats = nullptr) {
  KVSIM_ASSIGN_OR_RETURN(auto source, open_trace_source(path, format, options));
  std::vector<RequestSpec> out;
  RequestSpec request;
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, source->next(&request));
    if (!more) break;
    out.push_back(request);
  }
  if (stats != nullptr) *stats = source->stats();
  return out;
}

TEST(Timestamp, ParsesAzureStampsWithAndWithoutZone) {
  auto a = parse_timestamp_ns("2023-11-16 18:15:46.6805900");
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  auto b = parse_timestamp_ns("2023-11-16 18:15:47.6805900+00:00");
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(*b - *a, 1'000'000'000);
  auto c = parse_timestamp_ns("2023-11-16T20:15:46.68059+02:00");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(*c, *a);
  EXPECT_EQ(*parse_timestamp_ns("1970-01-01 00:00:01"), 1'000'000'000);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  EXPECT_FALSE(parse_timestamp_ns("2023-02-30 00:00:00").is_ok());
  EXPECT_FALSE(parse_timestamp_ns("2023-11-16 18:15").is_ok());
  EXPECT_FALSE(parse_timestamp_ns("2023-11-16 18:15:46.1234567890").is_ok());
}

TEST(TraceReader, MooncakeRowsKeepHashIdsAndMilliseconds) {
  const std::string path = write_file(
      "m.jsonl",
      "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 5, \"hash_ids\": [0, 1]}\n"
      "\n"
      "{\"timestamp\": 1500, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [0, 7]}\n");
  auto requests = read_all(path, TraceFormat::kAuto);
  ASSERT_TRUE(requests.is_ok()) << requests.status().message();
  ASSERT_EQ(requests->size(), 2u);
  EXPECT_EQ((*requests)[1].arrival_ns, 1'500'000'000);
  EXPECT_EQ((*requests)[1].hash_ids, (std::vector<uint64_t>{0, 7}));
  EXPECT_EQ((*requests)[1].hash_block_tokens, 512u);
  EXPECT_EQ((*requests)[0].prompt_tokens, 1000u);
  EXPECT_EQ((*requests)[1].id, 1u);
}

TEST(TraceReader, MooncakeLinesOfAnyValidShapeReadTheSame) {
  const std::string path = write_file(
      "shapes.jsonl",
      "{\"timestamp\":0,\"input_length\":600,\"output_length\":2,\"hash_ids\":[3,4]}\n"
      "  { \"hash_ids\" : [ 3 , 4 ] , \"output_length\" : 2.0, \"input_length\": 600,"
      " \"timestamp\": 1.5 }  \n"
      "{\"note\": \"a \\\"quoted\\\" string\", \"timestamp\": 2, \"input_length\": 600,"
      " \"output_length\": 2, \"hash_ids\": [3, 4], \"extra\": {\"a\": [1]}}\n"
      "{\"timestamp\": 3, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": []}\n");
  auto requests = read_all(path, TraceFormat::kMooncake);
  ASSERT_TRUE(requests.is_ok()) << requests.status().message();
  ASSERT_EQ(requests->size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*requests)[i].hash_ids, (std::vector<uint64_t>{3, 4})) << i;
    EXPECT_EQ((*requests)[i].prompt_tokens, 600u);
    EXPECT_EQ((*requests)[i].output_tokens, 2u);
  }
  EXPECT_EQ((*requests)[1].arrival_ns, 1'500'000);
  EXPECT_TRUE((*requests)[3].hash_ids.empty());

  const std::string bad = write_file(
      "bad_ids.jsonl",
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, -2]}\n"
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 0, \"input_length\": 600 \"output_length\": 2}\n");
  TraceSourceOptions options;
  options.skip_bad_rows = true;
  WorkloadStats stats;
  auto skipped = read_all(bad, TraceFormat::kMooncake, options, &stats);
  ASSERT_TRUE(skipped.is_ok());
  EXPECT_EQ(stats.rows_skipped_bad, 3u);
  EXPECT_NE(stats.first_bad_row.find("bad_ids.jsonl:1: hash_ids must be non-negative integers"),
            std::string::npos)
      << stats.first_bad_row;
  auto stopped = read_all(bad, TraceFormat::kMooncake);
  ASSERT_FALSE(stopped.is_ok());
}

TEST(TraceReader, AzureAndBurstGptAndPlainCsv) {
  const std::string azure = write_file("a.csv",
                                       "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                       "2023-11-16 18:15:46.5000000,4808,10\n"
                                       "2023-11-16 18:15:47.0000000+00:00,3180,0\n"
                                       "2023-11-16 18:15:48.2500000,110,27\n");
  WorkloadStats stats;
  auto a = read_all(azure, TraceFormat::kAuto, {}, &stats);
  ASSERT_TRUE(a.is_ok()) << a.status().message();
  ASSERT_EQ(a->size(), 2u);  // the zero-output row is a failed request
  EXPECT_EQ((*a)[1].arrival_ns, 1'750'000'000);
  EXPECT_EQ(stats.rows_failed, 1u);

  const std::string burst =
      write_file("b.csv",
                 "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                 "5,ChatGPT,472,18,490,Conversation log\n"
                 "6.5,GPT-4,1000,0,1000,Conversation log\n"
                 "7,ChatGPT,\"12\",30,42,API log\n");
  auto b = read_all(burst, TraceFormat::kAuto, {}, &stats);
  ASSERT_TRUE(b.is_ok()) << b.status().message();
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ(stats.rows_failed, 1u);
  EXPECT_EQ((*b)[1].arrival_ns, 2'000'000'000);  // relative to the first row
  EXPECT_EQ((*b)[1].prompt_tokens, 12u);

  const std::string plain = write_file("p.csv",
                                       "arrival_s,prompt_tokens,output_tokens,prefix_group\n"
                                       "0.0,100,10,3\n"
                                       "0.5,200,20,\n");
  TraceSourceOptions options;
  options.default_prefix_tokens = 64;
  auto p = read_all(plain, TraceFormat::kCsv, options);
  ASSERT_TRUE(p.is_ok()) << p.status().message();
  EXPECT_EQ((*p)[0].prefix_group, 3u);
  EXPECT_EQ((*p)[0].prefix_tokens, 64u);
  EXPECT_FALSE((*p)[1].prefix_group.has_value());
}

// A CSV trace's optional `acceptance` column gives a request its own speculative acceptance
// rate (simulator/engine/speculation.h); a rate outside [0, 1] names the column and the line.
TEST(TraceReader, ACsvAcceptanceColumnIsEachRequestsRate) {
  const std::string good = write_file("acc.csv",
                                      "arrival_s,prompt_tokens,output_tokens,acceptance\n"
                                      "0,100,10,0.8\n"
                                      "1,100,10,\n");
  auto rows = read_all(good, TraceFormat::kCsv);
  ASSERT_TRUE(rows.is_ok()) << rows.status().message();
  EXPECT_EQ((*rows)[0].acceptance, 0.8);
  EXPECT_FALSE((*rows)[1].acceptance.has_value());
  const std::string bad = write_file("acc_bad.csv",
                                     "arrival_s,prompt_tokens,output_tokens,acceptance\n"
                                     "0,100,10,1.5\n");
  auto refused = read_all(bad, TraceFormat::kCsv);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("acc_bad.csv:2: column 'acceptance'"),
            std::string::npos)
      << refused.status().message();
}

TEST(TraceReader, MalformedRowsStopWithFileAndLine) {
  const std::string path = write_file("bad.csv",
                                      "arrival_s,prompt_tokens,output_tokens\n"
                                      "0,10,5\n"
                                      "1,abc,5\n"
                                      "2,10,5\n");
  auto result = read_all(path, TraceFormat::kCsv);
  ASSERT_FALSE(result.is_ok());
  EXPECT_NE(result.status().message().find("bad.csv:3: column 'prompt_tokens'"), std::string::npos)
      << result.status().message();

  const std::string json =
      write_file("bad.jsonl",
                 "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n"
                 "{\"timestamp\": 1, \"input_length\": 10}\n");
  auto j = read_all(json, TraceFormat::kMooncake);
  ASSERT_FALSE(j.is_ok());
  EXPECT_NE(j.status().message().find("bad.jsonl:2: missing field 'output_length'"),
            std::string::npos)
      << j.status().message();

  const std::string back =
      write_file("back.csv", "arrival_s,prompt_tokens,output_tokens\n5,10,5\n4,10,5\n");
  auto k = read_all(back, TraceFormat::kCsv);
  ASSERT_FALSE(k.is_ok());
  EXPECT_NE(k.status().message().find("back.csv:3: timestamp goes back"), std::string::npos);
}

TEST(TraceReader, SkipBadRowsCountsThem) {
  const std::string path = write_file("skip.csv",
                                      "arrival_s,prompt_tokens,output_tokens\n"
                                      "0,10,5\n"
                                      "1,-3,5\n"
                                      "2,10\n"
                                      "3,10,5\n");
  TraceSourceOptions options;
  options.skip_bad_rows = true;
  WorkloadStats stats;
  auto result = read_all(path, TraceFormat::kCsv, options, &stats);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(result->size(), 2u);
  EXPECT_EQ(stats.rows_skipped_bad, 2u);
  EXPECT_NE(stats.first_bad_row.find("skip.csv:3:"), std::string::npos);
}

TEST(TraceReader, TimeScaleAndMaxRequests) {
  const std::string path = write_file(
      "scale.csv", "arrival_s,prompt_tokens,output_tokens\n0,1,1\n1,1,1\n2,1,1\n3,1,1\n");
  TraceSourceOptions options;
  options.time_scale = 0.5;
  options.max_requests = 3;
  auto result = read_all(path, TraceFormat::kCsv, options);
  ASSERT_TRUE(result.is_ok());
  ASSERT_EQ(result->size(), 3u);
  EXPECT_EQ((*result)[2].arrival_ns, 1'000'000'000);
}

TEST(TraceReader, UnknownFormatAndMissingColumnsAreClear) {
  const std::string path = write_file("odd.csv", "a,b,c\n1,2,3\n");
  auto detected = detect_trace_format(path);
  ASSERT_FALSE(detected.is_ok());
  EXPECT_NE(detected.status().message().find("--trace-format"), std::string::npos);
  auto forced = open_trace_reader(path, TraceFormat::kAzure);
  ASSERT_FALSE(forced.is_ok());
  EXPECT_NE(forced.status().message().find("missing column 'TIMESTAMP'"), std::string::npos);
  EXPECT_FALSE(parse_trace_format("jsonl").is_ok());
  EXPECT_EQ(open_trace_reader("/nonexistent/x.csv", TraceFormat::kCsv).status().code(),
            StatusCode::kNotFound);
}

TEST(TraceReader, LinesLongerThanTheBufferAndNoFinalNewline) {
  std::string ids;
  for (int i = 0; i < 300000; ++i) ids += (i ? ", " : "") + std::to_string(i);
  const std::string path = write_file(
      "long.jsonl",
      "{\"timestamp\": 0, \"input_length\": 153600000, \"output_length\": 1, \"hash_ids\": [" +
          ids + "]}\n{\"timestamp\": 2, \"input_length\": 3, \"output_length\": 1}");
  auto result = read_all(path, TraceFormat::kMooncake);
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_EQ((*result)[0].hash_ids.size(), 300000u);
  EXPECT_EQ((*result)[1].arrival_ns, 2'000'000);
}

TEST(TraceReader, RealTracesReadWhole) {
  KVSIM_REQUIRE_DATA("traces/conversation_trace.jsonl");
  const auto dir = ::kvsim::testing::data_dir() / "traces";
  auto mooncake = read_all((dir / "conversation_trace.jsonl").string(), TraceFormat::kAuto);
  ASSERT_TRUE(mooncake.is_ok()) << mooncake.status().message();
  EXPECT_EQ(mooncake->size(), 12031u);
  auto azure = read_all((dir / "AzureLLMInferenceTrace_code.csv").string(), TraceFormat::kAuto);
  ASSERT_TRUE(azure.is_ok()) << azure.status().message();
  EXPECT_EQ(azure->size(), 8819u);
  EXPECT_EQ(azure->front().prompt_tokens, 4808u);
}

}  // namespace
}  // namespace kvsim::sim

// ChromeTraceWriter: the file is one JSON document with one event per line, whatever the
// names it carries (a replica named with a quote, a backslash or a newline).
#include "simulator/output/chrome_trace_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One iteration, one finished request and one swap-out on `replica`.
void write_a_little(ChromeTraceWriter* writer, uint32_t replica) {
  IterationRecord iteration;
  iteration.replica = replica;
  iteration.start_ns = 1'000;
  iteration.end_ns = 3'500;
  iteration.shape.num_seqs = 2;
  iteration.shape.prefill_tokens = 16;
  EngineSnapshot after;
  after.kv_blocks_used = 4;
  writer->on_iteration(iteration, after);
  RequestRecord request;
  request.id = 7;
  request.arrival_ns = 0;
  request.first_token_ns = 3'500;
  request.finish_ns = 9'000;
  request.replica = static_cast<int32_t>(replica);
  writer->on_request_finished(request);
  TransferRecord swap;
  swap.request_id = 7;
  swap.start_ns = 4'000;
  swap.end_ns = 5'000;
  swap.bytes = 4096;
  swap.to_replica = static_cast<int32_t>(replica);
  writer->on_transfer(swap);
  ASSERT_TRUE(writer->finish(after).is_ok());
}

TEST(ChromeTraceWriter, ReplicaNamesWithQuotesAndBackslashesStayValidJson) {
  const fs::path path = fs::path(::testing::TempDir()) / "chrome_trace_names" / "trace.json";
  const std::vector<std::string> names = {"a \"quoted\" one", "back\\slash", "two\nlines"};
  auto writer = ChromeTraceWriter::create(path.string(), names);
  ASSERT_TRUE(writer.is_ok()) << writer.status().message();
  write_a_little(writer->get(), 1);

  const std::string text = read_text(path);
  const json trace = json::parse(text);  // throws, failing the test, on invalid JSON
  std::vector<std::string> process_names;
  for (const json& event : trace.at("traceEvents")) {
    if (event.at("name") == "process_name") process_names.push_back(event["args"]["name"]);
  }
  EXPECT_EQ(process_names, (std::vector<std::string>{"requests", "replica a \"quoted\" one",
                                                     "replica back\\slash", "replica two\nlines"}));
  // Replica 1's iteration is on its process: pid 3 + 1.
  bool found_iteration = false;
  for (const json& event : trace["traceEvents"]) {
    if (event["name"] != "iteration") continue;
    found_iteration = true;
    EXPECT_EQ(event["pid"], 4);
    EXPECT_EQ(event["ts"], 1.0);  // microseconds
    EXPECT_EQ(event["dur"], 2.5);
    EXPECT_EQ(event["args"]["prefill_tokens"], 16);
  }
  EXPECT_TRUE(found_iteration);
}

TEST(ChromeTraceWriter, WritesOneEventPerLine) {
  const fs::path path = fs::path(::testing::TempDir()) / "chrome_trace_lines" / "trace.json";
  auto writer = ChromeTraceWriter::create(path.string());
  ASSERT_TRUE(writer.is_ok()) << writer.status().message();
  write_a_little(writer->get(), 0);

  const std::vector<std::string> lines = lines_of(read_text(path));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front(), "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
  EXPECT_EQ(lines.back(), "]}");
  // 5 names (2 processes, 3 threads), iteration + KV counter, 3 request events, 1 swap.
  std::vector<std::string> events(lines.begin() + 1, lines.end() - 1);
  ASSERT_EQ(events.size(), 11u);
  for (size_t i = 0; i < events.size(); ++i) {
    if (i + 1 < events.size()) {  // the separator ends the line
      ASSERT_EQ(events[i].back(), ',') << events[i];
      events[i].pop_back();
    }
    EXPECT_TRUE(json::parse(events[i]).is_object()) << events[i];
  }
  EXPECT_EQ(json::parse(events[0]),
            json::parse(R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"engine"}})"));
  const json swap = json::parse(events.back());
  EXPECT_EQ(swap["name"], "swap out");
  EXPECT_EQ(swap["tid"], 2);
  EXPECT_EQ(swap["args"]["bytes"], 4096);
}

}  // namespace
}  // namespace kvsim::sim

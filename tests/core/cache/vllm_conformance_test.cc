// kvsim's paged KV cache against vLLM v1's own: every operation stream recorded from vLLM's
// BlockPool / FreeKVCacheBlockQueue / KVCacheManager (tests/data/vllm_v1_conformance/, see its
// SOURCES.md: 15 scripted streams, one rule each, and 52 seeded random ones — tiny pools that
// evict constantly, requests sharing prefixes concurrently, preemption and re-admission,
// chunked prefill, prefix-cache resets) is replayed through kvsim's KvCacheManager and must
// match step by step: the blocks handed out, the hits, every block table, the whole free queue
// (eviction order), the evictions, the newly cached blocks, the free count and the prefix
// statistics (tests/core/cache/vllm_replayer.h says how each op maps).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tests/core/cache/vllm_replayer.h"
#include "tests/test_data.h"

namespace kvsim {
namespace {

using nlohmann::json;

constexpr const char* kVllmCommit = "9aaf83ef502fc37bc647f6e474314d48ba36cd1c";
constexpr size_t kMinReplayedStreams = 50;

std::filesystem::path traces_dir() {
  return testing::source_dir() / "tests" / "data" / "vllm_v1_conformance" / "traces";
}

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return json();
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

struct Stream {
  std::string file;
  json data;
};

std::vector<Stream> load_streams() {
  std::vector<Stream> streams;
  const json index = read_json(traces_dir() / "index.json");
  if (!index.is_object()) return streams;
  for (const json& entry : index.at("streams")) {
    const std::string file = entry.at("file").get<std::string>();
    streams.push_back({file, read_json(traces_dir() / file)});
  }
  return streams;
}

// The traces are in the tree (not in ../shared): missing or unreadable ones are a failure.
TEST(VllmConformanceTest, TheRecordedStreamsAreThereAndFromThePinnedCommit) {
  const json index = read_json(traces_dir() / "index.json");
  ASSERT_TRUE(index.is_object()) << "cannot read " << (traces_dir() / "index.json").string();
  EXPECT_EQ(index.at("vllm_commit"), kVllmCommit);
  const std::vector<Stream> streams = load_streams();
  EXPECT_EQ(streams.size(), 67u);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(traces_dir())) {
    files += entry.path().filename() != "index.json" ? 1 : 0;
  }
  EXPECT_EQ(files, streams.size()) << "a trace file is not listed in index.json";
  for (const Stream& stream : streams) {
    ASSERT_TRUE(stream.data.is_object()) << stream.file << " is not valid JSON";
    EXPECT_EQ(stream.data.at("format"), "kvsim-vllm-conformance/1") << stream.file;
    EXPECT_EQ(stream.data.at("vllm").at("commit"), kVllmCommit) << stream.file;
  }
}

// Every replayable stream, once with the event log (evictions and newly cached blocks block
// by block) and once without (the manager's batched allocation path, evictions by count).
TEST(VllmConformanceTest, EveryRecordedStreamMatchesBlockForBlock) {
  const std::vector<Stream> streams = load_streams();
  ASSERT_FALSE(streams.empty()) << "no traces under " << traces_dir().string();
  size_t replayed = 0, matched = 0, steps = 0;
  std::string failures, skipped;
  for (const Stream& stream : streams) {
    ASSERT_TRUE(stream.data.is_object()) << stream.file << " is not valid JSON";
    if (const auto reason = testing::unreplayable_reason(stream.data)) {
      skipped += "\n  " + stream.file + ": " + *reason;
      continue;
    }
    ++replayed;
    bool ok = true;
    for (const bool event_log : {true, false}) {
      const testing::ReplayResult result = testing::replay_vllm_stream(stream.data, event_log);
      if (result.mismatch.empty()) {
        steps += event_log ? result.num_steps : 0;
        continue;
      }
      ok = false;
      failures += "\n  " + stream.file + (event_log ? "" : " (batched)") + ": " + result.mismatch;
    }
    matched += ok ? 1 : 0;
  }
  std::cout << "vLLM v1 conformance: " << matched << " of " << replayed << " streams match ("
            << steps << " steps); skipped " << streams.size() - replayed << ":" << skipped << "\n";
  EXPECT_GE(replayed, kMinReplayedStreams);
  EXPECT_EQ(matched, replayed) << "streams that differ from vLLM:" << failures;
}

}  // namespace
}  // namespace kvsim

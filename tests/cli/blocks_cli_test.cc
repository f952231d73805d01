// `kvsim blocks --demo`: the JSON carries every step with the documented keys and the exact
// blocks of the scenario; bad input exits 2 with a message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_cli.h"

namespace kvsim::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json demo_json(const std::string& extra = "") {
  const CliResult result = run_kvsim("blocks --demo --json" + extra);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

// The events of one step as "kind:block" strings.
std::vector<std::string> events(const json& step) {
  std::vector<std::string> out;
  for (const json& event : step["events"]) {
    out.push_back(event["kind"].get<std::string>() + ":" +
                  std::to_string(event["block"].get<int>()));
  }
  return out;
}

TEST(BlocksCliTest, DemoJsonCarriesEveryStepWithTheDocumentedKeys) {
  const json demo = demo_json();
  ASSERT_TRUE(demo.is_object());
  EXPECT_EQ(demo["num_blocks"], 17);
  EXPECT_EQ(demo["block_size"], 4);
  EXPECT_EQ(demo["eviction"], "lru");
  ASSERT_EQ(demo["steps"].size(), 11u);
  for (const json& step : demo["steps"]) {
    for (const char* key :
         {"index", "action", "note", "events", "requests", "blocks", "free_queue", "stats"}) {
      EXPECT_TRUE(step.contains(key)) << key;
    }
    ASSERT_EQ(step["blocks"].size(), 17u);
    size_t free_blocks = 0;
    for (const json& block : step["blocks"]) {
      const bool used = block["ref_count"].get<int>() > 0;
      const bool null = block["id"] == 0;  // the null block: neither used nor free
      EXPECT_EQ(block["state"] == "null", null);
      EXPECT_EQ(block["state"] == "used", used);
      EXPECT_EQ(block["state"] == "cached_free", !used && !block["hash"].is_null());
      free_blocks += used || null ? 0 : 1;
    }
    EXPECT_EQ(step["free_queue"].size(), free_blocks);  // every free block, once
  }
}

TEST(BlocksCliTest, DemoShowsHitCopyPreemptionAndEviction) {
  const json steps = demo_json()["steps"];
  // Step 2: request 2 hits the two system-prompt blocks and takes two new ones.
  EXPECT_THAT(events(steps[1]),
              ::testing::ElementsAre("hit:1", "hit:2", "allocate:5", "allocate:6", "cache:5"));
  EXPECT_EQ(steps[1]["requests"][1]["block_table"], json({1, 2, 5, 6}));
  EXPECT_EQ(steps[1]["blocks"][1]["ref_count"], 2);
  EXPECT_EQ(steps[1]["blocks"][0]["state"], "null");  // block 0 is never handed out
  // Step 4: copy-on-write of shared block 4 into block 7.
  ASSERT_EQ(steps[3]["events"].size(), 1u);
  EXPECT_EQ(steps[3]["events"][0]["kind"], "copy");
  EXPECT_EQ(steps[3]["events"][0]["block"], 4);
  EXPECT_EQ(steps[3]["events"][0]["to_block"], 7);
  EXPECT_EQ(steps[3]["stats"]["cow_copies"], 1);
  // Step 6: no room, nothing changes.
  EXPECT_TRUE(steps[5]["events"].empty());
  EXPECT_EQ(steps[5]["free_queue"], steps[4]["free_queue"]);
  // Step 7: preemption frees tail first; the full block stays cached at the back.
  EXPECT_THAT(events(steps[6]), ::testing::ElementsAre("free:6", "free:5", "free:2", "free:1"));
  EXPECT_EQ(steps[6]["free_queue"], json({8, 9, 10, 11, 12, 13, 14, 15, 16, 6, 5}));
  EXPECT_EQ(steps[6]["stats"]["preemptions"], 1);
  // Step 8: the 11th block evicts cached block 5.
  const json& evict = steps[7]["events"][10];
  EXPECT_EQ(evict["kind"], "evict");
  EXPECT_EQ(evict["block"], 5);
  EXPECT_TRUE(evict["request"].is_null());
  EXPECT_EQ(evict["hash"].get<std::string>().size(), 18u);  // 0x + 16 hex digits
  EXPECT_EQ(steps[7]["stats"]["evictions"], 1);
  // Last step: all free, in the order they were freed (tail first), prefixes still cached.
  EXPECT_EQ(steps[10]["free_queue"], json({16, 15, 14, 13, 12, 11, 10, 9, 8, 4, 6, 5, 7, 3, 2, 1}));
  EXPECT_EQ(steps[10]["stats"]["used_blocks"], 0);
  EXPECT_EQ(steps[10]["stats"]["cached_free_blocks"], 14);
}

TEST(BlocksCliTest, OtherPoliciesAndTextOutput) {
  const json none = demo_json(" --eviction none");
  EXPECT_EQ(none["steps"][10]["stats"]["prefix_hit_tokens"], 0);
  EXPECT_EQ(none["steps"][10]["stats"]["evictions"], 0);
  EXPECT_EQ(demo_json(" --eviction fifo")["steps"].size(), 11u);
  const CliResult text = run_kvsim("blocks --demo");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("request 3 copies block 4 -> block 7"));
  EXPECT_THAT(text.out, HasSubstr("free queue (next reused first): 8 9 10 11 12 13 14 15 16 6 5"));
}

TEST(BlocksCliTest, BadInputExitsTwoWithAMessage) {
  const CliResult no_demo = run_kvsim("blocks");
  EXPECT_EQ(no_demo.exit_code, 2);
  EXPECT_THAT(no_demo.err, HasSubstr("--demo"));
  const CliResult bad = run_kvsim("blocks --demo --eviction lur");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown eviction policy 'lur' (did you mean 'lru'?)"));
}

}  // namespace
}  // namespace kvsim::testing

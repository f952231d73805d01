#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/base/names.h"
#include "core/base/text_format.h"
#include "core/config/config_node.h"
#include "core/config/config_reader.h"
#include "core/config/yaml_io.h"

namespace kvsim {
namespace {

using ::testing::HasSubstr;

TEST(ScalarParseTest, IntegersRejectJunkNegativeAndOverflow) {
  uint64_t u = 0;
  EXPECT_TRUE(parse_uint64("18446744073709551615", &u).is_ok());
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_TRUE(parse_uint64("7e9", &u).is_ok());
  EXPECT_EQ(u, 7'000'000'000u);
  EXPECT_FALSE(parse_uint64("18446744073709551616", &u).is_ok());
  EXPECT_FALSE(parse_uint64("-1", &u).is_ok());
  EXPECT_FALSE(parse_uint64("1.5", &u).is_ok());
  EXPECT_FALSE(parse_uint64("1e30", &u).is_ok());
  EXPECT_FALSE(parse_uint64("", &u).is_ok());
  int64_t i = 0;
  EXPECT_TRUE(parse_int64("-42", &i).is_ok());
  EXPECT_EQ(i, -42);
  double d = 0;
  EXPECT_TRUE(parse_double("0.9", &d).is_ok());
  EXPECT_FALSE(parse_double("nan", &d).is_ok());
  EXPECT_FALSE(parse_double("1e999", &d).is_ok());
}

TEST(ConfigNodeTest, SetPathCreatesMapsAndRefusesScalars) {
  ConfigNode root = ConfigNode::map();
  ASSERT_TRUE(root.set_path("cache.block_size", ConfigNode::scalar("512")).is_ok());
  ASSERT_NE(root.find_path("cache.block_size"), nullptr);
  EXPECT_EQ(root.find_path("cache.block_size")->text(), "512");
  EXPECT_FALSE(root.set_path("cache.block_size.x", ConfigNode::scalar("1")).is_ok());
  EXPECT_FALSE(root.set_path("a..b", ConfigNode::scalar("1")).is_ok());
}

TEST(YamlIoTest, RoundTripsATree) {
  auto node = parse_yaml("a: 1\nb: [x, 'y z', {c: 2.5}]\nd:\n  e: true\n  f: ~\n", "t.yaml");
  ASSERT_TRUE(node.is_ok()) << node.status().message();
  auto again = parse_yaml(to_yaml(*node), "t2.yaml");
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(*node == *again) << to_yaml(*node);
  EXPECT_EQ(node->find_path("d.e")->mark().line, 4);
  EXPECT_EQ(node->find_path("d.e")->mark().column, 6);
}

TEST(YamlIoTest, AliasBombsAndDeepNestingAreErrors) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char previous = 'a';
  for (char name = 'b'; name <= 'h'; ++name) {
    bomb += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + previous;
    bomb += "]\n";
    previous = name;
  }
  auto node = parse_yaml(bomb, "bomb.yaml");
  ASSERT_FALSE(node.is_ok());
  EXPECT_THAT(node.status().message(), HasSubstr("aliases are expanded"));
  auto deep = parse_yaml(std::string(200, '[') + std::string(200, ']'), "deep.yaml");
  ASSERT_FALSE(deep.is_ok());
}

TEST(ConfigReaderTest, StickyErrorsAndUnknownKeys) {
  auto node = parse_yaml("a: 5\nb: nope\nc: 1\n", "r.yaml");
  ASSERT_TRUE(node.is_ok());
  ConfigReader reader(*node, "test map");
  uint32_t a = 0;
  double b = 0;
  reader.required("a", &a, 1u, 4u);
  reader.required("b", &b, 0.0, 1.0);
  const Status status = reader.finish();
  ASSERT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr("r.yaml:1:4: field 'a' must be a number in [1, 4]"));
  EXPECT_EQ(a, 0u);
}

TEST(NamesTest, NearestNameAndMessage) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(nearest_name("h10", {"h100-sxm", "h200", "a100-80g"}), "h200");
  EXPECT_EQ(nearest_name("zzzzzz", {"lru", "lfu"}), "");
  EXPECT_EQ(unknown_name_message("policy", "lr", {"lru", "lfu"}),
            "unknown policy 'lr' (did you mean 'lru'?); valid: lru, lfu");
}

TEST(TextFormatTest, CountsAndBytes) {
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(12), "12");
  EXPECT_EQ(format_bytes(uint64_t{77'309'411'328}), "72.00 GiB");
  EXPECT_EQ(format_bytes(uint64_t{512}), "512 B");
  EXPECT_EQ(format_number(2.5), "2.5");
}

}  // namespace
}  // namespace kvsim

// regex_needles: the literal text every match holds, read from the pattern; a text the test
// rejects must never match.
#include "core/base/regex_needles.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/std_regex.h"

namespace kvsim {
namespace {

TEST(RegexNeedlesTest, TheLongestLiteralOutsideGroupsAndQuantifiers) {
  EXPECT_EQ(regex_needles(R"(GPU KV cache size:\s+([0-9,]+) tokens)").all, "GPU KV cache size:");
  EXPECT_EQ(regex_needles(R"(Desired GPU memory utilization is \([0-9.]+)").all,
            "Desired GPU memory utilization is (");  // an escaped "(" is the character
  EXPECT_EQ(regex_needles(R"(took ([0-9.]+) Gi?B)").all, "took ");  // "i" may be absent
  EXPECT_EQ(regex_needles(R"(v([0-9][^)\s]*)\)x)").all, ")x");      // the class holds a ")"
  EXPECT_EQ(regex_needles(R"(ab+c)").all, "a");
}

TEST(RegexNeedlesTest, AlternativesGiveOneLiteralEach) {
  const RegexNeedles top = regex_needles(R"(enforce_eager=(True|False)|--enforce-eager\b)");
  EXPECT_EQ(top.all, "");
  EXPECT_EQ(top.any_of, (std::vector<std::string>{"enforce_eager=", "--enforce-eager"}));
  const RegexNeedles group = regex_needles(R"((Loading model weights took|Model loading took) X)");
  EXPECT_EQ(group.any_of,
            (std::vector<std::string>{"Loading model weights took", "Model loading took"}));
  // An optional group, or an alternative with no literal, gives no test.
  EXPECT_TRUE(regex_needles(R"((ab|cd)?efg)").any_of.empty());
  EXPECT_EQ(regex_needles(R"((ab|cd)?efg)").all, "efg");
  EXPECT_TRUE(regex_needles(R"((ab|[0-9]+)z)").any_of.empty());
}

// Every text that matches passes may_match; texts without the literals fail it.
TEST(RegexNeedlesTest, NoMatchIsEverRejected) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> cases = {
      {R"((Loading model weights took|Model loading took) ([0-9.]+) Gi?B)",
       {"Model loading took 14.99 GiB", "Loading model weights took 0.93 GB"}},
      {R"(enforce_eager['"]?[=:] ?(True|False)|--enforce-eager\b)",
       {"enforce_eager=True", "'enforce_eager': False", "vllm serve m --enforce-eager"}},
      {R"((#\s*)?(GPU|CUDA|npu) blocks: ([0-9]+))", {"# GPU blocks: 1952", "npu blocks: 4"}},
      {R"((K size: ([0-9.]+) GB, V size: ([0-9.]+) GB|KV size: ([0-9.]+) GB))",
       {"K size: 8.23 GB, V size: 8.23 GB", "KV size: 17.1 GB"}},
  };
  for (const auto& [pattern, texts] : cases) {
    const std::regex re(pattern);
    const RegexNeedles needles = regex_needles(pattern);
    for (const char* text : texts) {
      ASSERT_TRUE(std::regex_search(text, re)) << pattern << " / " << text;
      EXPECT_TRUE(needles.may_match(text)) << pattern << " / " << text;
    }
    EXPECT_FALSE(needles.may_match("INFO an ordinary line, 12.34 GiB")) << pattern;
  }
}

}  // namespace
}  // namespace kvsim

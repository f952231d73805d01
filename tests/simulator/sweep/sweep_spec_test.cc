#include <gmock/gmock.h>

#include "tests/simulator/sweep/sweep_test_util.h"

namespace kvsim::sim::testing {
namespace {

using ::testing::HasSubstr;

TEST(SweepSpecTest, GridExpandsToTheCrossProductLastKeyFastest) {
  const SweepSpec spec =
      sweep_from_text("base: {a: 0, b: 0, c: {d: keep}}\ngrid:\n  a: [1, 2, 3]\n  b: [x, y]\n");
  const std::vector<SweepPoint> points = expand(spec);
  ASSERT_EQ(points.size(), 6u);
  const char* expected[] = {"a=1,b=x", "a=1,b=y", "a=2,b=x", "a=2,b=y", "a=3,b=x", "a=3,b=y"};
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].name, expected[i]);
    EXPECT_EQ(points[i].index, i);
    EXPECT_EQ(points[i].config.find_path("c.d")->text(), "keep");  // base kept
    EXPECT_EQ(points[i].id.size(), 16u);
  }
  EXPECT_EQ(points[3].config.find_path("a")->text(), "2");
  EXPECT_EQ(points[3].config.find_path("b")->text(), "y");
  EXPECT_EQ(spec.keys, (std::vector<std::string>{"a", "b"}));
}

TEST(SweepSpecTest, ZipGroupsVaryTogetherAndMultiplyTheGrid) {
  const SweepSpec spec = sweep_from_text(
      "base: {}\ngrid:\n  a: [1, 2]\nzip:\n  - b: [10, 20, 30]\n    c.d: [p, q, r]\n");
  const std::vector<SweepPoint> points = expand(spec);
  ASSERT_EQ(points.size(), 6u);
  for (const SweepPoint& point : points) {
    const std::string b = point.config.find_path("b")->text();
    const std::string d = point.config.find_path("c.d")->text();
    EXPECT_EQ(d, b == "10" ? "p" : b == "20" ? "q" : "r") << point.name;
  }
  EXPECT_EQ(points[1].name, "a=1,b=20,c.d=q");
  EXPECT_EQ(spec.keys, (std::vector<std::string>{"a", "b", "c.d"}));
}

TEST(SweepSpecTest, IdsAreStableAndDependOnTheResolvedConfiguration) {
  const SweepSpec spec = sweep_from_text("base: {a: 0}\ngrid:\n  a: [1, 2]\n");
  const auto first = expand(spec);
  const auto again = expand(sweep_from_text("base: {a: 0}\ngrid:\n  a: [1, 2]\n"));
  EXPECT_EQ(first[0].id, again[0].id);
  EXPECT_NE(first[0].id, first[1].id);
  EXPECT_EQ(content_hash("abc"), "e71fa2190541574b");  // FNV-1a 64 of "abc"
}

TEST(SweepSpecTest, SetOverridesTheBaseForEveryPoint) {
  const auto points =
      expand(sweep_from_text("base: {a: 0, c: {d: 1}}\nset: {c.d: 2, e: x}\ngrid: {a: [1, 2]}\n"));
  ASSERT_EQ(points.size(), 2u);
  for (const SweepPoint& point : points) {
    EXPECT_EQ(point.config.find_path("c.d")->text(), "2");
    EXPECT_EQ(point.config.find_path("e")->text(), "x");
  }
}

TEST(SweepSpecTest, NoGridIsOnePoint) {
  const auto points = expand(sweep_from_text("base: {a: 1}\n"));
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].name, "base");
}

TEST(SweepSpecTest, ShardsPartitionThePoints) {
  const auto points = expand(sweep_from_text("base: {}\ngrid:\n  a: [1, 2, 3, 4, 5, 6, 7]\n"));
  std::vector<size_t> seen;
  for (size_t shard = 0; shard < 3; ++shard) {
    for (const SweepPoint& point : select_shard(points, shard, 3)) seen.push_back(point.index);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(select_shard(points, 1, 3).size(), 2u);
}

StatusOr<SweepSpec> parse_error_of(const std::string& yaml) {
  auto node = parse_yaml(yaml, "bad.yaml");
  if (!node.is_ok()) return node.status();
  auto spec = sweep_from_config(*node, "bad.yaml", no_presets);
  if (!spec.is_ok()) return spec.status();
  auto points = expand_sweep(*spec);
  if (!points.is_ok()) return points.status();
  return spec;
}

TEST(SweepSpecTest, BadSweepsSayWhatAndWhere) {
  EXPECT_THAT(parse_error_of("grid: {a: [1]}\n").status().message(),
              HasSubstr("missing required field 'base'"));
  EXPECT_THAT(parse_error_of("base: {}\ngrid:\n  a: 3\n").status().message(),
              HasSubstr("bad.yaml:3:6: grid.a must be a non-empty list"));
  EXPECT_THAT(parse_error_of("base: {}\nzip:\n  - a: [1, 2]\n    b: [1]\n").status().message(),
              HasSubstr("equal lengths"));
  EXPECT_THAT(parse_error_of("base: {}\ngrid: {a: [1]}\nzip: [{a: [2]}]\n").status().message(),
              HasSubstr("appears twice"));
  EXPECT_THAT(parse_error_of("base: {}\ngrid: {a: [1, 1]}\n").status().message(),
              HasSubstr("resolve to the same configuration"));
  EXPECT_THAT(parse_error_of("base: {a: 1}\ngrid: {a.b: [1]}\n").status().message(),
              HasSubstr("is not a map"));
  EXPECT_THAT(parse_error_of("base: {}\nkind: simulat\n").status().message(),
              HasSubstr("did you mean 'simulate'"));
  EXPECT_THAT(parse_error_of("base: {}\ngird: {a: [1]}\n").status().message(),
              HasSubstr("did you mean 'grid'"));
}

}  // namespace
}  // namespace kvsim::sim::testing

// The progress bar's text (cli/progress_bar.h): fraction, counts and ETA.
#include "cli/progress_bar.h"

#include <gtest/gtest.h>

namespace kvsim::sim {
namespace {

TEST(ProgressBar, RendersFractionCountsAndEta) {
  Progress p;
  p.fraction = 0.25;
  p.completed = 1234;
  p.sim_time_ns = 90'000'000'000;
  const std::string text = ProgressBar::render(p, /*elapsed_s=*/10);
  EXPECT_NE(text.find("25%"), std::string::npos) << text;
  EXPECT_NE(text.find("1,234 done"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA 30 s"), std::string::npos) << text;
  EXPECT_NE(text.find("[########......"), std::string::npos) << text;
}

}  // namespace
}  // namespace kvsim::sim

// File: ledger/analysis/report_complexity_test.cpp
// Complexity figures: a planted power law's slope recovered, series split by
// their other params, too-short or non-positive series left out, one point
// per n (the median) in the SVG, and the slope's bootstrap CI: a point on an
// exact power law has no spread, a bent series does, and the band is drawn.
#include "ledger/analysis/report_complexity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fixtures/count.h"

namespace cb::ledger {
namespace {

using cb::testing::CountOf;

Result Row(double n, double v, const std::string& metric = "seconds", nlohmann::json extra = nlohmann::json::object()) {
  Result r;
  r.suite = "s";
  r.case_name = "loop";
  r.backend = "cpu";
  r.metric = metric;
  r.value = v;
  r.params = extra;
  r.params["n"] = n;
  return r;
}

TEST(ReportComplexity, RecoversAPlantedSlopeAndSplitsSeries) {
  std::vector<Result> rows;
  for (double n : {64.0, 128.0, 256.0, 512.0}) {
    rows.push_back(Row(n, 3e-9 * std::pow(n, 1.5)));
    rows.push_back(Row(n, 5 * n, "ops", {{"mode", "a"}}));
    rows.push_back(Row(n, 7 * n * n, "ops", {{"mode", "b"}}));
  }
  rows.push_back(Row(64, 1e9));  // two more samples at n = 64: the median of the three is used
  rows.push_back(Row(64, 3e-9 * std::pow(64, 1.5)));
  rows.push_back(Row(10, 1, "short"));  // 2 sizes only: no figure
  rows.push_back(Row(20, 2, "short"));
  rows.push_back(Row(10, -1, "neg"));   // non-positive values are left out
  rows.push_back(Row(20, -2, "neg"));
  rows.push_back(Row(40, -4, "neg"));
  const auto s = CollectComplexity(rows);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].title, "s/loop [cpu] seconds");
  EXPECT_EQ(s[1].title, "s/loop [cpu] ops {\"mode\":\"a\"}");
  EXPECT_NEAR(s[1].slope, 1.0, 1e-12);
  EXPECT_NEAR(s[2].slope, 2.0, 1e-12);
  EXPECT_NEAR(std::exp(s[2].intercept), 7.0, 1e-9);
  ASSERT_EQ(s[0].n.size(), 4u);
  EXPECT_NEAR(s[0].value[0], 3e-9 * 512, 1e-15);  // the outlier 1e9 is not the median
  EXPECT_NEAR(s[0].slope, 1.5, 1e-9);
  const std::string svg = ComplexitySvg(s[2]);
  EXPECT_EQ(CountOf(svg, "class=\"cb-fit-point\""), 4);
  EXPECT_EQ(CountOf(svg, "class=\"cb-fit-line\""), 1);
  EXPECT_EQ(CountOf(svg, "class=\"cb-fit-band\""), 1);
  EXPECT_NEAR(s[2].slope_ci.low, 2.0, 1e-12);  // exact power law: every resample's slope is 2
  EXPECT_NEAR(s[2].slope_ci.high, 2.0, 1e-12);
  EXPECT_NE(svg.find("log-log slope 2 [2, 2]"), std::string::npos);
  EXPECT_EQ(CollectComplexity(rows, 1).size(), 1u);
}

TEST(ReportComplexity, ABentSeriesHasASlopeIntervalAroundItsFit) {
  // 1000 + 3n: a fixed overhead bends the log-log line, so resampled pairs
  // disagree on the slope and the CI has width.
  std::vector<Result> rows;
  for (double n = 64; n <= 16384; n *= 2) rows.push_back(Row(n, 1000 + 3 * n));
  const auto s = CollectComplexity(rows);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_LT(s[0].slope_ci.low, s[0].slope);
  EXPECT_GT(s[0].slope_ci.high, s[0].slope);
  EXPECT_GT(s[0].slope_ci.high - s[0].slope_ci.low, 0.05);
  // Seeded: the same rows give the same interval (and page).
  EXPECT_EQ(CollectComplexity(rows)[0].slope_ci.low, s[0].slope_ci.low);
  EXPECT_EQ(ComplexitySvg(s[0]), ComplexitySvg(CollectComplexity(rows)[0]));
}

}  // namespace
}  // namespace cb::ledger

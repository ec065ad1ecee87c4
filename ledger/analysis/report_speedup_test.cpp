// File: ledger/analysis/report_speedup_test.cpp
// Speedup bars: one bar and one CI whisker per drawable compared case, the
// axis holds 1x, not-counted cases are grey, cases past the cap and cases
// with no positive speedup are named instead of drawn; the Markdown table
// carries the same numbers.
#include "ledger/analysis/report_speedup.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fixtures/count.h"

namespace cb::ledger {
namespace {

using cb::testing::CountOf;

CompareRow Row(const std::string& case_name, double speedup, std::optional<double> lo, std::optional<double> hi,
               bool counted = true) {
  CompareRow r;
  r.suite = "s";
  r.case_name = case_name;
  r.params = "{}";
  r.metric = "seconds";
  r.speedup = speedup;
  r.ci_low = lo;
  r.ci_high = hi;
  r.counted = counted;
  return r;
}

CompareReport Report() {
  CompareReport r;
  r.label_a = "cpu";
  r.label_b = "cuda";
  r.rows = {Row("fast", 8.0, 7.5, 8.6), Row("slow", 0.5, 0.45, 0.56), Row("failed", 3.0, std::nullopt, std::nullopt, false),
            Row("zero", 0.0, std::nullopt, std::nullopt),
            Row("nan", std::numeric_limits<double>::quiet_NaN(), std::nullopt, std::nullopt)};
  return r;
}

TEST(ReportSpeedup, OneBarPerDrawableCaseWithItsCi) {
  int bars = -1;
  const std::string svg = SpeedupSvg(Report(), 200, &bars);
  EXPECT_EQ(bars, 3);
  EXPECT_EQ(CountOf(svg, "class=\"cb-speedup-bar\""), 3);
  EXPECT_EQ(CountOf(svg, "class=\"cb-speedup-ci\""), 2);  // "failed" has no CI
  EXPECT_EQ(CountOf(svg, "class=\"cb-speedup-one\""), 1);
  EXPECT_NE(svg.find("fill=\"#999999\""), std::string::npos);   // not counted: grey
  EXPECT_NE(svg.find("fill=\"#c03030\""), std::string::npos);   // slower: red
  EXPECT_NE(svg.find("fill=\"#2a8a2a\""), std::string::npos);   // faster: green
  EXPECT_NE(svg.find("s/zero seconds: no positive speedup"), std::string::npos);
  EXPECT_NE(svg.find("s/nan seconds: no positive speedup"), std::string::npos);
  EXPECT_NE(svg.find("cuda over cpu"), std::string::npos);
  EXPECT_NE(svg.find("8x [7.5, 8.6]"), std::string::npos);  // the row's tooltip
}

TEST(ReportSpeedup, BarsStartAtOneOnASharedLogAxis) {
  CompareReport r;
  r.rows = {Row("up", 10.0, std::nullopt, std::nullopt), Row("down", 0.1, std::nullopt, std::nullopt)};
  const std::string svg = SpeedupSvg(r);
  // 10x and 0.1x are symmetric about 1x on a log axis: equal widths.
  std::vector<double> widths;
  for (size_t at = 0; (at = svg.find("class=\"cb-speedup-bar\"", at)) != std::string::npos; ++at) {
    const size_t w = svg.find("width=\"", at) + 7;
    widths.push_back(std::stod(svg.substr(w)));
  }
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_NEAR(widths[0], widths[1], 1e-6);
  EXPECT_GT(widths[0], 100);
}

TEST(ReportSpeedup, CapNamesWhatIsLeftOut) {
  int bars = 0;
  const std::string svg = SpeedupSvg(Report(), 1, &bars);
  EXPECT_EQ(bars, 1);
  EXPECT_NE(svg.find("2 more compared cases"), std::string::npos);
  EXPECT_TRUE(SpeedupSvg(CompareReport{}).empty());
}

TEST(ReportSpeedup, MarkdownHasTheSameNumbers) {
  const std::string md = SpeedupMarkdown(Report());
  EXPECT_NE(md.find("| s/fast seconds | 8x [7.5, 8.6] | `"), std::string::npos) << md;
  EXPECT_NE(md.find("| s/slow seconds | 0.5x [0.45, 0.56] | `"), std::string::npos) << md;
  EXPECT_NE(md.find("| s/failed seconds | 3x (not counted) | `"), std::string::npos) << md;
  EXPECT_NE(md.find("- s/zero seconds: no positive speedup (0)"), std::string::npos) << md;
  EXPECT_EQ(CountOf(md, "\n| s/"), 3);
}

}  // namespace
}  // namespace cb::ledger

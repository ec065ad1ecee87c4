// File: ledger/analysis/report_forest_test.cpp
// The claim forest plot: criterion bounds read back from their stored text,
// bare paper numbers only, one SVG bar per measured claim (coloured by
// verdict, placed at its CI), unmeasured claims listed with their reason,
// escaping, and the Markdown text bar.
#include "ledger/analysis/report_forest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/count.h"

namespace cb::ledger {
namespace {

using cb::testing::CountOf;

ClaimRow Claim(const std::string& id, std::optional<double> v, std::optional<double> lo, std::optional<double> hi,
               const std::string& criterion, const std::string& verdict, const std::string& paper = "-") {
  ClaimRow c;
  c.claim_id = id;
  c.suite = "s";
  c.value = v;
  c.ci_low = lo;
  c.ci_high = hi;
  c.criterion = criterion;
  c.verdict = verdict;
  c.paper_value = paper;
  return c;
}

TEST(ReportForest, HeadlineBoundReadsTheFirstLeaf) {
  auto b = HeadlineBound("recall CI >= 0.95; recall non-decreasing in D within 2 SE");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->low, 0.95);
  EXPECT_FALSE(b->high);
  b = HeadlineBound("exponent 95% CI within [0.9, 1.1]");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->low, 0.9);
  EXPECT_EQ(b->high, 1.1);
  b = HeadlineBound("<= -2e-3");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->high, -2e-3);
  EXPECT_FALSE(b->low);
  b = HeadlineBound("mismatches == 0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->low, 0.0);
  EXPECT_EQ(b->high, 0.0);
  EXPECT_FALSE(HeadlineBound("adjacent layers cluster"));  // a yes/no leaf
  EXPECT_FALSE(HeadlineBound(">= about 3"));
  EXPECT_FALSE(HeadlineBound("within [1, x]"));
}

TEST(ReportForest, PaperNumberOnlyForABareNumber) {
  EXPECT_EQ(PaperNumber(" 0.306 "), 0.306);
  EXPECT_EQ(PaperNumber("-2e-3"), -2e-3);
  EXPECT_FALSE(PaperNumber("1.43x end-to-end"));
  EXPECT_FALSE(PaperNumber("S ~ 0.31"));
  EXPECT_FALSE(PaperNumber("-"));
  EXPECT_FALSE(PaperNumber(""));
}

TEST(ReportForest, OneBarPerMeasuredClaimAndUnmeasuredListed) {
  const std::vector<ClaimRow> claims = {
      Claim("s.A", 1.0, 0.5, 1.5, "x within [0, 2]", "REPRODUCED", "1.2"),
      Claim("s.B", 3.0, std::nullopt, std::nullopt, "x >= 4", "NOT_REPRODUCED"),
      Claim("s.C", 0.5, 0.4, 0.7, "x <= 0.6", "INCONCLUSIVE"),
      Claim("s.D", std::nullopt, std::nullopt, std::nullopt, "x >= 1", "UNMEASURABLE"),
      Claim("s.<E>", 2.0, std::nullopt, std::nullopt, "holds", "UNMEASURABLE")};
  ClaimRow d = claims[3];
  int bars = -1;
  std::vector<ClaimRow> with_reason = claims;
  with_reason[3].reason = "no endpoint: set CB_ENDPOINT";
  const std::string svg = ForestSvg(with_reason, &bars);
  EXPECT_EQ(bars, 3);
  EXPECT_EQ(CountOf(svg, "class=\"cb-bar\""), 3);
  EXPECT_EQ(CountOf(svg, "<svg"), 1);
  EXPECT_EQ(CountOf(svg, "class=\"cb-paper\""), 1);      // only s.A's paper value is a number
  EXPECT_EQ(CountOf(svg, "class=\"cb-threshold\""), 4);  // A: two edges, B and C: one each
  EXPECT_NE(svg.find("data-verdict=\"NOT_REPRODUCED\" x="), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#c03030\""), std::string::npos);
  EXPECT_NE(svg.find("<li><b>s.D</b>"), std::string::npos);
  EXPECT_NE(svg.find("no endpoint: set CB_ENDPOINT"), std::string::npos);
  EXPECT_NE(svg.find("s.&lt;E&gt;"), std::string::npos);  // escaped, and listed: UNMEASURABLE
  EXPECT_EQ(svg.find("s.<E>"), std::string::npos);
  EXPECT_EQ(svg.find("http"), std::string::npos);  // self-contained

  // s.A's bar spans its CI [0.5, 1.5] on an axis over [0, 2] (bound) padded by 8%.
  const size_t a = svg.find("class=\"cb-bar\"");
  const double x = std::stod(svg.substr(svg.find(" x=\"", a) + 4));
  const double w = std::stod(svg.substr(svg.find("width=\"", a) + 7));
  const double per_unit = 460.0 / 2.32;
  EXPECT_NEAR(x, 300 + per_unit * (0.5 + 0.16), 0.01);
  EXPECT_NEAR(w, per_unit * 1.0, 0.01);

  int none = -1;
  EXPECT_EQ(ForestSvg({d}, &none).find("<svg"), std::string::npos);
  EXPECT_EQ(none, 0);
}

TEST(ReportForest, MarkdownTextBar) {
  const std::string md = ForestMarkdown({Claim("s.A", 1.0, 0.5, 1.5, "x within [0, 2]", "REPRODUCED", "1.2"),
                                         Claim("s.D", std::nullopt, std::nullopt, std::nullopt, "x >= 1",
                                               "UNMEASURABLE")});
  const size_t line = md.find("s.A ");
  ASSERT_NE(line, std::string::npos) << md;
  const std::string track = md.substr(md.find('[', line) + 1, 40);
  EXPECT_EQ(CountOf(track, "o"), 1) << track;
  EXPECT_EQ(CountOf(track, "P"), 1) << track;
  EXPECT_EQ(CountOf(track, "|"), 2) << track;
  EXPECT_LT(track.find('|'), track.find('='));  // bound 0 left of the CI
  EXPECT_LT(track.find('o'), track.find('P'));  // value 1.0 left of the paper's 1.2
  EXPECT_NE(md.find("- s.D: UNMEASURABLE, no measured value"), std::string::npos) << md;
}

}  // namespace
}  // namespace cb::ledger

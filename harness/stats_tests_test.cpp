// File: harness/stats_tests_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/stats_tests.h against published values:
//   - Mann-Whitney: R's ?wilcox.test example (Hollander & Wolfe 1973, p. 69,
//     depression scores; R reports W = 35, one-sided p = 0.1272, so two-sided
//     exact p = 0.2544) and the complete separation of 5 vs 5 (p = 2 / C(10,5));
//     the normal approximation against values worked by hand from its formula;
//   - Benjamini-Hochberg: the worked example of Benjamini & Hochberg (1995, §4),
//     15 p-values of which exactly the 4 smallest are rejected at q = 0.05;
//   - the bootstrap relative change: coverage of a planted +10% shift.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "harness/random.h"
#include "harness/stats_tests.h"

namespace cb::harness {
namespace {

TEST(MannWhitney, ExactMatchesRsWilcoxExample) {
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const auto r = MannWhitneyU(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 35.0);
  EXPECT_NEAR(r.p_value, 0.2544, 5e-5);
  // Symmetric in its arguments (U becomes n m - U).
  const auto s = MannWhitneyU(y, x);
  EXPECT_EQ(s.u, 15.0);
  EXPECT_DOUBLE_EQ(s.p_value, r.p_value);
}

TEST(MannWhitney, ExactCompleteSeparation) {
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {6, 7, 8, 9, 10};
  const auto r = MannWhitneyU(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0.0);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-15);
  // Identical distributions in rank: U = nm/2 gives p = 1.
  const std::vector<double> a = {1, 4, 5, 8}, b = {2, 3, 6, 7};
  EXPECT_DOUBLE_EQ(MannWhitneyU(a, b).p_value, 1.0);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // x = {1, 2, 2, 3}, y = {2, 3, 3, 4}: pooled ranks 1 | 2,2,2 -> 3 (x:2, y:1) |
  // 3,3,3 -> 6 (x:1, y:2) | 4 -> 8. R_x = 1 + 3 + 3 + 6 = 13, U = 13 - 10 = 3.
  // var = 16/12 ((9) - (24 + 24) / (8 * 7)) = 16/12 (9 - 6/7) = 10.857142...
  // z = (|3 - 8| - 0.5) / sqrt(var) = 4.5 / 3.29502 = 1.365698; p = 2 (1 - Phi(z)) = 0.17203.
  const std::vector<double> x = {1, 2, 2, 3}, y = {2, 3, 3, 4};
  const auto r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 3.0);
  EXPECT_NEAR(r.p_value, 2 * NormalCdf(-4.5 / std::sqrt(16.0 / 12 * (9 - 6.0 / 7))), 1e-12);
  EXPECT_NEAR(r.p_value, 0.17203, 5e-5);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x, y;
  Rng rng(7, 1);
  for (int i = 0; i < 30; ++i) x.push_back(rng.Normal());
  for (int i = 0; i < 30; ++i) y.push_back(rng.Normal() + 3.0);
  const auto r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);  // 900 cells > kMannWhitneyExactMaxCells
  EXPECT_LT(r.p_value, 1e-6);
  const auto same = MannWhitneyU(x, x);
  EXPECT_GT(same.p_value, 0.9);
  const std::vector<double> c = {5, 5, 5}, d = {5, 5, 5, 5};
  EXPECT_EQ(MannWhitneyU(c, d).p_value, 1.0);  // all tied: no evidence
  EXPECT_THROW(MannWhitneyU(std::vector<double>{}, d), std::invalid_argument);
}

TEST(BenjaminiHochberg, WorkedExampleOfTheOriginalPaper) {
  const std::vector<double> p = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                                 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
  const auto q = BenjaminiHochberg(p);
  ASSERT_EQ(q.size(), p.size());
  int rejected = 0;
  for (size_t i = 0; i < q.size(); ++i) rejected += q[i] <= 0.05;
  EXPECT_EQ(rejected, 4);
  // q_(4) = 0.0095 * 15 / 4 = 0.035625; q_(5) = min_{k >= 5} p_(k) 15 / k = 0.0201 * 15 / 5
  // = 0.0603 (k = 6..9 give 0.0695, 0.0639, 0.0645, 0.0765): above 0.05, so not rejected.
  EXPECT_NEAR(q[3], 0.035625, 1e-12);
  EXPECT_NEAR(q[4], 0.0603, 1e-12);
  EXPECT_NEAR(q[0], 0.0015, 1e-12);  // min(0.0001*15, 0.0004*15/2 = 0.003, ...) = 0.0015
  // Order of the input does not matter.
  std::vector<double> reversed(p.rbegin(), p.rend());
  const auto qr = BenjaminiHochberg(reversed);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_DOUBLE_EQ(qr[p.size() - 1 - i], q[i]);
  EXPECT_THROW(BenjaminiHochberg(std::vector<double>{1.5}), std::invalid_argument);
}

// The exact distribution of a resample's median order statistics against
// brute force over all n^n resamples.
TEST(ResampleMedian, MatchesExhaustiveEnumeration) {
  for (int n : {1, 2, 3, 4, 5, 6}) {
    std::map<std::pair<int, int>, double> brute;
    int total = 1;
    for (int i = 0; i < n; ++i) total *= n;
    for (int code = 0; code < total; ++code) {
      std::vector<int> counts(n, 0);
      for (int i = 0, c = code; i < n; ++i, c /= n) ++counts[c % n];
      const int lo = (n + 1) / 2, hi = n % 2 == 1 ? lo : n / 2 + 1;
      int cum = 0, a = -1, b = -1;
      for (int j = 0; j < n; ++j) {
        cum += counts[j];
        if (a < 0 && cum >= lo) a = j;
        if (b < 0 && cum >= hi) b = j;
      }
      brute[{a, b}] += 1.0 / total;
    }
    double sum = 0;
    const auto cells = ResampleMedianOrderStats(n);
    EXPECT_EQ(cells.size(), brute.size()) << "n=" << n;
    for (const auto& c : cells) {
      sum += c.p;
      EXPECT_NEAR(c.p, (brute[{c.a, c.b}]), 1e-12) << "n=" << n << " (" << c.a << "," << c.b << ")";
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
  EXPECT_THROW(ResampleMedianOrderStats(0), std::invalid_argument);
}

// The exact interval against a plain Monte Carlo bootstrap written here
// (index draws, sort, percentile) with 200k replicates.
TEST(BootstrapRelativeChange, ExactIntervalMatchesMonteCarlo) {
  Rng rng(21, 1);
  std::vector<double> base, cand;
  for (int i = 0; i < 10; ++i) base.push_back(1.0 + 0.05 * rng.Exponential());
  for (int i = 0; i < 7; ++i) cand.push_back(1.08 + 0.05 * rng.Exponential());
  const Interval exact = BootstrapRelativeChange(base, cand, 0.95, 2, 1);
  std::vector<double> reps;
  auto median_of_resample = [&rng](const std::vector<double>& x) {
    std::vector<double> r(x.size());
    for (auto& v : r) v = x[rng.UniformInt(0, x.size() - 1)];
    return Median(r);
  };
  for (int k = 0; k < 200000; ++k) reps.push_back(median_of_resample(cand) / median_of_resample(base) - 1);
  const Interval mc = PercentileInterval(reps, 0.95);
  EXPECT_NEAR(exact.low, mc.low, 0.002) << exact.low << " vs " << mc.low;
  EXPECT_NEAR(exact.high, mc.high, 0.002) << exact.high << " vs " << mc.high;
}

TEST(BootstrapRelativeChange, LargeSamplesUseIndexDraws) {
  Rng rng(4, 4);
  std::vector<double> base, cand;
  for (int i = 0; i < 100; ++i) base.push_back(1.0 + 0.01 * rng.Normal());
  for (int i = 0; i < 100; ++i) cand.push_back(0.8 + 0.01 * rng.Normal());
  const Interval ci = BootstrapRelativeChange(base, cand, 0.95, 500, 1);
  EXPECT_TRUE(ci.Contains(-0.2)) << ci.low << " " << ci.high;
  EXPECT_LT(ci.high - ci.low, 0.02);
}

TEST(BootstrapRelativeChange, CoversAPlantedShiftAndIsDeterministic) {
  Rng rng(11, 2);
  std::vector<double> base, cand;
  for (int i = 0; i < 10; ++i) base.push_back(1.0 + 0.01 * rng.Normal());
  for (int i = 0; i < 10; ++i) cand.push_back(1.10 + 0.011 * rng.Normal());
  const Interval ci = BootstrapRelativeChange(base, cand, 0.95, 2000, 5);
  EXPECT_LT(ci.low, 0.10);
  EXPECT_GT(ci.high, 0.10);
  EXPECT_GT(ci.low, 0.05);  // wholly beyond a 5% threshold
  const Interval again = BootstrapRelativeChange(base, cand, 0.95, 2000, 5);
  EXPECT_EQ(ci.low, again.low);
  EXPECT_EQ(ci.high, again.high);
  // No change: the interval contains 0.
  const Interval none = BootstrapRelativeChange(base, base, 0.95, 2000, 5);
  EXPECT_TRUE(none.Contains(0.0));
}

}  // namespace
}  // namespace cb::harness

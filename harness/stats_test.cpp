// File: harness/stats_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/stats.h: order statistics on hand-computed inputs, the
// bootstrap's coverage on data with a known mean, the normal CDF/quantile
// against independent high-precision values, and the KS / chi-square
// distribution functions against published critical values.
//
// Reference values marked "mpmath" were computed with mpmath 1.3 at 40 digits
// (Phi via erfc; quantiles by root-finding on it; the Kolmogorov series; the
// regularized incomplete gamma), an implementation independent of ours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/random.h"
#include "harness/stats.h"

namespace cb::harness {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------
// Order statistics and location

TEST(Stats, MedianOfOddEvenAndSingleton) {
  const std::vector<double> odd = {3, 1, 2};
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_EQ(Median(odd), 2.0);
  EXPECT_EQ(Median(even), 2.5);
  EXPECT_EQ(Median(std::vector<double>{5}), 5.0);
  EXPECT_EQ(Median(std::vector<double>{-1, 7}), 3.0);
  // The input is not reordered.
  EXPECT_EQ(odd, (std::vector<double>{3, 1, 2}));
}

TEST(Stats, QuantileIsType7) {
  // Values as R's quantile(1:10, q) (type 7) gives them, by hand:
  // h = 9q; 0.25 -> 3 + 0.25 * 1; 0.9 -> 9 + 0.1 * 1.
  std::vector<double> x = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(Quantile(x, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(Quantile(x, 0.9), 9.1);
  EXPECT_EQ(Quantile(x, 0.0), 1.0);
  EXPECT_EQ(Quantile(x, 1.0), 10.0);
  EXPECT_DOUBLE_EQ(Quantile(x, 0.5), Median(x));
  // {1, 5, 10}: h = 2 * 0.75 = 1.5 -> 5 + 0.5 * 5.
  EXPECT_DOUBLE_EQ(Quantile(std::vector<double>{10, 1, 5}, 0.75), 7.5);
  EXPECT_EQ(Quantile(std::vector<double>{4}, 0.3), 4.0);
}

TEST(Stats, MadIsRawMedianAbsoluteDeviation) {
  // median 2; |x - 2| = 1 1 0 0 2 4 7 -> sorted 0 0 1 1 2 4 7 -> median 1.
  EXPECT_EQ(Mad(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1.0);
  // median 2.5; deviations 1.5 0.5 0.5 1.5 -> median 1.0 (no 1.4826 factor).
  EXPECT_EQ(Mad(std::vector<double>{1, 2, 3, 4}), 1.0);
  EXPECT_EQ(Mad(std::vector<double>{3, 3, 3}), 0.0);
}

TEST(Stats, MeanIsCompensated) {
  EXPECT_EQ(Mean(std::vector<double>{1, 2, 3, 4}), 2.5);
  // Naive left-to-right summation returns 0 here; the exact sum is 2.
  EXPECT_EQ(Mean(std::vector<double>{1e16, 1.0, -1e16, 1.0}), 0.5);
}

TEST(Stats, RequirementsThrow) {
  const std::vector<double> empty;
  const std::vector<double> with_nan = {1.0, kNan};
  EXPECT_THROW(Mean(empty), std::invalid_argument);
  EXPECT_THROW(Median(empty), std::invalid_argument);
  EXPECT_THROW(Median(with_nan), std::invalid_argument);
  EXPECT_THROW(Quantile(std::vector<double>{1, 2}, 1.5), std::invalid_argument);
  EXPECT_THROW(Quantile(std::vector<double>{1, 2}, kNan), std::invalid_argument);
  EXPECT_THROW(Mad(with_nan), std::invalid_argument);
  EXPECT_THROW(NormalQuantile(1.5), std::invalid_argument);
  EXPECT_THROW(Summarize(empty, 1), std::invalid_argument);
  const auto mean = [](std::span<const double> s) { return Mean(s); };
  EXPECT_THROW(BootstrapCi(std::vector<double>{1, 2}, mean, 1.0, 100, 1), std::invalid_argument);
  EXPECT_THROW(BootstrapCi(std::vector<double>{1, 2}, mean, 0.9, 1, 1), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Bootstrap

TEST(Stats, PercentileIntervalIsType7QuantilesOfTheReplicates) {
  // 1..11 shuffled; level 0.8 -> quantiles 0.1 and 0.9: h = 10 * 0.1 = 1 and
  // h = 9, i.e. the 2nd and 10th order statistics (up to the rounding of
  // 1 - 0.8 in binary).
  const Interval i80 = PercentileInterval({7, 3, 11, 1, 9, 5, 2, 10, 4, 8, 6}, 0.8);
  EXPECT_DOUBLE_EQ(i80.low, 2.0);
  EXPECT_DOUBLE_EQ(i80.high, 10.0);
  // Level 0.5 on {0, 10}: h = 0.25 and 0.75 -> 2.5 and 7.5.
  const Interval i50 = PercentileInterval({10, 0}, 0.5);
  EXPECT_EQ(i50.low, 2.5);
  EXPECT_EQ(i50.high, 7.5);
  EXPECT_THROW(PercentileInterval({}, 0.9), std::invalid_argument);
  EXPECT_THROW(PercentileInterval({1, kNan}, 0.9), std::invalid_argument);
  EXPECT_THROW(PercentileInterval({1, 2}, 0.0), std::invalid_argument);
}

TEST(Stats, BootstrapIsDeterministicPerSeed) {
  Rng rng(1, 0);
  std::vector<double> x(30);
  for (double& v : x) v = rng.Normal();
  const auto median = [](std::span<const double> s) { return Median(s); };
  const Interval a = BootstrapCi(x, median, 0.95, 500, 7);
  const Interval b = BootstrapCi(x, median, 0.95, 500, 7);
  const Interval c = BootstrapCi(x, median, 0.95, 500, 8);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(a.low != c.low || a.high != c.high);
  EXPECT_LT(a.low, a.high);
  // A wider level gives a wider (nested) interval from the same resamples.
  const Interval wide = BootstrapCi(x, median, 0.99, 500, 7);
  EXPECT_LE(wide.low, a.low);
  EXPECT_GE(wide.high, a.high);
}

// Coverage: over 1000 seeded trials of n = 50 draws from N(3, 2^2), the 95%
// percentile-bootstrap CI of the mean must contain 3 in 95% +- 3% of trials.
// (The percentile interval of the mean behaves like mean +- 1.96 s sqrt((n-1)/n)
// / sqrt(n), so its coverage is a little under nominal, about 94%, at n = 50;
// for skewed data such as the exponential it is lower still, which is why the
// normal is used here.)
TEST(Stats, BootstrapCiOfMeanHasNominalCoverage) {
  constexpr int kTrials = 1000;
  constexpr int kN = 50;
  constexpr double kTrueMean = 3.0;
  const auto mean = [](std::span<const double> s) { return Mean(s); };
  int covered = 0;
  std::vector<double> x(kN);
  for (int t = 0; t < kTrials; ++t) {
    Rng data(1000 + t, 0);
    for (double& v : x) v = kTrueMean + 2.0 * data.Normal();
    covered += BootstrapCi(x, mean, 0.95, 1000, 5000 + t).Contains(kTrueMean);
  }
  const double coverage = static_cast<double>(covered) / kTrials;
  std::printf("[ coverage ] 95%% percentile bootstrap of the mean, n=%d, %d trials: %.3f\n", kN,
              kTrials, coverage);
  ::testing::Test::RecordProperty("bootstrap_coverage", std::to_string(coverage));
  EXPECT_GE(coverage, 0.92);
  EXPECT_LE(coverage, 0.98);
}

// Negative control for the coverage check: a 70% interval is counted as such,
// far below the 92% floor above.
TEST(Stats, BootstrapCoverageCheckSeesANarrowLevel) {
  const auto mean = [](std::span<const double> s) { return Mean(s); };
  int covered = 0;
  std::vector<double> x(50);
  for (int t = 0; t < 200; ++t) {
    Rng data(1000 + t, 0);
    for (double& v : x) v = 3.0 + 2.0 * data.Normal();
    covered += BootstrapCi(x, mean, 0.70, 400, 5000 + t).Contains(3.0);
  }
  EXPECT_LT(covered / 200.0, 0.85);
}

TEST(Stats, SummarizeAgreesWithItsParts) {
  Rng rng(21, 0);
  std::vector<double> x(41);
  for (double& v : x) v = 1.0 + 0.1 * rng.Exponential();
  const Summary s = Summarize(x, 99);
  EXPECT_EQ(s.n, 41);
  EXPECT_EQ(s.median, Median(x));
  EXPECT_EQ(s.mad, Mad(x));
  EXPECT_EQ(s.mean, Mean(x));
  EXPECT_EQ(s.min, Quantile(x, 0.0));
  EXPECT_EQ(s.max, Quantile(x, 1.0));
  const Interval ci =
      BootstrapCi(x, [](std::span<const double> r) { return Median(r); }, 0.95, 2000, 99);
  EXPECT_EQ(s.ci.low, ci.low);
  EXPECT_EQ(s.ci.high, ci.high);
  EXPECT_TRUE(s.ci.Contains(s.median));
  const Summary one = Summarize(std::vector<double>{2.5}, 1);
  EXPECT_EQ(one.ci.low, 2.5);
  EXPECT_EQ(one.ci.high, 2.5);
  // Regression: a single sample used to skip the resamples check.
  EXPECT_THROW(Summarize(std::vector<double>{2.5}, 1, 0.95, 1), std::invalid_argument);
  EXPECT_THROW(Summarize(std::vector<double>{2.5}, 1, 1.0), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Normal distribution

TEST(Stats, NormalQuantileKnownValues) {
  // mpmath, and the familiar z-table values 1.96, 2.576, 1.2816.
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 4e-16 * 1.96);
  EXPECT_NEAR(NormalQuantile(0.995), 2.5758293035489004, 1e-15 * 2.58);
  EXPECT_NEAR(NormalQuantile(0.9), 1.2815515655446004, 1e-15 * 1.28);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.3613409024040562, 1e-15 * 6.4);
  EXPECT_NEAR(NormalQuantile(1e-300), -37.047096299361199, 1e-14 * 37);
  EXPECT_EQ(NormalQuantile(0.5), 0.0);
  EXPECT_EQ(NormalQuantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(NormalQuantile(1.0), std::numeric_limits<double>::infinity());
  for (double p : {0.01, 0.2, 0.3, 0.45}) {
    EXPECT_NEAR(NormalQuantile(1.0 - p), -NormalQuantile(p), 1e-15) << p;
  }
}

TEST(Stats, NormalCdfKnownValues) {
  // mpmath.
  EXPECT_NEAR(NormalCdf(1.0), 0.84134474606854294859, 2e-16);
  EXPECT_NEAR(NormalCdf(-1.96), 0.024997895148220434137, 1e-17);
  EXPECT_NEAR(NormalCdf(3.0), 0.99865010196836990547, 2e-16);
  EXPECT_NEAR(NormalCdf(-8.0) / 6.2209605742717841235e-16, 1.0, 1e-13);
  EXPECT_EQ(NormalCdf(0.0), 0.5);
}

TEST(Stats, NormalQuantileInvertsNormalCdf) {
  // Through x: a relative error e in Phi(x) moves the inverse by
  // e Phi(x) / phi(x) (which reaches ~1e-12 at x = 4, where Phi's absolute
  // error ~1e-16 meets phi(4) ~ 1.3e-4; hence the range stops there), and
  // AS 241 adds a relative e |x|. Allow 16 ulps of each; the worst seen on
  // glibc is under 3.
  for (double x = -37.0; x <= 4.0; x += 0.125) {
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    const double conditioning = std::abs(x) + NormalCdf(x) / phi;
    EXPECT_NEAR(NormalQuantile(NormalCdf(x)), x, 16 * 0x1p-52 * conditioning) << x;
  }
  // Through p, relative, from 1e-300 to 1/2. d(ln Phi)/dx ~ |x| in the tail,
  // so a relative error e in x = Phi^-1(p) shows up as x^2 e in p: the bound
  // grows with x^2 (e ~ 2e-15 allows a few ulp in each of erfc and AS 241).
  for (double p = 1e-300; p < 0.5; p *= 7.3) {
    const double x = NormalQuantile(p);
    EXPECT_NEAR(NormalCdf(x) / p, 1.0, 2e-15 * (1.0 + x * x)) << p;
  }
}

// ---------------------------------------------------------------------------
// Kolmogorov-Smirnov and chi-square

TEST(Stats, KolmogorovSurvivalMatchesCriticalValues) {
  // Classical asymptotic critical values: 1.3581 at 5%, 1.6276 at 1%.
  EXPECT_NEAR(KolmogorovSurvival(1.3580986), 0.05, 1e-7);
  EXPECT_NEAR(KolmogorovSurvival(1.6276236), 0.01, 1e-8);
  // mpmath, on both branches of the implementation.
  EXPECT_NEAR(KolmogorovSurvival(1.0), 0.269999671677355, 1e-13);
  EXPECT_NEAR(KolmogorovSurvival(0.5), 0.963945243664875, 1e-13);
  // The branches meet at 1.18.
  EXPECT_NEAR(KolmogorovSurvival(1.18 - 1e-13), KolmogorovSurvival(1.18), 1e-12);
  EXPECT_EQ(KolmogorovSurvival(0.0), 1.0);
  EXPECT_LT(KolmogorovSurvival(10.0), 1e-80);
}

TEST(Stats, KsStatisticByHand) {
  // Against U(0, 1): the ECDF steps are 1/3; the gaps are
  // 0.1, 1/3 - 0.1, 0.4 - 1/3, 2/3 - 0.4, 0.7 - 2/3, 1 - 0.7 -> max 0.3.
  const KsResult ks =
      KsTest(std::vector<double>{0.7, 0.1, 0.4}, [](double x) { return std::clamp(x, 0.0, 1.0); });
  EXPECT_DOUBLE_EQ(ks.d, 0.3);
  EXPECT_GT(ks.p_value, 0.5);
}

TEST(Stats, ChiSquareSurvivalKnownValues) {
  // Textbook 5% critical values (df 1 and 10), then mpmath.
  EXPECT_NEAR(ChiSquareSurvival(3.841458820694124, 1), 0.05, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(18.307038053275146, 10), 0.05, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(5, 3), 0.17179714429673314, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(100, 80), 0.064570368921132976, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(0.5, 4), 0.97350097883925609, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(1e-3, 2), 0.99950012497916927, 1e-13);
  EXPECT_NEAR(ChiSquareSurvival(150, 100) / 0.00090393204235400909, 1.0, 1e-11);
  EXPECT_EQ(ChiSquareSurvival(0.0, 3), 1.0);
}

TEST(Stats, WilsonIntervalKnownValues) {
  // 5 of 10 at 95%: [0.2366, 0.7634]; 0 of 20: [0, 0.1611] (Wilson 1927 tables).
  const Interval half = WilsonInterval(5, 10);
  EXPECT_NEAR(half.low, 0.23659, 1e-5);
  EXPECT_NEAR(half.high, 0.76341, 1e-5);
  const Interval none = WilsonInterval(0, 20);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 0.16113, 1e-5);
  const Interval all = WilsonInterval(20, 20);
  EXPECT_NEAR(all.low, 1 - none.high, 1e-12);
  EXPECT_EQ(all.high, 1.0);
  EXPECT_LT(WilsonInterval(5, 10, 0.99).low, half.low);  // wider at a higher level
  EXPECT_EQ(WilsonInterval(0, 0).high, 1.0);
  EXPECT_THROW(WilsonInterval(11, 10), std::invalid_argument);
  EXPECT_THROW(WilsonInterval(1, 10, 1.0), std::invalid_argument);
}

TEST(Stats, MeanBootstrapCiIsTheBootstrapOfTheMean) {
  const std::vector<double> x = {1, 2, 3, 4, 10, 0.5, 7};
  const Interval got = MeanBootstrapCi(x, 42);
  const Interval want =
      BootstrapCi(x, [](std::span<const double> s) { return Mean(s); }, 0.95, 2000, 42);
  EXPECT_EQ(got.low, want.low);
  EXPECT_EQ(got.high, want.high);
  EXPECT_LT(got.low, Mean(x));
  EXPECT_GT(got.high, Mean(x));
}

}  // namespace
}  // namespace cb::harness

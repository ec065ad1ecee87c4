// File: harness/interval_coverage_test.cpp
// The coverage of each interval method that claims use, measured by
// simulation at the fewest trials the claim model accepts for it
// (MinTrials, harness/criterion.h): below that n a leaf judged on the
// interval is INCONCLUSIVE, so at that n the interval must be honest. Each
// case draws >= 2000 samples from a known distribution, makes the interval
// as the claims do, and counts how often it holds the true value; the
// criterion is 95% +- 3 points (the Monte-Carlo standard error at 2000
// replications is 0.5 points).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/complexity.h"
#include "harness/criterion.h"
#include "harness/random.h"
#include "harness/seed_stats.h"
#include "harness/stats.h"

namespace cb::harness {
namespace {

constexpr int kReplications = 2000;
constexpr double kNominal = 0.95, kSlack = 0.03;

// Standard normal draws from stream `stream` of `seed`.
std::vector<double> Normals(uint64_t seed, uint64_t stream, int64_t n) {
  Rng rng(seed, stream);
  std::vector<double> x(static_cast<size_t>(n));
  for (double& v : x) v = rng.Normal();
  return x;
}

void ExpectNominal(int covered, const char* what) {
  const double coverage = static_cast<double>(covered) / kReplications;
  EXPECT_GE(coverage, kNominal - kSlack) << what;
  EXPECT_LE(coverage, kNominal + kSlack) << what;
  std::printf("%s: coverage %.4f over %d replications\n", what, coverage, kReplications);
}

TEST(IntervalCoverage, PercentileBootstrapOfTheMeanAtItsMinimum) {
  const int64_t n = MinTrials(IntervalMethod::kPercentileBootstrap);
  int covered = 0;
  for (int r = 0; r < kReplications; ++r) {
    const std::vector<double> x = Normals(11, r, n);
    const Interval ci = MeanBootstrapCi(x, 1000 + r, 0.95, 1000);
    covered += ci.low <= 0.0 && 0.0 <= ci.high;
  }
  ExpectNominal(covered, "percentile bootstrap, mean of N(0,1)");
}

TEST(IntervalCoverage, PercentileBootstrapOfTheMedianAtItsMinimum) {
  // Summarize's interval (timings' medians); the median of N(0,1) is 0.
  const int64_t n = MinTrials(IntervalMethod::kPercentileBootstrap);
  int covered = 0;
  for (int r = 0; r < kReplications; ++r) {
    const std::vector<double> x = Normals(12, r, n);
    const Summary s = Summarize(x, 2000 + r, 0.95, 1000);
    covered += s.ci.low <= 0.0 && 0.0 <= s.ci.high;
  }
  ExpectNominal(covered, "percentile bootstrap, median of N(0,1)");
}

TEST(IntervalCoverage, StudentTOverSeedsAtItsMinimum) {
  const int64_t n = MinTrials(IntervalMethod::kStudentT);
  int covered = 0;
  for (int r = 0; r < kReplications; ++r) {
    const std::vector<double> x = Normals(13, r, n);
    const MeanCi c = TMeanCi(x);
    covered += c.low <= 0.0 && 0.0 <= c.high;
  }
  ExpectNominal(covered, "student t, mean of N(0,1)");
}

TEST(IntervalCoverage, WilsonAtItsMinimum) {
  const int64_t n = MinTrials(IntervalMethod::kWilson);
  for (const double p : {0.2, 0.5, 0.8}) {
    int covered = 0;
    for (int r = 0; r < kReplications; ++r) {
      Rng rng(14, r);
      int successes = 0;
      for (int64_t i = 0; i < n; ++i) successes += rng.Uniform() < p;
      const Interval ci = WilsonInterval(successes, static_cast<double>(n));
      covered += ci.low <= p && p <= ci.high;
    }
    ExpectNominal(covered, ("wilson, p = " + std::to_string(p)).c_str());
  }
}

TEST(IntervalCoverage, FitBootstrapOfAnExponentAtItsMinimum) {
  // cost = n^1.5 with 10% log-normal noise at sizes 2^6..: the exponent's
  // pairs-bootstrap interval over MinTrials sizes.
  const int64_t sizes = MinTrials(IntervalMethod::kFitBootstrap);
  int covered = 0;
  for (int r = 0; r < kReplications; ++r) {
    Rng rng(15, r);
    std::vector<double> n, cost;
    for (int64_t i = 0; i < sizes; ++i) {
      n.push_back(std::ldexp(1.0, 6 + static_cast<int>(i)));
      cost.push_back(std::pow(n.back(), 1.5) * std::exp(0.1 * rng.Normal()));
    }
    const PowerFit fit = FitPowerLaw(n, cost, 3000 + r, 1000);
    covered += fit.exponent_ci.low <= 1.5 && 1.5 <= fit.exponent_ci.high;
  }
  ExpectNominal(covered, "fit bootstrap, exponent 1.5");
}

}  // namespace
}  // namespace cb::harness

// File: harness/changepoint_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/changepoint.h: a planted step is found where it was planted,
// and pure noise gives a false step in at most 5% of 200 seeded series.
#include <gtest/gtest.h>

#include <vector>

#include "harness/changepoint.h"
#include "harness/random.h"

namespace cb::harness {
namespace {

std::vector<double> Noise(uint64_t seed, size_t n, double mean, double sd) {
  Rng rng(seed, 3);
  std::vector<double> y(n);
  for (auto& v : y) v = mean + sd * rng.Normal();
  return y;
}

TEST(ChangePoint, FindsAPlantedStep) {
  int found_at_plant = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    auto y = Noise(seed, 50, 100.0, 1.0);
    for (size_t i = 30; i < y.size(); ++i) y[i] += 3.0;  // +3 sigma from run 30 on
    const auto cps = DetectChangePoints(y);
    ASSERT_FALSE(cps.empty()) << "seed " << seed;
    for (const auto& cp : cps) {
      if (cp.index >= 29 && cp.index <= 31) {
        ++found_at_plant;
        EXPECT_NEAR(cp.after - cp.before, 3.0, 1.0);
        break;
      }
    }
  }
  EXPECT_GE(found_at_plant, 48);
}

TEST(ChangePoint, FalseStepsInAtMostFivePercentOfNoiseSeries) {
  int with_step = 0;
  for (uint64_t seed = 1000; seed < 1200; ++seed) {
    // min_step 0: only the penalty stands between noise and a false step.
    with_step += !DetectChangePoints(Noise(seed, 50, 100.0, 1.0)).empty();
  }
  EXPECT_LE(with_step, 10) << with_step << " of 200 noise series had a step";
}

TEST(ChangePoint, MinimumStepAndSegmentAreHonoured) {
  std::vector<double> y(40, 10.0);
  for (size_t i = 20; i < 40; ++i) y[i] = 10.5;  // exact step of 5%
  ASSERT_EQ(DetectChangePoints(y).size(), 1u);
  EXPECT_EQ(DetectChangePoints(y)[0].index, 20u);
  ChangePointOptions big;
  big.min_relative_step = 0.10;
  EXPECT_TRUE(DetectChangePoints(y, big).empty());
  auto spike = Noise(77, 40, 10.0, 0.1);
  spike[20] += 0.5;  // one 5-sigma run: an outlier, not a step
  EXPECT_TRUE(DetectChangePoints(spike).empty());
  EXPECT_TRUE(DetectChangePoints(std::vector<double>{1.0, 2.0}).empty());
}

}  // namespace
}  // namespace cb::harness

// File: suites/lm/sampling_test.cpp
// -----------------------------------------------------------------------------
// SampleToken (sampling.h): greedy and top-1 are the argmax; the inverse-CDF
// draw follows softmax(z / T) (chi-square over many uniforms); top-k never
// leaves the k most likely; bad input is rejected.
#include "suites/lm/sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/chi_square.h"
#include "harness/random.h"

namespace cb::lm_suite {
namespace {

TEST(Sampling, GreedyAndTopOneAreTheArgmax) {
  const std::vector<float> z = {0.5f, 2.0f, -1.0f, 2.0f, 1.9f};
  EXPECT_EQ(SampleToken(z, 0.0, 0, 0.99), 1);  // the lower id among equal maxima
  for (double u : {0.0, 0.3, 0.999}) EXPECT_EQ(SampleToken(z, 1.0, 1, u), 1);
  EXPECT_THROW(SampleToken(z, -1.0, 0, 0.5), std::invalid_argument);
  EXPECT_THROW(SampleToken({}, 1.0, 0, 0.5), std::invalid_argument);
}

TEST(Sampling, DrawsFollowTheTemperedSoftmax) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 0);
  std::vector<float> z(12);
  for (float& x : z) x = static_cast<float>(rng.Normal());
  const double T = 0.7;
  std::vector<double> p(z.size());
  double sum = 0;
  for (size_t i = 0; i < z.size(); ++i) sum += p[i] = std::exp(z[i] / T);
  for (double& x : p) x /= sum;
  std::vector<int64_t> counts(z.size(), 0);
  const int n = 60000;
  for (int i = 0; i < n; ++i) ++counts[SampleToken(z, T, 0, rng.Uniform())];
  const auto test = cb::harness::ChiSquareGoodnessOfFit(counts, p);
  EXPECT_GT(test.p_value, 1e-4) << "chi2 " << test.statistic;
}

TEST(Sampling, TopKStaysAmongTheKMostLikely) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 1);
  std::vector<float> z(50);
  for (float& x : z) x = static_cast<float>(rng.Normal());
  std::vector<float> sorted = z;
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  for (int i = 0; i < 2000; ++i) EXPECT_GE(z[SampleToken(z, 2.0, 5, rng.Uniform())], sorted[4]);
}

}  // namespace
}  // namespace cb::lm_suite

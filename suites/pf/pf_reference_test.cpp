// File: suites/pf/pf_reference_test.cpp
// -----------------------------------------------------------------------------
// Tests of the fp64 PF reference (reference/pf/pf.h): the three PF forms
// against the definition (enumeration of Alg. 1's orders), the two-token
// closed forms, top-p, the watermarks, detection and our regularized
// incomplete gamma against values from independent formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "harness/random.h"
#include "harness/stats.h"
#include "reference/pf/pf.h"

namespace cb::ref::pf {
namespace {

std::vector<double> RandomLogits(int v, uint64_t stream, double scale = 2.0) {
  cb::harness::Rng rng(77, stream);
  std::vector<double> u(v);
  for (double& x : u) x = scale * rng.Normal();
  return u;
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// Pearson chi-square p-value of counts against probabilities.
double ChiSquareP(const std::vector<int64_t>& counts, const std::vector<double>& p) {
  const double n = std::accumulate(counts.begin(), counts.end(), 0.0);
  double stat = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double e = n * p[i];
    stat += (counts[i] - e) * (counts[i] - e) / e;
  }
  return cb::harness::ChiSquareSurvival(stat, static_cast<double>(p.size() - 1));
}

TEST(PfExact, EspAndIntegralMatchEnumeration) {
  for (int v = 1; v <= 7; ++v) {
    for (int trial = 0; trial < 5; ++trial) {
      const auto u = RandomLogits(v, 100 * v + trial);
      const double temperature = 0.5 + trial * 0.4;
      const auto want = PfProbabilitiesEnumerate(u, temperature);
      EXPECT_LT(MaxAbsDiff(PfProbabilitiesEsp(u, temperature), want), 1e-12) << "V=" << v;
      EXPECT_LT(MaxAbsDiff(PfProbabilitiesIntegral(u, temperature), want), 1e-12) << "V=" << v;
      EXPECT_NEAR(std::accumulate(want.begin(), want.end(), 0.0), 1.0, 1e-12);
    }
  }
}

TEST(PfExact, IntegralMatchesEspAtLargerV) {
  for (int v : {16, 40, 64}) {
    const auto u = RandomLogits(v, 900 + v, 1.0);
    const auto esp = PfProbabilitiesEsp(u, 1.0);
    const auto integral = PfProbabilitiesIntegral(u, 1.0);
    for (int i = 0; i < v; ++i) EXPECT_NEAR(integral[i], esp[i], 1e-12 * std::max(1.0, esp[i]));
  }
}

TEST(PfExact, IntegralSumsToOneAtLargeFlatVocabulary) {
  // S = sum q ~ V: the integrand lives on s in [0, ~1/V]; the panels follow it.
  std::vector<double> u(20000);
  cb::harness::Rng rng(5, 5);
  for (double& x : u) x = 0.01 * rng.Normal();
  const auto p = PfProbabilitiesIntegral(u, 1.0);
  EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-10);
}

TEST(PfExact, TwoTokenClosedForms) {
  // PF picks the lower token w.p. exp(-gap/T)/2; softmax w.p. 1/(1+exp(gap/T)).
  for (double gap : {0.0, 0.3, 1.0, 4.0}) {
    for (double temperature : {0.5, 1.0, 2.0}) {
      const std::vector<double> u = {1.0, 1.0 - gap};
      EXPECT_NEAR(PfProbabilitiesEsp(u, temperature)[1], 0.5 * std::exp(-gap / temperature), 1e-15);
      EXPECT_NEAR(PfProbabilitiesIntegral(u, temperature)[1], 0.5 * std::exp(-gap / temperature),
                  1e-14);
      EXPECT_NEAR(SoftmaxProbabilities(u, temperature)[1], 1 / (1 + std::exp(gap / temperature)),
                  1e-15);
    }
  }
}

TEST(PfSampling, LoopAndNoiseFormsMatchExact) {
  const std::vector<double> u = {0.3, -0.5, 1.2, 0.9, -2.0};
  const double temperature = 0.8;
  const auto exact = PfProbabilitiesEsp(u, temperature);
  constexpr int kDraws = 40000;
  std::vector<int64_t> loop(u.size(), 0), noise(u.size(), 0), gumbel(u.size(), 0);
  for (int d = 0; d < kDraws; ++d) {
    ++loop[SamplePfLoop(u, temperature, 11, d)];
    ++noise[SamplePfNoise(u, temperature, 12, d)];
    ++gumbel[SampleSoftmaxGumbel(u, temperature, 13, d)];
  }
  EXPECT_GT(ChiSquareP(loop, exact), 1e-4);
  EXPECT_GT(ChiSquareP(noise, exact), 1e-4);
  EXPECT_GT(ChiSquareP(gumbel, SoftmaxProbabilities(u, temperature)), 1e-4);
  // And the test can fail: PF counts are far from the softmax distribution.
  EXPECT_LT(ChiSquareP(noise, SoftmaxProbabilities(u, temperature)), 1e-6);
}

TEST(PfSampling, GreedyAndTiesGoToTheLowestId) {
  EXPECT_EQ(Greedy(std::vector<double>{1, 3, 3, 2}), 1);
  // With T -> 0 the noise cannot overturn a gap; both noisy forms pick the max.
  const std::vector<double> u = {0, 5, 1};
  EXPECT_EQ(SamplePfNoise(u, 1e-6, 1, 2), 1);
  EXPECT_EQ(SampleSoftmaxGumbel(u, 1e-6, 1, 2), 1);
}

TEST(PfSampling, KeyedUniformStaysInsideTheOpenInterval) {
  for (uint64_t y = 0; y < 100000; ++y) {
    const double r = KeyedUniform(3, 4, y);
    ASSERT_GT(r, 0.0);
    ASSERT_LT(r, 1.0);
  }
}

TEST(PfTopP, KeepsTheSmallestNucleus) {
  const std::vector<double> u = {std::log(0.5), std::log(0.3), std::log(0.15), std::log(0.05)};
  const auto f = TopP(u, 1.0, 0.75);
  EXPECT_TRUE(std::isfinite(f[0]) && std::isfinite(f[1]));
  EXPECT_TRUE(std::isinf(f[2]) && std::isinf(f[3]));
  EXPECT_EQ(TopP(u, 1.0, 1.0), u);
  // Sampling never leaves the nucleus, and PF still sums to 1 over it.
  for (int d = 0; d < 2000; ++d) EXPECT_LT(SamplePfNoise(f, 1.0, 9, d), 2);
  const auto p = PfProbabilitiesEsp(f, 1.0);
  EXPECT_EQ(p[2], 0.0);
  EXPECT_NEAR(p[0] + p[1], 1.0, 1e-15);
}

TEST(PfBadInput, ClearErrors) {
  const std::vector<double> empty;
  EXPECT_THROW(SamplePfNoise(empty, 1.0, 1, 1), std::invalid_argument);
  const std::vector<double> nan = {0, std::nan("")};
  EXPECT_THROW(SamplePfNoise(nan, 1.0, 1, 1), std::invalid_argument);
  const std::vector<double> inf = {0, std::numeric_limits<double>::infinity()};
  EXPECT_THROW(PfProbabilitiesEsp(inf, 1.0), std::invalid_argument);
  const std::vector<double> all_excluded = {-INFINITY, -INFINITY};
  EXPECT_THROW(Greedy(all_excluded), std::invalid_argument);
  const std::vector<double> ok = {0, 1};
  EXPECT_THROW(SamplePfNoise(ok, 0.0, 1, 1), std::invalid_argument);
  EXPECT_THROW(SamplePfNoise(ok, -1.0, 1, 1), std::invalid_argument);
  EXPECT_THROW(TopP(ok, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Detect(Watermark::kPf, {}, std::vector<Token>{}), std::invalid_argument);
  EXPECT_THROW(Detect(Watermark::kNone, {}, std::vector<Token>{1, 2}), std::invalid_argument);
  try {
    SamplePfNoise(nan, 1.0, 1, 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("logit 1 is NaN"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// Incomplete gamma against independent closed forms.

// Q(n, x) for integer n: the Poisson tail e^-x sum_{k<n} x^k / k!.
double PoissonTail(int n, double x) {
  double term = std::exp(-x), sum = 0;
  for (int k = 0; k < n; ++k) {
    sum += term;
    term *= x / (k + 1);
  }
  return sum;
}

TEST(IncompleteGamma, IntegerOrderMatchesPoissonTail) {
  for (int n : {1, 2, 5, 10, 30, 80}) {
    for (double x : {0.1, 1.0, 4.5, 10.0, 25.0, 60.0, 100.0}) {
      const double want = PoissonTail(n, x);
      EXPECT_NEAR(GammaQ(n, x), want, 1e-13 + 1e-11 * want) << "n=" << n << " x=" << x;
      EXPECT_NEAR(GammaP(n, x) + GammaQ(n, x), 1.0, 1e-14);
    }
  }
}

TEST(IncompleteGamma, HalfOrderMatchesErfc) {
  // Q(1/2, x) = erfc(sqrt(x)); Q(3/2, x) = erfc(sqrt x) + 2 sqrt(x/pi) e^-x.
  for (double x : {0.01, 0.3, 1.0, 2.5, 9.0, 30.0}) {
    const double q_half = std::erfc(std::sqrt(x));
    EXPECT_NEAR(GammaQ(0.5, x), q_half, 1e-14 + 1e-12 * q_half) << x;
    const double q_3half = q_half + 2 * std::sqrt(x / M_PI) * std::exp(-x);
    EXPECT_NEAR(GammaQ(1.5, x), q_3half, 1e-14 + 1e-12 * q_3half) << x;
  }
}

TEST(IncompleteGamma, KnownValuesAndDeepTails) {
  // Q(1, x) = e^-x, including far past fp64 underflow in log space.
  EXPECT_NEAR(LogGammaQ(1, 800.0), -800.0, 1e-9);
  EXPECT_NEAR(GammaQ(1, 3.0), std::exp(-3.0), 1e-16);
  // Median of Gamma(a, 1) ~ a - 1/3: Q(a, a - 1/3) ~ 1/2 for large a.
  EXPECT_NEAR(GammaQ(1000, 1000 - 1.0 / 3), 0.5, 2e-4);
  EXPECT_EQ(GammaQ(5, 0), 1.0);
  EXPECT_THROW(GammaQ(0, 1), std::invalid_argument);
  EXPECT_THROW(GammaQ(1, -1), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Watermarks and detection.

// A text of n tokens from `w` with i.i.d. random logits per step.
std::vector<Token> GenerateText(Watermark w, const WatermarkParams& params, int n, int v,
                                double scale, uint64_t seed) {
  std::vector<Token> text;
  cb::harness::Rng rng(seed, 1);
  std::vector<double> u(v);
  for (int t = 0; t < n; ++t) {
    for (double& x : u) x = scale * rng.Normal();
    text.push_back(static_cast<Token>(WatermarkedSample(w, params, u, 1.0, text, t, seed)));
  }
  return text;
}

TEST(Watermark, DetectsItsOwnKeyAndNotAnother) {
  const WatermarkParams params{.key = 1234, .context = 4};
  WatermarkParams other = params;
  other.key = 999;
  for (Watermark w : {Watermark::kPf, Watermark::kGumbel, Watermark::kKgw}) {
    const auto text = GenerateText(w, params, 200, 500, 3.0, 42);
    EXPECT_LT(Detect(w, params, text).p_value, 1e-6) << WatermarkName(w);
    EXPECT_GT(Detect(w, other, text).p_value, 1e-3) << WatermarkName(w);
    EXPECT_EQ(Detect(w, params, text).scored, 196) << WatermarkName(w);
  }
}

TEST(Watermark, NullPValuesAreUniform) {
  const WatermarkParams params{.key = 7, .context = 3};
  std::vector<double> p;
  cb::harness::Rng rng(8, 8);
  for (int i = 0; i < 1500; ++i) {
    std::vector<Token> text(60);
    for (Token& x : text) x = static_cast<Token>(rng.UniformInt(0, 999));
    p.push_back(Detect(Watermark::kPf, params, text).p_value);
  }
  EXPECT_GT(cb::harness::KsTest(p, [](double x) { return std::clamp(x, 0.0, 1.0); }).p_value, 1e-3);
}

TEST(Watermark, DedupRemovesRepeatedContexts) {
  const WatermarkParams params{.key = 7, .context = 2};
  std::vector<Token> text;
  for (int i = 0; i < 100; ++i) text.push_back(i % 5);
  EXPECT_EQ(Detect(Watermark::kPf, params, text, Dedup::kNone).scored, 98);
  EXPECT_EQ(Detect(Watermark::kPf, params, text, Dedup::kContext).scored, 5);
  EXPECT_EQ(Detect(Watermark::kPf, params, text, Dedup::kContextToken).scored, 5);
}

TEST(Watermark, PfWatermarkOverKeysIsPfDistributed) {
  const std::vector<double> u = {0.0, 0.7, -0.4, 1.1};
  const auto exact = PfProbabilitiesEsp(u, 1.0);
  std::vector<int64_t> counts(u.size(), 0);
  const std::vector<Token> prefix = {3, 1, 4, 1};
  for (uint64_t key = 0; key < 30000; ++key)
    ++counts[WatermarkedSample(Watermark::kPf, {.key = key, .context = 4}, u, 1.0, prefix, 4, 0)];
  EXPECT_GT(ChiSquareP(counts, exact), 1e-4);
}

}  // namespace
}  // namespace cb::ref::pf

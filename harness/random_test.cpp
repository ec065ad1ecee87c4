// File: harness/random_test.cpp
// -----------------------------------------------------------------------------
// Tests of Philox4x32-10 (harness/philox.h) and Rng (harness/random.h):
// Random123's known answers read from fixtures/philox_kat.txt, the documented
// word layout, determinism, the moments and CDFs of every distribution (with
// negative controls showing the statistical checks do reject wrong
// distributions), unbiased integer ranges and uniform shuffles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <numbers>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/paths.h"
#include "harness/philox.h"
#include "harness/random.h"
#include "harness/stats.h"

namespace cb::harness {
namespace {

// ---------------------------------------------------------------------------
// Known answers

struct Kat {
  int rounds = 0;
  Philox4x32Counter ctr{};
  Philox4x32Key key{};
  Philox4x32Block out{};
};

std::vector<Kat> ReadKats() {
  const std::string path = cb::testing::FixturePath("philox_kat.txt");
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<Kat> kats;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    Kat k;
    fields >> name >> std::dec >> k.rounds >> std::hex;
    for (uint32_t& w : k.ctr.v) fields >> w;
    for (uint32_t& w : k.key.v) fields >> w;
    for (uint32_t& w : k.out.v) fields >> w;
    EXPECT_FALSE(fields.fail()) << "malformed line: " << line;
    if (name == "philox4x32") kats.push_back(k);
  }
  return kats;
}

bool SameBlock(const Philox4x32Block& a, const Philox4x32Block& b) {
  return std::equal(std::begin(a.v), std::end(a.v), std::begin(b.v));
}

TEST(Philox, KnownAnswersTenRounds) {
  int checked = 0;
  for (const Kat& k : ReadKats()) {
    if (k.rounds != 10) continue;
    const Philox4x32Block got = Philox4x32_10::Generate(k.ctr, k.key);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(got.v[i], k.out.v[i]) << "word " << i << " of KAT with ctr0=" << std::hex
                                      << k.ctr.v[0];
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3) << "fixtures/philox_kat.txt should hold Random123's three 10-round vectors";
}

// The 7-round vectors exercise the same round function with a different
// number of key bumps, which pins down the key schedule.
TEST(Philox, KnownAnswersSevenRounds) {
  int checked = 0;
  for (const Kat& k : ReadKats()) {
    if (k.rounds != 7) continue;
    EXPECT_TRUE(SameBlock(philox_internal::Philox4x32Rounds(k.ctr, k.key, 7), k.out));
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

// Negative control: the KAT comparison distinguishes round counts, so it would
// catch an off-by-one in the loop.
TEST(Philox, KnownAnswersRejectWrongRoundCount) {
  for (const Kat& k : ReadKats()) {
    if (k.rounds != 10) continue;
    EXPECT_FALSE(SameBlock(philox_internal::Philox4x32Rounds(k.ctr, k.key, 9), k.out));
    EXPECT_FALSE(SameBlock(philox_internal::Philox4x32Rounds(k.ctr, k.key, 11), k.out));
  }
}

// ---------------------------------------------------------------------------
// Layout and determinism

TEST(Rng, WordsFollowDocumentedCounterLayout) {
  const uint64_t seed = 0x0123456789ABCDEFull;
  const uint64_t stream = 0xFEDCBA9876543210ull;
  Rng rng(seed, stream);
  for (uint64_t block = 0; block < 3; ++block) {
    const Philox4x32Block expected =
        Philox4x32_10::Generate(Philox4x32Counter{{static_cast<uint32_t>(block), 0u, 0x76543210u,
                                                   0xFEDCBA98u}},
                                Philox4x32Key{{0x89ABCDEFu, 0x01234567u}});
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(rng.NextU32(), expected.v[lane]);
  }
  EXPECT_EQ(rng.Position(), 12u);
}

TEST(Rng, NextU64IsLowWordFirst) {
  Rng a(7, 3);
  Rng b(7, 3);
  for (int i = 0; i < 9; ++i) {  // Odd count: later pairs straddle blocks.
    const uint64_t w0 = a.NextU32();
    const uint64_t w1 = a.NextU32();
    EXPECT_EQ(b.NextU64(), w0 | (w1 << 32));
  }
  a.NextU32();
  b.Seek(a.Position());
  EXPECT_EQ(a.NextU64(), b.NextU64());  // From an odd word, across a block edge.
}

TEST(Rng, SameSeedAndStreamGiveSameSequence) {
  Rng a(42, 5);
  Rng b(42, 5);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.NextU32(), b.NextU32()) << "word " << i;
}

TEST(Rng, DifferentStreamOrSeedGiveDifferentSequences) {
  auto words = [](uint64_t seed, uint64_t stream) {
    Rng r(seed, stream);
    std::vector<uint32_t> w(256);
    for (uint32_t& x : w) x = r.NextU32();
    return w;
  };
  const std::vector<uint32_t> base = words(42, 5);
  for (const auto& other : {words(42, 6), words(43, 5), words(42, 5ull << 32)}) {
    int equal = 0;
    for (size_t i = 0; i < base.size(); ++i) equal += base[i] == other[i];
    // Unrelated 32-bit words coincide with probability 2^-32 each.
    EXPECT_LE(equal, 1);
  }
}

TEST(Rng, SeekReproducesAnyPosition) {
  Rng a(11, 0);
  std::vector<uint32_t> w(40);
  for (uint32_t& x : w) x = a.NextU32();
  for (uint64_t pos : {0u, 1u, 3u, 4u, 5u, 17u, 39u}) {
    Rng b(11, 0);
    b.Seek(pos);
    EXPECT_EQ(b.Position(), pos);
    EXPECT_EQ(b.NextU32(), w[pos]) << "position " << pos;
  }
}

// The stateless helpers a CUDA kernel uses must give the CPU stream's numbers.
TEST(Rng, StatelessHelpersMatchTheStream) {
  Rng u64s(99, 4);
  Rng uniforms(99, 4);
  Rng normals(99, 4);
  for (uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(u64s.NextU64(), PhiloxU64At(99, 4, i));
    EXPECT_EQ(uniforms.Uniform(), PhiloxUniformAt(99, 4, i));
    // The i-th normal uses uniforms 2i and 2i+1 (no cached second value).
    const double u1 = PhiloxUniformAt(99, 4, 2 * i);
    const double u2 = PhiloxUniformAt(99, 4, 2 * i + 1);
    EXPECT_EQ(normals.Normal(),
              std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
  }
}

TEST(Rng, UniformFromBitsIsInsideOpenIntervalAndSymmetric) {
  EXPECT_EQ(UniformFromBits(0), 0x1p-53);
  EXPECT_EQ(UniformFromBits(~0ull), 1.0 - 0x1p-53);
  EXPECT_LT(UniformFromBits(~0ull), 1.0);
  Rng rng(5);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t bits = rng.NextU64();
    // k and its complement map to u and exactly 1 - u.
    EXPECT_EQ(UniformFromBits(bits) + UniformFromBits(~bits), 1.0);
  }
  // The extremes stay finite under the transforms built on them.
  EXPECT_TRUE(std::isfinite(-std::log(-std::log(UniformFromBits(~0ull)))));
  EXPECT_TRUE(std::isfinite(-std::log(-std::log(UniformFromBits(0)))));
}

// ---------------------------------------------------------------------------
// Moments: sample mean and variance within 5 standard errors of the truth. The
// standard error of the sample variance is sqrt((mu4 - sigma^4) / n), with the
// true central fourth moment mu4.

struct Moments {
  const char* name;
  std::function<double(Rng&)> draw;
  double mean;
  double variance;
  double mu4;  // Central fourth moment.
};

constexpr int kMomentDraws = 200000;

TEST(Rng, MomentsMatchEveryDistribution) {
  const double gumbel_var = std::numbers::pi * std::numbers::pi / 6.0;
  const std::vector<Moments> cases = {
      {"uniform", [](Rng& r) { return r.Uniform(); }, 0.5, 1.0 / 12.0, 1.0 / 80.0},
      {"normal", [](Rng& r) { return r.Normal(); }, 0.0, 1.0, 3.0},
      {"exponential", [](Rng& r) { return r.Exponential(); }, 1.0, 1.0, 9.0},
      // Gumbel: excess kurtosis 12/5, so mu4 = (3 + 2.4) sigma^4.
      {"gumbel", [](Rng& r) { return r.Gumbel(); }, std::numbers::egamma, gumbel_var,
       5.4 * gumbel_var * gumbel_var},
  };
  uint64_t stream = 1;  // One stream per case, so the four checks are independent.
  for (const Moments& c : cases) {
    Rng rng(2024, stream++);
    std::vector<double> x(kMomentDraws);
    for (double& v : x) v = c.draw(rng);
    const double n = kMomentDraws;
    const double mean = Mean(x);
    double ss = 0.0;
    for (double v : x) ss += (v - mean) * (v - mean);
    const double var = ss / (n - 1);
    const double se_mean = std::sqrt(c.variance / n);
    const double se_var = std::sqrt((c.mu4 - c.variance * c.variance) / n);
    std::printf("[ moments  ] %-11s mean %.6f (true %.6f, z=%+.2f)  var %.6f (true %.6f, z=%+.2f)\n",
                c.name, mean, c.mean, (mean - c.mean) / se_mean, var, c.variance,
                (var - c.variance) / se_var);
    EXPECT_NEAR(mean, c.mean, 5 * se_mean) << c.name;
    EXPECT_NEAR(var, c.variance, 5 * se_var) << c.name;
  }
}

// Negative control for the moment check: at this n, 5 standard errors of the
// variance is ~0.016, so a normal with sd 1.02 (variance 1.0404) is caught.
TEST(Rng, MomentCheckRejectsWrongVariance) {
  Rng rng(2024, 1);
  std::vector<double> x(kMomentDraws);
  for (double& v : x) v = 1.02 * rng.Normal();
  const double mean = Mean(x);
  double ss = 0.0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double var = ss / (kMomentDraws - 1);
  const double se_var = std::sqrt((3.0 - 1.0) / kMomentDraws);
  EXPECT_GT(std::abs(var - 1.0), 5 * se_var);
}

// ---------------------------------------------------------------------------
// Kolmogorov-Smirnov against the exact CDFs.

constexpr int kKsDraws = 200000;

std::vector<double> Draw(uint64_t seed, const std::function<double(Rng&)>& f, int n = kKsDraws) {
  Rng rng(seed, 2);
  std::vector<double> x(static_cast<size_t>(n));
  for (double& v : x) v = f(rng);
  return x;
}

double UniformCdf(double x) { return std::clamp(x, 0.0, 1.0); }
double ExponentialCdf(double x) { return x <= 0 ? 0.0 : -std::expm1(-x); }
double GumbelCdf(double x) { return std::exp(-std::exp(-x)); }

TEST(Rng, KolmogorovSmirnovAcceptsOurDistributions) {
  struct Case {
    const char* name;
    std::function<double(Rng&)> draw;
    std::function<double(double)> cdf;
  };
  const std::vector<Case> cases = {
      {"uniform", [](Rng& r) { return r.Uniform(); }, UniformCdf},
      {"normal", [](Rng& r) { return r.Normal(); }, NormalCdf},
      {"exponential", [](Rng& r) { return r.Exponential(); }, ExponentialCdf},
      {"gumbel", [](Rng& r) { return r.Gumbel(); }, GumbelCdf},
  };
  // A different seed per case: the transforms are monotone, so with one seed
  // all four would share the uniform sample's D and not be independent checks.
  uint64_t seed = 77;
  for (const Case& c : cases) {
    const KsResult ks = KsTest(Draw(seed++, c.draw), c.cdf);
    std::printf("[ KS       ] %-11s n=%d D=%.5f p=%.4f\n", c.name, kKsDraws, ks.d, ks.p_value);
    ::testing::Test::RecordProperty(std::string("ks_p_") + c.name, std::to_string(ks.p_value));
    EXPECT_GT(ks.p_value, 1e-4) << c.name;
  }
}

// Negative controls: the same test at the same n rejects distributions that
// are wrong by a little (1% scale, 0.02 shift) and by a lot.
TEST(Rng, KolmogorovSmirnovRejectsWrongDistributions) {
  // Same seeds as the accepting test above, so the only change is the error.
  const auto uniform = Draw(77, [](Rng& r) { return 1.01 * r.Uniform(); });
  const auto shifted = Draw(78, [](Rng& r) { return r.Normal() + 0.02; });
  const auto normal = Draw(78, [](Rng& r) { return r.Normal(); });
  const KsResult scaled_ks = KsTest(uniform, UniformCdf);
  const KsResult shifted_ks = KsTest(shifted, NormalCdf);
  const KsResult wrong_family = KsTest(normal, ExponentialCdf);
  std::printf("[ KS ctrl  ] 1.01*uniform p=%.3g, normal+0.02 p=%.3g, normal vs exp p=%.3g\n",
              scaled_ks.p_value, shifted_ks.p_value, wrong_family.p_value);
  EXPECT_LT(scaled_ks.p_value, 1e-4);
  EXPECT_LT(shifted_ks.p_value, 1e-4);
  EXPECT_LT(wrong_family.p_value, 1e-4);
}

// ---------------------------------------------------------------------------
// Integer ranges and shuffles.

// Chi-square p-value of observed counts against equal expected counts.
double UniformChiSquareP(const std::vector<int64_t>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double expected = total / static_cast<double>(counts.size());
  double chi2 = 0.0;
  for (int64_t c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return ChiSquareSurvival(chi2, static_cast<double>(counts.size() - 1));
}

TEST(Rng, UniformIntCoversRangeUniformly) {
  Rng rng(3, 0);
  constexpr uint64_t kLo = 10, kHi = 29;
  std::vector<int64_t> counts(kHi - kLo + 1, 0);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t v = rng.UniformInt(kLo, kHi);
    ASSERT_GE(v, kLo);
    ASSERT_LE(v, kHi);
    ++counts[v - kLo];
  }
  for (int64_t c : counts) EXPECT_GT(c, 0);
  const double p = UniformChiSquareP(counts);
  std::printf("[ chi2     ] UniformInt[10,29] p=%.4f\n", p);
  EXPECT_GT(p, 1e-4);
}

TEST(Rng, UniformIntEdgeCases) {
  Rng rng(3, 1);
  EXPECT_EQ(rng.UniformInt(5, 5), 5u);
  EXPECT_THROW(rng.UniformInt(6, 5), std::invalid_argument);
  // The full range is allowed and consumes exactly one 64-bit value.
  Rng copy(3, 1);
  copy.Seek(rng.Position());
  EXPECT_EQ(rng.UniformInt(0, UINT64_MAX), copy.NextU64());
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng.UniformInt(UINT64_MAX - 2, UINT64_MAX);
    EXPECT_GE(v, UINT64_MAX - 2);
  }
}

// A range of 3 * 2^62 values: plain `x % m` would put half the mass on the
// first third (x in [0, 2^62) and in [3 * 2^62, 2^64) both map there). The
// rejection step must give each third 1/3.
TEST(Rng, UniformIntHasNoModuloBias) {
  constexpr uint64_t kThird = 1ull << 62;
  constexpr uint64_t kM = 3 * kThird;
  Rng rng(8, 0);
  Rng biased(8, 0);
  std::vector<int64_t> ours(3, 0), naive(3, 0);
  for (int i = 0; i < 30000; ++i) {
    ++ours[rng.UniformInt(0, kM - 1) / kThird];
    ++naive[(biased.NextU64() % kM) / kThird];
  }
  const double p_ours = UniformChiSquareP(ours);
  const double p_naive = UniformChiSquareP(naive);
  std::printf("[ chi2     ] thirds of 3*2^62: rejection p=%.4f, naive modulo p=%.3g\n", p_ours,
              p_naive);
  EXPECT_GT(p_ours, 1e-4);
  EXPECT_LT(p_naive, 1e-6);  // Negative control: the check sees modulo bias.
}

TEST(Rng, ShuffleIsAPermutation) {
  Rng rng(12, 0);
  std::vector<int> v(1000);
  std::iota(v.begin(), v.end(), 0);
  rng.Shuffle(std::span<int>(v));
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
  int fixed_points = 0;
  for (int i = 0; i < 1000; ++i) fixed_points += v[i] == i;
  EXPECT_LT(fixed_points, 10);  // Expected 1 for a random permutation.
  std::vector<int> empty;
  rng.Shuffle(std::span<int>(empty));  // No-op, no crash.
}

// Index of a permutation of {0, 1, 2} in 0..5.
int PermutationIndex(const std::array<int, 3>& p) {
  static const std::array<std::array<int, 3>, 6> kAll = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  return static_cast<int>(std::find(kAll.begin(), kAll.end(), p) - kAll.begin());
}

TEST(Rng, ShuffleOfThreeGivesAllSixPermutationsEqually) {
  constexpr int kTrials = 60000;
  Rng rng(13, 0);
  Rng naive_rng(13, 0);
  std::vector<int64_t> counts(6, 0), naive(6, 0);
  for (int t = 0; t < kTrials; ++t) {
    std::array<int, 3> p = {0, 1, 2};
    rng.Shuffle(std::span<int>(p));
    ++counts[PermutationIndex(p)];
    // The classic wrong shuffle (swap each slot with any slot): 27 equally
    // likely paths onto 6 permutations, so it cannot be uniform.
    std::array<int, 3> q = {0, 1, 2};
    for (size_t i = 0; i < 3; ++i) std::swap(q[i], q[naive_rng.UniformInt(0, 2)]);
    ++naive[PermutationIndex(q)];
  }
  for (int64_t c : counts) EXPECT_NEAR(c, kTrials / 6.0, 5 * std::sqrt(kTrials / 6.0 * 5 / 6));
  const double p = UniformChiSquareP(counts);
  const double p_naive = UniformChiSquareP(naive);
  std::printf("[ chi2     ] shuffle of 3: p=%.4f, naive shuffle p=%.3g\n", p, p_naive);
  EXPECT_GT(p, 1e-4);
  EXPECT_LT(p_naive, 1e-6);
}

}  // namespace
}  // namespace cb::harness

// File: suites/pf/pf_simd_test.cpp
// -----------------------------------------------------------------------------
// The AVX-512 kernels of the PF CPU path against their scalar definitions:
//   * Philox4x32-10 on eight blocks: bit-identical to harness/philox.h over
//     many keys, streams and counters (including counters above 2^32 and
//     streams with both halves set), in both array forms;
//   * the fused sampling scan: exactly the reference's token (tolerance:
//     none) on fresh random rows (seed from the clock, printed on failure)
//     drawn from several distributions: flat Gaussian, a peaked LLM-like
//     row, a top-p style row with most logits -inf, low and high T, heavy
//     ties (logits on a coarse grid) and huge magnitudes (|a| >= 2^28, the
//     scalar fallback), for PF and Gumbel noise; the scalar fast path too;
//     and its per-token bound on words where it is tightest.
//   * DetectCpu against cb::ref::pf::Detect on fresh texts with repeated
//     phrases, every watermark and de-duplication mode, vector and scalar
//     kernels: n' and the KGW count identical, the PF/Gumbel score within
//     1e-11 relative (libmvec log within 4 ulp, another summation order).
// The sampling tests SKIP on a CPU without AVX-512 (the scalar path is then
// the one pf_test.cpp covers); the detection tests run everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/philox.h"
#include "harness/random.h"
#include "reference/pf/pf.h"
#include "suites/pf/pf.h"
#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::pf;

#define SKIP_WITHOUT_AVX512() \
  if (!CpuHasAvx512()) GTEST_SKIP() << "this CPU lacks AVX-512 F/DQ/CD/VL/BW"

TEST(PfSimd, PhiloxPairWordsBitIdentical) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const uint64_t key = rng.NextU64(), stream = rng.NextU64();
    // Counters near 0, near 2^32 (carry into c1) and anywhere.
    const uint64_t first = trial % 3 == 0 ? 0 : trial % 3 == 1 ? (uint64_t{1} << 32) - 5 : rng.NextU64() >> 1;
    const int64_t pairs = 1 + static_cast<int64_t>(rng.NextU64() % 100);
    std::vector<uint64_t> got(2 * pairs), want(2 * pairs);
    PhiloxPairWords(key, stream, first, pairs, got.data(), /*vector=*/true);
    for (int64_t j = 0; j < 2 * pairs; ++j) want[j] = h::PhiloxU64At(key, stream, 2 * first + j);
    ASSERT_EQ(got, want) << "trial " << trial;
  }
}

TEST(PfSimd, PhiloxGatherWordsBitIdentical) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 2);
  const int64_t n = 4099;
  std::vector<uint64_t> streams(n), indices(n), got(n);
  for (int64_t i = 0; i < n; ++i) {
    streams[i] = rng.NextU64();
    indices[i] = i % 2 == 0 ? rng.NextU64() : rng.NextU64() % 200000;
  }
  const uint64_t key = rng.NextU64();
  PhiloxGatherWords(key, streams.data(), indices.data(), n, got.data(), /*vector=*/true);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], h::PhiloxU64At(key, streams[i], indices[i])) << i;
}

// Sixteen tokens for the bound tests: the words words[w0 ..] (wrapping) and
// logits with a = logit / T Gaussian, the first `at_scale_4` at sd 4, the rest
// at sd 2^0 .. 2^27, |a| <= 2^27.
void SixteenTokens(h::Rng& rng, const std::vector<uint64_t>& words, size_t w0, double t,
                   int at_scale_4, uint64_t* w, float* logits) {
  for (int i = 0; i < 16; ++i) {
    w[i] = words[(w0 + i) % words.size()];
    const double scale = i < at_scale_4 ? 4.0 : std::ldexp(1.0, static_cast<int>(rng.UniformInt(0, 27)));
    logits[i] = static_cast<float>(std::clamp(scale * rng.Normal(), -0x1p27, 0x1p27) * t);
  }
}

// The vector scan's bound on a token's value (pf_cpu_avx512.cpp step 2):
// strictly above the exact value (the scan relies on that for ties: a token
// of equal value and lower id than the best must stay a candidate), on words
// chosen where it is tightest (powers of two, where the chord of log2 is
// exact and only the 2^-20 margin and the low 12 bits are left) and where it
// degenerates (words below 2^12, all ones, each leading-zero count), for
// |a| up to 2^29 - 64 and several T. And tight for PF once the word is
// >= 2^23: within 0.0597 (the chord's largest gap, 0.0861 ln 2) + 2^-12
// (the low 12 bits) + the margin + the rounding of a; the leading-zero bound
// it replaced was up to 2 ln 2 above.
TEST(PfSimd, TokenBoundIsAnUpperBoundAndTight) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 5);
  std::vector<uint64_t> words = {0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF,
                                 ~uint64_t{0}, ~uint64_t{0xFFF}};
  for (int e = 12; e < 64; ++e) {
    const uint64_t p = uint64_t{1} << e;
    for (uint64_t w : {p - 1, p, p + 1, p + 0xFFF, p + 0x1000}) words.insert(words.end(), {w, ~w});
  }
  for (int i = 0; i < 4000; ++i) words.push_back(rng.NextU64() >> (i % 64));
  const double temperatures[] = {1.0, 0.7, 1.5, 1e-3, 3e3, 0.1};
  constexpr double kChordGap = 0.0597, kMargin = 0x1p-20;
  for (size_t w0 = 0; w0 < words.size(); w0 += 16) {
    uint64_t w[16];
    float logits[16];
    const double t = temperatures[rng.UniformInt(0, 5)];
    SixteenTokens(rng, words, w0, t, /*at_scale_4=*/8, w, logits);
    if (w0 % 64 == 0) {  // near the largest |a| the contract covers (2^29)
      logits[3] = static_cast<float>((0x1p29 - 64) * t);
      logits[4] = static_cast<float>(-(0x1p29 - 64) * t);
    }
    for (Noise noise : {Noise::kExponential, Noise::kGumbel}) {
      double bounds[16];
      internal::TokenBoundsAvx512(logits, w, t, noise, bounds);
      for (int i = 0; i < 16; ++i) {
        const double value = internal::ExactValue(logits[i], t, noise, w[i]);
        ASSERT_GT(bounds[i], value) << "word " << w[i] << " logit " << logits[i] << " T " << t
                                    << (noise == Noise::kGumbel ? " Gumbel" : " PF");
        const double a = std::fabs(static_cast<double>(logits[i]) / t);
        if (noise == Noise::kExponential && (w[i] & ~uint64_t{0xFFF}) >= (uint64_t{1} << 23)) {
          ASSERT_LE(bounds[i] - value, kChordGap + 0x1p-12 + kMargin + a * 0x1p-48)
              << "word " << w[i] << " logit " << logits[i] << " T " << t;
        }
      }
    }
  }
}

// The vector scan's step test (pf_cpu_avx512.cpp step 3, in fp32 from the
// high 32 bits of each word): it may say "maybe" too often, never "no" when a
// token reaches the best (value >= best: a tie with a lower id wins). Bests
// at the largest value and one ulp below it, at |best| up to 2^28 - 1;
// words where the fp32 conversion rounds (high word >= 2^24) or drops
// everything (high word 0), logits up to +-FLT_MAX and -inf, T from 2^-60
// to 2^60. And useful: on moderate rows with high words >= 2^23 it says "no"
// once the best is 0.065 above every value (the chord's 0.0597 plus the
// roundings and margin), so a test that always said "maybe" fails here.
TEST(PfSimd, StepTestNeverDropsATokenThatReachesTheBest) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 6);
  std::vector<uint64_t> words = {0, 1, 0xFFFFFFFF, uint64_t{1} << 32, ~uint64_t{0}};
  for (int e = 0; e < 64; ++e) {
    const uint64_t p = uint64_t{1} << e;
    for (uint64_t w : {p - 1, p, p + 1, p | 0xFFFFFFFF}) words.insert(words.end(), {w, ~w});
  }
  for (int i = 0; i < 6000; ++i) words.push_back(rng.NextU64() >> (i % 64));
  const double temperatures[] = {1.0, 0.7, 1e-3, 3e3, 0x1p-60, 0x1p60};
  const float extremes[] = {FLT_MAX, -FLT_MAX, -INFINITY, 1e30f, -1e30f, 0.0f};
  for (size_t w0 = 0; w0 < words.size(); w0 += 16) {
    uint64_t w[16];
    float logits[16];
    const double t = temperatures[rng.UniformInt(0, 5)];
    SixteenTokens(rng, words, w0, t, /*at_scale_4=*/0, w, logits);
    if (w0 % 48 == 0) logits[rng.UniformInt(0, 15)] = extremes[rng.UniformInt(0, 5)];
    for (Noise noise : {Noise::kExponential, Noise::kGumbel}) {
      double top = -INFINITY;
      for (int i = 0; i < 16; ++i) top = std::max(top, internal::ExactValue(logits[i], t, noise, w[i]));
      if (!(std::fabs(top) < 0x1p28)) continue;  // outside the test's contract
      for (double best : {top, std::nextafter(top, -INFINITY)}) {  // reached: a tie, and above
        ASSERT_TRUE(internal::StepMayReachAvx512(logits, w, t, noise, best))
            << "best " << best << " top " << top << " T " << t << " word0 " << w[0]
            << (noise == Noise::kGumbel ? " Gumbel" : " PF");
      }
    }
  }
  // Usefulness on moderate rows.
  for (int trial = 0; trial < 2000; ++trial) {
    uint64_t w[16];
    float logits[16];
    const double t = 0.5 + rng.Uniform();
    for (int i = 0; i < 16; ++i) {
      w[i] = rng.NextU64() | (uint64_t{1} << 55);  // high word >= 2^23
      logits[i] = static_cast<float>(20 * rng.Normal());
    }
    double top = -INFINITY;
    for (int i = 0; i < 16; ++i) top = std::max(top, internal::ExactValue(logits[i], t, Noise::kExponential, w[i]));
    const double best = top + 0.065;
    EXPECT_FALSE(internal::StepMayReachAvx512(logits, w, t, Noise::kExponential, best))
        << "best " << best << " T " << t;
  }
}

// Rows of several shapes; scale and T vary per draw.
std::vector<float> Row(h::Rng& rng, int kind, int64_t v) {
  std::vector<float> x(static_cast<size_t>(v));
  switch (kind) {
    case 0:  // flat Gaussian
      for (float& f : x) f = static_cast<float>(2.0 * rng.Normal());
      break;
    case 1:  // LLM-like: a Gaussian bulk and a few tokens 10-25 above it
      for (float& f : x) f = static_cast<float>(2.5 * rng.Normal());
      for (int k = 0; k < 20; ++k)
        x[rng.UniformInt(0, v - 1)] = static_cast<float>(10 + 15 * rng.Uniform());
      break;
    case 2:  // top-p style: all -inf but a few hundred
      for (float& f : x) f = -INFINITY;
      for (int k = 0; k < 300; ++k) x[rng.UniformInt(0, v - 1)] = static_cast<float>(rng.Normal());
      break;
    case 3:  // ties: a coarse grid, many equal logits
      for (float& f : x) f = static_cast<float>(std::floor(3 * rng.Uniform()));
      break;
    default:  // huge magnitudes: the scalar fallback once |best| >= 2^28
      for (float& f : x) f = static_cast<float>(1e15 * (1 + rng.Uniform()));
      break;
  }
  return x;
}

int64_t Reference(const std::vector<float>& x, double t, Noise noise, uint64_t key, uint64_t stream) {
  const std::vector<double> u(x.begin(), x.end());
  return noise == Noise::kExponential ? ref::SamplePfNoise(u, t, key, stream)
                                      : ref::SampleSoftmaxGumbel(u, t, key, stream);
}

TEST(PfSimd, SampleEqualsReferenceOnFreshRows) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 3);
  const double temperatures[] = {1.0, 0.7, 0.25, 1.5, 4.0};
  for (int trial = 0; trial < 60; ++trial) {
    const int kind = trial % 5;
    const int64_t v = trial < 10 ? 33 + trial * 7 : int64_t{1} << (12 + trial % 6);
    const auto x = Row(rng, kind, v);
    const double t = temperatures[rng.UniformInt(0, 4)];
    const uint64_t key = rng.NextU64(), stream = rng.NextU64();
    for (Noise noise : {Noise::kExponential, Noise::kGumbel}) {
      const int64_t want = Reference(x, t, noise, key, stream);
      bool bad = true;
      const internal::Best got = internal::ScanRangeAvx512(x.data(), 0, v, t, noise, key, stream, &bad);
      EXPECT_EQ(got.index, want) << "trial " << trial << " kind " << kind << " V " << v << " T " << t;
      EXPECT_FALSE(bad) << "trial " << trial;
      const internal::Best scalar = internal::ScanRangeScalar(x.data(), 0, v, t, noise, key, stream);
      EXPECT_EQ(scalar.index, want) << "scalar, trial " << trial;
      // Through the public entry (two threads for one long row).
      const std::vector<uint64_t> streams = {stream};
      EXPECT_EQ(Sample(h::Backend::kCpu, {x.data(), 1, v}, t, noise, key, streams)[0], want)
          << "Sample, trial " << trial;
    }
  }
}

// The vector scan checks its input in its own pass: one NaN or +inf
// anywhere (in a step that the skip test drops before Philox, in a step it
// scans, in the scalar tail) makes Sample throw, and a row of -inf only too;
// huge finite logits do not.
TEST(PfSimd, TheFusedInputCheckFindsEveryBadLogit) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 5);
  const float bad_values[] = {NAN, INFINITY, -NAN};
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t v = 200 + static_cast<int64_t>(rng.NextU64() % 70000);
    std::vector<float> x(static_cast<size_t>(v));
    for (float& f : x) f = static_cast<float>(rng.Normal());
    // A huge logit first makes later steps skip Philox (the check must not).
    if (trial % 2 == 0) x[0] = 1e6f;
    const int64_t at = trial % 3 == 0 ? v - 1 - static_cast<int64_t>(rng.NextU64() % 100)  // tail
                                      : 1 + static_cast<int64_t>(rng.NextU64() % (v - 1));
    x[static_cast<size_t>(at)] = bad_values[trial % 3];
    const std::vector<uint64_t> streams = {rng.NextU64()};
    for (Noise noise : {Noise::kExponential, Noise::kGumbel}) {
      bool bad = false;
      internal::ScanRangeAvx512(x.data(), 0, v, 1.0, noise, 7, streams[0], &bad);
      EXPECT_TRUE(bad) << "trial " << trial << " V " << v << " at " << at;
      EXPECT_THROW(Sample(h::Backend::kCpu, {x.data(), 1, v}, 1.0, noise, 7, streams),
                   std::invalid_argument)
          << "trial " << trial << " V " << v << " at " << at;
    }
  }
  // Finite logits whose per-step sums overflow to +inf (the check's cheap
  // test) are not refused: the groups are then checked one by one.
  for (int trial = 0; trial < 4; ++trial) {
    const int64_t v = 4096 + 64 * trial;
    std::vector<float> x(static_cast<size_t>(v));
    for (float& f : x) f = static_cast<float>(FLT_MAX * (0.5 + 0.5 * rng.Uniform()));
    const uint64_t stream = rng.NextU64();
    for (Noise noise : {Noise::kExponential, Noise::kGumbel}) {
      bool bad = true;
      internal::ScanRangeAvx512(x.data(), 0, v, 1.0, noise, 7, stream, &bad);
      EXPECT_FALSE(bad) << "trial " << trial;
      const std::vector<uint64_t> streams = {stream};
      EXPECT_EQ(Sample(h::Backend::kCpu, {x.data(), 1, v}, 1.0, noise, 7, streams)[0],
                Reference(x, 1.0, noise, 7, stream))
          << "trial " << trial;
    }
  }
  const std::vector<float> all_neg_inf(5000, -INFINITY);
  const std::vector<uint64_t> one = {1};
  EXPECT_THROW(Sample(h::Backend::kCpu, {all_neg_inf.data(), 1, 5000}, 1.0, Noise::kExponential, 1, one),
               std::invalid_argument);
}

TEST(PfSimd, GreedyAndInputScanMatchScalar) {
  SKIP_WITHOUT_AVX512();
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 4);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t v = 1 + static_cast<int64_t>(rng.NextU64() % 5000);
    auto x = Row(rng, trial % 4, v);
    if (trial % 4 == 2) x[rng.UniformInt(0, v - 1)] = 0.5f;  // at least one finite
    const std::vector<double> u(x.begin(), x.end());
    EXPECT_EQ(internal::ArgmaxRow(x.data(), v, true), ref::Greedy(u)) << "trial " << trial;
    bool bad = true, finite = false;
    internal::ScanLogits(x.data(), v, true, &bad, &finite);
    EXPECT_FALSE(bad);
    EXPECT_TRUE(finite);
    for (float poison : {NAN, INFINITY}) {
      auto y = x;
      y[rng.UniformInt(0, v - 1)] = poison;
      internal::ScanLogits(y.data(), v, true, &bad, &finite);
      EXPECT_TRUE(bad) << poison;
    }
    std::vector<float> none(static_cast<size_t>(v), -INFINITY);
    internal::ScanLogits(none.data(), v, true, &bad, &finite);
    EXPECT_FALSE(bad);
    EXPECT_FALSE(finite);
  }
}

}  // namespace
}  // namespace cb::pf

namespace cb::pf {
namespace {

// Texts with repeated stretches (so every de-duplication mode drops
// something), short texts (n <= m, n = m + 1) and long ones (two threads).
std::vector<int32_t> Text(h::Rng& rng, int64_t n, int32_t vocab) {
  std::vector<int32_t> text(static_cast<size_t>(n));
  for (auto& t : text) t = static_cast<int32_t>(rng.UniformInt(0, vocab - 1));
  for (int64_t i = 0; i + 40 < n; i += 97) {  // copy a 12-token phrase forward
    const int64_t from = static_cast<int64_t>(rng.UniformInt(0, i));
    for (int j = 0; j < 12 && i + 28 + j < n; ++j) text[i + 28 + j] = text[from + j];
  }
  return text;
}

TEST(PfDetectCpu, MatchesReferenceOnFreshTexts) {
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 5);
  const int64_t lengths[] = {1, 4, 5, 37, 300, 5000, 40000};
  for (int64_t n : lengths) {
    for (int trial = 0; trial < 3; ++trial) {
      const auto text = Text(rng, n, trial == 0 ? 50 : 32000);
      const ref::WatermarkParams params{.key = rng.NextU64(), .context = 1 + trial * 2 + (n % 3 == 0),
                                        .gamma = 0.25 + 0.25 * trial};
      for (ref::Watermark w : {ref::Watermark::kPf, ref::Watermark::kGumbel, ref::Watermark::kKgw}) {
        for (ref::Dedup dedup : {ref::Dedup::kNone, ref::Dedup::kContext, ref::Dedup::kContextToken}) {
          const auto want = ref::Detect(w, params, text, dedup);
          for (bool simd : {true, false}) {
            const auto got = DetectCpu(w, params, text, dedup, simd);
            SCOPED_TRACE(::testing::Message() << "n " << n << " m " << params.context << " "
                                              << ref::WatermarkName(w) << " dedup "
                                              << static_cast<int>(dedup) << " simd " << simd);
            ASSERT_EQ(got.scored, want.scored);
            if (w == ref::Watermark::kKgw) {
              EXPECT_EQ(got.score, want.score);
              EXPECT_EQ(got.p_value, want.p_value);
            } else {
              EXPECT_NEAR(got.score, want.score, 1e-11 * std::max(1.0, want.score));
              EXPECT_NEAR(got.p_value, want.p_value, 1e-9 * std::max(1e-300, want.p_value) + 1e-12);
            }
          }
        }
      }
    }
  }
}

TEST(PfDetectCpu, BadInputAsReference) {
  const ref::WatermarkParams params{.key = 1, .context = 2};
  const std::vector<int32_t> empty;
  EXPECT_THROW(DetectCpu(ref::Watermark::kPf, params, empty), std::invalid_argument);
  EXPECT_THROW(DetectCpu(ref::Watermark::kNone, params, std::vector<int32_t>{1, 2, 3}),
               std::invalid_argument);
  try {
    DetectCpu(ref::Watermark::kPf, params, std::vector<int32_t>{1, 2, 3, -4, 5});
    ADD_FAILURE() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Detect: negative token at 3");
  }
}

}  // namespace
}  // namespace cb::pf

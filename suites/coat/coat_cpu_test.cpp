// File: suites/coat/coat_cpu_test.cpp
// The fast CPU paths of coat_cpu.cpp against the reference, on fresh inputs:
//   - E4M3 encode bit-identical on every rounding boundary, special values
//     and 2^20 random fp32 bit patterns; decode bit-identical on all codes;
//   - 1x16 quantize + dequantize bit-identical (codes, bf16 scales, values);
//   - DRE: group parameters (k, centre, scale) bit-identical; codes equal
//     except at most kMaxCodeMismatchFraction of them, each of those one
//     step away with the same sign (libmvec's log2/exp2 are within 4 ulp,
//     so a value within a few ulp of a rounding boundary may round the other
//     way); dequantized values within kDequantRelTol of the reference's;
//   - edge groups (all zero, constant magnitude, NaN, +-inf, short last
//     group) give the reference's codes exactly (they take its code);
//   - use_simd = false (what a CPU without AVX2 runs) is the reference.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "harness/simd_math.h"
#include "reference/coat/quant.h"
#include "reference/fp8.h"
#include "suites/coat/coat.h"

namespace cb::coat {
namespace {

using ref::fp8::Format;
namespace rc = ref::coat;

// Chosen before measuring from the error budget (a few ulp per libmvec call
// against FP8 steps 2^20 fp32 ulps wide: ~1e-5 of the values can sit that
// close to a boundary); measured: a few per million (README, "Performance").
constexpr double kMaxCodeMismatchFraction = 1e-4;
// exp2(log2(a) / k) with 4-ulp functions and |log2(a) / k| up to ~30:
// ~2^-24 * (8 + 30 ln 2) relative, below 2e-6; measured worst 7e-7.
constexpr double kDequantRelTol = 1e-5;
// A code one step off sits next to a rounding boundary, where both choices
// err by about half a step: the worst round-trip error may grow a little,
// never double.
constexpr double kDreErrorBudget = 2.0;

using cb::testing::AsDoubles;

bool SameFloat(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (std::isnan(a) && std::isnan(b));
}

class CoatCpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!harness::CpuHasAvx2Fma()) GTEST_SKIP() << "no AVX2+FMA: the fast path is the reference here";
  }
};

TEST_F(CoatCpuTest, EncodeBitIdenticalOnBoundariesAndRandomBits) {
  CB_FRESH_SEED(seed);
  std::vector<float> x;
  for (int c = 0; c < 0x7E; ++c) {
    const float lo = ref::fp8::Decode(uint8_t(c), Format::kE4M3), hi = ref::fp8::Decode(uint8_t(c + 1), Format::kE4M3);
    const float mid = (lo + hi) / 2;
    for (const float v : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), hi}) {
      x.push_back(v);
      x.push_back(-v);
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (const float v : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                        1e-45f, -1e-45f, 1e-39f, 0x1p-10f, 0x1.8p-10f, 0x1.000002p-10f, 464.0f, std::nextafter(464.0f, inf),
                        479.0f, 480.0f, 1e30f, std::numeric_limits<float>::max()}) {
    x.push_back(v);
  }
  harness::Rng rng(seed, 1);
  for (int i = 0; i < (1 << 20); ++i) x.push_back(std::bit_cast<float>(rng.NextU32()));
  x.push_back(1.0f);  // a length that is not a multiple of 8: the tail path too
  std::vector<uint8_t> got(x.size());
  EncodeE4M3Cpu(x, got);
  int64_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (got[i] != ref::fp8::EncodeE4M3(x[i]) && ++bad <= 5) {
      ADD_FAILURE() << "x = " << x[i] << " (0x" << std::hex << std::bit_cast<uint32_t>(x[i]) << "): got 0x"
                    << int(got[i]) << ", want 0x" << int(ref::fp8::EncodeE4M3(x[i]));
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(CoatCpuTest, DecodeBitIdenticalOnAllCodes) {
  std::vector<uint8_t> codes(256 + 3);
  for (size_t c = 0; c < codes.size(); ++c) codes[c] = uint8_t(c);
  std::vector<float> got(codes.size());
  DecodeE4M3Cpu(codes, got);
  for (size_t c = 0; c < codes.size(); ++c) {
    EXPECT_TRUE(SameFloat(got[c], ref::fp8::Decode(codes[c], Format::kE4M3))) << "code " << c;
  }
}

TEST_F(CoatCpuTest, Group16QuantizeAndDequantizeBitIdentical) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 2);
  std::vector<float> x(16 * 5000 + 7);
  for (auto& v : x) v = static_cast<float>(rng.Normal() * std::exp(2.0 * rng.Normal()));
  x[100] = 0.0f;
  x[200] = -0.0f;
  for (int i = 320; i < 336; ++i) x[i] = 0.0f;  // an all-zero group
  for (const Format f : {Format::kE4M3, Format::kE5M2}) {
    const auto want = rc::QuantizePerGroup16(x, f);
    const auto got = QuantizeGroup16Cpu(x, f);
    EXPECT_EQ(got.codes, want.codes) << ref::fp8::FormatName(f);
    ASSERT_EQ(got.scales.size(), want.scales.size());
    for (size_t g = 0; g < want.scales.size(); ++g) ASSERT_TRUE(SameFloat(got.scales[g], want.scales[g])) << g;
    const auto back_want = rc::Dequantize(want), back_got = DequantizeCpu(want);
    ASSERT_EQ(back_got.size(), back_want.size());
    int64_t bad = 0;
    for (size_t i = 0; i < back_want.size(); ++i) bad += !SameFloat(back_got[i], back_want[i]);
    EXPECT_EQ(bad, 0) << ref::fp8::FormatName(f);
  }
  // Group sizes that are not a multiple of 8 (the reference's loop) and one
  // that is (the vector loop), per-tensor included.
  for (const int64_t gs : {int64_t{12}, int64_t{128}, int64_t(x.size())}) {
    const auto t = rc::MaxScaleQuantize(x, gs, Format::kE4M3);
    const auto want = rc::Dequantize(t), got = DequantizeCpu(t);
    int64_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i) bad += !SameFloat(got[i], want[i]);
    EXPECT_EQ(bad, 0) << "group size " << gs;
  }
}

// Runs DRE both ways on x and checks the contract in the header comment;
// returns the number of codes that differ.
int64_t CheckDre(const std::vector<float>& x, const rc::DreOptions& opt, const char* what) {
  SCOPED_TRACE(what);
  const auto want = rc::DreQuantize(x, opt);
  const auto got = DreQuantizeCpu(x, opt);
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.groups.size(), want.groups.size());
  int64_t bad_params = 0;
  for (size_t g = 0; g < want.groups.size() && g < got.groups.size(); ++g) {
    bad_params += !SameFloat(got.groups[g].k, want.groups[g].k) ||
                  !SameFloat(got.groups[g].center, want.groups[g].center) ||
                  !SameFloat(got.groups[g].scale, want.groups[g].scale);
  }
  EXPECT_EQ(bad_params, 0);
  int64_t differ = 0, far = 0;
  for (size_t i = 0; i < want.codes.size(); ++i) {
    if (got.codes[i] == want.codes[i]) continue;
    ++differ;
    far += std::abs(int(got.codes[i] & 0x7F) - int(want.codes[i] & 0x7F)) > 1 ||
           (got.codes[i] & 0x80) != (want.codes[i] & 0x80);
  }
  EXPECT_EQ(far, 0);
  EXPECT_LE(double(differ), kMaxCodeMismatchFraction * double(x.size())) << differ << " codes differ";
  // Dequantization of the reference's tensor both ways.
  std::vector<float> back_want(x.size()), back_got(x.size());
  rc::DreDequantizeInto(want, back_want);
  DreDequantizeCpu(want, back_got);
  int64_t out_of_tol = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float w = back_want[i], g = back_got[i];
    if (std::isnan(w) || std::isnan(g)) {
      out_of_tol += std::isnan(w) != std::isnan(g);
    } else {
      out_of_tol += g != w && (std::signbit(w) != std::signbit(g) || std::fabs(g - w) > kDequantRelTol * std::fabs(w));
    }
  }
  EXPECT_EQ(out_of_tol, 0);
  // The fast path's own round trip: its worst error at most kDreErrorBudget
  // times the reference's (the naive version in the same FP8 precision).
  std::vector<float> round_trip(x.size());
  DreDequantizeCpu(got, round_trip);
  EXPECT_TRUE(cb::testing::ErrorBudget(AsDoubles(round_trip), AsDoubles(back_want), AsDoubles(x), kDreErrorBudget));
  return differ;
}

TEST_F(CoatCpuTest, DreAgreesWithReferenceOnFreshInputs) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 3);
  const int64_t n = 128 * 4000 + 31;  // a short last group too
  std::vector<float> normal(n), moments(n), second(n), narrow(n);
  for (int64_t i = 0; i < n; ++i) {
    normal[i] = static_cast<float>(rng.Normal());
    // First-moment-like: per-group scale, heavy (lognormal) tails, exact zeros.
    const double group_scale = std::exp(2.0 * std::sin(double(i / 128)));
    moments[i] = i % 97 == 0 ? 0.0f : static_cast<float>(group_scale * 1e-4 * rng.Normal() * std::exp(1.5 * rng.Normal()));
    // Second-moment-like: positive, squared heavy tails.
    const double g = 1e-3 * rng.Normal() * std::exp(rng.Normal());
    second[i] = static_cast<float>(g * g);
    // Narrow groups (R < 2): k well above 16, which nothing caps.
    narrow[i] = static_cast<float>(std::exp(double(i / 128 % 40) - 20.0) * (1.0 + 0.9 * rng.Uniform()) *
                                   (rng.Uniform() < 0.5 ? -1.0 : 1.0));
  }
  rc::DreOptions paper, vila, clamped;
  paper.target = rc::DreTarget::kPaper;
  vila.min_includes_zeros = true;
  vila.min_val = 1e-20f;
  clamped.clamp_k_at_least_one = true;
  int64_t differ = 0;
  differ += CheckDre(normal, {}, "normal");
  differ += CheckDre(moments, {}, "first moments");
  differ += CheckDre(second, {}, "second moments");
  differ += CheckDre(moments, paper, "first moments, paper's target");
  differ += CheckDre(moments, vila, "first moments, VILA's minimum (zeros included)");
  differ += CheckDre(moments, clamped, "first moments, k >= 1");
  differ += CheckDre(narrow, {}, "narrow groups, R < 2");
  std::cout << "[ measured ] DRE codes that differ from the reference: " << differ << " of " << 7 * n << "\n";
}

TEST_F(CoatCpuTest, DreEdgeGroupsTakeTheReferencesCodes) {
  std::vector<float> x(128 * 6 + 5, 0.0f);                  // group 0: all zero
  for (int i = 128; i < 256; ++i) x[i] = i % 2 ? 0.5f : -0.5f;  // group 1: constant magnitude (R = 1)
  for (int i = 256; i < 384; ++i) x[i] = 0.01f * float(i - 300);
  x[300] = std::numeric_limits<float>::quiet_NaN();         // group 2: a NaN
  for (int i = 384; i < 512; ++i) x[i] = 0.01f * float(i - 400);
  x[400] = std::numeric_limits<float>::infinity();          // group 3: +inf
  for (int i = 512; i < 640; ++i) x[i] = i == 600 ? 3.0f : 0.0f;  // group 4: one nonzero
  for (int i = 640; i < 768; ++i) x[i] = -1e-3f * float(i % 7 + 1);
  x[700] = -std::numeric_limits<float>::infinity();         // group 5: -inf
  for (int i = 768; i < 773; ++i) x[i] = float(i - 770);    // group 6: 5 elements
  const auto want = rc::DreQuantize(x, {});
  const auto got = DreQuantizeCpu(x, {});
  EXPECT_EQ(got.codes, want.codes);
  std::vector<float> back_want(x.size()), back_got(x.size());
  rc::DreDequantizeInto(want, back_want);
  DreDequantizeCpu(want, back_got);
  for (size_t i = 0; i < x.size(); ++i) {
    const float w = back_want[i], g = back_got[i];
    const bool ok = std::isnan(w) ? std::isnan(g)
                                  : g == w || (std::signbit(w) == std::signbit(g) &&
                                               std::fabs(g - w) <= kDequantRelTol * std::fabs(w));
    EXPECT_TRUE(ok) << "element " << i << ": " << g << " vs " << w;
  }
  std::vector<float> short_out(3);
  EXPECT_THROW(DreDequantizeCpu(want, short_out), std::invalid_argument);
}

// What a CPU without AVX2 runs: the reference, bit for bit. (Not skipped
// without AVX2: there it is the only path.)
TEST(CoatCpuFallback, WithoutSimdIsTheReference) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 4);
  std::vector<float> x(128 * 50 + 3);
  for (auto& v : x) v = static_cast<float>(1e-3 * rng.Normal() * std::exp(rng.Normal()));
  const auto want = rc::DreQuantize(x, {});
  const auto got = DreQuantizeCpu(x, {}, /*use_simd=*/false);
  EXPECT_EQ(got.codes, want.codes);
  std::vector<float> back_want(x.size()), back_got(x.size());
  rc::DreDequantizeInto(want, back_want);
  DreDequantizeCpu(want, back_got, /*use_simd=*/false);
  EXPECT_EQ(back_got, back_want);
  const auto g16 = QuantizeGroup16Cpu(x, Format::kE4M3, false);
  EXPECT_EQ(g16.codes, rc::QuantizePerGroup16(x, Format::kE4M3).codes);
  std::vector<uint8_t> codes(x.size()), want_codes(x.size());
  EncodeE4M3Cpu(x, codes, false);
  ref::fp8::EncodeSpan(x, want_codes, Format::kE4M3);
  EXPECT_EQ(codes, want_codes);
}

}  // namespace
}  // namespace cb::coat

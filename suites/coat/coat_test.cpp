// File: suites/coat/coat_test.cpp
// Every backend against the reference on fresh inputs (DESIGN §3):
//   - FP8 encodes bit-identical to reference/fp8 on every rounding boundary
//     and 2^24 random floats (the CUDA path's cvt.rn.satfinite included);
//   - 1x16 activation quantization bit-identical (codes and bf16 scales);
//   - DRE quantize/dequantize within a named tolerance (device log2f/powf
//     differ from glibc's by ulps): k equal in >= 99% of groups, codes within
//     one step where k agrees, dequantized values within 2^-3 relative.
// The CUDA instances skip without a GPU (CB_REQUIRE_GPU=1 makes them fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/coat/quant.h"
#include "reference/fp8.h"
#include "suites/coat/coat.h"

namespace cb::coat {
namespace {

// A backend's DRE round trip may be at most this many times worse, in its
// worst element, than the reference's: codes may differ by one step near a
// rounding boundary (and a group's k near a tie), where both errors are
// about half a step.
constexpr double kDreErrorBudget = 2.0;

using cb::testing::AsDoubles;

using ref::fp8::Format;

class CoatBackendTest : public cb::testing::BackendTest {};

// A fresh seed each run (DESIGN §3), printed on failure.
// Every boundary: each code's value, each midpoint and its fp32 neighbours,
// zero, saturation, inf and NaN, both signs.
std::vector<float> BoundaryInputs(Format f) {
  std::vector<float> x = {0.0f, INFINITY, std::nanf(""), std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::denorm_min()};
  const auto& info = ref::fp8::Info(f);
  for (int c = 0; c < info.max_finite_code; ++c) {
    const float lo = ref::fp8::Decode(static_cast<uint8_t>(c), f);
    const float hi = ref::fp8::Decode(static_cast<uint8_t>(c + 1), f);
    const float mid = (lo + hi) / 2.0f;
    for (const float v : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) x.push_back(v);
  }
  const float top = info.max_finite + (info.max_finite - ref::fp8::Decode(info.max_finite_code - 1, f)) / 2;
  for (const float v : {info.max_finite, top, std::nextafter(top, 0.0f), std::nextafter(top, INFINITY)}) x.push_back(v);
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) x.push_back(-x[i]);
  return x;
}

// `count` random floats: half uniformly random bit patterns, half spread over
// the FP8 range's exponents, where rounding decisions happen.
std::vector<float> RandomInputs(uint64_t seed, size_t count) {
  harness::Rng rng(seed, 40);
  std::vector<float> x(count);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t bits = rng.NextU32();
    if (i % 2 == 0) {
      x[i] = std::bit_cast<float>(bits);
    } else {
      const int e = static_cast<int>(bits % 44) - 26;  // 2^-26 .. 2^17
      x[i] = std::ldexp(1.0f + float(rng.NextU32() >> 9) * 0x1p-23f, e) * ((bits >> 31) ? -1.0f : 1.0f);
    }
  }
  return x;
}

int64_t CountMismatches(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int64_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i) bad += a[i] != b[i];
  return bad + static_cast<int64_t>(a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

TEST_P(CoatBackendTest, EncodeBitIdenticalOnBoundariesAndRandomFloats) {
  CB_FRESH_SEED(seed);
  // 2^24 on the GPU; the CPU path is the emulator itself, so a smaller
  // sample there only checks the dispatch and keeps CI (and ASan) fast.
  const auto random = RandomInputs(seed, backend() == harness::Backend::kCuda ? size_t{1} << 24 : size_t{1} << 16);
  for (const Format f : {Format::kE4M3, Format::kE5M2}) {
    const auto boundary = BoundaryInputs(f);
    std::vector<uint8_t> want(boundary.size());
    ref::fp8::EncodeSpan(boundary, want, f);
    EXPECT_EQ(CountMismatches(EncodeFp8(backend(), boundary, f), want), 0) << ref::fp8::FormatName(f);
    std::vector<uint8_t> want_random(random.size());
    ref::fp8::EncodeSpan(random, want_random, f);
    EXPECT_EQ(CountMismatches(EncodeFp8(backend(), random, f), want_random), 0)
        << ref::fp8::FormatName(f) << " seed " << seed;
  }
}

TEST_P(CoatBackendTest, Group16BitIdentical) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 3);
  std::vector<float> x(16 * 4096 + 9);
  for (auto& v : x) v = static_cast<float>(rng.Normal() * std::exp(2.0 * rng.Normal()));
  for (const Format f : {Format::kE4M3, Format::kE5M2}) {
    const auto want = ref::coat::QuantizePerGroup16(x, f);
    const auto got = QuantizeGroup16(backend(), x, f);
    EXPECT_EQ(CountMismatches(got.codes, want.codes), 0);
    ASSERT_EQ(got.scales.size(), want.scales.size());
    int64_t bad_scales = 0;
    for (size_t i = 0; i < want.scales.size(); ++i) {
      bad_scales += std::bit_cast<uint32_t>(got.scales[i]) != std::bit_cast<uint32_t>(want.scales[i]);
    }
    EXPECT_EQ(bad_scales, 0);
  }
}

TEST_P(CoatBackendTest, DreWithinToleranceOfReference) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 4);
  const int64_t n = 128 * 2000 + 31;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) {
    // Moment-like: per-group scale, lognormal spread, some exact zeros; every
    // fifth group narrow (R < 2, so k > 16: the kernel does not cap it).
    const double group_scale = std::exp(2.0 * std::sin(double(i / 128)));
    const double spread = i / 128 % 5 == 0 ? (1.0 + 0.9 * rng.Uniform()) * (rng.Uniform() < 0.5 ? -1 : 1)
                                           : rng.Normal() * std::exp(1.5 * rng.Normal());
    x[i] = i % 97 == 0 ? 0.0f : static_cast<float>(group_scale * 1e-4 * spread);
  }
  const auto want = ref::coat::DreQuantize(x, {});
  const auto got = DreQuantize(backend(), x, {});
  ASSERT_EQ(got.groups.size(), want.groups.size());
  ASSERT_EQ(got.codes.size(), want.codes.size());
  int64_t k_differs = 0, far_codes = 0;
  for (size_t g = 0; g < want.groups.size(); ++g) {
    if (got.groups[g].k != want.groups[g].k) {
      ++k_differs;
      continue;
    }
    EXPECT_NEAR(got.groups[g].scale, want.groups[g].scale, 1e-5 * want.groups[g].scale);
    EXPECT_NEAR(got.groups[g].center, want.groups[g].center, 1e-6 * want.groups[g].center);
    for (int64_t i = int64_t(g) * 128; i < std::min<int64_t>(n, int64_t(g + 1) * 128); ++i) {
      far_codes += std::abs(int(got.codes[i] & 0x7F) - int(want.codes[i] & 0x7F)) > 1 ||
                   (got.codes[i] & 0x80) != (want.codes[i] & 0x80);
    }
  }
  EXPECT_LE(k_differs, int64_t(want.groups.size()) / 100);
  EXPECT_EQ(far_codes, 0);
  // Dequantization of the same tensor.
  const auto back_want = ref::coat::DreDequantize(want);
  const auto back_got = DreDequantize(backend(), want);
  int64_t far = 0;
  for (int64_t i = 0; i < n; ++i) {
    far += std::fabs(back_got[i] - back_want[i]) > 0x1p-3f * std::fabs(back_want[i]) + 1e-30f;
  }
  EXPECT_EQ(far, 0);
  // And the backend's own round trip stays within DRE's error: its NMSE
  // against the input, and its worst error at most kDreErrorBudget times the
  // reference round trip's (the naive version in the same FP8 precision).
  const auto input = AsDoubles(x), own = AsDoubles(DreDequantize(backend(), got)), naive = AsDoubles(back_want);
  EXPECT_TRUE(cb::testing::Nmse(own, input, 1e-3));
  EXPECT_TRUE(cb::testing::ErrorBudget(own, naive, input, kDreErrorBudget));
}

// A DRE tensor whose arrays do not fit its size is refused before any work
// (the CUDA kernels would read past them).
TEST_P(CoatBackendTest, DreDequantizeRefusesAMalformedTensor) {
  const std::vector<float> x(300, 1.5f);
  const ref::coat::DreTensor good = ref::coat::DreQuantize(x, {});
  ref::coat::DreTensor few_groups = good, few_codes = good;
  few_groups.groups.pop_back();
  few_codes.codes.pop_back();
  for (const auto* t : {&few_groups, &few_codes}) {
    try {
      DreDequantize(backend(), *t);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("DreDequantize: "), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(DreDequantize(backend(), good).size(), x.size());
}

CB_INSTANTIATE_BACKENDS(CoatBackendTest);

}  // namespace
}  // namespace cb::coat

// File: suites/coat/fp8_test.cpp
// Exhaustive tests of the FP8 emulator (reference/fp8.h): all 256 codes of
// each format, every rounding boundary (each midpoint and its two fp32
// neighbours, zero and saturation included), and an independent
// nearest-value oracle on a sweep of fp32 bit patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/random.h"
#include "reference/fp8.h"

namespace cb::ref::fp8 {
namespace {

constexpr Format kFormats[] = {Format::kE4M3, Format::kE5M2};

// Positive finite codes in increasing order of value: 0x00 .. max_finite_code.
std::vector<uint8_t> PositiveFiniteCodes(Format f) {
  std::vector<uint8_t> codes;
  for (int c = 0; c <= Info(f).max_finite_code; ++c) codes.push_back(static_cast<uint8_t>(c));
  return codes;
}

// Independent oracle: nearest finite value by search over the decoded table,
// ties to the even code, |x| >= max finite saturating, NaN canonical.
uint8_t OracleEncode(float x, Format f) {
  if (std::isnan(x)) return kCanonicalNaN;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(double(x));
  const auto codes = PositiveFiniteCodes(f);
  if (a >= Decode(codes.back(), f)) return sign | codes.back();
  auto it = std::upper_bound(codes.begin(), codes.end(), a,
                             [&](double v, uint8_t c) { return v < Decode(c, f); });
  const uint8_t hi = *it, lo = *(it - 1);
  const double dlo = a - Decode(lo, f), dhi = Decode(hi, f) - a;
  uint8_t pick = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1) == 0 ? lo : hi);
  return sign | pick;
}

TEST(Fp8, KnownAnswersE4M3) {
  EXPECT_EQ(EncodeE4M3(448.0f), 0x7E);
  EXPECT_EQ(EncodeE4M3(-448.0f), 0xFE);
  EXPECT_EQ(EncodeE4M3(1.0f), 0x38);
  EXPECT_EQ(EncodeE4M3(0x1p-6f), 0x08);             // min normal
  EXPECT_EQ(EncodeE4M3(0x1p-9f), 0x01);             // min subnormal
  EXPECT_EQ(EncodeE4M3(0x1p-10f), 0x00);            // tie between 0 and 2^-9: even (0)
  EXPECT_EQ(EncodeE4M3(-0x1p-10f), 0x80);           // ... keeping the sign
  EXPECT_EQ(EncodeE4M3(0x1.8p-9f), 0x02);           // tie between 1 and 2 (x 2^-9): even
  EXPECT_EQ(EncodeE4M3(464.0f), 0x7E);              // tie between 448 and 480: 448
  EXPECT_EQ(EncodeE4M3(465.0f), 0x7E);              // would round to 480 (NaN code): saturates
  EXPECT_EQ(EncodeE4M3(1e30f), 0x7E);
  EXPECT_EQ(EncodeE4M3(std::numeric_limits<float>::infinity()), 0x7E);
  EXPECT_EQ(EncodeE4M3(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(EncodeE4M3(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(EncodeE4M3(-std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(EncodeE4M3(-0.0f), 0x80);
  EXPECT_EQ(EncodeE4M3(std::numeric_limits<float>::denorm_min()), 0x00);
  EXPECT_EQ(Decode(0x7E, Format::kE4M3), 448.0f);
  EXPECT_TRUE(std::isnan(Decode(0x7F, Format::kE4M3)));
  EXPECT_TRUE(std::isnan(Decode(0xFF, Format::kE4M3)));
}

TEST(Fp8, KnownAnswersE5M2) {
  EXPECT_EQ(EncodeE5M2(57344.0f), 0x7B);
  EXPECT_EQ(EncodeE5M2(61440.0f), 0x7B);  // tie rounds to 65536 (inf): saturates
  EXPECT_EQ(EncodeE5M2(61439.0f), 0x7B);
  EXPECT_EQ(EncodeE5M2(1.0f), 0x3C);
  EXPECT_EQ(EncodeE5M2(0x1p-14f), 0x04);
  EXPECT_EQ(EncodeE5M2(0x1p-16f), 0x01);
  EXPECT_EQ(EncodeE5M2(0x1p-17f), 0x00);
  EXPECT_EQ(EncodeE5M2(-std::numeric_limits<float>::infinity()), 0xFB);
  EXPECT_EQ(EncodeE5M2(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_TRUE(std::isinf(Decode(0x7C, Format::kE5M2)));
  EXPECT_TRUE(std::isinf(Decode(0xFC, Format::kE5M2)));
  EXPECT_TRUE(std::isnan(Decode(0x7D, Format::kE5M2)));
}

TEST(Fp8, AllCodesRoundTrip) {
  for (const Format f : kFormats) {
    int nan_codes = 0, inf_codes = 0;
    for (int c = 0; c < 256; ++c) {
      const uint8_t code = static_cast<uint8_t>(c);
      const float v = Decode(code, f);
      if (std::isnan(v)) {
        ++nan_codes;
        EXPECT_EQ(Encode(v, f), kCanonicalNaN) << FormatName(f) << " code " << c;
      } else if (std::isinf(v)) {
        ++inf_codes;
        EXPECT_EQ(Encode(v, f), (code & 0x80) | Info(f).max_finite_code);
      } else {
        EXPECT_EQ(Encode(v, f), code) << FormatName(f) << " code " << c << " value " << v;
      }
    }
    EXPECT_EQ(nan_codes, f == Format::kE4M3 ? 2 : 6);
    EXPECT_EQ(inf_codes, f == Format::kE4M3 ? 0 : 2);
  }
}

TEST(Fp8, DecodedValuesAreOrderedAndSymmetric) {
  for (const Format f : kFormats) {
    const auto codes = PositiveFiniteCodes(f);
    for (size_t i = 1; i < codes.size(); ++i) {
      EXPECT_LT(Decode(codes[i - 1], f), Decode(codes[i], f)) << FormatName(f) << " " << i;
    }
    for (const uint8_t c : codes) {
      EXPECT_EQ(std::bit_cast<uint32_t>(Decode(c | 0x80, f)),
                std::bit_cast<uint32_t>(-Decode(c, f)));
    }
    EXPECT_EQ(Decode(codes.back(), f), Info(f).max_finite);
    EXPECT_EQ(Decode(1, f), Info(f).min_subnormal);
    EXPECT_EQ(Decode(static_cast<uint8_t>(1 << Info(f).mantissa_bits), f), Info(f).min_normal);
  }
}

TEST(Fp8, EveryRoundingBoundary) {
  for (const Format f : kFormats) {
    const auto codes = PositiveFiniteCodes(f);
    int checked = 0;
    for (size_t i = 0; i + 1 < codes.size(); ++i) {
      const float lo = Decode(codes[i], f), hi = Decode(codes[i + 1], f);
      const float mid = static_cast<float>((double(lo) + double(hi)) / 2.0);
      ASSERT_EQ(double(mid), (double(lo) + double(hi)) / 2.0);  // exact in fp32
      const uint8_t even = (codes[i] & 1) == 0 ? codes[i] : codes[i + 1];
      for (const uint8_t sign : {uint8_t{0x00}, uint8_t{0x80}}) {
        const float s = sign ? -1.0f : 1.0f;
        EXPECT_EQ(Encode(s * mid, f), sign | even) << FormatName(f) << " mid " << mid;
        EXPECT_EQ(Encode(s * std::nextafter(mid, 0.0f), f), sign | codes[i]);
        EXPECT_EQ(Encode(s * std::nextafter(mid, INFINITY), f), sign | codes[i + 1]);
        EXPECT_EQ(Encode(s * lo, f), sign | codes[i]);
      }
      ++checked;
    }
    EXPECT_EQ(checked, int(codes.size()) - 1);
    // Saturation boundary: max + half an ulp and everything above.
    const float max = Info(f).max_finite;
    const float ulp = max - Decode(codes.back() - 1, f);
    const float over_mid = max + ulp / 2.0f;
    for (const float x : {over_mid, std::nextafter(over_mid, 0.0f), std::nextafter(over_mid, INFINITY),
                          2.0f * max, std::numeric_limits<float>::max()}) {
      EXPECT_EQ(Encode(x, f), Info(f).max_finite_code) << FormatName(f) << " " << x;
      EXPECT_EQ(Encode(-x, f), 0x80 | Info(f).max_finite_code);
    }
  }
}

TEST(Fp8, MatchesNearestValueOracleOnBitPatternSweep) {
  for (const Format f : kFormats) {
    int64_t mismatches = 0, checked = 0;
    // Every 65521st fp32 bit pattern (all exponents, both signs), plus random
    // patterns concentrated on the FP8 range.
    for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 65521) {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(u));
      mismatches += Encode(x, f) != OracleEncode(x, f);
      ++checked;
    }
    harness::Rng rng(8, static_cast<uint64_t>(f));
    for (int i = 0; i < 200000; ++i) {
      const int exponent = static_cast<int>(rng.UniformInt(0, 40)) - 24;  // 2^-24 .. 2^16
      const float x = std::ldexp(static_cast<float>(rng.Uniform()) * 2.0f - 1.0f, exponent);
      mismatches += Encode(x, f) != OracleEncode(x, f);
      ++checked;
    }
    EXPECT_EQ(mismatches, 0) << FormatName(f) << " of " << checked;
  }
}

TEST(Fp8, SpanConversionsAgreeWithScalar) {
  const std::vector<float> x = {0.0f, -1.5f, 3.0e-3f, 500.0f, -7e4f, 1e-8f};
  for (const Format f : kFormats) {
    std::vector<uint8_t> q(x.size());
    EncodeSpan(x, q, f);
    std::vector<float> back(x.size());
    DecodeSpan(q, back, f);
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(q[i], Encode(x[i], f));
      EXPECT_EQ(back[i], Decode(q[i], f));
    }
    std::vector<uint8_t> wrong(1);
    EXPECT_THROW(EncodeSpan(x, wrong, f), std::invalid_argument);
  }
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(RoundToBf16(1.0f + 0x1p-8f), 1.0f);                   // tie: even
  EXPECT_EQ(RoundToBf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);     // tie: even (up)
  EXPECT_EQ(RoundToBf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_TRUE(std::isnan(RoundToBf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(RoundToBf16(448.0f), 448.0f);
}

}  // namespace
}  // namespace cb::ref::fp8

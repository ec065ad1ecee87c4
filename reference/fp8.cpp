// File: reference/fp8.cpp
// Bit-exact FP8 (E4M3fn, E5M2) encode/decode; see fp8.h for the semantics.
#include "reference/fp8.h"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cb::ref::fp8 {
namespace {

constexpr FormatInfo kE4M3Info{4, 3, 7, 0x7E, 448.0f, 0x1p-6f, 0x1p-9f};
constexpr FormatInfo kE5M2Info{5, 2, 15, 0x7B, 57344.0f, 0x1p-14f, 0x1p-16f};

// Decoding from the bit fields, in double (exact for every code).
float DecodeFromFields(uint8_t code, const FormatInfo& info) {
  const int m_bits = info.mantissa_bits;
  const int exp_field = (code >> m_bits) & ((1 << info.exponent_bits) - 1);
  const int mantissa = code & ((1 << m_bits) - 1);
  const bool negative = (code & 0x80) != 0;
  const int exp_all_ones = (1 << info.exponent_bits) - 1;
  if (info.exponent_bits == 4) {
    if (exp_field == exp_all_ones && mantissa == (1 << m_bits) - 1) {
      return std::numeric_limits<float>::quiet_NaN();  // E4M3fn: only S.1111.111
    }
  } else if (exp_field == exp_all_ones) {
    if (mantissa != 0) return std::numeric_limits<float>::quiet_NaN();
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  }
  double magnitude;
  if (exp_field == 0) {  // subnormal: mantissa * 2^(1 - bias - m_bits)
    magnitude = std::ldexp(double(mantissa), 1 - info.bias - m_bits);
  } else {
    magnitude = std::ldexp(1.0 + double(mantissa) / double(1 << m_bits), exp_field - info.bias);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

std::array<float, 256> BuildTable(const FormatInfo& info) {
  std::array<float, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = DecodeFromFields(static_cast<uint8_t>(c), info);
  return t;
}

// The shared encoder: RNE on the fp32 bits, with the target's exponent range.
// Normal targets round the fp32 bit pattern at (23 - m) bits, which carries
// into the exponent by itself; subnormal targets shift the full significand
// by the extra exponent distance first. Saturation is applied after rounding,
// so a value that rounds up past max finite (E4M3: > 464; E5M2: >= 61440)
// becomes max finite, while one that rounds down to it stays there.
inline uint8_t EncodeBits(float x, const FormatInfo& info) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint8_t sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  const uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return kCanonicalNaN;
  if (a == 0x7F800000u) return sign | info.max_finite_code;
  if (a < 0x00800000u) return sign;  // fp32 zero/subnormal: < 2^-126, far below half a step
  const int m_bits = info.mantissa_bits;
  const int e = static_cast<int>(a >> 23) - 127;
  const int e_min = 1 - info.bias;
  uint32_t code;
  if (e >= e_min) {
    const int drop = 23 - m_bits;
    const uint32_t rounded =
        (a + ((1u << (drop - 1)) - 1u) + ((a >> drop) & 1u)) >> drop;  // (exp127 << m) | mant
    code = rounded - (static_cast<uint32_t>(127 - info.bias) << m_bits);
  } else {
    const uint64_t significand = (a & 0x007FFFFFu) | 0x00800000u;  // value = sig * 2^(e-23)
    const int shift = 23 - m_bits + (e_min - e);                    // to units of 2^(e_min-m)
    if (shift >= 40) return sign;
    code = static_cast<uint32_t>(
        (significand + ((uint64_t{1} << (shift - 1)) - 1u) + ((significand >> shift) & 1u)) >>
        shift);
  }
  if (code > info.max_finite_code) code = info.max_finite_code;
  return static_cast<uint8_t>(sign | code);
}

}  // namespace

const char* FormatName(Format f) { return f == Format::kE4M3 ? "e4m3" : "e5m2"; }

const FormatInfo& Info(Format f) { return f == Format::kE4M3 ? kE4M3Info : kE5M2Info; }

uint8_t EncodeE4M3(float x) { return EncodeBits(x, kE4M3Info); }
uint8_t EncodeE5M2(float x) { return EncodeBits(x, kE5M2Info); }
uint8_t Encode(float x, Format f) { return EncodeBits(x, Info(f)); }

const std::array<float, 256>& DecodeTable(Format f) {
  static const std::array<float, 256> e4m3 = BuildTable(kE4M3Info);
  static const std::array<float, 256> e5m2 = BuildTable(kE5M2Info);
  return f == Format::kE4M3 ? e4m3 : e5m2;
}

float Decode(uint8_t code, Format f) { return DecodeTable(f)[code]; }

bool IsNaN(uint8_t code, Format f) { return std::isnan(Decode(code, f)); }

void EncodeSpan(std::span<const float> in, std::span<uint8_t> out, Format f) {
  if (in.size() != out.size()) throw std::invalid_argument("fp8::EncodeSpan: size mismatch");
  const FormatInfo& info = Info(f);
  for (size_t i = 0; i < in.size(); ++i) out[i] = EncodeBits(in[i], info);
}

void EncodeSpanDivided(std::span<const float> in, float divisor, std::span<uint8_t> out, Format f) {
  if (in.size() != out.size()) throw std::invalid_argument("fp8::EncodeSpanDivided: size mismatch");
  const FormatInfo& info = Info(f);
  for (size_t i = 0; i < in.size(); ++i) out[i] = EncodeBits(in[i] / divisor, info);
}

void DecodeSpan(std::span<const uint8_t> in, std::span<float> out, Format f) {
  if (in.size() != out.size()) throw std::invalid_argument("fp8::DecodeSpan: size mismatch");
  const auto& table = DecodeTable(f);
  for (size_t i = 0; i < in.size(); ++i) out[i] = table[in[i]];
}

float RoundToBf16(float x) {
  uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return std::bit_cast<float>((bits | 0x00400000u) & 0xFFFF0000u);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
  return std::bit_cast<float>(bits);
}

}  // namespace cb::ref::fp8

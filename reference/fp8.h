// File: reference/fp8.h
// -----------------------------------------------------------------------------
// Bit-exact emulation of the two OCP FP8 formats that NVIDIA's cuda_fp8.h
// implements, as used by COAT (Xi et al., ICLR 2025, §3-4: E4M3 for
// activations, weights and both AdamW moments; E5M2 for gradients).
//
//   E4M3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits. No infinities;
//           S.1111.111 is NaN. Max finite 448 (0x7E), min normal 2^-6,
//           min subnormal 2^-9.
//   E5M2:   1 sign, 5 exponent (bias 15), 2 mantissa bits, IEEE-like:
//           S.11111.00 is +-inf, S.11111.xx (xx != 0) NaN. Max finite 57344
//           (0x7B), min normal 2^-14, min subnormal 2^-16.
//
// Encode() is the conversion __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt)
// performs (PTX cvt.rn.satfinite.{e4m3,e5m2}x2.f32 on sm_89+):
//   - round to nearest, ties to even, on the exact fp32 value;
//   - a result beyond the largest finite value (including +-inf) saturates to
//     +-max finite (0x7E / 0x7B with the sign);
//   - NaN (any sign, any payload) becomes the canonical 0x7F (both formats);
//   - signed zeros and underflow keep their sign: -0.0 and tiny negatives
//     encode as 0x80.
// Decode() is exact (every FP8 value is an fp32 value).
#ifndef CB_REFERENCE_FP8_H_
#define CB_REFERENCE_FP8_H_

#include <array>
#include <cstdint>
#include <span>

namespace cb::ref::fp8 {

enum class Format { kE4M3, kE5M2 };
const char* FormatName(Format f);  // "e4m3" | "e5m2"

// The constants of a format (see the header comment).
struct FormatInfo {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  uint8_t max_finite_code;  // 0x7E | 0x7B
  float max_finite;         // 448 | 57344
  float min_normal;         // 2^-6 | 2^-14
  float min_subnormal;      // 2^-9 | 2^-16
};
const FormatInfo& Info(Format f);

inline constexpr uint8_t kCanonicalNaN = 0x7F;

// Encode()
//
// The FP8 code of x as described above (saturating, RNE, canonical NaN).
uint8_t Encode(float x, Format f);
uint8_t EncodeE4M3(float x);
uint8_t EncodeE5M2(float x);

// Decode()
//
// The exact value of a code: NaN for NaN codes, +-inf for E5M2's inf codes.
float Decode(uint8_t code, Format f);

// The 256 decoded values of a format, indexed by code (a table decode).
const std::array<float, 256>& DecodeTable(Format f);

bool IsNaN(uint8_t code, Format f);

// Bulk conversions. REQUIRES: in.size() == out.size().
void EncodeSpan(std::span<const float> in, std::span<uint8_t> out, Format f);
void DecodeSpan(std::span<const uint8_t> in, std::span<float> out, Format f);
// out[i] = Encode(in[i] / divisor): the scaled encode of a quantizer group
// (IEEE division, as the CUDA kernels do it; not a reciprocal multiply).
void EncodeSpanDivided(std::span<const float> in, float divisor, std::span<uint8_t> out, Format f);

// RoundToBf16()
//
// x rounded to bfloat16 (RNE on the upper 16 bits; NaN stays a quiet NaN),
// returned as the fp32 value it represents. COAT stores 1x16 activation
// scales in bf16.
float RoundToBf16(float x);

}  // namespace cb::ref::fp8

#endif  // CB_REFERENCE_FP8_H_

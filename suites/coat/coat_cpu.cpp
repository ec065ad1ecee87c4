// File: suites/coat/coat_cpu.cpp
// -----------------------------------------------------------------------------
// Fast CPU paths of COAT's quantizers (coat.h): E4M3 encode/decode on 8
// lanes, bit-identical to reference/fp8, used by the 1x16 activation
// quantizer (QuantizeGroup16Cpu, DequantizeCpu: same codes and bf16 scales as
// the reference, bit for bit) and by Dynamic Range Expansion (DreQuantizeCpu,
// DreDequantizeCpu), which is the reference's formulas (reference/coat/quant.h) with
//   - the group's max|x| and min nonzero |x| from AVX2 max/min (exact, so the
//     group's k, centre and scale are the reference's bits: both call
//     DreParamsFromExtrema);
//   - (|x|/c)^k as exp2(k log2(|x|/c)) and (|q| s)^(1/k) as
//     exp2(log2(|q| s) / k) with libmvec (harness/simd_math.h), instead of
//     two std::pow per element. libmvec is within 4 ulp, not correctly
//     rounded, so a value that lands within a few ulp of an FP8 rounding
//     boundary can get the neighbouring code: codes agree with the reference
//     except for such values (one step apart), dequantized values within a
//     relative tolerance (coat_cpu_test.cpp states and measures both);
//   - the divisions (|x|/c, y/s) are IEEE divisions as in the reference;
//   - E4M3 encode (RNE, saturating to +-448, -0 kept) and decode by integer
//     arithmetic on 8 lanes, bit-identical to reference/fp8 for every input
//     (tested exhaustively over the codes and on the rounding boundaries).
// Groups the vector loop does not take (a last group shorter than 128, a
// non-finite value, k <= 0) and CPUs without AVX2+FMA use the reference.
//
// Napkin math per 8 elements: quantize = abs, div, log2 (~20 ops), mul,
// exp2 (~15), div, encode (~10), pack; dequantize = decode (~8), mul, log2,
// mul, exp2, mul, sign: ~100 vector ops per 8 floats both ways, ~50 cycles
// at 2 per cycle: ~6 cycles per float, ~2 GB/s of fp32 at 3 GHz per core.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "harness/simd_math.h"
#include "suites/coat/coat.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // AVX values between always-inlined helpers

namespace cb::coat {
namespace {

namespace rc = ref::coat;
constexpr int kGroup = rc::kDreGroupSize;  // 128 = 16 vectors of 8

#if CB_HAVE_SIMD_MATH

// |x| of 8 floats (the sign bit cleared).
CB_TARGET_AVX2 inline __m256 Abs(__m256 x) {
  return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
}

// E4M3 codes (as int32 lanes, 0..255) of 8 floats: reference/fp8's
// EncodeBits vectorised. Normal targets round the fp32 bits at 20 bits
// (RNE, carry into the exponent); targets below 2^-6 are v * 2^9 rounded to
// an integer by the FPU (RNE) via the 2^23 trick; saturation after rounding
// (min with 0x7E, which also takes +inf); NaN gives 0x7F without sign.
CB_TARGET_AVX2 inline __m256i EncodeE4M3(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 24), _mm256_set1_epi32(0x80));
  const __m256i a = _mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFFFF));
  // Normal: ((a + 0x7FFFF + ((a >> 20) & 1)) >> 20) - (120 << 3).
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(a, 20), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(0x7FFFF)), odd), 20);
  const __m256i normal = _mm256_min_epi32(_mm256_sub_epi32(rounded, _mm256_set1_epi32(120 << 3)),
                                          _mm256_set1_epi32(0x7E));
  // Subnormal target (|v| < 2^-6): round(|v| * 512) in 0..8 (8 is the
  // smallest normal's code, so the two ranges meet exactly).
  const __m256 scaled = _mm256_add_ps(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_set1_ps(512.0f)),
                                      _mm256_set1_ps(8388608.0f));
  const __m256i sub = _mm256_sub_epi32(_mm256_castps_si256(scaled), _mm256_set1_epi32(0x4B000000));
  const __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x3C800000), a);  // a < 2^-6
  const __m256i code = _mm256_or_si256(_mm256_blendv_epi8(normal, sub, is_sub), sign);
  const __m256i is_nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F800000));
  return _mm256_blendv_epi8(code, _mm256_set1_epi32(0x7F), is_nan);
}

// The values of 8 E4M3 codes (int32 lanes, 0..255), exact: normal codes
// put the 7 bits under the fp32 exponent (rebias 7 -> 127), subnormal ones
// are mantissa * 2^-9, S.1111.111 is NaN.
CB_TARGET_AVX2 inline __m256 DecodeE4M3(__m256i code) {
  const __m256i mag = _mm256_and_si256(code, _mm256_set1_epi32(0x7F));
  const __m256 normal =
      _mm256_castsi256_ps(_mm256_add_epi32(_mm256_slli_epi32(mag, 20), _mm256_set1_epi32(120 << 23)));
  const __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(mag), _mm256_set1_ps(0x1p-9f));
  const __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(8), mag);
  __m256 v = _mm256_blendv_ps(normal, sub, _mm256_castsi256_ps(is_sub));
  const __m256i is_nan = _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7F));
  v = _mm256_blendv_ps(v, _mm256_set1_ps(NAN), _mm256_castsi256_ps(is_nan));
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(code, _mm256_set1_epi32(0x80)), 24);
  return _mm256_or_ps(v, _mm256_castsi256_ps(sign));
}

// 32 int32 codes (0..255) in four vectors -> 32 bytes in order.
CB_TARGET_AVX2 inline void StoreCodes(__m256i c0, __m256i c1, __m256i c2, __m256i c3, uint8_t* out) {
  const __m256i w01 = _mm256_packus_epi32(c0, c1);  // per 128-bit lane: c0 lo, c1 lo | c0 hi, c1 hi
  const __m256i w23 = _mm256_packus_epi32(c2, c3);
  const __m256i b = _mm256_packus_epi16(w01, w23);  // dwords: c0a c1a c2a c3a | c0b c1b c2b c3b
  const __m256i ordered = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ordered);
}

// max|x| and the min of |x| over the elements the minimum counts, for one
// full group; false when the group holds a non-finite value.
CB_TARGET_AVX2 bool GroupExtrema(const float* x, bool min_includes_zeros, float* max_abs, float* min_counted) {
  __m256 mx = _mm256_setzero_ps(), mn = _mm256_set1_ps(INFINITY);
  __m256 finite = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  const __m256 inf = _mm256_set1_ps(INFINITY);
  for (int i = 0; i < kGroup; i += 8) {
    const __m256 a = Abs(_mm256_loadu_ps(x + i));
    finite = _mm256_and_ps(finite, _mm256_cmp_ps(a, inf, _CMP_LT_OQ));  // false for inf and NaN
    mx = _mm256_max_ps(mx, a);
    const __m256 counted = min_includes_zeros ? a : _mm256_blendv_ps(a, inf, _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_EQ_OQ));
    mn = _mm256_min_ps(mn, counted);
  }
  if (_mm256_movemask_ps(finite) != 0xFF) return false;
  alignas(32) float m[8], n[8];
  _mm256_store_ps(m, mx);
  _mm256_store_ps(n, mn);
  *max_abs = *std::max_element(m, m + 8);
  *min_counted = *std::min_element(n, n + 8);
  return true;
}

// q = e4m3(sign(x) (|x|/c)^k / s) for one full group.
CB_TARGET_AVX2 void EncodeGroup(const float* x, const rc::DreGroup& g, uint8_t* out) {
  using harness::simd::Exp2;
  using harness::simd::Log2;
  const __m256 c = _mm256_set1_ps(g.center), k = _mm256_set1_ps(g.k), s = _mm256_set1_ps(g.scale);
  const __m256i sign_mask = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  for (int i = 0; i < kGroup; i += 32) {
    __m256i codes[4];
    for (int j = 0; j < 4; ++j) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * j);
      const __m256 ratio = _mm256_div_ps(Abs(v), c);
      const __m256 expanded = Exp2(_mm256_mul_ps(k, Log2(ratio)));  // 0 for ratio 0 (k > 0)
      const __m256 signed_y =
          _mm256_or_ps(expanded, _mm256_castsi256_ps(_mm256_and_si256(_mm256_castps_si256(v), sign_mask)));
      codes[j] = EncodeE4M3(_mm256_div_ps(signed_y, s));
    }
    StoreCodes(codes[0], codes[1], codes[2], codes[3], out + i);
  }
}

// x^ = sign(q) (|q| s)^(1/k) c for one full group.
CB_TARGET_AVX2 void DecodeGroup(const uint8_t* q, const rc::DreGroup& g, float* out) {
  using harness::simd::Exp2;
  using harness::simd::Log2;
  const __m256 c = _mm256_set1_ps(g.center), inv_k = _mm256_set1_ps(1.0f / g.k), s = _mm256_set1_ps(g.scale);
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  for (int i = 0; i < kGroup; i += 8) {
    int64_t eight;
    std::memcpy(&eight, q + i, sizeof eight);
    const __m256 scaled = _mm256_mul_ps(DecodeE4M3(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(eight))), s);
    const __m256 magnitude = _mm256_mul_ps(Exp2(_mm256_mul_ps(inv_k, Log2(Abs(scaled)))), c);
    _mm256_storeu_ps(out + i, _mm256_or_ps(magnitude, _mm256_and_ps(scaled, sign_bit)));
  }
}

// out[i] = e4m3(in[i] / divisor) for n % 8 == 0 (divisor 1: plain encode;
// an IEEE division, as the reference's EncodeSpanDivided does).
CB_TARGET_AVX2 void EncodeDividedAvx2(const float* in, float divisor, uint8_t* out, int64_t n) {
  const __m256 d = _mm256_set1_ps(divisor);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    StoreCodes(EncodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i), d)),
               EncodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i + 8), d)),
               EncodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i + 16), d)),
               EncodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i + 24), d)), out + i);
  }
  for (; i < n; i += 8) {
    alignas(32) int32_t c[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(c), EncodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i), d)));
    for (int l = 0; l < 8; ++l) out[i + l] = static_cast<uint8_t>(c[l]);
  }
}

// out[i] = decode(in[i]) * scale for n % 8 == 0.
CB_TARGET_AVX2 void DecodeScaledAvx2(const uint8_t* in, float scale, float* out, int64_t n) {
  const __m256 s = _mm256_set1_ps(scale);
  for (int64_t i = 0; i < n; i += 8) {
    int64_t eight;
    std::memcpy(&eight, in + i, sizeof eight);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(DecodeE4M3(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(eight))), s));
  }
}

// max|x| of n % 8 == 0 floats; NaN lanes are skipped as std::max skips them
// in the reference (max_ps returns its second operand when one is NaN).
CB_TARGET_AVX2 float AbsMaxAvx2(const float* x, int64_t n) {
  __m256 m = _mm256_setzero_ps();
  for (int64_t i = 0; i < n; i += 8) m = _mm256_max_ps(Abs(_mm256_loadu_ps(x + i)), m);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  return *std::max_element(lanes, lanes + 8);
}

#endif  // CB_HAVE_SIMD_MATH

bool UseSimd(bool use_simd) { return CB_HAVE_SIMD_MATH && use_simd && harness::CpuHasAvx2Fma(); }

// The vector loop takes a group when it is full and its exponent is a
// positive finite number (k = 0 would need pow(0, 0) = 1, which exp2(0 *
// -inf) does not give).
// A centre or scale that is 0, inf or NaN (groups holding inf or NaN) is
// left to the reference as well.
bool VectorGroup(int64_t len, const rc::DreGroup& g) {
  auto positive_finite = [](float v) { return v > 0 && std::isfinite(v); };
  return len == kGroup && positive_finite(g.k) && positive_finite(g.center) && positive_finite(g.scale);
}

}  // namespace

rc::DreTensor DreQuantizeCpu(std::span<const float> x, const rc::DreOptions& opt, bool use_simd) {
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd)) {
    rc::DreTensor t;
    t.size = static_cast<int64_t>(x.size());
    t.codes.resize(x.size());
    t.groups.resize((x.size() + kGroup - 1) / kGroup);
    for (size_t gi = 0; gi < t.groups.size(); ++gi) {
      const size_t begin = gi * kGroup;
      const size_t len = std::min<size_t>(kGroup, x.size() - begin);
      const auto group = x.subspan(begin, len);
      const auto codes = std::span<uint8_t>(t.codes).subspan(begin, len);
      float max_abs = 0, min_counted = 0;
      const bool finite_full = len == size_t(kGroup) &&
                               GroupExtrema(group.data(), opt.min_includes_zeros, &max_abs, &min_counted);
      t.groups[gi] = finite_full ? rc::DreParamsFromExtrema(max_abs, min_counted, opt) : rc::DreParams(group, opt);
      if (finite_full && VectorGroup(int64_t(len), t.groups[gi])) {
        EncodeGroup(group.data(), t.groups[gi], codes.data());
      } else {
        rc::DreEncodeGroup(group, t.groups[gi], codes);
      }
    }
    return t;
  }
#endif
  (void)use_simd;
  return rc::DreQuantize(x, opt);
}

void DreDequantizeCpu(const rc::DreTensor& t, std::span<float> out, bool use_simd) {
  if (static_cast<int64_t>(out.size()) != t.size) throw std::invalid_argument("DreDequantizeCpu: size mismatch");
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd)) {
    for (size_t gi = 0; gi < t.groups.size(); ++gi) {
      const size_t begin = gi * kGroup;
      const size_t len = std::min<size_t>(kGroup, out.size() - begin);
      if (VectorGroup(int64_t(len), t.groups[gi])) {
        DecodeGroup(t.codes.data() + begin, t.groups[gi], out.data() + begin);
      } else {
        rc::DreDecodeGroup(std::span<const uint8_t>(t.codes).subspan(begin, len), t.groups[gi],
                           out.subspan(begin, len));
      }
    }
    return;
  }
#endif
  (void)use_simd;
  rc::DreDequantizeInto(t, out);
}

void EncodeE4M3Cpu(std::span<const float> in, std::span<uint8_t> out, bool use_simd) {
  if (in.size() != out.size()) throw std::invalid_argument("EncodeE4M3Cpu: size mismatch");
  const int64_t n = static_cast<int64_t>(in.size()), vec = n & ~int64_t{7};
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd)) {
    EncodeDividedAvx2(in.data(), 1.0f, out.data(), vec);
    ref::fp8::EncodeSpan(in.subspan(vec), out.subspan(vec), ref::fp8::Format::kE4M3);
    return;
  }
#endif
  (void)vec;
  ref::fp8::EncodeSpan(in, out, ref::fp8::Format::kE4M3);
}

void DecodeE4M3Cpu(std::span<const uint8_t> in, std::span<float> out, bool use_simd) {
  if (in.size() != out.size()) throw std::invalid_argument("DecodeE4M3Cpu: size mismatch");
  const int64_t n = static_cast<int64_t>(in.size()), vec = n & ~int64_t{7};
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd)) {
    DecodeScaledAvx2(in.data(), 1.0f, out.data(), vec);
    ref::fp8::DecodeSpan(in.subspan(vec), out.subspan(vec), ref::fp8::Format::kE4M3);
    return;
  }
#endif
  (void)vec;
  ref::fp8::DecodeSpan(in, out, ref::fp8::Format::kE4M3);
}

rc::ScaledTensor QuantizeGroup16Cpu(std::span<const float> x, ref::fp8::Format f, bool use_simd) {
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd) && f == ref::fp8::Format::kE4M3) {
    constexpr int64_t kG = rc::kActGroupSize;
    const int64_t n = static_cast<int64_t>(x.size());
    rc::ScaledTensor t;
    t.format = f;
    t.group_size = kG;
    t.codes.resize(x.size());
    t.scales.resize((n + kG - 1) / kG);
    const int64_t full = n / kG;
    for (int64_t g = 0; g < full; ++g) {
      const float* group = x.data() + g * kG;
      // The reference's formula, same operations in the same order.
      const float scale = ref::fp8::RoundToBf16((AbsMaxAvx2(group, kG) + rc::kActEps) / 448.0f);
      t.scales[g] = scale;
      EncodeDividedAvx2(group, scale, t.codes.data() + g * kG, kG);
    }
    if (full * kG < n) {  // the short last group
      const auto tail = rc::QuantizePerGroup16(x.subspan(full * kG), f);
      t.scales.back() = tail.scales[0];
      std::copy(tail.codes.begin(), tail.codes.end(), t.codes.begin() + full * kG);
    }
    return t;
  }
#endif
  (void)use_simd;
  return rc::QuantizePerGroup16(x, f);
}

std::vector<float> DequantizeCpu(const rc::ScaledTensor& t, bool use_simd) {
#if CB_HAVE_SIMD_MATH
  if (UseSimd(use_simd) && t.format == ref::fp8::Format::kE4M3 && t.group_size % 8 == 0) {
    std::vector<float> out(t.codes.size());
    const int64_t n = static_cast<int64_t>(out.size()), gs = t.group_size, full = n / gs;
    for (int64_t g = 0; g < full; ++g) DecodeScaledAvx2(t.codes.data() + g * gs, t.scales[g], out.data() + g * gs, gs);
    const auto& table = ref::fp8::DecodeTable(t.format);
    for (int64_t i = full * gs; i < n; ++i) out[i] = table[t.codes[i]] * t.scales[full];
    return out;
  }
#endif
  (void)use_simd;
  return rc::Dequantize(t);
}

}  // namespace cb::coat

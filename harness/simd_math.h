// File: harness/simd_math.h
// -----------------------------------------------------------------------------
// Vector exp/log/pow for the CPU fast paths, from glibc's libmvec.
//
// The fast paths (MIA scoring, COAT's Dynamic Range Expansion, PF detection)
// are bound by transcendental functions, not by memory. glibc ships AVX2
// versions of them (libmvec, the same entry points GCC calls when it
// vectorises `expf` under -ffast-math); calling them directly gives 8 floats
// or 4 doubles per call without -ffast-math changing the rest of a file.
//
// Contract:
//   * Call the `simd::` functions only from code compiled for AVX2+FMA, i.e.
//     a function marked CB_TARGET_AVX2, and only after CpuHasAvx2Fma() said
//     true; keep a scalar path for other CPUs.
//   * CB_TARGET_AVX512 / CpuHasAvx512F() do the same for AVX-512F code (used
//     only with Exp2Reduced() below; libmvec's AVX-512 entry points are not
//     wrapped).
//   * Accuracy: within 4 ulp of the correctly rounded result over the ranges
//     harness/simd_math_test.cpp sweeps (glibc documents 1-2 ulp). A fast path
//     built on these agrees with its fp64 reference within a tolerance, never
//     bit for bit: say so in its test.
//
// Example:
//   CB_TARGET_AVX2 void ExpInPlace(float* x, int64_t n) {  // n % 8 == 0
//     for (int64_t i = 0; i < n; i += 8)
//       _mm256_storeu_ps(x + i, cb::harness::simd::Exp(_mm256_loadu_ps(x + i)));
//   }
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#define CB_HAVE_SIMD_MATH 1
#define CB_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define CB_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define CB_HAVE_SIMD_MATH 0
#define CB_TARGET_AVX2
#define CB_TARGET_AVX512
#endif

#include <cstring>

namespace cb::harness {

// True when this CPU executes AVX2 and FMA (checked once, then cached).
bool CpuHasAvx2Fma();
// True when this CPU also executes AVX-512F (cached).
bool CpuHasAvx512F();

namespace simd {

// Exp2Reduced()
//
// 2^u lane by lane for u in [-126, 127] (u < -126, -inf included, returns 0,
// as the AVX-512 form's vscalefps underflows: a term far below a sum's
// maximum then vanishes from 2^u u and 2^u u^2 too), in any
// GCC vector type V of floats with its same-size int32 twin I (8 lanes for
// AVX2, 16 for AVX-512, or a portable width). u = n + f with n = round(u),
// 2^f from a degree-4 polynomial on [-1/2, 1/2] (relative minimax with the
// constant term fixed at 1, so integer u is exact), 2^n added to the
// exponent bits. Relative error < 3e-6 (simd_math_test.cpp), i.e. ~2^-18,
// not the 4 ulp of the libmvec functions: use it where that is ample (sums of
// exponentials such as softmax statistics). NaN or +Inf in gives garbage,
// not NaN: callers that must see them check their inputs another way.
// Why it exists: it is ~9 vector operations with no special-case branches,
// about half of what libmvec's exp2f spends, and it inlines into AVX-512
// code; on the MIA scoring kernel that is the difference that matters.
// 2^f ~ 1 + f (c3 + f (c2 + f (c1 + f c0))) on [-1/2, 1/2]: {c0, c1, c2, c3}.
inline constexpr float kExp2Poly[4] = {0.0095828531f, 0.0559064246f, 0.240240986f, 0.693124193f};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // always inlined: no vector ABI is involved
template <class V, class I>
[[gnu::always_inline]] inline V Exp2Reduced(V u) {
  static_assert(sizeof(V) == sizeof(I), "V and I must have the same lane count");
  const V lowest = V{} - 126.0f;
  const V u_in = u;
  u = u < lowest ? lowest : u;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: t's low mantissa bits hold round(u)
  const V t = u + kRound;
  const V f = u - (t - kRound);  // [-1/2, 1/2]
  V p = f * kExp2Poly[0] + kExp2Poly[1];
  p = p * f + kExp2Poly[2];
  p = p * f + kExp2Poly[3];
  p = p * f + 1.0f;  // exact at f = 0: 2^n (a row's maximum, u = 0) has no error
  I p_bits, t_bits;
  std::memcpy(&p_bits, &p, sizeof p);
  std::memcpy(&t_bits, &t, sizeof t);
  p_bits += t_bits << 23;  // adds round(u) to the exponent (the offset bits shift out)
  std::memcpy(&p, &p_bits, sizeof p);
  return u_in < lowest ? V{} : p;
}
#pragma GCC diagnostic pop

}  // namespace simd
}  // namespace cb::harness

#if CB_HAVE_SIMD_MATH
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // the AVX argument ABI is what libmvec expects
// libmvec's AVX2 entry points (x86-64 vector function ABI names: 'd' = AVX2,
// 'N8' = 8 unmasked lanes, 'v' = one vector argument per 'v').
extern "C" {
__m256 _ZGVdN8v_expf(__m256);
__m256 _ZGVdN8v_exp2f(__m256);
__m256 _ZGVdN8v_logf(__m256);
__m256 _ZGVdN8v_log2f(__m256);
__m256 _ZGVdN8vv_powf(__m256, __m256);
__m256d _ZGVdN4v_exp(__m256d);
__m256d _ZGVdN4v_log(__m256d);
}

namespace cb::harness::simd {

CB_TARGET_AVX2 inline __m256 Exp(__m256 x) { return _ZGVdN8v_expf(x); }
CB_TARGET_AVX2 inline __m256 Exp2(__m256 x) { return _ZGVdN8v_exp2f(x); }
CB_TARGET_AVX2 inline __m256 Log(__m256 x) { return _ZGVdN8v_logf(x); }
CB_TARGET_AVX2 inline __m256 Log2(__m256 x) { return _ZGVdN8v_log2f(x); }
CB_TARGET_AVX2 inline __m256 Pow(__m256 x, __m256 y) { return _ZGVdN8vv_powf(x, y); }
CB_TARGET_AVX2 inline __m256d Exp(__m256d x) { return _ZGVdN4v_exp(x); }
CB_TARGET_AVX2 inline __m256d Log(__m256d x) { return _ZGVdN4v_log(x); }

// Exp2Reduced() for AVX-512 registers: the same polynomial (same error
// bound), with vrndscaleps for n and vscalefps for p * 2^n, which underflows
// to 0 by itself: no clamp, 7 operations. NaN in gives NaN; -inf gives NaN.
CB_TARGET_AVX512 inline __m512 Exp2Reduced(__m512 u) {
  // The maskz forms (all lanes set) because GCC 12's plain ones pass an
  // undefined merge operand that -Wuninitialized reports in every includer.
  const __mmask16 all = 0xFFFF;
  const __m512 n = _mm512_maskz_roundscale_ps(all, u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 f = _mm512_sub_ps(u, n);
  __m512 p = _mm512_fmadd_ps(f, _mm512_set1_ps(kExp2Poly[0]), _mm512_set1_ps(kExp2Poly[1]));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2Poly[2]));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2Poly[3]));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
  return _mm512_maskz_scalef_ps(all, p, n);
}

}  // namespace cb::harness::simd
#pragma GCC diagnostic pop
#endif  // CB_HAVE_SIMD_MATH

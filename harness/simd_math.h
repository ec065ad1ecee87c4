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
#else
#define CB_HAVE_SIMD_MATH 0
#define CB_TARGET_AVX2
#endif

namespace cb::harness {

// True when this CPU executes AVX2 and FMA (checked once, then cached).
bool CpuHasAvx2Fma();

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

}  // namespace cb::harness::simd
#pragma GCC diagnostic pop
#endif  // CB_HAVE_SIMD_MATH

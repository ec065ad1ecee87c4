// File: harness/philox_avx512.h
// -----------------------------------------------------------------------------
// Philox4x32-10 (harness/philox.h) on eight blocks at once with AVX-512F: the
// PF fast paths (suites/pf) and the cpu_philox4x32_10 ceiling
// (harness/philox_rate.h) share this one round function, so the ceiling is
// the rate of the very code the kernels run.
//
// Lane layout: each 64-bit lane holds one block as two 64-bit halves,
//   x = c0 | c1 << 32,   y = c2 | c3 << 32   (harness/philox.h's word order),
// so the counter of block `pair` of stream `stream` is simply x = pair,
// y = stream, and after the ten rounds x and y are exactly the 64-bit values
// PhiloxU64At(key, stream, 2 pair) and PhiloxU64At(key, stream, 2 pair + 1).
// One round in this layout (p = 32x32 -> 64 product of the low halves):
//   p0 = M0 * lo(x),  p1 = M1 * lo(y)                  (vpmuludq)
//   x' = swap32(p1 ^ (c1 ^ k0) << 32) = hi1^c1^k0 | lo1 << 32
//   y' = swap32(p0 ^ (c3 ^ k1) << 32) = hi0^c3^k1 | lo0 << 32
// where the xor touches only the odd 32-bit words (a merge-masked ternary
// xor: c1 already sits in x's high word), so a round is three instructions
// per half: multiply, masked xor, shuffle.
//
// Contract: call these only from functions marked CB_TARGET_AVX512_PHILOX and only
// after CpuRunsPhiloxAvx512() returned true; every caller keeps the scalar path
// (harness/philox.h) for other CPUs. suites/pf/pf_simd_test.cpp and
// harness/philox_rate_test.cpp check bit equality with harness/philox.h.
#ifndef CB_HARNESS_PHILOX_AVX512_H_
#define CB_HARNESS_PHILOX_AVX512_H_

#include <cstdint>

#include "harness/philox.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CB_HAVE_AVX512_PHILOX 1
// F: the 512-bit integer ops; DQ: 64-bit <-> double conversions and
// vpmullq; CD: vplzcntq; VL/BW for the 256-bit forms of the same.
#define CB_TARGET_AVX512_PHILOX __attribute__((target("avx512f,avx512dq,avx512cd,avx512vl,avx512bw,bmi,bmi2,popcnt")))
#else
#define CB_HAVE_AVX512_PHILOX 0
#define CB_TARGET_AVX512_PHILOX
#endif

namespace cb::harness {

// True when this CPU runs every extension CB_TARGET_AVX512_PHILOX names (asked
// once per process).
bool CpuRunsPhiloxAvx512();

#if CB_HAVE_AVX512_PHILOX
namespace avx512 {

// The ten round keys of `key` (broadcast from memory inside the rounds,
// which keeps the vector registers for the blocks).
struct PhiloxRoundKeys {
  uint32_t k0[10];
  uint32_t k1[10];
};

CB_TARGET_AVX512_PHILOX inline PhiloxRoundKeys MakeRoundKeys(uint64_t key) {
  PhiloxRoundKeys rk;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < 10; ++r) {
    rk.k0[r] = k0;
    rk.k1[r] = k1;
    k0 += philox_internal::kWeyl0;
    k1 += philox_internal::kWeyl1;
  }
  return rk;
}

// Ten rounds on G independent groups of eight blocks (G > 1 keeps several
// multiply chains in flight). x[g], y[g]: counters in, 64-bit words out.
template <int G>
CB_TARGET_AVX512_PHILOX inline void Philox10(__m512i (&x)[G], __m512i (&y)[G], const PhiloxRoundKeys& rk) {
  const __m512i m0 = _mm512_set1_epi64(philox_internal::kMultiplier0);
  const __m512i m1 = _mm512_set1_epi64(philox_internal::kMultiplier1);
  constexpr __mmask16 kOdd = 0xAAAA;
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
    const __m512i k0 = _mm512_set1_epi32(static_cast<int>(rk.k0[r]));
    const __m512i k1 = _mm512_set1_epi32(static_cast<int>(rk.k1[r]));
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const __m512i p0 = _mm512_mul_epu32(x[g], m0);
      const __m512i p1 = _mm512_mul_epu32(y[g], m1);
      // 0x96: a ^ b ^ c on the odd (high) words; the even words keep p.
      const __m512i tx = _mm512_mask_ternarylogic_epi32(p1, kOdd, x[g], k0, 0x96);
      const __m512i ty = _mm512_mask_ternarylogic_epi32(p0, kOdd, y[g], k1, 0x96);
      const __m512i nx = _mm512_shuffle_epi32(tx, _MM_PERM_CDAB);
      const __m512i ny = _mm512_shuffle_epi32(ty, _MM_PERM_CDAB);
      x[g] = nx;
      y[g] = ny;
    }
  }
}

// Blocks first .. first + 8 G - 1 of one stream (`stream` broadcast to
// every lane): lane j of chain g is block first + 8 g + j, its words left in
// x[g], y[g]. The PF samplers and the Philox ceiling both draw this way.
template <int G>
CB_TARGET_AVX512_PHILOX inline void PhiloxConsecutive(uint64_t first, __m512i stream,
                                                      const PhiloxRoundKeys& rk, __m512i (&x)[G],
                                                      __m512i (&y)[G]) {
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    x[g] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first + 8 * g)), lane);
    y[g] = stream;
  }
  Philox10<G>(x, y, rk);
}

}  // namespace avx512
#endif  // CB_HAVE_AVX512_PHILOX

}  // namespace cb::harness

#endif  // CB_HARNESS_PHILOX_AVX512_H_

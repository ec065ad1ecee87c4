// File: suites/pf/philox_avx512.h
// -----------------------------------------------------------------------------
// Philox4x32-10 (harness/philox.h) on eight blocks at once with AVX-512F, for
// the PF fast paths: sampling draws one block per pair of tokens, detection
// one block per position.
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
// Contract: call these only from functions marked CB_PF_TARGET_AVX512 and only
// after CpuHasAvx512() returned true; every caller keeps the scalar path
// (harness/philox.h) for other CPUs. pf_simd_test.cpp checks bit equality
// with harness/philox.h over many keys, streams and counters.
#ifndef CB_SUITES_PF_PHILOX_AVX512_H_
#define CB_SUITES_PF_PHILOX_AVX512_H_

#include <cstdint>

#include "harness/philox.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CB_PF_HAVE_AVX512 1
// F: the 512-bit integer ops; DQ: 64-bit <-> double conversions and
// vpmullq; CD: vplzcntq; VL/BW for the 256-bit forms of the same.
#define CB_PF_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512cd,avx512vl,avx512bw,bmi,bmi2,popcnt")))
#else
#define CB_PF_HAVE_AVX512 0
#define CB_PF_TARGET_AVX512
#endif

namespace cb::pf {

// True when this CPU runs AVX-512 F, DQ, CD, VL and BW (checked once).
// The environment variable CB_PF_NO_AVX512=1 forces false, so the scalar
// fallback can be measured and tested on an AVX-512 machine.
bool CpuHasAvx512();

// words[2 j] and words[2 j + 1] = PhiloxU64At(key, stream, 2 (first_pair + j))
// and (... + 1) for j < pairs: the per-token 64-bit words of tokens
// 2 first_pair .. 2 (first_pair + pairs) - 1. AVX-512 when `vector` (requires
// CpuHasAvx512()), else harness/philox.h. Exposed for the equality test.
void PhiloxPairWords(uint64_t key, uint64_t stream, uint64_t first_pair, int64_t pairs,
                     uint64_t* words, bool vector);

// words[i] = PhiloxU64At(key, streams[i], indices[i]) for i < n (one stream
// per element: detection's per-position keyed PRF). Same dispatch as above.
void PhiloxGatherWords(uint64_t key, const uint64_t* streams, const uint64_t* indices, int64_t n,
                       uint64_t* words, bool vector);

#if CB_PF_HAVE_AVX512
namespace avx512 {

// The ten round keys of `key` (broadcast from memory inside the rounds,
// which keeps the vector registers for the blocks).
struct PhiloxRoundKeys {
  uint32_t k0[10];
  uint32_t k1[10];
};

CB_PF_TARGET_AVX512 inline PhiloxRoundKeys MakeRoundKeys(uint64_t key) {
  PhiloxRoundKeys rk;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < 10; ++r) {
    rk.k0[r] = k0;
    rk.k1[r] = k1;
    k0 += cb::harness::philox_internal::kWeyl0;
    k1 += cb::harness::philox_internal::kWeyl1;
  }
  return rk;
}

// Ten rounds on G independent groups of eight blocks (G > 1 keeps several
// multiply chains in flight). x[g], y[g]: counters in, 64-bit words out.
template <int G>
CB_PF_TARGET_AVX512 inline void Philox10(__m512i (&x)[G], __m512i (&y)[G], const PhiloxRoundKeys& rk) {
  const __m512i m0 = _mm512_set1_epi64(cb::harness::philox_internal::kMultiplier0);
  const __m512i m1 = _mm512_set1_epi64(cb::harness::philox_internal::kMultiplier1);
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

}  // namespace avx512
#endif  // CB_PF_HAVE_AVX512

}  // namespace cb::pf

#endif  // CB_SUITES_PF_PHILOX_AVX512_H_

// File: suites/pf/philox_avx512.cpp
// -----------------------------------------------------------------------------
// CPU check and the two array forms of suites/pf/philox_avx512.h.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 on _mm512_undefined in the intrinsics headers
#include "suites/pf/philox_avx512.h"

#include <cstdlib>
#include <cstring>

namespace cb::pf {

bool CpuHasAvx512() {
  static const bool has = [] {
    const char* off = std::getenv("CB_PF_NO_AVX512");
    if (off != nullptr && std::strcmp(off, "1") == 0) return false;
    return cb::harness::CpuRunsPhiloxAvx512();
  }();
  return has;
}

namespace {

#if CB_HAVE_AVX512_PHILOX
CB_TARGET_AVX512_PHILOX void PairWordsAvx512(uint64_t key, uint64_t stream, uint64_t first_pair,
                                             int64_t pairs, uint64_t* words) {
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(key);
  const __m512i stream_v = _mm512_set1_epi64(static_cast<long long>(stream));
  int64_t j = 0;
  for (; j + 8 <= pairs; j += 8) {
    __m512i x[1], y[1];
    avx512::PhiloxConsecutive<1>(first_pair + static_cast<uint64_t>(j), stream_v, rk, x, y);
    // Interleave: token 2p (x) then 2p + 1 (y).
    const __m512i lo = _mm512_unpacklo_epi64(x[0], y[0]);  // pairs 0,2,4,6 of each 128-bit lane
    const __m512i hi = _mm512_unpackhi_epi64(x[0], y[0]);
    const __m512i first = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), hi);
    const __m512i second = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), hi);
    _mm512_storeu_si512(words + 2 * j, first);
    _mm512_storeu_si512(words + 2 * j + 8, second);
  }
  for (; j < pairs; ++j) {
    words[2 * j] = cb::harness::PhiloxU64At(key, stream, 2 * (first_pair + j));
    words[2 * j + 1] = cb::harness::PhiloxU64At(key, stream, 2 * (first_pair + j) + 1);
  }
}

CB_TARGET_AVX512_PHILOX void GatherWordsAvx512(uint64_t key, const uint64_t* streams,
                                               const uint64_t* indices, int64_t n,
                                               uint64_t* words) {
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(key);
  const __m512i one = _mm512_set1_epi64(1);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i index = _mm512_loadu_si512(indices + i);
    __m512i x[1] = {_mm512_srli_epi64(index, 1)};
    __m512i y[1] = {_mm512_loadu_si512(streams + i)};
    avx512::Philox10<1>(x, y, rk);
    // Odd index: the second half of the block.
    const __mmask8 odd = _mm512_test_epi64_mask(index, one);
    _mm512_storeu_si512(words + i, _mm512_mask_blend_epi64(odd, x[0], y[0]));
  }
  for (; i < n; ++i) words[i] = cb::harness::PhiloxU64At(key, streams[i], indices[i]);
}
#endif

}  // namespace

void PhiloxPairWords(uint64_t key, uint64_t stream, uint64_t first_pair, int64_t pairs,
                     uint64_t* words, bool vector) {
#if CB_HAVE_AVX512_PHILOX
  if (vector) return PairWordsAvx512(key, stream, first_pair, pairs, words);
#else
  (void)vector;
#endif
  for (int64_t j = 0; j < pairs; ++j) {
    words[2 * j] = cb::harness::PhiloxU64At(key, stream, 2 * (first_pair + j));
    words[2 * j + 1] = cb::harness::PhiloxU64At(key, stream, 2 * (first_pair + j) + 1);
  }
}

void PhiloxGatherWords(uint64_t key, const uint64_t* streams, const uint64_t* indices, int64_t n,
                       uint64_t* words, bool vector) {
#if CB_HAVE_AVX512_PHILOX
  if (vector) return GatherWordsAvx512(key, streams, indices, n, words);
#else
  (void)vector;
#endif
  for (int64_t i = 0; i < n; ++i) words[i] = cb::harness::PhiloxU64At(key, streams[i], indices[i]);
}

}  // namespace cb::pf

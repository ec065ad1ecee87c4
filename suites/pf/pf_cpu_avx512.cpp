// File: suites/pf/pf_cpu_avx512.cpp
// -----------------------------------------------------------------------------
// AVX-512 scan of one row for PF (exponential) and softmax (Gumbel) noise:
// the same token as reference/pf/pf.cpp NoisyArgmax, found faster.
//
// Per step of 128 tokens (64 Philox blocks, eight vectors of eight):
//   1. Skip the step before any Philox when every logit is below L, with
//      L / T + 56 ln 2 <= best: the noise is at most 53 ln 2 (pf_cpu_internal.h),
//      so no token of the group can reach the best; 3 ln 2 of margin covers
//      the fp64 rounding of (best - 56 ln 2) T while |best| < 2^48.
//   2. Otherwise Philox4x32-10 for the 64 blocks (philox_avx512.h), and per
//      token the bound  a + (2 + lz) ln 2,  a = logit / T (by a multiply),
//      lz = leading zeros of the token's 64-bit word (PF) or of its complement
//      (Gumbel, the bits of 1 - r). With lz leading zeros r >= 2^-(1+lz), so
//      -log r <= (1 + lz) ln 2; for Gumbel -log(-log r) <= -log(1 - r) and
//      1 - r >= 2^-(1+lz). The extra ln 2 covers the multiply-for-divide and
//      the rounding of the sums while |a| < 2^49; a token with |a| >= 2^49
//      is either far above best (a candidate anyway) or far below (|best| <
//      2^48 is kept, see below).
//   3. Tokens whose bound exceeds the best are evaluated exactly
//      (ExactValue, the reference's expression with glibc's log), in id order.
// Once |best| >= 2^48 the margins above no longer hold, so the rest of the
// range is scanned by the scalar path and merged (ties to the lower id).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 on _mm512_undefined in the intrinsics headers
#include <cmath>
#include <cstring>

#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf::internal {

#if CB_PF_HAVE_AVX512
namespace {

constexpr double kBestLimit = 0x1p48;
// Tokens per step: kGroups vectors of eight Philox blocks (two tokens each);
// eight independent chains hide the multiply latency. Measured on the
// development machine (AMD EPYC, Zen 5 class, one thread, V = 131072): 1, 2,
// 4, 8, 12 chains took 87, 75, 58, 46.5, 48 us per row.
constexpr int kGroups = 8;
constexpr int64_t kStep = 16 * kGroups;

// The largest float L with L <= (best - 56 ln 2) * T: a logit below it cannot win.
float SkipThreshold(const Best& best, double temperature) {
  if (best.index < 0) return -INFINITY;
  const double l = (best.value - 56 * kLn2) * temperature;
  float f = static_cast<float>(l);
  if (static_cast<double>(f) > l) f = std::nextafter(f, -INFINITY);
  return f;
}

}  // namespace

CB_PF_TARGET_AVX512 Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end,
                                      double temperature, Noise noise, uint64_t key,
                                      uint64_t stream) {
  Best best;
  const double inv_t = 1.0 / temperature;
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(key);
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i stream_v = _mm512_set1_epi64(static_cast<long long>(stream));
  // Gumbel bounds use the complement of the word (the bits of 1 - r).
  const __m512i flip = noise == Noise::kGumbel ? _mm512_set1_epi64(-1) : _mm512_setzero_si512();
  // Even-indexed floats to the low half, odd to the high half.
  const __m512i deinterleave =
      _mm512_set_epi32(15, 13, 11, 9, 7, 5, 3, 1, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512d inv_t_v = _mm512_set1_pd(inv_t);
  const __m512d ln2_v = _mm512_set1_pd(kLn2);
  const __m512d two_ln2_v = _mm512_set1_pd(2 * kLn2);
  __m512 skip_v = _mm512_set1_ps(-INFINITY);
  __m512d best_v = _mm512_set1_pd(-INFINITY);

  int64_t i0 = begin;
  for (; i0 + kStep <= end; i0 += kStep) {
    if (best.index >= 0 && !(std::fabs(best.value) < kBestLimit)) break;
    __m512 logits[kGroups];
    __mmask16 live = 0;
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      logits[g] = _mm512_loadu_ps(row + i0 + 16 * g);
      live |= _mm512_cmp_ps_mask(logits[g], skip_v, _CMP_GE_OQ);
    }
    if (live == 0) continue;

    const long long pair0 = static_cast<long long>(i0 >> 1);
    __m512i x[kGroups], y[kGroups];
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      x[g] = _mm512_add_epi64(_mm512_set1_epi64(pair0 + 8 * g), lane);
      y[g] = stream_v;
    }
    avx512::Philox10<kGroups>(x, y, rk);

    bool changed = false;
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      // x[g] lane j: token i0 + 16 g + 2 j; y[g] lane j: the next token.
      const __m512 split = _mm512_permutexvar_ps(deinterleave, logits[g]);
      const __m512d a_even = _mm512_cvtps_pd(_mm512_castps512_ps256(split));
      const __m512d a_odd = _mm512_cvtps_pd(_mm512_extractf32x8_ps(split, 1));
      const __m512d lz_even = _mm512_cvtepi64_pd(_mm512_lzcnt_epi64(_mm512_xor_si512(x[g], flip)));
      const __m512d lz_odd = _mm512_cvtepi64_pd(_mm512_lzcnt_epi64(_mm512_xor_si512(y[g], flip)));
      const __m512d bound_even =
          _mm512_fmadd_pd(lz_even, ln2_v, _mm512_fmadd_pd(a_even, inv_t_v, two_ln2_v));
      const __m512d bound_odd =
          _mm512_fmadd_pd(lz_odd, ln2_v, _mm512_fmadd_pd(a_odd, inv_t_v, two_ln2_v));
      const __mmask8 c_even = _mm512_cmp_pd_mask(bound_even, best_v, _CMP_GT_OQ);
      const __mmask8 c_odd = _mm512_cmp_pd_mask(bound_odd, best_v, _CMP_GT_OQ);
      if ((c_even | c_odd) == 0) continue;
      alignas(64) uint64_t words[2][8];
      _mm512_store_si512(words[0], x[g]);
      _mm512_store_si512(words[1], y[g]);
      // Candidates in id order: bit 2j = x lane j, bit 2j + 1 = y lane j.
      uint32_t candidates = _pdep_u32(c_even, 0x5555u) | _pdep_u32(c_odd, 0xAAAAu);
      const int64_t base = i0 + 16 * g;
      while (candidates != 0) {
        const int b = __builtin_ctz(candidates);
        candidates &= candidates - 1;
        const float logit = row[base + b];
        if (logit == -INFINITY) continue;
        const double v = ExactValue(logit, temperature, noise, words[b & 1][b >> 1]);
        if (Better(v, base + b, best)) {
          best = {base + b, v};
          changed = true;
        }
      }
      if (changed) best_v = _mm512_set1_pd(best.value);
    }
    if (changed) skip_v = _mm512_set1_ps(SkipThreshold(best, temperature));
  }
  // The tail (fewer than kStep tokens), or the rest once |best| is too large.
  if (i0 < end) Merge(best, ScanRangeScalar(row, i0, end, temperature, noise, key, stream));
  return best;
}
#else
Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream) {
  return ScanRangeScalar(row, begin, end, temperature, noise, key, stream);
}
#endif

}  // namespace cb::pf::internal

// -----------------------------------------------------------------------------
// Input scan and greedy argmax (one read each).
namespace cb::pf::internal {

#if CB_PF_HAVE_AVX512
namespace {

CB_PF_TARGET_AVX512 void ScanLogitsAvx512(const float* row, int64_t n, bool* bad, bool* any_finite) {
  const __m512 inf = _mm512_set1_ps(INFINITY), neg_inf = _mm512_set1_ps(-INFINITY);
  __mmask16 not_below_inf = 0, above_neg_inf = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(row + i);
    not_below_inf |= _mm512_cmp_ps_mask(v, inf, _CMP_NLT_UQ);  // NaN or +inf
    above_neg_inf |= _mm512_cmp_ps_mask(v, neg_inf, _CMP_GT_OQ);
  }
  bool b = not_below_inf != 0, f = above_neg_inf != 0;
  for (; i < n; ++i) {
    b = b || !(row[i] < INFINITY);
    f = f || row[i] > -INFINITY;
  }
  *bad = b;
  *any_finite = f;
}

CB_PF_TARGET_AVX512 int64_t ArgmaxAvx512(const float* row, int64_t n) {
  // Per lane of four accumulators: the largest value and the first index
  // holding it (strictly greater replaces, so each lane keeps its lowest
  // index); four chains hide the compare -> blend latency.
  constexpr int kChains = 4;
  __m512 best[kChains];
  __m512i best_index[kChains];
  __m512i index[kChains];
  for (int c = 0; c < kChains; ++c) {
    best[c] = _mm512_set1_ps(-INFINITY);
    best_index[c] = _mm512_set1_epi32(-1);
    index[c] = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                _mm512_set1_epi32(16 * c));
  }
  const __m512i step = _mm512_set1_epi32(16 * kChains);
  int64_t i = 0;
  for (; i + 16 * kChains <= n; i += 16 * kChains) {
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      const __m512 v = _mm512_loadu_ps(row + i + 16 * c);
      const __mmask16 gt = _mm512_cmp_ps_mask(v, best[c], _CMP_GT_OQ);
      best[c] = _mm512_mask_mov_ps(best[c], gt, v);
      best_index[c] = _mm512_mask_mov_epi32(best_index[c], gt, index[c]);
      index[c] = _mm512_add_epi32(index[c], step);
    }
  }
  int64_t arg = -1;
  float value = -INFINITY;
  for (int c = 0; c < kChains; ++c) {
    alignas(64) float values[16];
    alignas(64) int32_t indices[16];
    _mm512_store_ps(values, best[c]);
    _mm512_store_si512(indices, best_index[c]);
    for (int l = 0; l < 16; ++l) {
      if (indices[l] < 0) continue;
      if (arg < 0 || values[l] > value || (values[l] == value && indices[l] < arg)) {
        arg = indices[l];
        value = values[l];
      }
    }
  }
  for (; i < n; ++i)
    if (arg < 0 || row[i] > value) {
      arg = i;
      value = row[i];
    }
  return arg;
}

}  // namespace
#endif

void ScanLogits(const float* row, int64_t n, bool vector, bool* bad, bool* any_finite) {
#if CB_PF_HAVE_AVX512
  if (vector) return ScanLogitsAvx512(row, n, bad, any_finite);
#else
  (void)vector;
#endif
  bool b = false, f = false;
  for (int64_t i = 0; i < n; ++i) {
    b = b || !(row[i] < INFINITY);
    f = f || row[i] > -INFINITY;
  }
  *bad = b;
  *any_finite = f;
}

int64_t ArgmaxRow(const float* row, int64_t n, bool vector) {
#if CB_PF_HAVE_AVX512
  if (vector) return ArgmaxAvx512(row, n);
#else
  (void)vector;
#endif
  int64_t arg = -1;
  for (int64_t i = 0; i < n; ++i)
    if (arg < 0 || row[i] > row[arg]) arg = i;
  return arg;
}

}  // namespace cb::pf::internal

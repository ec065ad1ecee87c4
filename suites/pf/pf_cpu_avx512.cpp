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
//   3. One test for the whole step: at each of the sixteen positions of a
//      vector, the bound of the largest logit and the most leading zeros
//      over the eight groups. The bound is non-decreasing in both, so when
//      no position beats the best, no token of the step can, and the step
//      ends here (most steps, once the best is high; the per-token bounds
//      are ~17 vector instructions per eight blocks, counted in the code,
//      against Philox's 60).
//   4. Otherwise the per-token bounds, and the tokens whose bound exceeds
//      the best are evaluated exactly (ExactValue, the reference's expression
//      with glibc's log), in id order.
// Once |best| >= 2^48 the margins above no longer hold, so the rest of the
// range is scanned by the scalar path and merged (ties to the lower id).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 on _mm512_undefined in the intrinsics headers
#include <cmath>
#include <cstring>

#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf::internal {

#if CB_HAVE_AVX512_PHILOX
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

// The fp64 constants of the per-token bound a / T + (2 + lz) ln 2.
struct BoundConstants {
  __m512i deinterleave;  // even-indexed floats to the low half, odd to the high
  __m512d inv_t, ln2, two_ln2;
};

// Which of sixteen tokens (logits `l`, in id order; their words' leading
// zeros lz_x for the even tokens, lz_y for the odd, as 64-bit lanes) have a
// bound above `best`: bit j of *even / *odd for token 2j / 2j + 1. The
// bound is non-decreasing in the logit and in lz (fp64 FMAs round
// monotonically), which the step test below relies on.
CB_TARGET_AVX512_PHILOX inline void AboveBest(__m512 l, __m512i lz_x, __m512i lz_y, __m512d best,
                                              const BoundConstants& k, __mmask8* even,
                                              __mmask8* odd) {
  const __m512 split = _mm512_permutexvar_ps(k.deinterleave, l);
  const __m512d a_even = _mm512_cvtps_pd(_mm512_castps512_ps256(split));
  const __m512d a_odd = _mm512_cvtps_pd(_mm512_extractf32x8_ps(split, 1));
  const __m512d bound_even = _mm512_fmadd_pd(_mm512_cvtepi64_pd(lz_x), k.ln2,
                                             _mm512_fmadd_pd(a_even, k.inv_t, k.two_ln2));
  const __m512d bound_odd = _mm512_fmadd_pd(_mm512_cvtepi64_pd(lz_y), k.ln2,
                                            _mm512_fmadd_pd(a_odd, k.inv_t, k.two_ln2));
  *even = _mm512_cmp_pd_mask(bound_even, best, _CMP_GT_OQ);
  *odd = _mm512_cmp_pd_mask(bound_odd, best, _CMP_GT_OQ);
}

// The word whose leading zeros bound the noise: for Gumbel its complement
// (the bits of 1 - r), for PF the word itself.
template <bool kGumbel>
CB_TARGET_AVX512_PHILOX inline __m512i BoundWord(__m512i w) {
  return kGumbel ? _mm512_xor_si512(w, _mm512_set1_epi64(-1)) : w;
}

// The scan for one noise, so PF pays no complement.
template <bool kGumbel>
CB_TARGET_AVX512_PHILOX Best ScanRange(const float* row, int64_t begin, int64_t end,
                                       double temperature, uint64_t key, uint64_t stream,
                                       bool* bad) {
  const Noise noise = kGumbel ? Noise::kGumbel : Noise::kExponential;
  Best best;
  const double inv_t = 1.0 / temperature;
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(key);
  const __m512i stream_v = _mm512_set1_epi64(static_cast<long long>(stream));
  const BoundConstants k{_mm512_set_epi32(15, 13, 11, 9, 7, 5, 3, 1, 14, 12, 10, 8, 6, 4, 2, 0),
                         _mm512_set1_pd(inv_t), _mm512_set1_pd(kLn2), _mm512_set1_pd(2 * kLn2)};
  __m512 skip_v = _mm512_set1_ps(-INFINITY);
  __m512d best_v = _mm512_set1_pd(-INFINITY);
  // fpclass categories: quiet NaN, +inf, signalling NaN.
  constexpr int kNanOrPlusInf = 0x01 | 0x08 | 0x80;
  __mmask16 nan_or_inf = 0;

  int64_t i0 = begin;
  for (; i0 + kStep <= end; i0 += kStep) {
    if (best.index >= 0 && !(std::fabs(best.value) < kBestLimit)) break;
    // Per position of the sixteen, the largest logit over the eight groups
    // (for the skip and the step test: one compare per step instead of one
    // per group), and every group's class check, kept in a mask register.
    const float* step = row + i0;
    __m512 l_max = _mm512_loadu_ps(step);
    nan_or_inf = _kor_mask16(nan_or_inf, _mm512_fpclass_ps_mask(l_max, kNanOrPlusInf));
#pragma GCC unroll 8
    for (int g = 1; g < kGroups; ++g) {
      const __m512 l = _mm512_loadu_ps(step + 16 * g);
      l_max = _mm512_max_ps(l_max, l);
      nan_or_inf = _kor_mask16(nan_or_inf, _mm512_fpclass_ps_mask(l, kNanOrPlusInf));
    }
    // (A NaN can hide a position's maximum here; the row is then refused.)
    if (_mm512_cmp_ps_mask(l_max, skip_v, _CMP_GE_OQ) == 0) continue;

    __m512i x[kGroups], y[kGroups];
    avx512::PhiloxConsecutive<kGroups>(static_cast<uint64_t>(i0 >> 1), stream_v, rk, x, y);

    // One test for the whole step first: at each of the sixteen positions,
    // the largest logit and the smallest bound word (the most leading
    // zeros) over the eight groups bound every token there, so when no
    // position's bound beats the best, no token of the step can. Once the
    // best is high this skips most steps' per-token tests (the sampler's
    // cost beyond Philox, issue 32).
    // The smallest bound word: for Gumbel the complement of the largest word.
    __m512i wx = x[0], wy = y[0];
#pragma GCC unroll 8
    for (int g = 1; g < kGroups; ++g) {
      wx = kGumbel ? _mm512_max_epu64(wx, x[g]) : _mm512_min_epu64(wx, x[g]);
      wy = kGumbel ? _mm512_max_epu64(wy, y[g]) : _mm512_min_epu64(wy, y[g]);
    }
    __mmask8 step_even, step_odd;
    AboveBest(l_max, _mm512_lzcnt_epi64(BoundWord<kGumbel>(wx)),
              _mm512_lzcnt_epi64(BoundWord<kGumbel>(wy)), best_v, k, &step_even, &step_odd);
    if ((step_even | step_odd) == 0) continue;

    bool changed = false;
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      // x[g] lane j: token i0 + 16 g + 2 j; y[g] lane j: the next token.
      __mmask8 c_even, c_odd;
      AboveBest(_mm512_loadu_ps(step + 16 * g), _mm512_lzcnt_epi64(BoundWord<kGumbel>(x[g])),
                _mm512_lzcnt_epi64(BoundWord<kGumbel>(y[g])), best_v, k, &c_even, &c_odd);
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
  bool tail_bad = false;
  if (i0 < end) {
    bool unused_finite;
    ScanLogits(row + i0, end - i0, /*vector=*/true, &tail_bad, &unused_finite);
    Merge(best, ScanRangeScalar(row, i0, end, temperature, noise, key, stream));
  }
  *bad = nan_or_inf != 0 || tail_bad;
  return best;
}

}  // namespace

Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream, bool* bad) {
  return noise == Noise::kGumbel ? ScanRange<true>(row, begin, end, temperature, key, stream, bad)
                                 : ScanRange<false>(row, begin, end, temperature, key, stream, bad);
}
#else
Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream, bool* bad) {
  bool unused_finite;
  ScanLogits(row + begin, end - begin, /*vector=*/false, bad, &unused_finite);
  return ScanRangeScalar(row, begin, end, temperature, noise, key, stream);
}
#endif

}  // namespace cb::pf::internal

// -----------------------------------------------------------------------------
// Input scan and greedy argmax (one read each).
namespace cb::pf::internal {

#if CB_HAVE_AVX512_PHILOX
namespace {

CB_TARGET_AVX512_PHILOX void ScanLogitsAvx512(const float* row, int64_t n, bool* bad,
                                              bool* any_finite) {
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

CB_TARGET_AVX512_PHILOX int64_t ArgmaxAvx512(const float* row, int64_t n) {
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
#if CB_HAVE_AVX512_PHILOX
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
#if CB_HAVE_AVX512_PHILOX
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

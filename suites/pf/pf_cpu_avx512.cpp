// File: suites/pf/pf_cpu_avx512.cpp
// -----------------------------------------------------------------------------
// AVX-512 scan of one row for PF (exponential) and softmax (Gumbel) noise:
// the same token as reference/pf/pf.cpp NoisyArgmax, found faster.
//
// Per step of 128 tokens (64 Philox blocks, eight vectors of eight):
//   0. Check the logits: a NaN or +inf ends the scan (the row is refused).
//   1. Skip the step before any Philox when every logit is below L, with
//      L / T + 56 ln 2 <= best: the noise is at most 53 ln 2 (pf_cpu_internal.h),
//      so no token of the group can reach the best; 3 ln 2 of margin covers
//      the fp64 rounding of (best - 56 ln 2) T (|best| < 2^28 here).
//   2. Otherwise Philox4x32-10 for the 64 blocks (philox_avx512.h), and per
//      token an upper bound on its value without a log (Bounds below):
//        a + (65 - (e + m)) ln 2 + 2^-20,  a = logit / T (by a multiply),
//      from the token's word with its low 12 bits cleared, w' = m 2^e
//      (PF: the word; Gumbel: its complement, the bits of 1 - r, and
//      -log(-log r) <= -log(1 - r)). For PF it exceeds the token's value by
//      at most 0.06 (the chord of log2 on [1, 2)) plus the margin and
//      rounding once w' >= 2^23; the margin keeps it strictly above the
//      value (ties to the lower id rely on that) and covers the
//      multiply-for-divide and the rounding of the sums while |a| < 2^29 (a
//      token with a >= 2^29 is above any best the bounds are compared with,
//      one with a <= -2^29 far below it). The bound of issue 32's first
//      version, a + (2 + lz) ln 2 from the leading zeros, was up to 1.4
//      looser: twice as many steps reached step 4 (66 -> 30 of 1024 per row
//      of 128k, flat row).
//   3. One test for the whole step, in fp32 (StepMayBeatBest): at each of
//      the sixteen positions, the largest logit and the smallest bound word
//      over the eight groups, with a bound from the word's high 32 bits. It
//      is non-decreasing in the logit and in -w, so when no position can
//      reach the best, no token of the step can, and the step ends here
//      (most steps, once the best is high). In fp32 one vector holds all
//      sixteen positions: 7 instructions after the reductions, where step
//      2's fp64 bounds take about 20.
//   4. Otherwise the per-token bounds, and the tokens whose bound exceeds
//      the best are evaluated exactly (ExactValue, the reference's expression
//      with glibc's log), in id order; the first group of a range with a
//      finite logit evaluates its highest bound first, so that the rest of
//      the group is tested against a real best instead of all sixteen
//      being evaluated against -inf.
// The bounds are compared with the best only while |best| < 2^28; beyond
// it every token is evaluated exactly until the step ends, and the rest of
// the range is scanned by the scalar path and merged (ties to the lower id).
// GCC 12 on _mm512_undefined in the intrinsics headers:
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf::internal {

#if CB_HAVE_AVX512_PHILOX
namespace {

// The bounds hold while |best| < 2^28 (step 2); so does the skip.
constexpr double kBestLimit = 0x1p28;
constexpr double kBoundMargin = 0x1p-20;
// Tokens per step: kGroups vectors of eight Philox blocks (two tokens each);
// eight independent chains hide the multiply latency. Measured on the
// development machine (AMD EPYC, Zen 5 class, one thread, V = 131072): 1, 2,
// 4, 8, 12 chains took 87, 75, 58, 46.5, 48 us per row.
constexpr int kGroups = 8;
constexpr int64_t kStep = 16 * kGroups;

// The largest float L with L <= (best - 56 ln 2) * T: a logit below it cannot win.
// (-inf, no skipping, before the first best and beyond kBestLimit, where
// the scan leaves the loop and the float cast could overflow.)
float SkipThreshold(const Best& best, double temperature) {
  if (best.index < 0 || !(std::fabs(best.value) < kBestLimit)) return -INFINITY;
  const double l = (best.value - 56 * kLn2) * temperature;
  float f = static_cast<float>(l);
  if (static_cast<double>(f) > l) f = std::nextafter(f, -INFINITY);
  return f;
}

// The fp64 constants of the per-token bound a / T + (65 - (e + m)) ln 2 + margin.
struct BoundConstants {
  __m512i deinterleave;  // even-indexed floats to the low half, odd to the high
  __m512d inv_t, ln2, offset;
};

CB_TARGET_AVX512_PHILOX inline BoundConstants MakeBoundConstants(double temperature) {
  return {_mm512_set_epi32(15, 13, 11, 9, 7, 5, 3, 1, 14, 12, 10, 8, 6, 4, 2, 0),
          _mm512_set1_pd(1.0 / temperature), _mm512_set1_pd(kLn2),
          _mm512_set1_pd(65 * kLn2 + kBoundMargin)};
}

// e + m for the bound words w of eight tokens, w' = w & ~0xFFF = m 2^e,
// m in [1, 2): UniformFromBits(w) = ((w >> 12) + 1/2) 2^-52 > w' 2^-64, and
// for Gumbel 1 - r = ((~w >> 12) + 1/2) 2^-52 the same way, so with
// log2 m >= m - 1 (log2 is concave on [1, 2] and equal to m - 1 at both ends)
//   -log2 r < 64 - e - log2 m <= 65 - (e + m).
// w' has at most 52 significant bits, so its conversion is exact; w' = 0
// gives -inf (the bound is then +inf: a candidate). Non-decreasing in w.
CB_TARGET_AVX512_PHILOX inline __m512d ExponentPlusMantissa(__m512i bound_word) {
  const __m512i cleared = _mm512_and_si512(bound_word, _mm512_set1_epi64(~int64_t{0xFFF}));
  const __m512d w = _mm512_cvtepu64_pd(cleared);
  return _mm512_add_pd(_mm512_getexp_pd(w),
                       _mm512_getmant_pd(w, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src));
}

// The upper bounds on the values of sixteen tokens (logits `l`, in id order;
// bound words w_x of the even tokens, w_y of the odd): *even lane j for
// token 2j, *odd lane j for token 2j + 1. Non-decreasing in the logit and
// non-increasing in the word (fp64 FMAs round monotonically), which the
// step test relies on.
CB_TARGET_AVX512_PHILOX inline void Bounds(__m512 l, __m512i w_x, __m512i w_y,
                                           const BoundConstants& k, __m512d* even, __m512d* odd) {
  const __m512 split = _mm512_permutexvar_ps(k.deinterleave, l);
  const __m512d a_even = _mm512_cvtps_pd(_mm512_castps512_ps256(split));
  const __m512d a_odd = _mm512_cvtps_pd(_mm512_extractf32x8_ps(split, 1));
  *even = _mm512_fnmadd_pd(ExponentPlusMantissa(w_x), k.ln2,
                           _mm512_fmadd_pd(a_even, k.inv_t, k.offset));
  *odd = _mm512_fnmadd_pd(ExponentPlusMantissa(w_y), k.ln2,
                          _mm512_fmadd_pd(a_odd, k.inv_t, k.offset));
}

// Which of sixteen tokens have a bound above `best`: bit j of *even / *odd
// for token 2j / 2j + 1 (the lanes of Bounds' outputs).
CB_TARGET_AVX512_PHILOX inline void AboveBest(__m512d bound_even, __m512d bound_odd, __m512d best,
                                              __mmask8* even, __mmask8* odd) {
  *even = _mm512_cmp_pd_mask(bound_even, best, _CMP_GT_OQ);
  *odd = _mm512_cmp_pd_mask(bound_odd, best, _CMP_GT_OQ);
}

// The word that bounds the noise: for Gumbel its complement (the bits of
// 1 - r), for PF the word itself.
template <bool kGumbel>
CB_TARGET_AVX512_PHILOX inline __m512i BoundWord(__m512i w) {
  return kGumbel ? _mm512_xor_si512(w, _mm512_set1_epi64(-1)) : w;
}

// The best as the bounds may be compared with it: -inf (every token a
// candidate) before the first and once |best| >= kBestLimit.
CB_TARGET_AVX512_PHILOX inline __m512d ComparableBest(const Best& best) {
  const bool comparable = best.index >= 0 && std::fabs(best.value) < kBestLimit;
  return _mm512_set1_pd(comparable ? best.value : -INFINITY);
}

// fpclass categories: quiet NaN, +inf, signalling NaN.
constexpr int kNanOrPlusInf = 0x01 | 0x08 | 0x80;

CB_TARGET_AVX512_PHILOX inline bool StepHasNanOrPlusInf(const float* step) {
  __mmask16 found = 0;
  for (int g = 0; g < kGroups; ++g)
    found |= _mm512_fpclass_ps_mask(_mm512_loadu_ps(step + 16 * g), kNanOrPlusInf);
  return found != 0;
}

// The step test (step 3) in fp32, sixteen positions in one vector, in log2
// units: a position may hold a token above the best only if
//   q < t,  q = e + m of f, the high 32 bits of its smallest bound word
//           rounded down to fp32 (f = m 2^e, m in [1, 2); f = 0 gives -inf),
//           t = 33 + (a - best) / ln 2,  a = largest logit / T,
// since r > w' 2^-64 >= f 2^-32 (Bounds' argument, with the low 32 bits
// dropped) gives noise / ln 2 < 32 - e - log2 m <= 33 - q. t is one FMA,
// logit * scale + offset, with scale = fl(1 / (T ln 2)) and offset =
// 33 - best / ln 2 plus a margin of 2^-22 (|best| + 64) rounded up. Where the
// decision can matter (q in [1, 33), so |a| <= |best| + 46 ln 2) the FMA's
// two roundings, the scale's and q's own (at most 2^-20) stay below
// 2^-24 (3 |best| + 200), inside the margin; where t is far above 33 the
// relative error cannot bring it below. Non-decreasing in the logit and in
// the word, so the largest logit and the smallest word bound every token of
// the position.
struct StepConstants {
  __m512 scale, offset;  // offset = +inf while there is no best: all candidates
};

inline float StepScale(double temperature) { return static_cast<float>(1.0 / (temperature * kLn2)); }

// +inf (every position a candidate) before the first best and beyond
// kBestLimit, where the scan leaves the loop (and the float cast could overflow).
inline float StepOffset(const Best& best) {
  if (best.index < 0 || !(std::fabs(best.value) < kBestLimit)) return INFINITY;
  const double v = 33 - best.value / kLn2 + 0x1p-22 * (std::fabs(best.value) + 64);
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, INFINITY);
  return f;
}

// w_x, w_y: the smallest bound words (for Gumbel the largest words, whose
// complements are the smallest) at each position: lane j for tokens 2j, 2j + 1.
CB_TARGET_AVX512_PHILOX inline bool StepMayBeatBest(__m512 l_max, __m512i w_x, __m512i w_y,
                                                    const StepConstants& k, bool gumbel) {
  // Element 2j: the high word of w_x lane j; 2j + 1: that of w_y lane j.
  __m512i high = _mm512_mask_shuffle_epi32(w_y, 0x5555, w_x, _MM_PERM_CDAB);
  if (gumbel) high = _mm512_xor_si512(high, _mm512_set1_epi32(-1));
  const __m512 f = _mm512_cvt_roundepu32_ps(high, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m512 q = _mm512_add_ps(_mm512_getexp_ps(f), _mm512_getmant_ps(f, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src));
  const __m512 t = _mm512_fmadd_ps(l_max, k.scale, k.offset);
  return _mm512_cmp_ps_mask(q, t, _CMP_LT_OQ) != 0;
}

// The scan for one noise, so PF pays no complement.
template <bool kGumbel>
CB_TARGET_AVX512_PHILOX Best ScanRange(const float* row, int64_t begin, int64_t end,
                                       double temperature, uint64_t key, uint64_t stream,
                                       bool* bad) {
  const Noise noise = kGumbel ? Noise::kGumbel : Noise::kExponential;
  Best best;
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(key);
  const __m512i stream_v = _mm512_set1_epi64(static_cast<long long>(stream));
  const BoundConstants k = MakeBoundConstants(temperature);
  __m512 skip_v = _mm512_set1_ps(-INFINITY);
  __m512d best_v = _mm512_set1_pd(-INFINITY);
  StepConstants step_k = {_mm512_set1_ps(StepScale(temperature)), _mm512_set1_ps(INFINITY)};

  int64_t i0 = begin;
  for (; i0 + kStep <= end; i0 += kStep) {
    if (best.index >= 0 && !(std::fabs(best.value) < kBestLimit)) break;
    // Per position of the sixteen, the largest logit over the eight groups
    // (for the skip and the step test: one compare per step instead of one
    // per group), and their sum for the input check: a NaN or +inf in the
    // step makes it NaN or +inf (so can an overflow of finite logits: the
    // groups are then checked one by one).
    const float* step = row + i0;
    __m512 l_max = _mm512_loadu_ps(step), l_sum = l_max;
#pragma GCC unroll 8
    for (int g = 1; g < kGroups; ++g) {
      const __m512 l = _mm512_loadu_ps(step + 16 * g);
      l_max = _mm512_max_ps(l_max, l);
      l_sum = _mm512_add_ps(l_sum, l);
    }
    if (_mm512_fpclass_ps_mask(l_sum, kNanOrPlusInf) != 0 && StepHasNanOrPlusInf(step)) {
      *bad = true;  // the row is refused: its token means nothing
      return best;
    }
    if (_mm512_cmp_ps_mask(l_max, skip_v, _CMP_GE_OQ) == 0) continue;

    __m512i x[kGroups], y[kGroups];
    avx512::PhiloxConsecutive<kGroups>(static_cast<uint64_t>(i0 >> 1), stream_v, rk, x, y);

    // Step 3: one test for the whole step. At each of the sixteen positions
    // the largest logit and the smallest bound word over the eight groups
    // bound every token there. (The smallest bound word: for Gumbel the
    // complement of the largest word.)
    __m512i wx = x[0], wy = y[0];
#pragma GCC unroll 8
    for (int g = 1; g < kGroups; ++g) {
      wx = kGumbel ? _mm512_max_epu64(wx, x[g]) : _mm512_min_epu64(wx, x[g]);
      wy = kGumbel ? _mm512_max_epu64(wy, y[g]) : _mm512_min_epu64(wy, y[g]);
    }
    if (!StepMayBeatBest(l_max, wx, wy, step_k, kGumbel)) continue;

    bool changed = false;
#pragma GCC unroll 8
    for (int g = 0; g < kGroups; ++g) {
      // x[g] lane j: token i0 + 16 g + 2 j; y[g] lane j: the next token.
      __m512d bound_even, bound_odd;
      Bounds(_mm512_loadu_ps(step + 16 * g), BoundWord<kGumbel>(x[g]), BoundWord<kGumbel>(y[g]), k,
             &bound_even, &bound_odd);
      __mmask8 c_even, c_odd;
      AboveBest(bound_even, bound_odd, best_v, &c_even, &c_odd);
      if ((c_even | c_odd) == 0) continue;
      alignas(64) uint64_t words[2][8];
      _mm512_store_si512(words[0], x[g]);
      _mm512_store_si512(words[1], y[g]);
      const int64_t base = i0 + 16 * g;
      if (best.index < 0) {
        // No best yet: evaluate the token with the highest bound first and
        // test the rest of the group against it (itself excluded).
        alignas(64) double bounds[2][8];
        _mm512_store_pd(bounds[0], bound_even);
        _mm512_store_pd(bounds[1], bound_odd);
        int top = -1;
        for (int b = 0; b < 16; ++b) {
          if (row[base + b] == -INFINITY) continue;
          if (top < 0 || bounds[b & 1][b >> 1] > bounds[top & 1][top >> 1]) top = b;
        }
        if (top < 0) continue;  // sixteen -inf logits
        const uint64_t word = words[top & 1][top >> 1];
        best = {base + top, ExactValue(row[base + top], temperature, noise, word)};
        changed = true;
        best_v = ComparableBest(best);
        AboveBest(bound_even, bound_odd, best_v, &c_even, &c_odd);
        const __mmask8 others = static_cast<__mmask8>(~(1u << (top >> 1)));
        if (top & 1) {
          c_odd &= others;
        } else {
          c_even &= others;
        }
      }
      // Candidates in id order: bit 2j = x lane j, bit 2j + 1 = y lane j.
      uint32_t candidates = _pdep_u32(c_even, 0x5555u) | _pdep_u32(c_odd, 0xAAAAu);
      bool group_changed = false;
      while (candidates != 0) {
        const int b = __builtin_ctz(candidates);
        candidates &= candidates - 1;
        const float logit = row[base + b];
        if (logit == -INFINITY) continue;
        const double v = ExactValue(logit, temperature, noise, words[b & 1][b >> 1]);
        if (Better(v, base + b, best)) {
          best = {base + b, v};
          group_changed = true;
        }
      }
      if (group_changed) {
        changed = true;
        best_v = ComparableBest(best);
      }
    }
    if (changed) {
      skip_v = _mm512_set1_ps(SkipThreshold(best, temperature));
      step_k.offset = _mm512_set1_ps(StepOffset(best));
    }
  }
  // The tail (fewer than kStep tokens), or the rest once |best| is too large.
  bool tail_bad = false;
  if (i0 < end) {
    bool unused_finite;
    ScanLogits(row + i0, end - i0, /*vector=*/true, &tail_bad, &unused_finite);
    Merge(best, ScanRangeScalar(row, i0, end, temperature, noise, key, stream));
  }
  *bad = tail_bad;
  return best;
}

}  // namespace

Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream, bool* bad) {
  return noise == Noise::kGumbel ? ScanRange<true>(row, begin, end, temperature, key, stream, bad)
                                 : ScanRange<false>(row, begin, end, temperature, key, stream, bad);
}

// Sixteen words in token order as the scan holds them: *w_x lane j = token
// 2j's, *w_y lane j = token 2j + 1's.
CB_TARGET_AVX512_PHILOX inline void SplitWords(const uint64_t* words, __m512i* w_x, __m512i* w_y) {
  alignas(64) uint64_t even[8], odd[8];
  for (int j = 0; j < 8; ++j) even[j] = words[2 * j], odd[j] = words[2 * j + 1];
  *w_x = _mm512_load_si512(even);
  *w_y = _mm512_load_si512(odd);
}

CB_TARGET_AVX512_PHILOX void TokenBoundsAvx512(const float* logits, const uint64_t* words,
                                               double temperature, Noise noise, double* bounds) {
  __m512i w_x, w_y;
  SplitWords(words, &w_x, &w_y);
  if (noise == Noise::kGumbel) w_x = BoundWord<true>(w_x), w_y = BoundWord<true>(w_y);
  const BoundConstants k = MakeBoundConstants(temperature);
  __m512d even, odd;
  Bounds(_mm512_loadu_ps(logits), w_x, w_y, k, &even, &odd);
  alignas(64) double b[2][8];
  _mm512_store_pd(b[0], even);
  _mm512_store_pd(b[1], odd);
  for (int i = 0; i < 16; ++i) bounds[i] = b[i & 1][i >> 1];
}

CB_TARGET_AVX512_PHILOX bool StepMayReachAvx512(const float* logits, const uint64_t* words,
                                                double temperature, Noise noise, double best) {
  __m512i w_x, w_y;
  SplitWords(words, &w_x, &w_y);
  const StepConstants k = {_mm512_set1_ps(StepScale(temperature)),
                           _mm512_set1_ps(StepOffset(Best{0, best}))};
  return StepMayBeatBest(_mm512_loadu_ps(logits), w_x, w_y, k, noise == Noise::kGumbel);
}
#else
bool StepMayReachAvx512(const float*, const uint64_t*, double, Noise, double) {
  throw std::logic_error("StepMayReachAvx512: built without AVX-512");
}

void TokenBoundsAvx512(const float*, const uint64_t*, double, Noise, double*) {
  throw std::logic_error("TokenBoundsAvx512: built without AVX-512");
}

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

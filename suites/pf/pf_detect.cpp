// File: suites/pf/pf_detect.cpp
// -----------------------------------------------------------------------------
// CPU fast path of watermark detection (suites/pf/pf.h DetectCpu): the same
// statistic as cb::ref::pf::Detect in four passes over the text:
//   1. context hashes of every scored position (AVX-512: eight positions per
//      vector, the splitmix64 multiplies as vpmullq);
//   2. de-duplication, sequential (the first occurrence of a context is kept,
//      so it must run in text order): an open-addressing hash set;
//   3. the keyed uniform of every kept position (philox_avx512.h, four
//      chains of eight blocks) and its term, summed in fp64 vector lanes; the
//      log is glibc's libmvec (harness/simd_math.h, within 4 ulp);
//   4. the Gamma tail or the z-test (cb::ref::pf::GammaQ, as the reference).
// Passes 1 and 3 are split over two threads for long texts.
// Agreement with the reference: n' and the KGW green count identical; the
// PF/Gumbel score within 1e-11 relative (vector log and summation order),
// tested in pf_simd_test.cpp. The scalar path (other CPUs) uses std::log and
// std::log1p like the reference, in another summation order.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 on _mm512_undefined in the intrinsics headers
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/simd_math.h"
#include "reference/pf/prf.h"
#include "suites/pf/pair_runner.h"
#include "suites/pf/pf.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf {
namespace {

namespace ref = cb::ref::pf;
using ref::Watermark;

// Below this many scored positions one thread does everything.
constexpr int64_t kParallelMin = 16384;

}  // namespace

int DetectCpuThreads(int64_t tokens, int context) { return tokens - context >= kParallelMin ? 2 : 1; }

namespace {

// Reused buffers (grown, never shrunk, per thread): a long text's arrays
// would otherwise be fresh pages, faulted in and zeroed on every call.
template <typename T>
T* Scratch(std::vector<T>& buffer, size_t n) {
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

// Marks keep[i] = 1 for the first occurrence of each keys[i], i in [0, n),
// and 0 for repeats; equal keys compare as the reference's KeySet (which
// stores 0 as 0x8000000000000001, kept so both agree on that 2^-64 corner).
// Keys are splitmix64 outputs, so their bits are uniform:
//   * a small n: one open-addressing table;
//   * a large n: the top bits scatter (key, i) into buckets of ~2k entries,
//     in text order, so a bucket's table fits in L1/L2 and the first
//     occurrence within a bucket is the first in the text (equal keys share
//     a bucket). Buckets are split over two threads.
class Deduplicator {
 public:
  static void Mark(const uint64_t* keys, int64_t n, uint8_t* keep) {
    if (n <= kSmall || n > int64_t{0xFFFFFFFF}) {  // bucket entries index with uint32
      Table(keys, nullptr, 0, n, keep);
      return;
    }
    int bits = 1;
    while ((int64_t{1} << bits) * kBucket < n) ++bits;
    const int64_t buckets = int64_t{1} << bits;
    const int shift = 64 - bits;
    thread_local std::vector<int64_t> offsets_buffer;
    thread_local std::vector<uint64_t> keys_buffer;
    thread_local std::vector<uint32_t> index_buffer;
    int64_t* offsets = Scratch(offsets_buffer, static_cast<size_t>(buckets + 1));
    uint64_t* sorted_keys = Scratch(keys_buffer, static_cast<size_t>(n));
    uint32_t* sorted_index = Scratch(index_buffer, static_cast<size_t>(n));
    std::fill(offsets, offsets + buckets + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++offsets[(keys[i] >> shift) + 1];
    for (int64_t b = 0; b < buckets; ++b) offsets[b + 1] += offsets[b];
    {
      thread_local std::vector<int64_t> cursor_buffer;
      int64_t* cursor = Scratch(cursor_buffer, static_cast<size_t>(buckets));
      std::copy(offsets, offsets + buckets, cursor);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t at = cursor[keys[i] >> shift]++;
        sorted_keys[at] = keys[i];
        sorted_index[at] = static_cast<uint32_t>(i);
      }
    }
    auto run = [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        Table(sorted_keys, sorted_index, offsets[b], offsets[b + 1], keep);
    };
    RunPair([&] { run(buckets / 2, buckets); }, [&] { run(0, buckets / 2); });
  }

 private:
  static constexpr int64_t kSmall = 4096;
  static constexpr int64_t kBucket = 2048;

  // Entries [begin, end) of keys (positions index[k], or k itself when
  // index is null), in text order.
  static void Table(const uint64_t* keys, const uint32_t* index, int64_t begin, int64_t end,
                    uint8_t* keep) {
    size_t cap = 16;
    while (cap < static_cast<size_t>(2 * (end - begin) + 2)) cap <<= 1;
    thread_local std::vector<uint64_t> slots_buffer;
    uint64_t* slots = Scratch(slots_buffer, cap);
    std::fill(slots, slots + cap, 0);
    const size_t mask = cap - 1;
    for (int64_t k = begin; k < end; ++k) {
      uint64_t key = keys[k];
      if (key == 0) key = 0x8000000000000001ull;
      uint8_t fresh = 0;
      for (size_t i = key & mask;; i = (i + 1) & mask) {
        if (slots[i] == key) break;
        if (slots[i] == 0) {
          slots[i] = key;
          fresh = 1;
          break;
        }
      }
      keep[index == nullptr ? k : index[k]] = fresh;
    }
  }
};

// ctx[t - m] = ContextHashAt(tokens, t, m) for t in [begin, end), begin >= m.
void ContextHashesScalar(const int32_t* tokens, int m, int64_t begin, int64_t end, uint64_t* ctx) {
  for (int64_t t = begin; t < end; ++t) ctx[t - m] = ref::ContextHashAt(tokens, t, m);
}

// Sum of the terms of positions kept[k] for k in [k0, k1).
double TermsScalar(Watermark w, const ref::WatermarkParams& params, const int32_t* tokens,
                   const uint64_t* ctx, const int64_t* kept, int64_t k0, int64_t k1) {
  double sum = 0;
  const int m = params.context;
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t t = kept[k];
    const double r = ref::KeyedUniformAt(params.key, ctx[t - m], static_cast<uint64_t>(tokens[t]));
    sum += w == Watermark::kPf       ? -std::log(r)
           : w == Watermark::kGumbel ? -std::log1p(-r)
                                     : (r < params.gamma ? 1.0 : 0.0);
  }
  return sum;
}

#if CB_HAVE_AVX512_PHILOX
CB_TARGET_AVX512_PHILOX inline __m512i Mix64x8(__m512i z) {
  z = _mm512_add_epi64(z, _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ull)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ull)));
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                         _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBull)));
  return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

CB_TARGET_AVX512_PHILOX void ContextHashesAvx512(const int32_t* tokens, int m, int64_t begin,
                                                 int64_t end, uint64_t* ctx) {
  const __m512i seed = _mm512_set1_epi64(static_cast<long long>(ref::Mix64(static_cast<uint64_t>(m))));
  int64_t t = begin;
  for (; t + 8 <= end; t += 8) {
    __m512i h = seed;
    for (int j = 0; j < m; ++j) {
      // tokens[t - m + j .. + 7], zero-extended as the reference's uint32 cast.
      const __m256i tok = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tokens + t - m + j));
      h = Mix64x8(_mm512_xor_si512(h, _mm512_cvtepu32_epi64(tok)));
    }
    _mm512_storeu_si512(ctx + (t - m), h);
  }
  ContextHashesScalar(tokens, m, t, end, ctx);
}

CB_TARGET_AVX512_PHILOX double TermsAvx512(Watermark w, const ref::WatermarkParams& params,
                                           const int32_t* tokens, const uint64_t* ctx,
                                           const int64_t* kept, int64_t k0, int64_t k1) {
  constexpr int kChains = 4;
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(params.key);
  const __m512i one = _mm512_set1_epi64(1);
  const __m512d half = _mm512_set1_pd(0.5), scale = _mm512_set1_pd(0x1p-52);
  const __m512d ones = _mm512_set1_pd(1.0), gamma = _mm512_set1_pd(params.gamma);
  const int m = params.context;
  __m512d sum = _mm512_setzero_pd();
  int64_t k = k0;
  for (; k + 8 * kChains <= k1; k += 8 * kChains) {
    __m512i x[kChains], y[kChains], token[kChains];
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      const __m512i pos = _mm512_loadu_si512(kept + k + 8 * c);
      // Token ids are >= 0 (checked), so the sign-extending gather is exact.
      token[c] = _mm512_cvtepi32_epi64(_mm512_i64gather_epi32(pos, tokens, 4));
      x[c] = _mm512_srli_epi64(token[c], 1);
      y[c] = _mm512_i64gather_epi64(_mm512_sub_epi64(pos, _mm512_set1_epi64(m)),
                                    reinterpret_cast<const long long*>(ctx), 8);
    }
    avx512::Philox10<kChains>(x, y, rk);
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      const __mmask8 odd = _mm512_test_epi64_mask(token[c], one);
      const __m512i bits = _mm512_mask_blend_epi64(odd, x[c], y[c]);
      // r = (k + 0.5) 2^-52 with k the top 52 bits: exact, as UniformFromBits.
      const __m512d r =
          _mm512_mul_pd(_mm512_add_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(bits, 12)), half), scale);
      if (w == Watermark::kKgw) {
        sum = _mm512_mask_add_pd(sum, _mm512_cmp_pd_mask(r, gamma, _CMP_LT_OQ), sum, ones);
        continue;
      }
      // PF: -log r; Gumbel: -log(1 - r) (1 - r is exact in fp64).
      const __m512d arg = w == Watermark::kPf ? r : _mm512_sub_pd(ones, r);
      const __m256d lo = cb::harness::simd::Log(_mm512_castpd512_pd256(arg));
      const __m256d hi = cb::harness::simd::Log(_mm512_extractf64x4_pd(arg, 1));
      sum = _mm512_sub_pd(sum, _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1));
    }
  }
  // Lanes summed from memory: GCC 12 warns falsely inside _mm512_reduce_add_pd.
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, sum);
  double total = 0;
  for (double lane : lanes) total += lane;
  return total + TermsScalar(w, params, tokens, ctx, kept, k, k1);
}
#endif

}  // namespace

ref::Detection DetectCpu(Watermark w, const ref::WatermarkParams& params,
                         std::span<const int32_t> tokens, ref::Dedup dedup, bool allow_simd) {
  // The reference's checks and messages, in its order.
  if (w == Watermark::kNone) throw std::invalid_argument("Detect: no watermark to detect");
  if (tokens.empty()) throw std::invalid_argument("Detect: empty text");
  if (params.context < 1) throw std::invalid_argument("watermark context m must be >= 1");
  if (w == Watermark::kKgw && !(params.gamma > 0 && params.gamma < 1))
    throw std::invalid_argument("KGW gamma must lie in (0, 1)");
  const int m = params.context;
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (int64_t t = m; t < n; ++t)
    if (tokens[t] < 0) throw std::invalid_argument("Detect: negative token at " + std::to_string(t));
  ref::Detection d;
  if (n <= m) return d;

  const bool simd = allow_simd && CpuHasAvx512() && cb::harness::CpuHasAvx2Fma();
  const int32_t* tok = tokens.data();
  const int64_t positions = n - m;
  const bool parallel = DetectCpuThreads(n, m) == 2;

  // 1. Context hashes: ctx[t - m] for t in [m, n).
  thread_local std::vector<uint64_t> ctx_buffer;
  uint64_t* ctx = Scratch(ctx_buffer, static_cast<size_t>(positions));
  auto hashes = [&](int64_t begin, int64_t end) {
#if CB_HAVE_AVX512_PHILOX
    if (simd) return ContextHashesAvx512(tok, m, begin, end, ctx);
#endif
    ContextHashesScalar(tok, m, begin, end, ctx);
  };
  if (parallel) {
    const int64_t mid = m + positions / 2;
    RunPair([&] { hashes(mid, n); }, [&] { hashes(m, mid); });
  } else {
    hashes(m, n);
  }

  // 2. De-duplication: the first occurrence of each key, in text order.
  thread_local std::vector<int64_t> kept_buffer;
  int64_t* kept = Scratch(kept_buffer, static_cast<size_t>(positions));
  int64_t kept_count = 0;
  if (dedup == ref::Dedup::kNone) {
    for (int64_t t = m; t < n; ++t) kept[kept_count++] = t;
  } else {
    const uint64_t* keys = ctx;
    if (dedup == ref::Dedup::kContextToken) {
      thread_local std::vector<uint64_t> keys_buffer;
      uint64_t* pair_keys = Scratch(keys_buffer, static_cast<size_t>(positions));
      for (int64_t t = m; t < n; ++t)
        pair_keys[t - m] = ref::Mix64(ctx[t - m] ^ ref::Mix64(static_cast<uint32_t>(tok[t])));
      keys = pair_keys;
    }
    thread_local std::vector<uint8_t> keep_buffer;
    uint8_t* keep = Scratch(keep_buffer, static_cast<size_t>(positions));
    Deduplicator::Mark(keys, positions, keep);
    for (int64_t t = m; t < n; ++t)
      if (keep[t - m]) kept[kept_count++] = t;
  }
  d.scored = kept_count;
  if (d.scored == 0) return d;

  // 3. Terms of the kept positions.
  auto terms = [&](int64_t k0, int64_t k1) {
#if CB_HAVE_AVX512_PHILOX
    if (simd) return TermsAvx512(w, params, tok, ctx, kept, k0, k1);
#endif
    return TermsScalar(w, params, tok, ctx, kept, k0, k1);
  };
  if (parallel && d.scored >= kParallelMin) {
    const int64_t mid = d.scored / 2;
    double hi = 0, lo = 0;
    RunPair([&] { hi = terms(mid, d.scored); }, [&] { lo = terms(0, mid); });
    d.score = lo + hi;
  } else {
    d.score = terms(0, d.scored);
  }

  // 4. The p-value, as the reference.
  const double count = static_cast<double>(d.scored);
  if (w == Watermark::kKgw) {
    d.z = (d.score - params.gamma * count) / std::sqrt(count * params.gamma * (1 - params.gamma));
    d.p_value = 0.5 * std::erfc(d.z / std::sqrt(2.0));
  } else {
    d.p_value = ref::GammaQ(count, d.score);
  }
  return d;
}

}  // namespace cb::pf

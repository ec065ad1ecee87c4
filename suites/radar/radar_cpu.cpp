// File: suites/radar/radar_cpu.cpp
// -----------------------------------------------------------------------------
// The fp32 Radar path of suites/radar/radar.h: the organisation (thresholds,
// c, rebuild rule, in-order appends: the same rules as reference/radar.cpp),
// the CPU kernels, and dispatch of the per-backend pieces to radar.cu.
//
// CPU kernels:
//   AttendSpansCpu: split-K over threads; each part walks its tokens in
//     blocks (scores of the block, one rescale of the accumulator per block,
//     then p v accumulation), i.e. an online softmax that reads K and V once;
//     parts merge by the log-sum-exp rule. Two kernels of that one loop:
//     - d = 64 or 128 on an AVX-512 CPU: q and the accumulator stay in
//       registers, the block's weights come from one vector exp, and every
//       row is prefetched 16 tokens ahead (AttendRangeAvx512);
//     - otherwise GCC vector extensions (4 floats) in a function cloned for
//       AVX2+FMA and the default target, chosen at load time, so the binary
//       still runs on any x86-64 (AttendRange).
//   Summaries: Z = K_blk Omega (cblas_sgemm, blocks of whole segments), then
//     per segment the feature sums of exp(e - m_seg) with the segment's own
//     max m_seg, rescaled by exp(m_seg - s) to the stabiliser s.
// GCC 12 on _mm512_undefined inside the intrinsics headers' _mm512_reduce_*:
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/parallel.h"
#include "harness/simd_math.h"
#include "harness/target_clones.h"
#include "suites/radar/radar.h"
#include "suites/radar/radar_cuda.h"

namespace cb::radar {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::radar;

constexpr int kBlock = 64;                    // keys per online-softmax block
constexpr int64_t kMinTokensPerThread = 16384;  // below: one thread (spawn cost)
constexpr double kPhiFloor = 1e-18;

typedef float v4f __attribute__((vector_size(16)));  // SSE width: no ABI change

// The kernels below are built for Haswell and for the default target
// (harness/target_clones.h).

inline v4f Load4(const float* p) {
  v4f x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
inline void Store4(float* p, v4f x) { std::memcpy(p, &x, sizeof x); }

struct Partial {
  float m = -std::numeric_limits<float>::infinity();
  float l = 0;
  std::vector<float> acc;
};

// Online softmax of q over keys [first, last) into p (scale = 1/sqrt d).
CB_HASWELL_CLONES void AttendRange(
    const float* q, const float* keys, const float* values, int d, int64_t first, int64_t last,
    float scale, Partial& p) {
  float s[kBlock];
  const bool vec = d % 8 == 0;
  for (int64_t b = first; b < last; b += kBlock) {
    const int n = static_cast<int>(std::min<int64_t>(kBlock, last - b));
    float block_max = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const float* k = keys + (b + i) * d;
      float dot = 0;
      if (vec) {
        v4f a0 = {}, a1 = {};
        for (int j = 0; j < d; j += 8) {
          a0 += Load4(q + j) * Load4(k + j);
          a1 += Load4(q + j + 4) * Load4(k + j + 4);
        }
        a0 += a1;
        dot = a0[0] + a0[1] + a0[2] + a0[3];
      } else {
        for (int j = 0; j < d; ++j) dot += q[j] * k[j];
      }
      s[i] = dot * scale;
      block_max = std::max(block_max, s[i]);
    }
    if (block_max > p.m) {
      const float factor = std::exp(p.m - block_max);  // 0 when p.m = -inf
      p.l *= factor;
      for (int j = 0; j < d; ++j) p.acc[j] *= factor;
      p.m = block_max;
    }
    for (int i = 0; i < n; ++i) {
      const float w = std::exp(s[i] - p.m);
      p.l += w;
      const float* v = values + (b + i) * d;
      if (vec) {
        const v4f wv = {w, w, w, w};
        for (int j = 0; j < d; j += 4) Store4(&p.acc[j], Load4(&p.acc[j]) + wv * Load4(v + j));
      } else {
        for (int j = 0; j < d; ++j) p.acc[j] += w * v[j];
      }
    }
  }
}

#if CB_HAVE_SIMD_MATH
// The AVX-512 kernel, d = 16 kVecs. Blocks of 16 keys: sixteen scores, one
// rescale, one vector exp (libmvec expf, within 4 ulp; the tests hold both
// kernels to 1e-4 of the fp64 reference), sixteen accumulations. Measured at d = 128, t = 2^18, two threads on the AMD EPYC
// VM (Zen 5), medians of 40 rounds each interleaved with a read-only sum of
// the same K and V: the portable kernel 0.21-0.71 of that sum (bimodal, 5 to
// 24 ms on this shared host), registers and vector exp alone 0.74-0.86; with
// every line of the row prefetched 16 tokens ahead 1.09 (one run; 4 and 8
// tokens ahead 1.03 / 1.01), one or two lines a row at 8-32 tokens 0.89-1.00.
constexpr int kBlock512 = 16;
constexpr int kPrefetchTokens = 16;

// Every line of the row kPrefetchTokens rows after `row`: a hint, so past the
// end of K or V it does nothing (the address is formed as an integer).
template <int kVecs>
CB_TARGET_AVX512 inline void PrefetchAhead(const float* row) {
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(row) + kPrefetchTokens * 64 * kVecs;
  for (int c = 0; c < kVecs; ++c) _mm_prefetch(reinterpret_cast<const char*>(ahead + 64 * c), _MM_HINT_T0);
}

template <int kVecs>
CB_TARGET_AVX512 inline float Dot(const __m512 (&q)[kVecs], const float* k) {
  __m512 even = _mm512_mul_ps(q[0], _mm512_loadu_ps(k)), odd = _mm512_setzero_ps();
  for (int j = 1; j < kVecs; ++j) {
    if (j % 2) odd = _mm512_fmadd_ps(q[j], _mm512_loadu_ps(k + 16 * j), odd);
    else even = _mm512_fmadd_ps(q[j], _mm512_loadu_ps(k + 16 * j), even);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(even, odd));
}

template <int kVecs>
CB_TARGET_AVX512 void AttendRangeAvx512(const float* q, const float* keys, const float* values,
                                        int64_t first, int64_t last, float scale, Partial& p) {
  constexpr int d = 16 * kVecs;
  __m512 qs[kVecs], acc[kVecs];
  for (int j = 0; j < kVecs; ++j) {
    qs[j] = _mm512_mul_ps(_mm512_loadu_ps(q + 16 * j), _mm512_set1_ps(scale));
    acc[j] = _mm512_loadu_ps(p.acc.data() + 16 * j);
  }
  float m = p.m, l = p.l;
  for (int64_t b = first; b < last; b += kBlock512) {
    const int n = static_cast<int>(std::min<int64_t>(kBlock512, last - b));
    alignas(64) float s[kBlock512];
    for (int i = 0; i < kBlock512; ++i) s[i] = -std::numeric_limits<float>::infinity();  // exp -> 0
    for (int i = 0; i < n; ++i) {
      const float* k = keys + (b + i) * d;
      PrefetchAhead<kVecs>(k);
      s[i] = Dot<kVecs>(qs, k);
    }
    const __m512 sv = _mm512_load_ps(s);
    const float block_max = _mm512_reduce_max_ps(sv);
    if (block_max > m) {
      const float factor = std::exp(m - block_max);  // 0 when m = -inf
      l *= factor;
      for (int j = 0; j < kVecs; ++j) acc[j] = _mm512_mul_ps(acc[j], _mm512_set1_ps(factor));
      m = block_max;
    }
    const __m512 x = _mm512_sub_ps(sv, _mm512_set1_ps(m));
    alignas(64) float w[kBlock512];
    _mm256_store_ps(w, cb::harness::simd::Exp(_mm512_castps512_ps256(x)));
    const __m512 high = _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(3, 2, 3, 2));  // lanes 8-15 to 0-7
    _mm256_store_ps(w + 8, cb::harness::simd::Exp(_mm512_castps512_ps256(high)));
    l += _mm512_reduce_add_ps(_mm512_load_ps(w));
    for (int i = 0; i < n; ++i) {
      const float* v = values + (b + i) * d;
      PrefetchAhead<kVecs>(v);
      const __m512 wi = _mm512_set1_ps(w[i]);
      for (int j = 0; j < kVecs; ++j) acc[j] = _mm512_fmadd_ps(wi, _mm512_loadu_ps(v + 16 * j), acc[j]);
    }
  }
  for (int j = 0; j < kVecs; ++j) _mm512_storeu_ps(p.acc.data() + 16 * j, acc[j]);
  p.m = m;
  p.l = l;
}
#endif

// The kernel for one part: the AVX-512 one where it applies (see the file
// comment), else the portable one.
void AttendPart(const float* q, const float* keys, const float* values, int d, int64_t first,
                int64_t last, float scale, bool vector, Partial& p) {
#if CB_HAVE_SIMD_MATH
  if (vector && cb::harness::CpuHasAvx512F()) {
    if (d == 64) return AttendRangeAvx512<4>(q, keys, values, first, last, scale, p);
    if (d == 128) return AttendRangeAvx512<8>(q, keys, values, first, last, scale, p);
  }
#else
  (void)vector;
#endif
  AttendRange(q, keys, values, d, first, last, scale, p);
}

// score[j] = R_j . phi for j < n_seg (R: (n_seg, two_d)); plain loops rather
// than cblas_sgemv, whose thread wake-ups cost milliseconds on a busy machine
// at these small sizes.
CB_HASWELL_CLONES void ScoreSegments(
    const float* summaries, const float* phi, int64_t n_seg, int two_d, float* score) {
  for (int64_t j = 0; j < n_seg; ++j) {
    const float* r = summaries + j * two_d;
    if (two_d % 8 == 0) {
      v4f a0 = {}, a1 = {};
      for (int f = 0; f < two_d; f += 8) {
        a0 += Load4(r + f) * Load4(phi + f);
        a1 += Load4(r + f + 4) * Load4(phi + f + 4);
      }
      a0 += a1;
      score[j] = a0[0] + a0[1] + a0[2] + a0[3];
    } else {
      float s = 0;
      for (int f = 0; f < two_d; ++f) s += r[f] * phi[f];
      score[j] = s;
    }
  }
}

// The scores of nq queries at once (a GQA group: the query heads sharing one
// KV head): score [nq, n_seg], each summary row read once for all of them
// (the rows are what costs: n_seg x 2D floats per head and step).
CB_HASWELL_CLONES void ScoreSegmentsGroup(
    const float* summaries, const float* phi, int nq, int64_t n_seg, int two_d, float* score) {
  for (int64_t j = 0; j < n_seg; ++j) {
    const float* r = summaries + j * two_d;
    for (int qi = 0; qi < nq; ++qi) {
      const float* p = phi + static_cast<size_t>(qi) * two_d;
      float s = 0;
      if (two_d % 8 == 0) {
        v4f a0 = {}, a1 = {};
        for (int f = 0; f < two_d; f += 8) {
          a0 += Load4(r + f) * Load4(p + f);
          a1 += Load4(r + f + 4) * Load4(p + f + 4);
        }
        a0 += a1;
        s = a0[0] + a0[1] + a0[2] + a0[3];
      } else {
        for (int f = 0; f < two_d; ++f) s += r[f] * p[f];
      }
      score[static_cast<size_t>(qi) * n_seg + j] = s;
    }
  }
}

// Tokens of `spans` cut into `parts` contiguous pieces of near-equal length.
std::vector<std::vector<Span>> Split(const std::vector<Span>& spans, int parts) {
  int64_t total = 0;
  for (const auto& s : spans) total += s.second - s.first;
  std::vector<std::vector<Span>> out(static_cast<size_t>(parts));
  int64_t done = 0;
  for (const auto& s : spans) {
    for (int64_t x = s.first; x < s.second;) {
      const int part = static_cast<int>(std::min<int64_t>(parts - 1, done * parts / total));
      const int64_t part_end = (part + 1) * total / parts;  // in cumulative tokens
      const int64_t take = std::min(s.second - x, std::max<int64_t>(1, part_end - done));
      out[part].push_back({x, x + take});
      x += take;
      done += take;
    }
  }
  return out;
}

}  // namespace

int AttendThreads(int64_t tokens, int threads) {
  const int64_t wanted = threads > 0 ? threads : h::HardwareThreads();
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(wanted, tokens / kMinTokensPerThread)));
}

void AttendSpansCpu(const float* q, const float* keys, const float* values, int d,
                    const std::vector<Span>& spans, float* out, int threads, bool vector) {
  int64_t total = 0;
  for (const auto& s : spans) total += s.second - s.first;
  if (total <= 0) throw std::invalid_argument("radar: attention over no tokens");
  ref::RequireFinite(q, d, "query");
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const int parts = AttendThreads(total, threads);
  const auto pieces = Split(spans, parts);
  std::vector<Partial> partial(static_cast<size_t>(parts));
  // One piece per part (n = threads = parts).
  h::ParallelFor(parts, parts, [&](int i, int64_t, int64_t) {
    partial[i].acc.assign(static_cast<size_t>(d), 0.0f);
    for (const auto& s : pieces[i]) AttendPart(q, keys, values, d, s.first, s.second, scale, vector, partial[i]);
  });
  float m = -std::numeric_limits<float>::infinity();
  for (const auto& p : partial) m = std::max(m, p.m);
  double l = 0;
  std::vector<double> acc(static_cast<size_t>(d), 0.0);
  for (const auto& p : partial) {
    if (p.l == 0) continue;
    const double f = std::exp(double(p.m) - m);
    l += f * p.l;
    for (int j = 0; j < d; ++j) acc[j] += f * p.acc[j];
  }
  for (int j = 0; j < d; ++j) out[j] = static_cast<float>(acc[j] / l);
}

void DenseDecode(h::Backend backend, const float* q, const float* keys, const float* values,
                 int64_t t, int d, float* out) {
  h::RequireAvailable(backend);
  if (t < 1 || d < 1) throw std::invalid_argument("radar: dense decode needs t, d >= 1");
  ref::RequireFinite(q, d, "query");
  if (backend == h::Backend::kCpu) return AttendSpansCpu(q, keys, values, d, {{0, t}}, out);
#if CB_HAVE_CUDA
  cuda::DenseDecode(q, keys, values, t, d, out);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

// ---------------------------------------------------------------------------
// The cache.

struct Cache::Impl {
  h::Backend backend;
  ref::Config config;
  int d = 0, D = 0;
  std::vector<float> omega;          // (d, D), from the reference's fp64 draw
  std::vector<float> keys, values;   // (t, d), host copy (the CPU path's store)
  std::vector<float> summaries;      // (n_seg, 2D), CPU path
  int64_t t = 0, c = 0, n_seg = 0;
  float s_plus = 0, s_minus = 0;
  ref::Counters counters;
#if CB_HAVE_CUDA
  cuda::StatePtr device;
#endif

  int64_t StoreSize() const { return std::max<int64_t>(0, t - config.sink - config.window - 1); }
  bool BelowThreshold() const {
    const double n = static_cast<double>(StoreSize());
    if (config.budget > 0) return n <= config.budget;
    const double root = config.topk / config.aspect;
    return n < root * root;
  }
  bool Cuda() const { return backend == h::Backend::kCuda; }

  // CPU: exponents of keys [first, first + rows) into e (rows, 2D): e+ then e-.
  void ExponentsCpu(int64_t first, int64_t rows, std::vector<float>& e) const {
    e.resize(static_cast<size_t>(rows) * 2 * D);
    std::vector<float> z(static_cast<size_t>(rows) * D);
    const float scale = std::pow(static_cast<float>(d), -0.25f);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), D, d, scale,
                &keys[first * d], d, omega.data(), D, 0.0f, z.data(), D);
    for (int64_t r = 0; r < rows; ++r) {
      const float* k = &keys[(first + r) * d];
      float n2 = 0;
      for (int i = 0; i < d; ++i) n2 += k[i] * k[i];
      n2 *= scale * scale;
      float* ep = &e[r * 2 * D];
      const float* zr = &z[r * D];
      for (int j = 0; j < D; ++j) {
        ep[j] = zr[j] - n2 / 2;
        ep[D + j] = -zr[j] - n2 / 2;
      }
    }
  }

  // CPU: appends `count` summaries of c-token segments from token `first`.
  // With `rescale` false the sums are left relative to each segment's own
  // maxima, returned in seg_max (2 per segment), for Rebuild() to finish.
  void SummariseCpu(int64_t first, int64_t count, bool rescale, std::vector<float>* seg_max) {
    const int64_t per_block = std::max<int64_t>(1, 2048 / c);
    std::vector<float> e;
    for (int64_t s0 = 0; s0 < count; s0 += per_block) {
      const int64_t ns = std::min(per_block, count - s0);
      ExponentsCpu(first + s0 * c, ns * c, e);
      for (int64_t s = 0; s < ns; ++s) {
        float mp = -std::numeric_limits<float>::infinity(), mm = mp;
        for (int64_t r = s * c; r < (s + 1) * c; ++r) {
          const float* ep = &e[r * 2 * D];
          for (int j = 0; j < D; ++j) mp = std::max(mp, ep[j]), mm = std::max(mm, ep[D + j]);
        }
        std::vector<float> sum(2 * static_cast<size_t>(D), 0.0f);
        for (int64_t r = s * c; r < (s + 1) * c; ++r) {
          const float* ep = &e[r * 2 * D];
          for (int j = 0; j < D; ++j) {
            sum[j] += std::exp(ep[j] - mp);
            sum[D + j] += std::exp(ep[D + j] - mm);
          }
        }
        if (rescale) Finish(sum.data(), mp, mm);
        if (seg_max) seg_max->push_back(mp), seg_max->push_back(mm);
        summaries.insert(summaries.end(), sum.begin(), sum.end());
        ++n_seg;
      }
      counters.rebuild_macs += static_cast<uint64_t>(ns * c) * (static_cast<uint64_t>(d) * D + 2 * D);
    }
  }

  // Sums relative to (mp, mm) -> the summary relative to (s_plus, s_minus).
  void Finish(float* sum, float mp, float mm) const {
    const double norm = 1 / std::sqrt(2.0 * D) / static_cast<double>(c);
    const double fp = norm * std::exp(double(mp) - s_plus), fm = norm * std::exp(double(mm) - s_minus);
    for (int j = 0; j < D; ++j) {
      sum[j] = static_cast<float>(fp * sum[j] + kPhiFloor);
      sum[D + j] = static_cast<float>(fm * sum[D + j] + kPhiFloor);
    }
  }

  void Rebuild() {
    const int64_t n = StoreSize();
    c = std::max<int64_t>(1, static_cast<int64_t>(std::floor(std::sqrt(double(n)) / config.aspect)));
    n_seg = 0;
    summaries.clear();
    ++counters.rebuilds;
    const int64_t whole = n / c;
#if CB_HAVE_CUDA
    if (Cuda()) {
      const auto [sp, sm] = cuda::Stabilisers(*device, config.sink, n);
      s_plus = static_cast<float>(sp), s_minus = static_cast<float>(sm);
      cuda::ClearSummaries(*device);
      cuda::Summarise(*device, config.sink, whole, c, s_plus, s_minus);
      n_seg = whole;
      counters.rebuild_macs += static_cast<uint64_t>(n) * d * D +
                               static_cast<uint64_t>(whole * c) * (static_cast<uint64_t>(d) * D + 2 * D);
      return;
    }
#endif
    std::vector<float> seg_max;
    SummariseCpu(config.sink, whole, false, &seg_max);
    float sp = -std::numeric_limits<float>::infinity(), sm = sp;
    for (size_t i = 0; i < seg_max.size(); i += 2) sp = std::max(sp, seg_max[i]), sm = std::max(sm, seg_max[i + 1]);
    const int64_t rem = n - whole * c;
    if (rem > 0) {  // the remainder's keys count towards the stabilisers too
      std::vector<float> e;
      ExponentsCpu(config.sink + whole * c, rem, e);
      for (int64_t r = 0; r < rem; ++r) {
        for (int j = 0; j < D; ++j) sp = std::max(sp, e[r * 2 * D + j]), sm = std::max(sm, e[r * 2 * D + D + j]);
      }
      counters.rebuild_macs += static_cast<uint64_t>(rem) * d * D;
    }
    s_plus = sp, s_minus = sm;
    for (int64_t j = 0; j < whole; ++j) Finish(&summaries[j * 2 * D], seg_max[2 * j], seg_max[2 * j + 1]);
  }

  void Organize() {
    if (BelowThreshold()) return;
    const int64_t n = StoreSize();
    if (c == 0 || n / c >= static_cast<int64_t>(2 * config.aspect * config.aspect * c)) {
      Rebuild();
      return;
    }
    const int64_t count = (n - n_seg * c) / c;
    if (count <= 0) return;
    const int64_t first = config.sink + n_seg * c;  // segments in token order
#if CB_HAVE_CUDA
    if (Cuda()) {
      cuda::Summarise(*device, first, count, c, s_plus, s_minus);
      n_seg += count;
      counters.rebuild_macs += static_cast<uint64_t>(count * c) * (static_cast<uint64_t>(d) * D + 2 * D);
      counters.segments_appended += count;
      return;
    }
#endif
    SummariseCpu(first, count, true, nullptr);
    counters.segments_appended += count;
  }

  // phi(q) [2D] with the query's own maxima.
  void Phi(const float* q, float* phi) const {
    const float scale = std::pow(static_cast<float>(d), -0.25f);
    std::vector<float> z(static_cast<size_t>(D), 0.0f);
    float n2 = 0;
    for (int i = 0; i < d; ++i) {
      const float x = scale * q[i];
      n2 += x * x;
      const float* row = &omega[static_cast<size_t>(i) * D];
      for (int j = 0; j < D; ++j) z[j] += x * row[j];
    }
    float mp = -std::numeric_limits<float>::infinity(), mm = mp;
    for (int j = 0; j < D; ++j) mp = std::max(mp, z[j] - n2 / 2), mm = std::max(mm, -z[j] - n2 / 2);
    const float norm = 1.0f / std::sqrt(2.0f * D);
    for (int j = 0; j < D; ++j) {
      phi[j] = norm * std::exp(z[j] - n2 / 2 - mp) + 1e-18f;
      phi[D + j] = norm * std::exp(-z[j] - n2 / 2 - mm) + 1e-18f;
    }
  }

  // The k best segments by score (ties: the lower index; a NaN score, from a
  // finite query so large that phi overflows, ranks as -inf).
  std::vector<int64_t> TopK(const float* score, int64_t k) const {
    std::vector<int64_t> order(static_cast<size_t>(n_seg));
    std::iota(order.begin(), order.end(), int64_t{0});
    auto key = [&](int64_t i) { return std::isnan(score[i]) ? -INFINITY : score[i]; };
    auto better = [&](int64_t a, int64_t b) { return key(a) > key(b) || (key(a) == key(b) && a < b); };
    std::nth_element(order.begin(), order.begin() + k, order.end(), better);
    order.resize(static_cast<size_t>(k));
    return order;
  }

  std::vector<int64_t> TopSegmentsCpu(const float* q, int64_t k) {
    std::vector<float> phi(2 * static_cast<size_t>(D)), score(static_cast<size_t>(n_seg));
    Phi(q, phi.data());
    ScoreSegments(summaries.data(), phi.data(), n_seg, 2 * D, score.data());
    return TopK(score.data(), k);
  }

  // The spans a query attends given its chosen segments (sorted here).
  std::vector<Span> SpansOf(std::vector<int64_t> chosen) const {
    std::sort(chosen.begin(), chosen.end());
    std::vector<Span> spans;
    auto add = [&](int64_t a, int64_t b) {
      if (a >= b) return;
      if (!spans.empty() && spans.back().second == a) spans.back().second = b;
      else spans.push_back({a, b});
    };
    add(0, std::min<int64_t>(config.sink, t));
    for (int64_t j : chosen) add(config.sink + j * c, config.sink + (j + 1) * c);
    add(config.sink + n_seg * c, t);
    return spans;
  }

  // Decode() for nq queries [nq, d] of one KV head, CPU: the segment scores
  // in one pass over the summaries; then each query's own top-k and spans.
  std::vector<std::vector<Span>> DecodeGroupCpu(const float* q, int nq, float* out) {
    if (t < 1) throw std::invalid_argument("radar: Decode() on an empty cache");
    Organize();
    const bool built = !BelowThreshold() && c > 0;
    const int64_t k = built ? (config.budget > 0 ? config.budget / c : config.topk) : 0;
    std::vector<std::vector<Span>> all(static_cast<size_t>(nq));
    if (!built || k >= n_seg) {
      for (int i = 0; i < nq; ++i) all[i] = Decode(q + static_cast<size_t>(i) * d, out + static_cast<size_t>(i) * d);
      return all;
    }
    const size_t two_d = 2 * static_cast<size_t>(D);
    std::vector<float> phi(static_cast<size_t>(nq) * two_d), score(static_cast<size_t>(nq) * n_seg);
    for (int i = 0; i < nq; ++i) Phi(q + static_cast<size_t>(i) * d, &phi[i * two_d]);
    ScoreSegmentsGroup(summaries.data(), phi.data(), nq, n_seg, static_cast<int>(two_d), score.data());
    for (int i = 0; i < nq; ++i) {
      all[i] = SpansOf(TopK(&score[static_cast<size_t>(i) * n_seg], k));
      AttendSpansCpu(q + static_cast<size_t>(i) * d, keys.data(), values.data(), d, all[i],
                     out + static_cast<size_t>(i) * d);
      int64_t attended = 0;
      for (const auto& sp : all[i]) attended += sp.second - sp.first;
      counters.exact = false;
      counters.decode_macs = static_cast<uint64_t>(d) * D + static_cast<uint64_t>(n_seg) * 2 * D +
                             2 * static_cast<uint64_t>(d) * attended;
      counters.attended = static_cast<uint64_t>(attended);
      counters.segments = n_seg;
      counters.segment_len = c;
    }
    return all;
  }

  std::vector<Span> Decode(const float* q, float* out) {
    if (t < 1) throw std::invalid_argument("radar: Decode() on an empty cache");
    ref::RequireFinite(q, d, "query");
    Organize();
    const bool built = !BelowThreshold() && c > 0;
    const int64_t k = built ? (config.budget > 0 ? config.budget / c : config.topk) : 0;
    counters.exact = !built || k >= n_seg;
    std::vector<Span> spans;
    uint64_t macs = 0;
    if (counters.exact) {
      spans.push_back({0, t});
    } else {
      std::vector<int64_t> chosen;
#if CB_HAVE_CUDA
      if (Cuda()) chosen = cuda::TopSegments(*device, q, k);
#endif
      if (!Cuda()) chosen = TopSegmentsCpu(q, k);
      macs += static_cast<uint64_t>(d) * D + static_cast<uint64_t>(n_seg) * 2 * D;
      spans = SpansOf(std::move(chosen));
    }
    int64_t attended = 0;
    for (const auto& s : spans) attended += s.second - s.first;
#if CB_HAVE_CUDA
    if (Cuda()) cuda::AttendSpans(*device, q, spans, out);
#endif
    if (!Cuda()) AttendSpansCpu(q, keys.data(), values.data(), d, spans, out);
    counters.decode_macs = macs + 2 * static_cast<uint64_t>(d) * attended;
    counters.attended = static_cast<uint64_t>(attended);
    counters.segments = n_seg;
    counters.segment_len = c;
    return spans;
  }
};

Cache::Cache(h::Backend backend, const ref::Config& config) : impl_(std::make_unique<Impl>()) {
  h::RequireAvailable(backend);
  if (config.selection != ref::Selection::kRadar) {
    throw std::invalid_argument("radar: the fast paths implement Radar selection only "
                                "(the ablations live in reference/radar)");
  }
  ref::Cache probe(config);  // validates the config, draws Omega as the reference does
  impl_->backend = backend;
  impl_->config = probe.config();
  impl_->d = config.d;
  impl_->D = probe.feature_map().D;
  impl_->omega.assign(probe.feature_map().omega.begin(), probe.feature_map().omega.end());
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) impl_->device = cuda::Create(impl_->omega.data(), impl_->d, impl_->D);
#endif
}

Cache::~Cache() = default;

void Cache::Append(const float* keys, const float* values, int64_t n) {
  auto& m = *impl_;
  ref::RequireFinite(keys, n * m.d, "key");
  ref::RequireFinite(values, n * m.d, "value");
  if (m.Cuda()) {
#if CB_HAVE_CUDA
    cuda::Append(*m.device, keys, values, n);
#endif
  } else {
    m.keys.insert(m.keys.end(), keys, keys + n * m.d);
    m.values.insert(m.values.end(), values, values + n * m.d);
  }
  m.t += n;
}

std::vector<Span> Cache::Decode(const float* q, float* out) { return impl_->Decode(q, out); }
std::vector<std::vector<Span>> Cache::DecodeGroup(const float* q, int nq, float* out) {
  if (nq < 1) throw std::invalid_argument("radar: DecodeGroup() of no queries");
  ref::RequireFinite(q, static_cast<int64_t>(nq) * impl_->d, "query");  // before any query is decoded
  if (!impl_->Cuda()) return impl_->DecodeGroupCpu(q, nq, out);
  std::vector<std::vector<Span>> all;
  for (int i = 0; i < nq; ++i) all.push_back(Decode(q + static_cast<size_t>(i) * impl_->d, out + static_cast<size_t>(i) * impl_->d));
  return all;
}
void Cache::Organize() { impl_->Organize(); }

void Cache::DecodeDense(const float* q, float* out) {
  auto& m = *impl_;
  if (m.t < 1) throw std::invalid_argument("radar: DecodeDense() on an empty cache");
  ref::RequireFinite(q, m.d, "query");
#if CB_HAVE_CUDA
  if (m.Cuda()) return cuda::AttendSpans(*m.device, q, {{0, m.t}}, out);
#endif
  AttendSpansCpu(q, m.keys.data(), m.values.data(), m.d, {{0, m.t}}, out);
}
int64_t Cache::size() const { return impl_->t; }
int64_t Cache::segments() const { return impl_->n_seg; }
int64_t Cache::segment_len() const { return impl_->c; }
const ref::Counters& Cache::counters() const { return impl_->counters; }

std::vector<float> Cache::Summaries() const {
#if CB_HAVE_CUDA
  if (impl_->Cuda()) return cuda::Summaries(*impl_->device);
#endif
  return impl_->summaries;
}

}  // namespace cb::radar

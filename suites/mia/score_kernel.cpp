// File: suites/mia/score_kernel.cpp
// CPU fast path and backend dispatch of the per-position scoring kernel
// (score_kernel.h).
//
// One pass per row, in chunks of kChunk logits: the chunk's maximum first
// (the chunk is then in L1), then 2^u with u = (z - m) log2(e) and the three
// sums of the chunk, all from L1; when a chunk raises the running maximum,
// the fp64 sums so far are rescaled (rare: a handful of times per row). So
// the row streams from DRAM once while the core computes, instead of a
// DRAM-bound max pass followed by a compute-bound exp pass.
// In base 2 the sums are S0 = sum 2^u, T1 = sum 2^u u, T2 = sum 2^u u^2
// (S0 is the natural-base sum of e^(z - m) itself), and
//   log Z = m + ln S0,  mu = ln2 T1/S0 - ln S0,  sigma2 = ln2^2 (T2/S0 - (T1/S0)^2)
// (the AVX-512 row shifts u by a known constant; BaseTwoSums::Finish).
// 2^u is harness/simd_math.h's Exp2Reduced (a degree-4 polynomial, relative
// error < 3e-6, exact at u = 0): libmvec's expf, 4 ulp but ~2x the
// operations, measured slower than the old hand polynomial (7.5 vs 10 GB/s).
//
// Three builds of the row loop, picked at run time by CPU feature
// (CpuPath::kAuto) or forced by tests:
//   AVX-512F  ScoreRowAvx512, intrinsics: u = z log2e - fp32(m log2e) as one
//             FMA, 2^u with vrndscaleps/vscalefps (~13 operations per 16
//             logits);
//   AVX2+FMA  and portable (8 lanes in the baseline ISA: SSE2 on x86-64):
//             the GCC vector-extension template ScoreRow, u = (z - m) log2e
//             (~18 operations per 8 logits).
//
// Napkin math at V = 131072, fp32: a row is 512 KiB, read once from DRAM.
// Measured on the development machine (AMD EPYC, 2 cores): the template at
// 16 lanes ran ~21.5 GB/s on one core whether the rows came from DRAM or
// from L2, i.e. compute-bound at ~2 vector operations per cycle; the
// intrinsics row ~27 GB/s from L2 and, with software prefetch, ~26 GB/s
// from DRAM in a standalone run (less beside other jobs); AVX2 ~14 GB/s.
#include "suites/mia/score_kernel.h"
#include "suites/mia/score_kernel_cuda.h"

// The vector helpers are always inlined, so the AVX calling-convention note
// GCC gives for them does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() as the unused
// merge operand, which -Wmaybe-uninitialized reports inside their header
// (GCC bug 105593); nothing here reads an undefined value.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/parallel.h"
#include "harness/simd_math.h"
#include "reference/mia/mia.h"

namespace cb::mia {
namespace {

using v8f = float __attribute__((vector_size(32)));
using v8i = int32_t __attribute__((vector_size(32)));
using v8u16 = uint16_t __attribute__((vector_size(16)));

// Logits per chunk: 2 KiB of fp32, in L1 between its two visits; also the
// flush interval of the fp32 lane sums into fp64 (at most kChunk / lanes / 2
// = 32 additions per lane, so fp32 rounding stays ~1e-6 relative). Measured
// with the 16-lane template (1 thread): 256 -> 18, 512 -> 21.5, 1024 -> 21,
// 2048 -> 18 GB/s; a pairwise lane reduction did not help.
constexpr int64_t kChunk = 512;
constexpr double kLn2 = 0.69314718055994530942;
constexpr float kLog2e = 1.44269504088896341f;

template <class V>
[[gnu::always_inline]] inline V Splat(float f) {
  return V{} + f;
}

template <class V, class I>
[[gnu::always_inline]] inline V Load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// bf16 -> fp32 is the 16 bits moved to the top of a 32-bit word.
template <class V, class I>
[[gnu::always_inline]] inline V Load(const uint16_t* p) {
  static_assert(sizeof(V) == sizeof(v8f), "bf16 loads are written for 8 lanes");
  v8u16 h;
  std::memcpy(&h, p, sizeof h);
  const I bits = __builtin_convertvector(h, I) << 16;
  V v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
[[gnu::always_inline]] inline float LoadOne(const float* p) { return *p; }
[[gnu::always_inline]] inline float LoadOne(const uint16_t* p) { return Bf16ToFloat(*p); }

template <class V>
[[gnu::always_inline]] inline float HorizontalMax(V v) {
  float m = v[0];
  for (size_t l = 1; l < sizeof(V) / sizeof(float); ++l) m = std::max(m, float(v[l]));
  return m;
}
template <class V>
[[gnu::always_inline]] inline double HorizontalSum(V v) {
  double s = 0;
  for (size_t l = 0; l < sizeof(V) / sizeof(float); ++l) s += v[l];
  return s;
}

struct RowOut {
  float logp, mu, sigma2;
  bool finite;
};

// Sums of one row in base 2: S0 = sum 2^u, T1 = sum 2^u u, T2 = sum 2^u u^2
// with u = z log2(e) - offset, where offset is the running maximum m in log2
// units (m log2 e, or its fp32 rounding in the AVX-512 path; see Finish()).
struct BaseTwoSums {
  double s0 = 0, t1 = 0, t2 = 0;
  float m = -INFINITY;
  double offset = 0;

  // The maximum rises to m_new (offset_new): u -> u - d with d = offset_new -
  // offset, so 2^u -> 2^-d 2^u, T1 -> 2^-d (T1 - d S0),
  // T2 -> 2^-d (T2 - 2d T1 + d^2 S0) (all terms >= 0: T1 <= 0, so nothing
  // cancels).
  void RaiseMax(float m_new, double offset_new) {
    if (m != -INFINITY && s0 != 0) {
      const double d = offset_new - offset;
      if (d > 300) {  // the old terms are below 2^-300 of the new maximum's own 1
        s0 = t1 = t2 = 0;
      } else {
        const double scale = std::exp2(-d);
        t2 = scale * (t2 - 2 * d * t1 + d * d * s0);
        t1 = scale * (t1 - d * s0);
        s0 *= scale;
      }
    }
    m = m_new;
    offset = offset_new;
  }

  // logp, mu, sigma2 of the row. With delta = offset - m log2 e (0 when the
  // offset is m log2 e itself), e^(z - m) = 2^(u + delta), so
  // log Z = m + ln S0 + delta ln 2 and logp = (z_target - m) - ln S0 - delta ln 2;
  // mu = ln2 T1/S0 - ln S0 and sigma2 do not depend on delta.
  RowOut Finish(float target_logit) const {
    if (!std::isfinite(s0) || !std::isfinite(t1) || !std::isfinite(t2) || !std::isfinite(m)) {
      return {0, 0, 0, false};
    }
    const double delta = offset - double(m) * double(kLog2e);
    const double log_s0 = std::log(s0), mean_u = t1 / s0;
    RowOut out;
    out.logp = static_cast<float>(double(target_logit) - m - log_s0 - delta * kLn2);
    out.mu = static_cast<float>(kLn2 * mean_u - log_s0);
    out.sigma2 = static_cast<float>(kLn2 * kLn2 * std::max(t2 / s0 - mean_u * mean_u, 0.0));
    out.finite = true;
    return out;
  }
};

template <class V, class I, class T>
[[gnu::always_inline]] inline RowOut ScoreRow(const T* row, int64_t v, int32_t target) {
  constexpr int64_t kLanes = sizeof(V) / sizeof(float);
  // Non-finite logits need no test of their own: NaN makes u, hence 2^u u
  // and T1, NaN; +Inf makes the maximum infinite; -Inf gives u = -Inf,
  // 2^u = 0 and 2^u u = NaN. The sums and the maximum are checked once at
  // the end (a row with finite logits whose sums are not is rescored:
  // ScoreRowByReference). Logits far below the maximum vanish: 2^u = 0
  // below u = -126, so 2^u u and 2^u u^2 too.
  BaseTwoSums sums;
  for (int64_t c = 0; c < v; c += kChunk) {
    const int64_t len = std::min(kChunk, v - c), vec_end = c + (len & ~(kLanes - 1));
    const T* x = row;
    // The chunk's maximum.
    V m0 = Splat<V>(-INFINITY), m1 = m0;
    int64_t i = c;
    for (; i + 2 * kLanes <= vec_end; i += 2 * kLanes) {
      const V a = Load<V, I>(x + i), b = Load<V, I>(x + i + kLanes);
      m0 = a > m0 ? a : m0;
      m1 = b > m1 ? b : m1;
    }
    for (; i < vec_end; i += kLanes) {
      const V a = Load<V, I>(x + i);
      m0 = a > m0 ? a : m0;
    }
    float chunk_max = HorizontalMax(m0 > m1 ? m0 : m1);
    for (int64_t j = vec_end; j < c + len; ++j) chunk_max = std::max(chunk_max, LoadOne(x + j));
    if (chunk_max > sums.m) sums.RaiseMax(chunk_max, double(chunk_max) * double(kLog2e));
    // The chunk's sums: two independent accumulator sets keep two
    // polynomial chains in flight.
    const V mv = Splat<V>(sums.m), log2e = Splat<V>(kLog2e);
    V a0 = Splat<V>(0), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0;
    for (i = c; i + 2 * kLanes <= vec_end; i += 2 * kLanes) {
      const V u = (Load<V, I>(x + i) - mv) * log2e, w = (Load<V, I>(x + i + kLanes) - mv) * log2e;
      const V e = harness::simd::Exp2Reduced<V, I>(u), f = harness::simd::Exp2Reduced<V, I>(w);
      const V eu = e * u, fw = f * w;
      a0 += e;
      a1 += eu;
      a2 += eu * u;
      b0 += f;
      b1 += fw;
      b2 += fw * w;
    }
    for (; i < vec_end; i += kLanes) {
      const V u = (Load<V, I>(x + i) - mv) * log2e;
      const V e = harness::simd::Exp2Reduced<V, I>(u), eu = e * u;
      a0 += e;
      a1 += eu;
      a2 += eu * u;
    }
    sums.s0 += HorizontalSum(a0 + b0);
    sums.t1 += HorizontalSum(a1 + b1);
    sums.t2 += HorizontalSum(a2 + b2);
    for (; i < c + len; ++i) {
      const float u = (LoadOne(x + i) - sums.m) * kLog2e;
      const float e = harness::simd::Exp2Reduced<V, I>(Splat<V>(u))[0];
      sums.s0 += e;
      sums.t1 += double(e) * u;
      sums.t2 += double(e) * u * u;
    }
  }
  return sums.Finish(LoadOne(row + target));
}

#if CB_HAVE_SIMD_MATH
// The AVX-512 row, written with intrinsics rather than the template above
// for two instructions the template cannot express: u = z log2(e) - c as
// one FMA, with c = fp32(m log2 e) (the rounding of c is a constant shift of
// every u, accounted for exactly in Finish(); the scalar tail uses
// std::fmaf, the same correctly rounded operation), and 2^u by
// vrndscaleps/vscalefps (simd::Exp2Reduced(__m512): no clamp). ~13
// operations per 16 logits instead of ~18.
CB_TARGET_AVX512 inline __m512 Load16(const float* p) { return _mm512_loadu_ps(p); }
CB_TARGET_AVX512 inline __m512 Load16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// Lane reductions by a store and a scalar loop (GCC 12's _mm512_reduce_*
// intrinsics warn -Wmaybe-uninitialized).
CB_TARGET_AVX512 inline float LaneMax(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  return *std::max_element(lanes, lanes + 16);
}
CB_TARGET_AVX512 inline double LaneSum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  double s = 0;
  for (const float x : lanes) s += x;
  return s;
}

constexpr int64_t kPrefetchAhead = 4 * kChunk;  // logits

template <class T>
CB_TARGET_AVX512 inline RowOut ScoreRowAvx512(const T* x, int64_t v, int32_t target) {
  constexpr int64_t kLanes = 16;
  BaseTwoSums sums;
  float c = 0;  // fp32(m log2 e)
  for (int64_t chunk = 0; chunk < v; chunk += kChunk) {
    const int64_t len = std::min(kChunk, v - chunk), vec_end = chunk + (len & ~(kLanes - 1));
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    int64_t i = chunk;
    for (; i + 2 * kLanes <= vec_end; i += 2 * kLanes) {
      m0 = _mm512_max_ps(Load16(x + i), m0);  // a NaN lane keeps m0 (as in the template)
      m1 = _mm512_max_ps(Load16(x + i + kLanes), m1);
    }
    for (; i < vec_end; i += kLanes) m0 = _mm512_max_ps(Load16(x + i), m0);
    float chunk_max = LaneMax(_mm512_max_ps(m0, m1));
    for (int64_t j = vec_end; j < chunk + len; ++j) chunk_max = std::max(chunk_max, LoadOne(x + j));
    if (chunk_max > sums.m) {
      c = chunk_max * kLog2e;
      sums.RaiseMax(chunk_max, double(c));
    }
    const __m512 neg_c = _mm512_set1_ps(-c), log2e = _mm512_set1_ps(kLog2e);
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0;
    for (i = chunk; i + 2 * kLanes <= vec_end; i += 2 * kLanes) {
      // Four chunks ahead: at this speed the hardware prefetcher alone left
      // the next chunk's max pass waiting on DRAM (measured 23 -> 27 GB/s;
      // one or two chunks ahead helped less). Prefetches never fault, so
      // running past the row's end is harmless.
      _mm_prefetch(reinterpret_cast<const char*>(x + i + kPrefetchAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(x + i + kPrefetchAhead + kLanes), _MM_HINT_T0);
      const __m512 u = _mm512_fmadd_ps(Load16(x + i), log2e, neg_c);
      const __m512 w = _mm512_fmadd_ps(Load16(x + i + kLanes), log2e, neg_c);
      const __m512 e = harness::simd::Exp2Reduced(u), f = harness::simd::Exp2Reduced(w);
      const __m512 eu = _mm512_mul_ps(e, u), fw = _mm512_mul_ps(f, w);
      a0 = _mm512_add_ps(a0, e);
      a1 = _mm512_add_ps(a1, eu);
      a2 = _mm512_fmadd_ps(eu, u, a2);
      b0 = _mm512_add_ps(b0, f);
      b1 = _mm512_add_ps(b1, fw);
      b2 = _mm512_fmadd_ps(fw, w, b2);
    }
    for (; i < vec_end; i += kLanes) {
      const __m512 u = _mm512_fmadd_ps(Load16(x + i), log2e, neg_c);
      const __m512 e = harness::simd::Exp2Reduced(u), eu = _mm512_mul_ps(e, u);
      a0 = _mm512_add_ps(a0, e);
      a1 = _mm512_add_ps(a1, eu);
      a2 = _mm512_fmadd_ps(eu, u, a2);
    }
    sums.s0 += LaneSum(_mm512_add_ps(a0, b0));
    sums.t1 += LaneSum(_mm512_add_ps(a1, b1));
    sums.t2 += LaneSum(_mm512_add_ps(a2, b2));
    for (; i < chunk + len; ++i) {
      const float u = std::fmaf(LoadOne(x + i), kLog2e, -c);
      const float e = _mm512_cvtss_f32(harness::simd::Exp2Reduced(_mm512_set1_ps(u)));
      sums.s0 += e;
      sums.t1 += double(e) * u;
      sums.t2 += double(e) * u * u;
    }
  }
  return sums.Finish(LoadOne(x + target));
}
#endif  // CB_HAVE_SIMD_MATH

// A row whose fp32 sums came out non-finite though every logit is finite:
// logits near -FLT_MAX (masking as torch writes it) make (z - m) log2 e
// overflow to -inf, and 2^u u is then NaN. Such rows are rare; the fp64
// reference scores them. False if the row holds a NaN or an infinity.
bool ScoreRowByReference(const void* data, LogitType type, int64_t v, const int32_t* targets, int64_t r,
                         float* logp, float* mu, float* sigma2) {
  std::vector<double> row(static_cast<size_t>(v));
  for (int64_t i = 0; i < v; ++i) {
    const float z = type == LogitType::kF32 ? static_cast<const float*>(data)[r * v + i]
                                            : Bf16ToFloat(static_cast<const uint16_t*>(data)[r * v + i]);
    if (!std::isfinite(z)) return false;
    row[static_cast<size_t>(i)] = z;
  }
  const cb::ref::mia::PositionStats s = cb::ref::mia::StatsFromLogits(row, targets[r]);
  logp[r] = static_cast<float>(s.logp);
  mu[r] = static_cast<float>(s.mu);
  sigma2[r] = static_cast<float>(s.sigma2);
  return true;
}

// The row range [begin, end) of one thread; returns the first bad row or -1.
template <class V, class I>
[[gnu::always_inline]] inline int64_t ScoreRowsWith(const void* data, LogitType type, int64_t v,
                                                   const int32_t* targets, int64_t begin, int64_t end,
                                                   float* logp, float* mu, float* sigma2) {
  for (int64_t r = begin; r < end; ++r) {
    const RowOut o = type == LogitType::kF32
                         ? ScoreRow<V, I>(static_cast<const float*>(data) + r * v, v, targets[r])
                         : ScoreRow<V, I>(static_cast<const uint16_t*>(data) + r * v, v, targets[r]);
    if (!o.finite) {
      if (!ScoreRowByReference(data, type, v, targets, r, logp, mu, sigma2)) return r;
      continue;
    }
    logp[r] = o.logp;
    mu[r] = o.mu;
    sigma2[r] = o.sigma2;
  }
  return -1;
}

#define CB_SCORE_ROWS_ARGS                                                                       \
  const void *data, LogitType type, int64_t v, const int32_t *targets, int64_t begin, int64_t end, \
      float *logp, float *mu, float *sigma2
#define CB_SCORE_ROWS_CALL data, type, v, targets, begin, end, logp, mu, sigma2

int64_t ScoreRowsPortable(CB_SCORE_ROWS_ARGS) { return ScoreRowsWith<v8f, v8i>(CB_SCORE_ROWS_CALL); }
#if CB_HAVE_SIMD_MATH
CB_TARGET_AVX2 int64_t ScoreRowsAvx2(CB_SCORE_ROWS_ARGS) {
  return ScoreRowsWith<v8f, v8i>(CB_SCORE_ROWS_CALL);
}
CB_TARGET_AVX512 int64_t ScoreRowsAvx512(CB_SCORE_ROWS_ARGS) {
  for (int64_t r = begin; r < end; ++r) {
    const RowOut o = type == LogitType::kF32
                         ? ScoreRowAvx512(static_cast<const float*>(data) + r * v, v, targets[r])
                         : ScoreRowAvx512(static_cast<const uint16_t*>(data) + r * v, v, targets[r]);
    if (!o.finite) {
      if (!ScoreRowByReference(data, type, v, targets, r, logp, mu, sigma2)) return r;
      continue;
    }
    logp[r] = o.logp;
    mu[r] = o.mu;
    sigma2[r] = o.sigma2;
  }
  return -1;
}
#endif

using ScoreRowsFn = int64_t (*)(CB_SCORE_ROWS_ARGS);
#undef CB_SCORE_ROWS_ARGS
#undef CB_SCORE_ROWS_CALL

ScoreRowsFn PickPath(CpuPath path) {
  if (path == CpuPath::kAuto) path = BestCpuPath();
  if (!CpuPathAvailable(path)) {
    throw std::runtime_error(std::string("ScorePositions: CPU path ") + CpuPathName(path) +
                             " needs instructions this CPU lacks");
  }
#if CB_HAVE_SIMD_MATH
  if (path == CpuPath::kAvx512) return ScoreRowsAvx512;
  if (path == CpuPath::kAvx2) return ScoreRowsAvx2;
#endif
  return ScoreRowsPortable;
}

void Validate(const LogitsView& logits, std::span<const int32_t> targets) {
  if (logits.rows < 0 || logits.vocab < 1) throw std::invalid_argument("ScorePositions: empty vocabulary");
  if (int64_t(targets.size()) != logits.rows) {
    throw std::invalid_argument("ScorePositions: " + std::to_string(targets.size()) + " targets for " +
                                std::to_string(logits.rows) + " rows");
  }
  if (logits.rows > 0 && logits.data == nullptr) throw std::invalid_argument("ScorePositions: null logits");
  for (int64_t r = 0; r < logits.rows; ++r) {
    if (targets[r] < 0 || targets[r] >= logits.vocab) {
      throw std::invalid_argument("ScorePositions: row " + std::to_string(r) + ": target " +
                                  std::to_string(targets[r]) + " not in [0, " +
                                  std::to_string(logits.vocab) + ")");
    }
  }
}

}  // namespace

uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float Bf16ToFloat(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

const char* CpuPathName(CpuPath path) {
  switch (path) {
    case CpuPath::kAuto: return "auto";
    case CpuPath::kAvx512: return "avx512";
    case CpuPath::kAvx2: return "avx2";
    case CpuPath::kPortable: return "portable";
  }
  return "?";
}

bool CpuPathAvailable(CpuPath path) {
  switch (path) {
    case CpuPath::kAvx512: return CB_HAVE_SIMD_MATH && cb::harness::CpuHasAvx512F();
    case CpuPath::kAvx2: return CB_HAVE_SIMD_MATH && cb::harness::CpuHasAvx2Fma();
    default: return true;
  }
}

CpuPath BestCpuPath() {
  for (const CpuPath p : {CpuPath::kAvx512, CpuPath::kAvx2}) {
    if (CpuPathAvailable(p)) return p;
  }
  return CpuPath::kPortable;
}

PositionScores ScorePositionsCpu(const LogitsView& logits, std::span<const int32_t> targets,
                                 int threads, CpuPath path) {
  Validate(logits, targets);
  const ScoreRowsFn score_rows = PickPath(path);
  PositionScores out;
  out.logp.assign(logits.rows, NAN);
  out.mu.assign(logits.rows, NAN);
  out.sigma2.assign(logits.rows, NAN);
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<int64_t>(1, logits.rows))));
  std::vector<int64_t> bad(threads, -1);
  cb::harness::ParallelFor(logits.rows, threads, [&](int k, int64_t begin, int64_t end) {
    bad[k] = score_rows(logits.data, logits.type, logits.vocab, targets.data(), begin, end,
                       out.logp.data(), out.mu.data(), out.sigma2.data());
  });
  for (int64_t r : bad) {
    if (r >= 0) throw std::invalid_argument("ScorePositions: row " + std::to_string(r) + " has a non-finite logit");
  }
  return out;
}

PositionScores ScorePositions(cb::harness::Backend backend, const LogitsView& logits,
                              std::span<const int32_t> targets, int threads) {
  cb::harness::RequireAvailable(backend);
  if (backend == cb::harness::Backend::kCpu) return ScorePositionsCpu(logits, targets, threads);
#if CB_HAVE_CUDA
  return ScorePositionsCuda(logits, targets);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

}  // namespace cb::mia

// File: suites/mia/score_kernel.cpp
// CPU fast path and backend dispatch of the per-position scoring kernel
// (score_kernel.h). The row loops use GCC vector extensions (8 x fp32) and are
// compiled twice (target_clones: x86-64-v3, i.e. AVX2+FMA, and the x86-64
// baseline; the ISA level is dispatched on CPU features, whereas a CPU-model
// clone such as arch=haswell would miss AMD CPUs), the
// loader picking the best at run time, so the binary still starts anywhere.
//
// Napkin math at V = 131072, fp32: a row is 512 KiB, read once from DRAM in
// pass 1 (max) and again from L2 in pass 2 (exp + 3 sums: ~20 flops/element).
// At ~10 GB/s per core, DRAM alone allows ~19k rows/s; the polynomial exp at
// 8 lanes x ~3 GHz keeps up only with AVX2, hence the clones.
#include "suites/mia/score_kernel.h"

// The 32-byte vector helpers are always inlined, so the AVX calling-convention
// note GCC gives for them does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace cb::mia {
namespace {

using v8f = float __attribute__((vector_size(32)));
using v8i = int32_t __attribute__((vector_size(32)));
using v8u16 = uint16_t __attribute__((vector_size(16)));

constexpr int kLanes = 8;
constexpr int64_t kFlushElements = 1024;  // fp32 partial sums per lane stay short

__attribute__((always_inline)) inline v8f Splat(float f) { return v8f{f, f, f, f, f, f, f, f}; }

__attribute__((always_inline)) inline v8f Load(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
__attribute__((always_inline)) inline v8f Load(const uint16_t* p) {
  v8u16 h;
  std::memcpy(&h, p, sizeof h);
  const v8i bits = __builtin_convertvector(h, v8i) << 16;
  v8f v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
inline float LoadOne(const float* p) { return *p; }
inline float LoadOne(const uint16_t* p) { return Bf16ToFloat(*p); }

// e^x for x <= 0 (Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, degree-5
// Taylor polynomial, relative error < 3e-6, far inside the 1e-4 contract;
// x < -87 flushes to ~2^-126).
__attribute__((always_inline)) inline v8f Exp(v8f x) {
  x = x < Splat(-87.0f) ? Splat(-87.0f) : x;
  const v8f t = x * Splat(1.44269504f) + Splat(12582912.0f);  // round to nearest
  const v8f n = t - Splat(12582912.0f);
  const v8f r = x - n * Splat(0.693145752f) - n * Splat(1.42860677e-6f);
  v8f p = Splat(1.0f / 120);
  p = p * r + Splat(1.0f / 24);
  p = p * r + Splat(1.0f / 6);
  p = p * r + Splat(0.5f);
  p = p * r + Splat(1.0f);
  p = p * r + Splat(1.0f);
  v8i bits;
  std::memcpy(&bits, &p, sizeof bits);
  bits += __builtin_convertvector(n, v8i) << 23;
  std::memcpy(&p, &bits, sizeof p);
  return p;
}

__attribute__((always_inline)) inline float ExpScalar(float x) {
  v8f v = Exp(Splat(x));
  return v[0];
}

struct RowOut {
  float logp, mu, sigma2;
  bool finite;
};

template <class T>
__attribute__((always_inline)) inline RowOut ScoreRow(const T* row, int64_t v, int32_t target) {
  // Pass 1: the maximum. Non-finite logits need no test of their own: NaN
  // makes y (hence S0) NaN in pass 2, +Inf makes the max infinite and y NaN
  // (Inf - Inf), -Inf gives y = -Inf and e * y = -Inf in S1; the sums are
  // checked once at the end.
  v8f m0 = Splat(-INFINITY), m1 = m0;
  int64_t i = 0;
  for (; i + 2 * kLanes <= v; i += 2 * kLanes) {
    const v8f a = Load(row + i), b = Load(row + i + kLanes);
    m0 = a > m0 ? a : m0;
    m1 = b > m1 ? b : m1;
  }
  float m = -INFINITY;
  for (int l = 0; l < kLanes; ++l) m = std::max(m, std::max(m0[l], m1[l]));
  for (int64_t j = i; j < v; ++j) m = std::max(m, LoadOne(row + j));
  // Pass 2: S0, S1, S2 of y = x - m, fp32 lanes flushed into fp64.
  double s0 = 0, s1 = 0, s2 = 0;
  const v8f mv = Splat(m);
  const int64_t vmain = v & ~int64_t(kLanes - 1);
  for (i = 0; i < vmain;) {
    const int64_t end = std::min(vmain, i + kFlushElements);
    // Two independent accumulator sets: the exp polynomial is a long
    // dependency chain, so two chunks in flight keep the FMA units busy.
    v8f a0 = Splat(0), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0;
    for (; i + 2 * kLanes <= end; i += 2 * kLanes) {
      const v8f y = Load(row + i) - mv, z = Load(row + i + kLanes) - mv;
      const v8f e = Exp(y), f = Exp(z);
      a0 += e;
      a1 += e * y;
      a2 += e * y * y;
      b0 += f;
      b1 += f * z;
      b2 += f * z * z;
    }
    for (; i < end; i += kLanes) {
      const v8f y = Load(row + i) - mv;
      const v8f e = Exp(y);
      a0 += e;
      a1 += e * y;
      a2 += e * y * y;
    }
    a0 += b0;
    a1 += b1;
    a2 += b2;
    for (int l = 0; l < kLanes; ++l) {
      s0 += a0[l];
      s1 += a1[l];
      s2 += a2[l];
    }
  }
  for (; i < v; ++i) {
    const float y = LoadOne(row + i) - m, e = ExpScalar(y);
    s0 += e;
    s1 += double(e) * y;
    s2 += double(e) * y * y;
  }
  if (!std::isfinite(s0) || !std::isfinite(s1) || !std::isfinite(s2) || !std::isfinite(m)) {
    return {0, 0, 0, false};
  }
  const double log_s0 = std::log(s0), mean_y = s1 / s0;
  RowOut out;
  out.logp = static_cast<float>(double(LoadOne(row + target)) - m - log_s0);
  out.mu = static_cast<float>(mean_y - log_s0);
  out.sigma2 = static_cast<float>(std::max(s2 / s0 - mean_y * mean_y, 0.0));
  out.finite = true;
  return out;
}

// The row range [begin, end) of one thread; returns the first bad row or -1.
__attribute__((target_clones("arch=x86-64-v3", "default")))
int64_t ScoreRows(const void* data, LogitType type, int64_t v, const int32_t* targets,
                  int64_t begin, int64_t end, float* logp, float* mu, float* sigma2) {
  for (int64_t r = begin; r < end; ++r) {
    const RowOut o = type == LogitType::kF32
                         ? ScoreRow(static_cast<const float*>(data) + r * v, v, targets[r])
                         : ScoreRow(static_cast<const uint16_t*>(data) + r * v, v, targets[r]);
    if (!o.finite) return r;
    logp[r] = o.logp;
    mu[r] = o.mu;
    sigma2[r] = o.sigma2;
  }
  return -1;
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

PositionScores ScorePositionsCpu(const LogitsView& logits, std::span<const int32_t> targets,
                                 int threads) {
  Validate(logits, targets);
  PositionScores out;
  out.logp.assign(logits.rows, NAN);
  out.mu.assign(logits.rows, NAN);
  out.sigma2.assign(logits.rows, NAN);
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<int64_t>(1, logits.rows))));
  std::vector<int64_t> bad(threads, -1);
  auto work = [&](int k) {
    const int64_t begin = logits.rows * k / threads, end = logits.rows * (k + 1) / threads;
    bad[k] = ScoreRows(logits.data, logits.type, logits.vocab, targets.data(), begin, end,
                       out.logp.data(), out.mu.data(), out.sigma2.data());
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) pool.emplace_back(work, k);
    for (auto& t : pool) t.join();
  }
  for (int64_t r : bad) {
    if (r >= 0) throw std::invalid_argument("ScorePositions: row " + std::to_string(r) + " has a non-finite logit");
  }
  return out;
}

PositionScores ScorePositions(cb::harness::Backend backend, const LogitsView& logits,
                              std::span<const int32_t> targets, int threads) {
  const auto status = cb::harness::Availability(backend);
  if (!status.ok) {
    throw std::runtime_error(std::string(cb::harness::BackendName(backend)) + " unavailable: " + status.reason);
  }
  if (backend == cb::harness::Backend::kCpu) return ScorePositionsCpu(logits, targets, threads);
#if CB_HAVE_CUDA
  return ScorePositionsCuda(logits, targets);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

}  // namespace cb::mia

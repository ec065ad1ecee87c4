// File: suites/mia/mia.cu
// -----------------------------------------------------------------------------
// CUDA path of the per-position scoring kernel (score_kernel.h): for logits
// (T, V) in fp32 or bf16, one fused pass computes log p(target), mu = sum p
// log p and sigma2 = sum p (log p)^2 - mu^2 with an online max/sum.
//
// Thread mapping: one block of kThreads threads per row t (grid = T). Thread i
// reads the row in vector chunks (float4, or 8 x bf16 as one uint4) at chunk
// indices i, i + kThreads, ... (coalesced), keeping a state (m, S0, S1, S2)
// of sums of e^(x-m) (x-m)^k relative to its own running max m; a chunk whose
// max exceeds m first rescales the state (Combine below), so exp never
// overflows and the row is read exactly once from HBM. The block then
// combines the kThreads states (warp shuffles, then one warp over the warp
// results) and thread 0 writes the three outputs, finishing in fp64.
//
// Combine((m_a, A), (m_b, B)) with m_a >= m_b, d = m_b - m_a <= 0, f = e^d:
//   S0 = A0 + f B0,  S1 = A1 + f (B1 + d B0),  S2 = A2 + f (B2 + 2 d B1 + d^2 B0)
// (every term of S1 is <= 0 and of S2 >= 0: no cancellation).
//
// Napkin math (H200, ~4.8 TB/s HBM): T = 512 rows of V = 131072 fp32 is
// 256 MiB, ~56 us at full bandwidth; ~10 flops per element keeps it memory bound.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "suites/mia/score_kernel.h"
#include "suites/mia/score_kernel_cuda.h"

namespace cb::mia {
namespace {

namespace ci = cb::harness::cuda_internal;

constexpr int kThreads = 256;

struct State {
  float m, s0, s1, s2;
};

__device__ __forceinline__ State Combine(State a, State b) {
  if (a.m < b.m) {
    const State t = a;
    a = b;
    b = t;
  }
  if (b.s0 == 0.0f) return a;  // empty (m = -inf) or underflowed
  const float d = b.m - a.m, f = __expf(d);
  // b's terms are below 2^-126 of a's maximum's own 1 (the CPU path drops
  // them too, score_kernel.cpp RaiseMax); d * d * b.s0 may be +inf there
  // (maxima ~1e19 apart, e.g. -FLT_MAX masking), and 0 * inf is NaN.
  if (f == 0.0f) return a;
  State r;
  r.m = a.m;
  r.s0 = a.s0 + f * b.s0;
  r.s1 = a.s1 + f * (b.s1 + d * b.s0);
  r.s2 = a.s2 + f * (b.s2 + 2.0f * d * b.s1 + d * d * b.s0);
  return r;
}

// Adds values x[0..n) to the state (one rescale per chunk at most).
template <int N>
__device__ __forceinline__ void Accumulate(State& st, const float (&x)[N], bool& bad) {
  float cm = x[0];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    bad |= !isfinite(x[k]);
    cm = fmaxf(cm, x[k]);
  }
  if (cm > st.m) {
    const State old = st;
    st = {cm, 0.0f, 0.0f, 0.0f};
    if (old.s0 > 0.0f) st = Combine(st, old);
  }
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const float y = x[k] - st.m, e = __expf(y);
    st.s0 += e;
    st.s1 += e * y;
    st.s2 += e * y * y;
  }
}

__device__ __forceinline__ float ToFloat(float x) { return x; }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ void LoadChunk(const T* row, int64_t c, float (&x)[16 / sizeof(T)]) {
  constexpr int kN = 16 / sizeof(T);
  const uint4 raw = reinterpret_cast<const uint4*>(row)[c];
  const T* v = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int k = 0; k < kN; ++k) x[k] = ToFloat(v[k]);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    score_rows_kernel(const T* __restrict__ logits, int64_t vocab,
                      const int32_t* __restrict__ targets, float* __restrict__ logp,
                      float* __restrict__ mu, float* __restrict__ sigma2, bool vector_loads) {
  constexpr int kN = 16 / sizeof(T);
  const int64_t r = blockIdx.x;
  const T* row = logits + r * vocab;
  State st{-INFINITY, 0.0f, 0.0f, 0.0f};
  bool bad = false;
  int64_t scalar_from = 0;
  if (vector_loads) {
    const int64_t chunks = vocab / kN;
    for (int64_t c = threadIdx.x; c < chunks; c += kThreads) {
      float x[kN];
      LoadChunk<T>(row, c, x);
      Accumulate<kN>(st, x, bad);
    }
    scalar_from = chunks * kN;
  }
  for (int64_t i = scalar_from + threadIdx.x; i < vocab; i += kThreads) {
    const float x[1] = {ToFloat(row[i])};
    Accumulate<1>(st, x, bad);
  }
  // Block reduction of the states: warps by shuffles, then warp 0.
  __shared__ State warp_states[kThreads / 32];
  __shared__ int any_bad;
  if (threadIdx.x == 0) any_bad = 0;
  __syncthreads();
  if (bad) atomicOr(&any_bad, 1);
  for (int off = 16; off > 0; off >>= 1) {
    State o;
    o.m = __shfl_down_sync(0xffffffffu, st.m, off);
    o.s0 = __shfl_down_sync(0xffffffffu, st.s0, off);
    o.s1 = __shfl_down_sync(0xffffffffu, st.s1, off);
    o.s2 = __shfl_down_sync(0xffffffffu, st.s2, off);
    st = Combine(st, o);
  }
  if (threadIdx.x % 32 == 0) warp_states[threadIdx.x / 32] = st;
  __syncthreads();
  if (threadIdx.x == 0) {
    State total = warp_states[0];
    for (int w = 1; w < kThreads / 32; ++w) total = Combine(total, warp_states[w]);
    if (any_bad) {
      logp[r] = mu[r] = sigma2[r] = NAN;
      return;
    }
    const double s0 = total.s0, log_s0 = log(s0), mean_y = double(total.s1) / s0;
    logp[r] = static_cast<float>(double(ToFloat(row[targets[r]])) - total.m - log_s0);
    mu[r] = static_cast<float>(mean_y - log_s0);
    sigma2[r] = static_cast<float>(fmax(double(total.s2) / s0 - mean_y * mean_y, 0.0));
  }
}

void Launch(const void* d_logits, int64_t rows, int64_t vocab, LogitType type, const int32_t* d_targets,
            float* d_logp, float* d_mu, float* d_sigma2, cudaStream_t stream) {
  if (rows == 0) return;
  if (rows > 2147483647LL) throw std::invalid_argument("ScorePositionsCuda: too many rows");
  const int64_t width = type == LogitType::kF32 ? 4 : 8;
  const bool vector_loads = vocab % width == 0;  // every row 16-byte aligned (cudaMalloc base)
  const dim3 grid(static_cast<unsigned>(rows));
  if (type == LogitType::kF32) {
    score_rows_kernel<float><<<grid, kThreads, 0, stream>>>(static_cast<const float*>(d_logits), vocab,
                                                             d_targets, d_logp, d_mu, d_sigma2, vector_loads);
  } else {
    score_rows_kernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(d_logits), vocab, d_targets, d_logp, d_mu, d_sigma2, vector_loads);
  }
  CB_CUDA_CHECK_LAUNCH();
}

}  // namespace

PositionScores ScorePositionsCuda(const LogitsView& logits, std::span<const int32_t> targets) {
  if (int64_t(targets.size()) != logits.rows) throw std::invalid_argument("ScorePositionsCuda: targets size");
  for (int64_t r = 0; r < logits.rows; ++r) {
    if (targets[r] < 0 || targets[r] >= logits.vocab) {
      throw std::invalid_argument("ScorePositions: row " + std::to_string(r) + ": target out of range");
    }
  }
  PositionScores out;
  if (logits.rows == 0) return out;
  const size_t bytes = static_cast<size_t>(logits.rows * logits.vocab) * logits.ElementBytes();
  cb::harness::DeviceBuffer<unsigned char> d_logits(bytes);
  d_logits.CopyFromHost({static_cast<const unsigned char*>(logits.data), bytes});
  cb::harness::DeviceBuffer<int32_t> d_targets(targets);
  cb::harness::DeviceBuffer<float> d_logp(logits.rows), d_mu(logits.rows), d_sigma2(logits.rows);
  d_logp.Poison();  // a row the kernel missed reads back as NaN
  d_mu.Poison();
  d_sigma2.Poison();
  Launch(d_logits.data(), logits.rows, logits.vocab, logits.type, d_targets.data(), d_logp.data(),
         d_mu.data(), d_sigma2.data(), nullptr);
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  out.logp = d_logp.ToHost();
  out.mu = d_mu.ToHost();
  out.sigma2 = d_sigma2.ToHost();
  for (int64_t r = 0; r < logits.rows; ++r) {
    if (std::isnan(out.logp[r])) {
      throw std::invalid_argument("ScorePositions: row " + std::to_string(r) + " has a non-finite logit");
    }
  }
  return out;
}

double TimeScorePositionsCuda(const void* d_logits, int64_t rows, int64_t vocab, LogitType type,
                              const int32_t* d_targets, float* d_logp, float* d_mu, float* d_sigma2,
                              int reps) {
  const auto samples = ci::TimeKernel(
      [&](cudaStream_t s) { Launch(d_logits, rows, vocab, type, d_targets, d_logp, d_mu, d_sigma2, s); },
      /*warmup=*/2, /*repetitions=*/1, /*cold=*/false, nullptr, reps);
  return samples.at(0) * 1e3;
}

}  // namespace cb::mia

// File: suites/ibedl/evidential_loss.cu
// -----------------------------------------------------------------------------
// CUDA path of the batch evidential loss (evidential_loss.h): one thread per
// example b, fp32, K <= 16 values in registers; for each of the J draws (the
// host's eps buffer, [B, J, K]) alpha = softplus(mu + sigma eps) + 1, the data
// term (ss or ce) and, when weighted, the Dirichlet KL, with their analytic
// gradients (the formulas of reference/ibedl/evidential.cpp); then the IB term.
// Each thread writes its example's loss share and its dmu/dtail rows; the
// host sums the B shares in order (fp64). No atomics: deterministic.
//
// Napkin math: B * J * K * ~60 flops = 4 * 20 * 4 * 60 ~ 20 kflop per step,
// launch-bound; this path exists for the agreement check and for large
// evaluation batches, not for speed.
//
// NEVER RUN ON A GPU yet (written where there was no device).
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/ibedl/evidential_loss.h"

namespace cb::ibedl {
namespace {

constexpr int kMaxK = 16;

__device__ float Softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
__device__ float SoftplusGrad(float x) {
  if (x > 20.0f) return 1.0f;
  const float z = expf(x);
  return z / (z + 1.0f);
}

// x > 0 only (alpha >= 1, S >= K): the recurrence to x >= 6, then the series.
__device__ float Digamma(float x) {
  float acc = 0.0f;
  while (x < 6.0f) {
    acc -= 1.0f / x;
    x += 1.0f;
  }
  const float z = 1.0f / (x * x);
  const float s = z * (1.0f / 12 - z * (1.0f / 120 - z * (1.0f / 252 - z * (1.0f / 240 - z * (1.0f / 132)))));
  return acc + logf(x) - 0.5f / x - s;
}
__device__ float Trigamma(float x) {
  float acc = 0.0f;
  while (x < 6.0f) {
    acc += 1.0f / (x * x);
    x += 1.0f;
  }
  const float z = 1.0f / (x * x);
  const float s = z * (1.0f / 6 - z * (1.0f / 30 - z * (1.0f / 42 - z * (1.0f / 30 - z * (5.0f / 66)))));
  return acc + 1.0f / x + 0.5f * z + s / x;
}

struct Config {
  int B, K, J;
  bool vib, ce;
  float beta, reg;
};

__global__ void LossKernel(Config c, const float* __restrict__ mu, const float* __restrict__ tail,
                           const int* __restrict__ labels, const float* __restrict__ eps, float* __restrict__ share,
                           float* __restrict__ dmu, float* __restrict__ dtail) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= c.B) return;
  const int K = c.K, y = labels[b];
  const float rows = float(c.B) * c.J;
  float m[kMaxK], t[kMaxK], sig[kMaxK], gm[kMaxK], gt[kMaxK];
  for (int k = 0; k < K; ++k) {
    m[k] = mu[b * K + k];
    t[k] = tail[b * K + k];
    sig[k] = Softplus(t[k]);
    gm[k] = 0.0f;
    gt[k] = 0.0f;
  }
  float data = 0.0f, kl = 0.0f;
  for (int j = 0; j < c.J; ++j) {
    const float* e = c.vib ? eps + (size_t(b) * c.J + j) * K : nullptr;
    float x[kMaxK], a[kMaxK], g[kMaxK];
    float S = 0.0f;
    for (int k = 0; k < K; ++k) {
      x[k] = c.vib ? m[k] + sig[k] * e[k] : m[k];
      a[k] = Softplus(x[k]) + 1.0f;
      S += a[k];
    }
    if (c.ce) {
      data += Digamma(S) - Digamma(a[y]);
      const float ts = Trigamma(S);
      for (int k = 0; k < K; ++k) g[k] = ts - (k == y ? Trigamma(a[k]) : 0.0f);
    } else {
      float var = 0.0f, gp = 0.0f;
      for (int k = 0; k < K; ++k) {
        const float p = a[k] / S, yk = k == y ? 1.0f : 0.0f;
        data += (yk - p) * (yk - p) + p * (1.0f - p) / (S + 1.0f);
        var += p * (1.0f - p);
        g[k] = -2.0f * (yk - p) + (1.0f - 2.0f * p) / (S + 1.0f);
        gp += g[k] * p;
      }
      for (int k = 0; k < K; ++k) g[k] = (g[k] - gp) / S - var / ((S + 1.0f) * (S + 1.0f));
    }
    if (c.reg != 0.0f) {
      float St = 0.0f;
      for (int k = 0; k < K; ++k) St += k == y ? 1.0f : a[k];
      const float psi_st = Digamma(St), tst = (St - float(K)) * Trigamma(St);
      kl += lgammaf(St) - lgammaf(float(K));
      for (int k = 0; k < K; ++k) {
        const float at = k == y ? 1.0f : a[k];
        kl += -lgammaf(at) + (at - 1.0f) * (Digamma(at) - psi_st);
        if (k != y) g[k] += c.reg * ((at - 1.0f) * Trigamma(at) - tst);
      }
    }
    for (int k = 0; k < K; ++k) {
      const float dx = g[k] / rows * SoftplusGrad(x[k]);
      gm[k] += dx;
      if (c.vib) gt[k] += dx * e[k] * SoftplusGrad(t[k]);
    }
  }
  float info = 0.0f;
  if (c.vib)
    for (int k = 0; k < K; ++k) {
      info += 0.5f * (m[k] * m[k] + sig[k] * sig[k] - 2.0f * logf(sig[k]) - 1.0f);
      gm[k] += c.beta * m[k] / c.B;
      gt[k] += c.beta * (sig[k] - 1.0f / sig[k]) * SoftplusGrad(t[k]) / c.B;
    }
  share[b] = data / rows + c.reg * kl / rows + (c.vib ? c.beta * info / c.B : 0.0f);
  for (int k = 0; k < K; ++k) {
    dmu[b * K + k] = gm[k];
    dtail[b * K + k] = gt[k];
  }
}

}  // namespace

BatchLoss EvidentialLossAndGradCuda(const cb::ref::ibedl::LossConfig& lc, int B, int K, std::span<const float> mu,
                                    std::span<const float> tail, std::span<const int> labels,
                                    std::span<const float> eps) {
  const Config c{B, K, lc.vib ? lc.draws : 1, lc.vib, lc.data == cb::ref::ibedl::DataTerm::kCe,
                 static_cast<float>(lc.beta), static_cast<float>(lc.reg_weight)};
  cb::harness::DeviceBuffer<float> d_mu(mu), d_tail(tail);
  cb::harness::DeviceBuffer<int> d_labels(labels);
  const std::vector<float> one(1, 0.0f);
  cb::harness::DeviceBuffer<float> d_eps(lc.vib ? eps : std::span<const float>(one));
  cb::harness::DeviceBuffer<float> d_share(B), d_dmu(size_t(B) * K), d_dtail(size_t(B) * K);
  const int threads = 128, blocks = (B + threads - 1) / threads;
  LossKernel<<<blocks, threads>>>(c, d_mu.data(), d_tail.data(), d_labels.data(), d_eps.data(), d_share.data(),
                                  d_dmu.data(), d_dtail.data());
  CB_CUDA_CHECK_LAUNCH();
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> share = d_share.ToHost(), gm = d_dmu.ToHost(), gt = d_dtail.ToHost();
  BatchLoss out;
  for (float s : share) out.loss += s;
  out.dmu.assign(gm.begin(), gm.end());
  out.dtail.assign(gt.begin(), gt.end());
  return out;
}

}  // namespace cb::ibedl

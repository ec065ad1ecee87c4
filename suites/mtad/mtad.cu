// File: suites/mtad/mtad.cu
// -----------------------------------------------------------------------------
// CUDA path of suites/mtad/mtad.h, fp64 throughout:
//   expand_scores_kernel   grid (ceil(B V / 256)), thread = one (beam, token)
//                          cell: s = w[b] q[b, v]; block partial sums meet in
//                          one fp64 total by atomicAdd (sm_60+), then
//                          normalise_kernel divides every cell by it
//   accept_depth_kernel    thread = one beam: the running margin over its g
//                          positions and the deepest i with margin > log tau
// Checked against the fp64 reference by suites/mtad/mtad_test.cpp
// (MtadBackendTest/cuda) and by claim mtad.M6.
#include <cuda_runtime.h>

#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/mtad/mtad.h"

namespace cb::mtad {
namespace {

using cb::harness::DeviceBuffer;

constexpr int kThreads = 256;

int Blocks(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

// s (B, V) = w[b] q[b, v]; total += sum of s (block tree reduction, then one
// atomicAdd per block).
__global__ void expand_scores_kernel(const double* __restrict__ w, const double* __restrict__ q,
                                     int64_t cells, int vocab, double* __restrict__ s,
                                     double* __restrict__ total) {
  __shared__ double partial[kThreads];
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double x = 0.0;
  if (i < cells) {
    x = w[i / vocab] * q[i];
    s[i] = x;
  }
  partial[threadIdx.x] = x;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

__global__ void normalise_kernel(double* __restrict__ s, int64_t cells,
                                 const double* __restrict__ total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < cells) s[i] /= *total;
}

// logp, logq (B, g); depth (B).
__global__ void accept_depth_kernel(const double* __restrict__ logp,
                                    const double* __restrict__ logq, int beams, int gamma,
                                    double log_tau, int* __restrict__ depth) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= beams) return;
  double margin = 0.0;
  int d = 0;
  for (int i = 0; i < gamma; ++i) {
    margin += logp[static_cast<int64_t>(b) * gamma + i] - logq[static_cast<int64_t>(b) * gamma + i];
    if (margin > log_tau) d = i + 1;
  }
  depth[b] = d;
}

}  // namespace

void ExpandScoresCuda(std::span<const double> w, std::span<const double> q, int vocab_size,
                      std::span<double> out) {
  const int64_t cells = static_cast<int64_t>(q.size());
  DeviceBuffer<double> dw(w), dq(q), ds(q.size()), dtotal(1);
  CB_CUDA_CHECK(cudaMemset(dtotal.data(), 0, dtotal.bytes()));
  expand_scores_kernel<<<Blocks(cells), kThreads>>>(dw.data(), dq.data(), cells, vocab_size,
                                                    ds.data(), dtotal.data());
  CB_CUDA_CHECK_LAUNCH();
  normalise_kernel<<<Blocks(cells), kThreads>>>(ds.data(), cells, dtotal.data());
  CB_CUDA_CHECK_LAUNCH();
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  ds.CopyToHost(out);
}

void AcceptDepthsCuda(std::span<const double> logp, std::span<const double> logq, int gamma,
                      double log_tau, std::span<int> depth) {
  const int beams = static_cast<int>(depth.size());
  DeviceBuffer<double> dp(logp), dq(logq);
  DeviceBuffer<int> dd(depth.size());
  accept_depth_kernel<<<Blocks(beams), kThreads>>>(dp.data(), dq.data(), beams, gamma, log_tau,
                                                   dd.data());
  CB_CUDA_CHECK_LAUNCH();
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  dd.CopyToHost(depth);
}

}  // namespace cb::mtad

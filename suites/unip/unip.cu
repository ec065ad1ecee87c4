// File: suites/unip/unip.cu
// -----------------------------------------------------------------------------
// CUDA path of UNIP's attention statistics (unip_cuda.h), fp64 throughout,
// the same formulas as reference/unip/nmi.cpp and distill.cpp.
// Thread mappings:
//   RowSumKernel   one thread per (map, query): s = Σ_k (A_qk + eps)
//   KeyMassKernel  one thread per (map, key):   p(k) = Σ_q (A_qk + eps) / s_q / Q
//   NmiKernel      one block per map, kThreads threads striding over the
//                  map's entries for MI and over its keys for H(k), a shared
//                  tree reduction, thread 0 writes MI / sqrt(ln Q · H(k))
//   KlKernel       one warp per row of logits, lanes striding over k:
//                  maxima and log-sum-exps by warp shuffles, the row's KL and
//                  the gradient (softmax S - softmax T) / rows
//
// Napkin math: a ViT-B/16 layer profile at 224 px is 12 heads x B maps of
// 196 x 196 = 38k entries, ~3 passes over 0.3 MB per map: memory bound, far
// below a GPU's bandwidth at any batch the notebook uses; the KL over
// B x H x 197 rows of 197 logits likewise. The path exists so profiles over
// many images and the distillation loss run where the models do.
//
// NEVER RUN ON A GPU (written where there was no device; only compiled).
#include <cuda_runtime.h>

#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/unip/unip_cuda.h"

namespace cb::unip::cuda {
namespace {

namespace h = cb::harness;

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr int kRowsPerBlock = kThreads / kWarp;

int Blocks(long long n) { return int((n + kThreads - 1) / kThreads); }

// a [count, q, k]; row_sum [count, q].
__global__ void RowSumKernel(const double* a, int count, int q, int k, double eps, double* row_sum) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // (map, query)
  if (r >= (long long)count * q) return;
  const double* row = a + r * k;
  double s = 0.0;
  for (int j = 0; j < k; ++j) s += row[j] + eps;
  row_sum[r] = s;
}

// p_k [count, k] = Σ_q (A_qk + eps) / s_q * (1 / Q).
__global__ void KeyMassKernel(const double* a, const double* row_sum, int count, int q, int k, double eps,
                              double* p_k) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // (map, key)
  if (t >= (long long)count * k) return;
  const long long m = t / k;
  const int j = int(t % k);
  const double* map = a + m * q * k;
  const double pq = 1.0 / q;
  double s = 0.0;
  for (int i = 0; i < q; ++i) s += (map[(long long)i * k + j] + eps) / row_sum[m * q + i] * pq;
  p_k[t] = s;
}

// Sum of `v` over the block's kThreads threads, in `scratch` [kThreads];
// every thread gets the total.
__device__ double BlockSum(double v, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  const double total = scratch[0];
  __syncthreads();  // scratch is reused by the next call
  return total;
}

// One block per map: nmi [count].
__global__ void NmiKernel(const double* a, const double* row_sum, const double* p_k, int q, int k, double eps,
                          double* nmi) {
  __shared__ double scratch[kThreads];
  const long long m = blockIdx.x;
  const double* map = a + m * q * k;
  const double* pk = p_k + m * k;
  const double pq = 1.0 / q;
  double mi = 0.0;
  for (long long e = threadIdx.x; e < (long long)q * k; e += kThreads) {
    const int i = int(e / k), j = int(e % k);
    const double v = (map[e] + eps) / row_sum[m * q + i];
    if (v > 0.0) mi += v * pq * log(v / pk[j]);  // 0 ln 0 = 0 (only with eps = 0)
  }
  double hk = 0.0;
  for (int j = threadIdx.x; j < k; j += kThreads)
    if (pk[j] > 0.0) hk -= pk[j] * log(pk[j]);
  mi = BlockSum(mi, scratch);
  hk = BlockSum(hk, scratch);
  if (threadIdx.x == 0) nmi[m] = hk > 0.0 ? mi / sqrt(log((double)q) * hk) : 0.0;
}

__device__ double WarpMax(double v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ double WarpSum(double v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// student, teacher [rows, k]; row_kl [rows]; grad [rows, k] or nullptr.
// A warp whose row is past the end returns as a whole, so the shuffles'
// full mask holds.
__global__ void KlKernel(const double* student, const double* teacher, int rows, int k, double* row_kl,
                         double* grad) {
  const int lane = threadIdx.x % kWarp;
  const long long r = (long long)blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= rows) return;
  const double* s = student + r * k;
  const double* t = teacher + r * k;
  double ms = -INFINITY, mt = -INFINITY;
  for (int j = lane; j < k; j += kWarp) ms = fmax(ms, s[j]), mt = fmax(mt, t[j]);
  ms = WarpMax(ms);
  mt = WarpMax(mt);
  double zs = 0.0, zt = 0.0;
  for (int j = lane; j < k; j += kWarp) zs += exp(s[j] - ms), zt += exp(t[j] - mt);
  const double lse_s = ms + log(WarpSum(zs));
  const double lse_t = mt + log(WarpSum(zt));
  double kl = 0.0;
  for (int j = lane; j < k; j += kWarp) {
    const double ls = s[j] - lse_s, lt = t[j] - lse_t;
    kl += exp(lt) * (lt - ls);
    if (grad != nullptr) grad[r * k + j] = (exp(ls) - exp(lt)) / (double)rows;
  }
  kl = WarpSum(kl);
  if (lane == 0) row_kl[r] = kl;
}

}  // namespace

void BatchNmi(const std::vector<double>& maps, int count, int q, int k, double eps, std::vector<double>& nmi) {
  h::DeviceBuffer<double> a{std::span<const double>(maps)};
  h::DeviceBuffer<double> row_sum(size_t(count) * q), p_k(size_t(count) * k), out(static_cast<size_t>(count));
  row_sum.Poison();
  p_k.Poison();
  out.Poison();
  RowSumKernel<<<Blocks((long long)count * q), kThreads>>>(a.data(), count, q, k, eps, row_sum.data());
  CB_CUDA_CHECK_LAUNCH();
  KeyMassKernel<<<Blocks((long long)count * k), kThreads>>>(a.data(), row_sum.data(), count, q, k, eps, p_k.data());
  CB_CUDA_CHECK_LAUNCH();
  NmiKernel<<<count, kThreads>>>(a.data(), row_sum.data(), p_k.data(), q, k, eps, out.data());
  CB_CUDA_CHECK_LAUNCH();
  nmi.assign(size_t(count), 0.0);
  out.CopyToHost(nmi);
}

void AttentionKlRows(const std::vector<double>& student, const std::vector<double>& teacher, int rows, int k,
                     std::vector<double>& row_kl, std::vector<double>* grad) {
  h::DeviceBuffer<double> s{std::span<const double>(student)}, t{std::span<const double>(teacher)};
  h::DeviceBuffer<double> kl(static_cast<size_t>(rows));
  h::DeviceBuffer<double> g(grad != nullptr ? size_t(rows) * k : 0);
  kl.Poison();
  g.Poison();
  const int blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  KlKernel<<<blocks, kThreads>>>(s.data(), t.data(), rows, k, kl.data(), grad != nullptr ? g.data() : nullptr);
  CB_CUDA_CHECK_LAUNCH();
  row_kl.assign(size_t(rows), 0.0);
  kl.CopyToHost(row_kl);
  if (grad != nullptr) {
    grad->assign(size_t(rows) * k, 0.0);
    g.CopyToHost(*grad);
  }
}

}  // namespace cb::unip::cuda

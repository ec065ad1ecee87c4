// File: suites/cbplm/cb_cuda.cu
// -----------------------------------------------------------------------------
// CUDA path of cb_batched.h. Thread mappings:
//   ConceptsKernel   one thread per sequence: the five additive ProtParam
//                    concepts and the oxidized extinction coefficient, summed
//                    in fp64 in Biopython's order (left to right; aromaticity
//                    as Y/L + W/L + F/L), so results equal the CPU's bit for bit
//   ClassifierKernel one block per sequence: threads stride over the D tanh
//                    units of the CLS row (kept in shared memory), then over
//                    the C concept neurons
//   RowKernel        one block per (sequence, position), kThreads threads:
//                    strided over D for the unknown path's dense + gelu, a
//                    shared-memory tree reduction for LayerNorm's mean and
//                    variance, strided over C*E for the decoder input
//                    [x_cbm ; x_unk], then over V for the logits
// fp32 sums of at most max(D, 2CE) products per output; no atomics, each
// output summed by one thread in a fixed order (deterministic).
//
// Napkin math: a tiny head (D = 32, C*E = 12, V = 22) is ~3 k multiply-adds
// per position, so a batch of 16 x 41 positions is ~2 MFLOP: launch-bound;
// the path exists to check agreement with the fp64 reference, and for large
// batches of concept computation (one thread per sequence, memory-bound on
// the residues: ~1 byte read per residue).
//
// NEVER RUN ON A GPU yet (written where there was no device).
#include <cuda_runtime.h>

#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/cbplm/cb_cuda.h"

namespace cb::cbplm::cuda {

namespace h = cb::harness;

namespace {

constexpr int kThreads = 128;  // a power of two (the tree reduction)

// Standard-residue indices of "ACDEFGHIKLMNPQRSTVWY".
constexpr int kC_ = 1, kF = 4, kW = 18, kY = 19;

__global__ void ConceptsKernel(int n, const uint8_t* __restrict__ residues, const int64_t* __restrict__ offsets,
                               const double* __restrict__ kd, const double* __restrict__ hw,
                               const double* __restrict__ em, double* __restrict__ out) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int64_t begin = offsets[s], end = offsets[s + 1];
  double gravy = 0, hydro = 0, access = 0;
  long long nc = 0, nf = 0, nw = 0, ny = 0;
  for (int64_t i = begin; i < end; ++i) {
    const int r = residues[i];
    gravy += kd[r];
    hydro += hw[r];
    access += em[r];
    nc += r == kC_, nf += r == kF, nw += r == kW, ny += r == kY;
  }
  const double L = double(end - begin);
  double* o = out + size_t(s) * 6;
  o[0] = gravy / L;
  o[1] = hydro / L;
  o[2] = access / L;
  o[3] = double(ny) / L + double(nw) / L + double(nf) / L;
  const long long reduced = nw * 5500 + ny * 1490;
  o[4] = double(reduced);
  o[5] = double(reduced + (nc / 2) * 125);
}

struct HeadPtrs {
  const float *cls_dense_w, *cls_dense_b, *cls_out_w, *cls_out_b, *unk_dense_w, *unk_dense_b, *unk_norm_w,
      *unk_norm_b, *unk_dec_w, *unk_dec_b, *emb, *lm_w, *lm_b;
};

__global__ void ClassifierKernel(HeadPtrs p, int D, int C, int T, const float* __restrict__ xf,
                                 float* __restrict__ pred) {
  extern __shared__ float z[];  // [D]
  const int b = blockIdx.x;
  const float* x0 = xf + size_t(b) * T * D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    float s = p.cls_dense_b[j];
    for (int i = 0; i < D; ++i) s += p.cls_dense_w[size_t(j) * D + i] * x0[i];
    z[j] = tanhf(s);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float s = p.cls_out_b[c];
    for (int j = 0; j < D; ++j) s += p.cls_out_w[size_t(c) * D + j] * z[j];
    pred[size_t(b) * C + c] = s;
  }
}

// Sum of v over the block (every thread gets it). red: [kThreads] shared.
__device__ float BlockSum(float v, float* red) {
  red[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) red[threadIdx.x] += red[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = red[0];
  __syncthreads();
  return total;
}

__global__ void RowKernel(HeadPtrs p, int D, int C, int E, int V, int T, float ln_eps,
                          const float* __restrict__ xf, const float* __restrict__ c_in, float* __restrict__ logits) {
  extern __shared__ float shared[];
  float* g = shared;              // [D]
  float* hcat = g + D;            // [2CE]
  float* red = hcat + 2 * C * E;  // [kThreads]
  const int row = blockIdx.x, b = row / T, CE = C * E;
  const float* x = xf + size_t(row) * D;
  float local = 0;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    float u = p.unk_dense_b[j];
    for (int i = 0; i < D; ++i) u += p.unk_dense_w[size_t(j) * D + i] * x[i];
    g[j] = 0.5f * u * (1.0f + erff(u * 0.70710678118654752f));
    local += g[j];
  }
  const float mu = BlockSum(local, red) / D;
  local = 0;
  for (int j = threadIdx.x; j < D; j += blockDim.x) local += (g[j] - mu) * (g[j] - mu);
  const float r = rsqrtf(BlockSum(local, red) / D + ln_eps);
  for (int j = threadIdx.x; j < D; j += blockDim.x) g[j] = (g[j] - mu) * r * p.unk_norm_w[j] + p.unk_norm_b[j];
  __syncthreads();
  for (int k = threadIdx.x; k < CE; k += blockDim.x) {
    hcat[k] = c_in[size_t(b) * C + k / E] * p.emb[k];
    float s = p.unk_dec_b[k];
    for (int j = 0; j < D; ++j) s += p.unk_dec_w[size_t(k) * D + j] * g[j];
    hcat[CE + k] = s;
  }
  __syncthreads();
  for (int v = threadIdx.x; v < V; v += blockDim.x) {
    float s = p.lm_b[v];
    for (int k = 0; k < 2 * CE; ++k) s += p.lm_w[size_t(v) * 2 * CE + k] * hcat[k];
    logits[size_t(row) * V + v] = s;
  }
}

}  // namespace

void AdditiveConcepts(const std::vector<uint8_t>& residues, const std::vector<int64_t>& offsets, const double* kd,
                      const double* hw, const double* em, double* out) {
  const int n = int(offsets.size()) - 1;
  if (n <= 0) return;
  h::DeviceBuffer<uint8_t> d_res(residues.empty() ? std::vector<uint8_t>{0} : residues);
  h::DeviceBuffer<int64_t> d_off{std::span<const int64_t>(offsets)};
  h::DeviceBuffer<double> d_kd{std::span<const double>(kd, 20)}, d_hw{std::span<const double>(hw, 20)},
      d_em{std::span<const double>(em, 20)};
  h::DeviceBuffer<double> d_out(size_t(n) * 6);
  d_out.Poison();
  ConceptsKernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, d_res.data(), d_off.data(), d_kd.data(),
                                                              d_hw.data(), d_em.data(), d_out.data());
  CB_CUDA_CHECK_LAUNCH();
  d_out.CopyToHost(std::span<double>(out, size_t(n) * 6));
}

void HeadForward(const std::vector<float>& params, const std::vector<size_t>& off, int D, int C, int E, int V,
                 float ln_eps, const std::vector<float>& xf, int B, int T, const std::vector<float>& c_in,
                 float* pred, float* logits) {
  h::DeviceBuffer<float> d_params{std::span<const float>(params)}, d_xf{std::span<const float>(xf)};
  h::DeviceBuffer<float> d_pred(size_t(B) * C), d_logits(size_t(B) * T * V);
  d_pred.Poison();
  d_logits.Poison();
  const float* P = d_params.data();
  const HeadPtrs p{P + off[0], P + off[1], P + off[2], P + off[3], P + off[4],  P + off[5], P + off[6],
                   P + off[7], P + off[8], P + off[9], P + off[10], P + off[11], P + off[12]};
  ClassifierKernel<<<B, kThreads, size_t(D) * sizeof(float)>>>(p, D, C, T, d_xf.data(), d_pred.data());
  CB_CUDA_CHECK_LAUNCH();
  h::DeviceBuffer<float> d_cin;
  const float* cin = d_pred.data();
  if (!c_in.empty()) {
    d_cin = h::DeviceBuffer<float>(std::span<const float>(c_in));
    cin = d_cin.data();
  }
  const size_t shared = (size_t(D) + 2 * C * E + kThreads) * sizeof(float);
  RowKernel<<<B * T, kThreads, shared>>>(p, D, C, E, V, T, ln_eps, d_xf.data(), cin, d_logits.data());
  CB_CUDA_CHECK_LAUNCH();
  d_pred.CopyToHost(std::span<float>(pred, size_t(B) * C));
  d_logits.CopyToHost(std::span<float>(logits, size_t(B) * T * V));
}

}  // namespace cb::cbplm::cuda

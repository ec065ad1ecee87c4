// File: suites/radar/radar.cu
// -----------------------------------------------------------------------------
// CUDA pieces of the Radar path (declared in radar_cuda.h), fp32 on the device:
//   stabiliser_kernel   per-block maxima of e+- = +-z - |x~|^2/2 over keys
//                       (z = x~ Omega), reduced on the host
//   summarise_kernel    block = (segment, 256 features): R_j = mean phi(k)
//   phi_query_kernel    phi(q) with the query's own maxima (one block)
//   score_kernel        warp per segment: s_j = phi(q).R_j
//   topk_kernel         one block: k rounds of block-wide argmax (ties: lower
//                       index), each winner masked to -inf
//   attend_chunk_kernel split-K: block per 256-token chunk of the selected
//                       spans; logits (warp per token), chunk max and sum,
//                       p V; partial (m, l, acc[d]) to global memory
//   merge_kernel        log-sum-exp merge of the partials (one block)
// Dense decode = attend over the single span [0, t). Agreement with the fp64
// reference: suites/radar/radar_test.cpp (RadarBackendTest/cuda).
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/radar/radar_cuda.h"

namespace cb::radar::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kChunk = 256;     // tokens per split-K block
constexpr int kMaxD = 256;      // head dimension held in shared memory
constexpr int kKeysPerBlock = 32;

using cb::harness::DeviceBuffer;

// Makes `buf` hold at least `need` elements (growing to max(need, 2 cap + 1)),
// keeping its first `keep`.
template <typename T>
void Grow(DeviceBuffer<T>& buf, int64_t need, int64_t keep) {
  const int64_t cap = static_cast<int64_t>(buf.size());
  if (need <= cap) return;
  DeviceBuffer<T> next(static_cast<size_t>(std::max(need, 2 * cap + 1)));
  if (buf.data() != nullptr && keep > 0)
    CB_CUDA_CHECK(cudaMemcpy(next.data(), buf.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice));
  buf = std::move(next);
}

// Keys [first, first + n): per block, the max of e+ and of e- over its keys.
__global__ void stabiliser_kernel(const float* __restrict__ keys, const float* __restrict__ omega, int d, int D,
                                  int64_t first, int64_t n, float* __restrict__ block_max) {
  __shared__ float x[kMaxD];
  __shared__ float red[2][kThreads];
  const float scale = rsqrtf(sqrtf(static_cast<float>(d)));
  float mp = -FLT_MAX, mm = -FLT_MAX;
  const int64_t k0 = static_cast<int64_t>(blockIdx.x) * kKeysPerBlock;
  for (int64_t k = k0; k < min(n, k0 + kKeysPerBlock); ++k) {
    __syncthreads();
    for (int i = threadIdx.x; i < d; i += blockDim.x) x[i] = scale * keys[(first + k) * d + i];
    __syncthreads();
    float n2 = 0;
    for (int i = 0; i < d; ++i) n2 += x[i] * x[i];
    for (int j = threadIdx.x; j < D; j += blockDim.x) {
      float z = 0;
      for (int i = 0; i < d; ++i) z += x[i] * omega[i * D + j];
      mp = fmaxf(mp, z - n2 / 2);
      mm = fmaxf(mm, -z - n2 / 2);
    }
  }
  red[0][threadIdx.x] = mp;
  red[1][threadIdx.x] = mm;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      red[0][threadIdx.x] = fmaxf(red[0][threadIdx.x], red[0][threadIdx.x + s]);
      red[1][threadIdx.x] = fmaxf(red[1][threadIdx.x], red[1][threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    block_max[2 * blockIdx.x] = red[0][0];
    block_max[2 * blockIdx.x + 1] = red[1][0];
  }
}

// grid (count, ceil(D / 256)); thread = one feature of one segment.
__global__ void summarise_kernel(const float* __restrict__ keys, const float* __restrict__ omega, int d, int D,
                                 int64_t first, int64_t c, float s_plus, float s_minus,
                                 float* __restrict__ out /* (count, 2D) */) {
  __shared__ float x[kMaxD];
  __shared__ float n2s;
  const float scale = rsqrtf(sqrtf(static_cast<float>(d)));
  const int j = blockIdx.y * blockDim.x + threadIdx.x;
  const int64_t seg_first = first + static_cast<int64_t>(blockIdx.x) * c;
  float ap = 0, am = 0;
  for (int64_t k = seg_first; k < seg_first + c; ++k) {
    __syncthreads();
    for (int i = threadIdx.x; i < d; i += blockDim.x) x[i] = scale * keys[k * d + i];
    __syncthreads();
    if (threadIdx.x == 0) {
      float n2 = 0;
      for (int i = 0; i < d; ++i) n2 += x[i] * x[i];
      n2s = n2;
    }
    __syncthreads();
    if (j < D) {
      float z = 0;
      for (int i = 0; i < d; ++i) z += x[i] * omega[i * D + j];
      ap += expf(z - n2s / 2 - s_plus);
      am += expf(-z - n2s / 2 - s_minus);
    }
  }
  if (j < D) {
    const float norm = rsqrtf(2.0f * D) / static_cast<float>(c);
    out[blockIdx.x * 2 * D + j] = norm * ap + 1e-18f;
    out[blockIdx.x * 2 * D + D + j] = norm * am + 1e-18f;
  }
}

// One block: phi(q) (2D) with the query's own maxima.
__global__ void phi_query_kernel(const float* __restrict__ q, const float* __restrict__ omega, int d, int D,
                                 float* __restrict__ phi) {
  __shared__ float x[kMaxD];
  __shared__ float red[2][kThreads];
  const float scale = rsqrtf(sqrtf(static_cast<float>(d)));
  for (int i = threadIdx.x; i < d; i += blockDim.x) x[i] = scale * q[i];
  __syncthreads();
  float n2 = 0;
  for (int i = 0; i < d; ++i) n2 += x[i] * x[i];
  float mp = -FLT_MAX, mm = -FLT_MAX;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    float z = 0;
    for (int i = 0; i < d; ++i) z += x[i] * omega[i * D + j];
    phi[j] = z - n2 / 2;
    phi[D + j] = -z - n2 / 2;
    mp = fmaxf(mp, phi[j]);
    mm = fmaxf(mm, phi[D + j]);
  }
  red[0][threadIdx.x] = mp;
  red[1][threadIdx.x] = mm;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      red[0][threadIdx.x] = fmaxf(red[0][threadIdx.x], red[0][threadIdx.x + s]);
      red[1][threadIdx.x] = fmaxf(red[1][threadIdx.x], red[1][threadIdx.x + s]);
    }
    __syncthreads();
  }
  const float norm = rsqrtf(2.0f * D);
  for (int j = threadIdx.x; j < D; j += blockDim.x) {  // same thread wrote phi[j] above
    phi[j] = norm * expf(phi[j] - red[0][0]) + 1e-18f;
    phi[D + j] = norm * expf(phi[D + j] - red[1][0]) + 1e-18f;
  }
}

// Warp per segment.
__global__ void score_kernel(const float* __restrict__ summaries, const float* __restrict__ phi, int two_d,
                             int64_t n_seg, float* __restrict__ score) {
  const int64_t seg = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (seg >= n_seg) return;
  float s = 0;
  for (int j = lane; j < two_d; j += 32) s += summaries[seg * two_d + j] * phi[j];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) score[seg] = s;
}

// One block of kThreads: k rounds of argmax (ties: lower index). A NaN score
// (a finite query so large that phi overflows) ranks as -inf, and a chosen
// segment is marked NaN, so each round picks a valid index not chosen
// before (k < n). REQUIRES: k < n.
__global__ void topk_kernel(float* __restrict__ score, int64_t n, int64_t k, int64_t* __restrict__ chosen) {
  __shared__ float best[kThreads];
  __shared__ int64_t idx[kThreads];
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    if (isnan(score[i])) score[i] = -INFINITY;
  __syncthreads();
  for (int64_t r = 0; r < k; ++r) {
    float b = -INFINITY;
    int64_t bi = n;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const float s = score[i];
      if (s > b || (s == b && i < bi)) b = s, bi = i;  // NaN (chosen) never compares true
    }
    best[threadIdx.x] = b;
    idx[threadIdx.x] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) {
        const float o = best[threadIdx.x + s];
        const int64_t oi = idx[threadIdx.x + s];
        if (o > best[threadIdx.x] || (o == best[threadIdx.x] && oi < idx[threadIdx.x])) {
          best[threadIdx.x] = o;
          idx[threadIdx.x] = oi;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      chosen[r] = idx[0];
      score[idx[0]] = NAN;
    }
    __syncthreads();
  }
}

// Token of global position g in the concatenated spans (first[s], prefix[s]).
__device__ int64_t TokenAt(const int64_t* first, const int64_t* prefix, int n_spans, int64_t g) {
  int lo = 0, hi = n_spans - 1;
  while (lo < hi) {  // last s with prefix[s] <= g
    const int mid = (lo + hi + 1) / 2;
    if (prefix[mid] <= g) lo = mid; else hi = mid - 1;
  }
  return first[lo] + (g - prefix[lo]);
}

__global__ void attend_chunk_kernel(const float* __restrict__ q, const float* __restrict__ keys,
                                    const float* __restrict__ values, int d, const int64_t* __restrict__ first,
                                    const int64_t* __restrict__ prefix, int n_spans, int64_t total,
                                    float* __restrict__ part_m, float* __restrict__ part_l,
                                    float* __restrict__ part_acc) {
  __shared__ float qs[kMaxD];
  __shared__ float p[kChunk];
  __shared__ int64_t tok[kChunk];
  __shared__ float red[kThreads];
  const int64_t g0 = static_cast<int64_t>(blockIdx.x) * kChunk;
  const int n = static_cast<int>(total - g0 < kChunk ? total - g0 : kChunk);
  const float scale = rsqrtf(static_cast<float>(d));
  for (int i = threadIdx.x; i < d; i += blockDim.x) qs[i] = q[i];
  for (int i = threadIdx.x; i < n; i += blockDim.x) tok[i] = TokenAt(first, prefix, n_spans, g0 + i);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int i = warp; i < n; i += warps) {
    const float* k = keys + tok[i] * d;
    float s = 0;
    for (int j = lane; j < d; j += 32) s += qs[j] * k[j];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) p[i] = s * scale;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, p[i]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float l = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) l += (p[i] = expf(p[i] - m));
  red[threadIdx.x] = l;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    float a = 0;
    for (int i = 0; i < n; ++i) a += p[i] * values[tok[i] * d + j];
    part_acc[static_cast<int64_t>(blockIdx.x) * d + j] = a;
  }
  if (threadIdx.x == 0) {
    part_m[blockIdx.x] = m;
    part_l[blockIdx.x] = red[0];
  }
}

__global__ void merge_kernel(const float* __restrict__ part_m, const float* __restrict__ part_l,
                             const float* __restrict__ part_acc, int64_t parts, int d, float* __restrict__ out) {
  float m = -INFINITY;
  for (int64_t b = 0; b < parts; ++b) m = fmaxf(m, part_m[b]);
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    double l = 0, a = 0;
    for (int64_t b = 0; b < parts; ++b) {
      const double f = exp(static_cast<double>(part_m[b]) - m);
      l += f * part_l[b];
      a += f * part_acc[b * d + j];
    }
    out[j] = static_cast<float>(a / l);
  }
}

}  // namespace

// Every device array grows on demand (Grow); its size() is its capacity.
struct State {
  int d = 0, D = 0;
  DeviceBuffer<float> omega;
  DeviceBuffer<float> keys, values;
  int64_t t = 0;
  DeviceBuffer<float> summaries;
  int64_t n_seg = 0;
  DeviceBuffer<float> scratch, phi, part, q, out;
  DeviceBuffer<int64_t> idx;
};

void StateDeleter::operator()(State* s) const { delete s; }

StatePtr Create(const float* omega, int d, int D) {
  if (d > kMaxD) throw std::invalid_argument("radar cuda: d above 256 is not supported");
  StatePtr s(new State);
  s->d = d, s->D = D;
  Grow(s->omega, int64_t{d} * D, 0);
  CB_CUDA_CHECK(cudaMemcpy(s->omega.data(), omega, sizeof(float) * d * D, cudaMemcpyHostToDevice));
  return s;
}

void Append(State& s, const float* keys, const float* values, int64_t n) {
  const int64_t need = (s.t + n) * s.d, keep = s.t * s.d;
  Grow(s.keys, need, keep);
  Grow(s.values, need, keep);
  CB_CUDA_CHECK(cudaMemcpy(s.keys.data() + keep, keys, sizeof(float) * n * s.d, cudaMemcpyHostToDevice));
  CB_CUDA_CHECK(cudaMemcpy(s.values.data() + keep, values, sizeof(float) * n * s.d, cudaMemcpyHostToDevice));
  s.t += n;
}

std::pair<double, double> Stabilisers(State& s, int64_t first, int64_t n) {
  const int64_t blocks = (n + kKeysPerBlock - 1) / kKeysPerBlock;
  Grow(s.scratch, 2 * blocks, 0);
  stabiliser_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(s.keys.data(), s.omega.data(), s.d, s.D, first, n,
                                                                   s.scratch.data());
  CB_CUDA_CHECK_LAUNCH();
  std::vector<float> host(static_cast<size_t>(2 * blocks));
  CB_CUDA_CHECK(cudaMemcpy(host.data(), s.scratch.data(), sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
  float mp = -FLT_MAX, mm = -FLT_MAX;
  for (size_t i = 0; i < host.size(); i += 2) mp = std::max(mp, host[i]), mm = std::max(mm, host[i + 1]);
  return {mp, mm};
}

void Summarise(State& s, int64_t first, int64_t count, int64_t c, float s_plus, float s_minus) {
  if (count <= 0) return;
  Grow(s.summaries, (s.n_seg + count) * 2 * s.D, s.n_seg * 2 * s.D);
  const dim3 grid(static_cast<unsigned>(count), static_cast<unsigned>((s.D + kThreads - 1) / kThreads));
  summarise_kernel<<<grid, kThreads>>>(s.keys.data(), s.omega.data(), s.d, s.D, first, c, s_plus, s_minus,
                                       s.summaries.data() + s.n_seg * 2 * s.D);
  CB_CUDA_CHECK_LAUNCH();
  s.n_seg += count;
}

void ClearSummaries(State& s) { s.n_seg = 0; }

std::vector<float> Summaries(const State& s) {
  std::vector<float> host(static_cast<size_t>(s.n_seg * 2 * s.D));
  if (!host.empty())
    CB_CUDA_CHECK(cudaMemcpy(host.data(), s.summaries.data(), sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<int64_t> TopSegments(State& s, const float* q, int64_t k) {
  if (k == 0) return {};  // a budget below one segment: nothing to launch or copy
  Grow(s.q, s.d, 0);
  Grow(s.phi, 2 * s.D, 0);
  Grow(s.scratch, s.n_seg, 0);
  Grow(s.idx, k, 0);
  CB_CUDA_CHECK(cudaMemcpy(s.q.data(), q, sizeof(float) * s.d, cudaMemcpyHostToDevice));
  phi_query_kernel<<<1, kThreads>>>(s.q.data(), s.omega.data(), s.d, s.D, s.phi.data());
  CB_CUDA_CHECK_LAUNCH();
  const int64_t threads = s.n_seg * 32;
  score_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads>>>(
      s.summaries.data(), s.phi.data(), 2 * s.D, s.n_seg, s.scratch.data());
  CB_CUDA_CHECK_LAUNCH();
  topk_kernel<<<1, kThreads>>>(s.scratch.data(), s.n_seg, k, s.idx.data());
  CB_CUDA_CHECK_LAUNCH();
  std::vector<int64_t> chosen(static_cast<size_t>(k));
  CB_CUDA_CHECK(cudaMemcpy(chosen.data(), s.idx.data(), sizeof(int64_t) * k, cudaMemcpyDeviceToHost));
  return chosen;
}

void AttendSpans(State& s, const float* q, const std::vector<std::pair<int64_t, int64_t>>& spans, float* out) {
  const int n_spans = static_cast<int>(spans.size());
  std::vector<int64_t> meta(2 * spans.size());
  int64_t total = 0;
  for (int i = 0; i < n_spans; ++i) {
    meta[i] = spans[i].first;
    meta[n_spans + i] = total;
    total += spans[i].second - spans[i].first;
  }
  const int64_t parts = (total + kChunk - 1) / kChunk;
  Grow(s.idx, static_cast<int64_t>(meta.size()), 0);
  Grow(s.part, parts * (2 + s.d), 0);
  Grow(s.q, s.d, 0);
  Grow(s.out, s.d, 0);
  CB_CUDA_CHECK(cudaMemcpy(s.idx.data(), meta.data(), sizeof(int64_t) * meta.size(), cudaMemcpyHostToDevice));
  CB_CUDA_CHECK(cudaMemcpy(s.q.data(), q, sizeof(float) * s.d, cudaMemcpyHostToDevice));
  float* pm = s.part.data();
  float* pl = s.part.data() + parts;
  float* pa = s.part.data() + 2 * parts;
  attend_chunk_kernel<<<static_cast<unsigned>(parts), kThreads>>>(s.q.data(), s.keys.data(), s.values.data(), s.d,
                                                                  s.idx.data(), s.idx.data() + n_spans, n_spans,
                                                                  total, pm, pl, pa);
  CB_CUDA_CHECK_LAUNCH();
  merge_kernel<<<1, 128>>>(pm, pl, pa, parts, s.d, s.out.data());
  CB_CUDA_CHECK_LAUNCH();
  CB_CUDA_CHECK(cudaMemcpy(out, s.out.data(), sizeof(float) * s.d, cudaMemcpyDeviceToHost));
}

void DenseDecode(const float* q, const float* keys, const float* values, int64_t t, int d, float* out) {
  std::vector<float> no_omega(1, 0.0f);
  StatePtr s = Create(no_omega.data(), d, 1);
  Append(*s, keys, values, t);
  AttendSpans(*s, q, {{0, t}}, out);
}

}  // namespace cb::radar::cuda

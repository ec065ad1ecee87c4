// File: suites/lm/cuda_transformer.cu
// -----------------------------------------------------------------------------
// The CUDA transformer (cuda_transformer.h): cpu_transformer.cpp's fp32 math
// on the device. Every matrix product is cuBLAS (plain fp32, no TF32); the
// rest is the kernels below. Shapes as in cpu_transformer.cpp: M = B*T rows,
// D hidden, H query heads, KV key/value heads of dim d (rep = H / KV), I
// intermediate, V vocabulary, S keys visible (T, or the cache length + T).
//
// Row-major GEMMs through column-major cuBLAS, written down once: a row-major
// X [r, c] with row stride ld is, read column-major, X^T [c, r] with the same
// ld. So the row-major product C [M, N] = op(A) op(B) is the column-major
// product C^T [N, M] = op(B)^T op(A)^T, i.e.
//   cublasSgemm(transa = op(B), transb = op(A), m = N, n = M, k = K,
//               B, ldb, A, lda, C, ldc)
// with the operands swapped and the transpose flags kept (Gemm() below). A
// row-major Linear weight W [out, in] is column-major W^T [in, out] (ld in),
// so y = W x is cublasSgemv(CUBLAS_OP_T, m = in, n = out, W, ld in) (Gemv()).
//
// Kernels and their thread mappings (kThreads = 256 threads a block):
//   embed_kernel                  block per row t: x[t] = embed[tokens[t]]
//   rmsnorm_kernel                block per row: fp32 sum of squares, block
//                                 reduction, y = w x r
//   rmsnorm_backward_rows_kernel  block per row: dx += r w dy - r^3 x (w.dy.x)/D
//   rmsnorm_weight_partial_kernel + column_sum_add_kernel
//                                 dw_i += sum_t dy_ti x_ti r_t: per chunk of
//                                 32 rows, then over chunks, thread per column,
//                                 both in order
//   rope_kernel                   thread per (row, head, pair i < d/2): the
//                                 HF rotate_half pair (i, i + d/2), by +-angle
//   softmax_kernel                block per score row; max-subtracted, causal
//                                 rows stop at pos0 + t + 1, the rest is 0
//   swiglu_kernel / swiglu_backward_kernel   thread per element
//   cross_entropy_kernel          block per position: fp64 log-sum-exp, the
//                                 weighted row loss (summed on the host in
//                                 position order), dlogits
//   dsoftmax_kernel               block per row: dS = P * (dP - rowsum(P dP))
//   embed_scatter_kernel          block per distinct token, thread per
//                                 column: the token's positions in order
// No kernel uses atomics, so every result is bitwise reproducible run to run
// (cuBLAS on one handle and stream is too, for a fixed GPU and toolkit).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "suites/lm/cuda_transformer.h"

namespace cb::lm_suite {

namespace ref = cb::ref::lm;
using cb::harness::DeviceBuffer;

namespace {

constexpr int kThreads = 256;  // every kernel; a multiple of 32 (BlockReduce)

unsigned Blocks(size_t count, int per_block) {
  return static_cast<unsigned>((count + per_block - 1) / per_block);
}

// -----------------------------------------------------------------------------
// Block reductions. Every thread gets the result; the warps' partials are
// combined in warp order, so the result does not depend on scheduling.

struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

template <typename T, typename Op>
__device__ T BlockReduce(T v, Op op) {
  __shared__ T partial[32];
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // a previous call's readers are done with `partial`
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  T r = partial[0];
  for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) r = op(r, partial[w]);
  return r;
}

// -----------------------------------------------------------------------------
// Kernels

// x [M, D] = embed [V, D] rows tokens [M]. Block per row.
__global__ void embed_kernel(const float* __restrict__ embed, const int* __restrict__ tokens, int D,
                             float* __restrict__ x) {
  const float* src = embed + static_cast<size_t>(tokens[blockIdx.x]) * D;
  float* dst = x + static_cast<size_t>(blockIdx.x) * D;
  for (int i = threadIdx.x; i < D; i += blockDim.x) dst[i] = src[i];
}

// y [M, D] = w * x / sqrt(mean(x^2) + eps) per row; r [M] = 1/rms (r may be
// null). Block per row.
__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ w, int D,
                               double eps, float* __restrict__ y, float* __restrict__ r) {
  const float* xt = x + static_cast<size_t>(blockIdx.x) * D;
  float ss = 0;
  for (int i = threadIdx.x; i < D; i += blockDim.x) ss += xt[i] * xt[i];
  ss = BlockReduce(ss, SumOp{});
  const float rt = static_cast<float>(1.0 / sqrt(static_cast<double>(ss) / D + eps));
  if (threadIdx.x == 0 && r != nullptr) r[blockIdx.x] = rt;
  float* yt = y + static_cast<size_t>(blockIdx.x) * D;
  for (int i = threadIdx.x; i < D; i += blockDim.x) yt[i] = w[i] * (xt[i] * rt);
}

// The reference's RmsNormBackward for dx: dx_j += r w_j dy_j - r^3 x_j
// (sum_i w_i dy_i x_i) / D. Block per row.
__global__ void rmsnorm_backward_rows_kernel(const float* __restrict__ dy, const float* __restrict__ x,
                                             const float* __restrict__ w, const float* __restrict__ r,
                                             int D, float* __restrict__ dx) {
  const size_t row = static_cast<size_t>(blockIdx.x) * D;
  float gx = 0;
  for (int i = threadIdx.x; i < D; i += blockDim.x) gx += w[i] * dy[row + i] * x[row + i];
  gx = BlockReduce(gx, SumOp{});
  const float rt = r[blockIdx.x];
  const float c = static_cast<float>(static_cast<double>(rt) * rt * rt * gx / D);
  for (int i = threadIdx.x; i < D; i += blockDim.x)
    dx[row + i] += rt * w[i] * dy[row + i] - c * x[row + i];
}

// dw_i += sum_t dy_ti x_ti r_t in two deterministic passes (no atomics):
// partial[c, i] sums the rows of chunk c (kRowsPerChunk rows) in order, grid
// (column blocks, min(chunks, 65535)) with the chunks striding over grid.y,
// thread per column; then column_sum_add_kernel adds the chunks in order,
// thread per column.
constexpr int kRowsPerChunk = 32;
__global__ void rmsnorm_weight_partial_kernel(const float* __restrict__ dy,
                                              const float* __restrict__ x,
                                              const float* __restrict__ r, int M, int D,
                                              int chunks, float* __restrict__ partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= D) return;
  // Chunks stride over grid.y, which holds at most 65535 blocks.
  for (int c = blockIdx.y; c < chunks; c += gridDim.y) {
    const int t0 = c * kRowsPerChunk, t1 = min(M, t0 + kRowsPerChunk);
    float s = 0;
    for (int t = t0; t < t1; ++t) {
      const size_t at = static_cast<size_t>(t) * D + i;
      s += dy[at] * x[at] * r[t];
    }
    partial[static_cast<size_t>(c) * D + i] = s;
  }
}

__global__ void column_sum_add_kernel(const float* __restrict__ partial, int chunks, int D,
                                      float* __restrict__ dw) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= D) return;
  float s = 0;
  for (int c = 0; c < chunks; ++c) s += partial[static_cast<size_t>(c) * D + i];
  dw[i] += s;
}

// Rotates every head of rows v [M, heads*d] (row q at position pos0 + q % T)
// by sign * angle, pairs (v_i, v_{i+d/2}); cos/sin tables [positions, d/2].
// sign = -1 is the transpose (the backward). Thread per (row, head, i).
__global__ void rope_kernel(float* __restrict__ v, int M, int T, int heads, int d, int pos0,
                            const float* __restrict__ cos_table, const float* __restrict__ sin_table,
                            float sign) {
  const int half = d / 2;
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<size_t>(M) * heads * half) return;
  const int i = static_cast<int>(idx % half);
  const size_t rest = idx / half;
  const int hd = static_cast<int>(rest % heads);
  const size_t row = rest / heads;
  const size_t pos = static_cast<size_t>(pos0) + row % T;
  const float c = cos_table[pos * half + i], s = sign * sin_table[pos * half + i];
  float* x = v + (row * heads + hd) * d;
  const float a = x[i], b = x[i + half];
  x[i] = a * c - b * s;
  x[i + half] = b * c + a * s;
}

// Masked softmax over rows of p [rows, S], row q holding query t = q % T at
// position pos0 + t: causal rows see keys u <= pos0 + t, the rest become 0.
// Block per row.
__global__ void softmax_kernel(float* __restrict__ p, int S, int T, int pos0, bool causal) {
  float* row = p + static_cast<size_t>(blockIdx.x) * S;
  const int t = static_cast<int>(blockIdx.x % T);
  const int visible = causal ? min(pos0 + t + 1, S) : S;
  float mx = -INFINITY;
  for (int u = threadIdx.x; u < visible; u += blockDim.x) mx = fmaxf(mx, row[u]);
  mx = BlockReduce(mx, MaxOp{});
  float z = 0;
  for (int u = threadIdx.x; u < visible; u += blockDim.x) z += (row[u] = expf(row[u] - mx));
  z = BlockReduce(z, SumOp{});
  const float inv = 1.0f / z;
  for (int u = threadIdx.x; u < S; u += blockDim.x) row[u] = u < visible ? row[u] * inv : 0.0f;
}

__device__ float Sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

// a = silu(gate) * up; a may alias gate. Thread per element.
__global__ void swiglu_kernel(const float* gate, const float* __restrict__ up, float* a, size_t n) {
  const size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) {
    const float g = gate[j];
    a[j] = g * Sigmoid(g) * up[j];
  }
}

// d/dgate and d/dup of a = silu(gate) * up. Thread per element.
__global__ void swiglu_backward_kernel(const float* __restrict__ da, const float* __restrict__ gate,
                                       const float* __restrict__ up, float* __restrict__ dgate,
                                       float* __restrict__ dup, size_t n) {
  const size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) {
    const float g = gate[j], s = Sigmoid(g);
    dup[j] = da[j] * g * s;
    dgate[j] = da[j] * up[j] * s * (1.0f + g * (1.0f - s));
  }
}

// Per position t of logits [M, V]: row_loss[t] = w_t (lse - z_target) in fp64
// (0 where w_t = 0) and, when dlogits is not null, dlogits[t] = w_t / W
// (softmax - onehot). Block per position.
__global__ void cross_entropy_kernel(const float* __restrict__ logits, const int* __restrict__ targets,
                                     const float* __restrict__ weights, int V, double wsum,
                                     double* __restrict__ row_loss, float* __restrict__ dlogits) {
  const size_t t = blockIdx.x;
  const float* z = logits + t * V;
  float* dz = dlogits != nullptr ? dlogits + t * V : nullptr;
  const float w = weights[t];
  if (w == 0) {
    if (threadIdx.x == 0) row_loss[t] = 0;
    if (dz != nullptr)
      for (int c = threadIdx.x; c < V; c += blockDim.x) dz[c] = 0.0f;
    return;
  }
  float mx = -INFINITY;
  for (int c = threadIdx.x; c < V; c += blockDim.x) mx = fmaxf(mx, z[c]);
  mx = BlockReduce(mx, MaxOp{});
  double se = 0;
  for (int c = threadIdx.x; c < V; c += blockDim.x) se += exp(static_cast<double>(z[c]) - mx);
  se = BlockReduce(se, SumOp{});
  const double lse = mx + log(se);
  const int target = targets[t];
  if (threadIdx.x == 0) row_loss[t] = w * (lse - z[target]);
  if (dz == nullptr) return;
  const double scale = w / wsum;
  for (int c = threadIdx.x; c < V; c += blockDim.x)
    dz[c] = static_cast<float>(scale * exp(static_cast<double>(z[c]) - lse));
  __syncthreads();
  if (threadIdx.x == 0) dz[target] -= static_cast<float>(scale);
}

// dP [rows, S] -> dS = P * (dP - rowsum(P * dP)), in place. Block per row.
__global__ void dsoftmax_kernel(const float* __restrict__ p, float* __restrict__ dp, int S) {
  const size_t row = static_cast<size_t>(blockIdx.x) * S;
  float dot = 0;
  for (int u = threadIdx.x; u < S; u += blockDim.x) dot += p[row + u] * dp[row + u];
  dot = BlockReduce(dot, SumOp{});
  for (int u = threadIdx.x; u < S; u += blockDim.x) dp[row + u] = p[row + u] * (dp[row + u] - dot);
}

// d embed [V, D] += dx rows by token: block j handles distinct token
// rows[j], whose positions are pos[start[j] .. start[j+1]) in increasing
// order; thread per column. Each element is added to in position order, the
// CPU path's order, with no atomics: bitwise reproducible.
__global__ void embed_scatter_kernel(const float* __restrict__ dx, int D, const int* __restrict__ rows,
                                     const int* __restrict__ start, const int* __restrict__ pos,
                                     float* __restrict__ dembed) {
  float* ge = dembed + static_cast<size_t>(rows[blockIdx.x]) * D;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    float acc = ge[i];
    for (int k = start[blockIdx.x]; k < start[blockIdx.x + 1]; ++k)
      acc += dx[static_cast<size_t>(pos[k]) * D + i];
    ge[i] = acc;
  }
}

// -----------------------------------------------------------------------------
// Host helpers

struct CublasDeleter {
  void operator()(cublasContext* h) const noexcept { cublasDestroy(h); }
};

// Makes `buf` hold at least `n` elements; a new allocation is poisoned
// (NaN / -1), so an element no kernel wrote fails the checks.
template <typename T>
T* Ensure(DeviceBuffer<T>& buf, size_t n) {
  if (buf.size() < n) {
    buf = DeviceBuffer<T>(std::max<size_t>(n, 1));
    buf.Poison();
  }
  return buf.data();
}

template <typename T>
T* UploadTo(DeviceBuffer<T>& buf, std::span<const T> host) {
  T* p = Ensure(buf, host.size());
  if (!host.empty())
    CB_CUDA_CHECK(cudaMemcpy(p, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  return p;
}

std::vector<float> DownloadFloats(const float* p, size_t n) {
  std::vector<float> out(n);
  if (n > 0) CB_CUDA_CHECK(cudaMemcpy(out.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

void CopyDevice(float* dst, const float* src, size_t n) {
  CB_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
}

std::string Str(size_t v) { return std::to_string(v); }

void CheckBatchShape(const Batch& b) {
  const size_t M = static_cast<size_t>(b.batch) * b.seq;
  if (b.batch <= 0 || b.seq <= 0 || b.tokens.size() != M || b.targets.size() != M ||
      b.weights.size() != M)
    throw std::invalid_argument("batch: tokens/targets/weights must each hold batch x seq = " +
                                Str(M) + " entries");
}

// The CPU path's cross-entropy checks; returns sum(weights) (in position order).
double CheckTargets(const Batch& b, int V) {
  double wsum = 0;
  for (size_t t = 0; t < b.weights.size(); ++t) {
    if (!(b.weights[t] >= 0)) throw std::invalid_argument("batch: weight " + Str(t) + " is negative");
    if (b.weights[t] > 0 && (b.targets[t] < 0 || b.targets[t] >= V))
      throw std::invalid_argument("batch: target " + std::to_string(b.targets[t]) + " at position " +
                                  Str(t) + " outside [0, " + std::to_string(V) + ")");
    wsum += b.weights[t];
  }
  if (!(wsum > 0)) throw std::invalid_argument("batch: all weights are zero");
  return wsum;
}

// What embed_scatter_kernel reads: the distinct tokens, and for each its
// positions in increasing order (CSR).
struct ScatterPlan {
  std::vector<int> rows, start, pos;
};
ScatterPlan PlanScatter(std::span<const int> tokens) {
  std::map<int, std::vector<int>> by_token;
  for (size_t t = 0; t < tokens.size(); ++t) by_token[tokens[t]].push_back(static_cast<int>(t));
  ScatterPlan plan;
  plan.start.push_back(0);
  for (const auto& [token, positions] : by_token) {
    plan.rows.push_back(token);
    plan.pos.insert(plan.pos.end(), positions.begin(), positions.end());
    plan.start.push_back(static_cast<int>(plan.pos.size()));
  }
  return plan;
}

}  // namespace

// -----------------------------------------------------------------------------
// The cache

struct CudaKvCache::Impl {
  int layers = 0, kvd = 0, capacity = 0, length = 0;
  std::vector<DeviceBuffer<float>> keys, values;  // [L] -> [capacity, KV*d]
};

CudaKvCache::CudaKvCache() = default;
CudaKvCache::~CudaKvCache() = default;
CudaKvCache::CudaKvCache(CudaKvCache&&) noexcept = default;
CudaKvCache& CudaKvCache::operator=(CudaKvCache&&) noexcept = default;

int CudaKvCache::length() const { return impl_ ? impl_->length : 0; }

void CudaKvCache::Truncate(int length) {
  if (length <= 0 || length > this->length())
    throw std::invalid_argument("cuda kv cache: cannot truncate " + std::to_string(this->length()) +
                                " positions to " + std::to_string(length));
  impl_->length = length;
}

CudaKvCache CudaKvCache::Truncated(int length) const {
  if (length <= 0 || length > this->length())
    throw std::invalid_argument("cuda kv cache: cannot truncate " + std::to_string(this->length()) +
                                " positions to " + std::to_string(length));
  CudaKvCache out;
  out.impl_ = std::make_unique<Impl>();
  Impl& o = *out.impl_;
  o.layers = impl_->layers;
  o.kvd = impl_->kvd;
  o.capacity = impl_->capacity;
  o.length = length;
  const size_t bytes = static_cast<size_t>(length) * impl_->kvd * sizeof(float);
  for (int l = 0; l < o.layers; ++l) {
    o.keys.emplace_back(static_cast<size_t>(o.capacity) * o.kvd);
    o.values.emplace_back(static_cast<size_t>(o.capacity) * o.kvd);
    o.keys.back().Poison();  // rows past `length`, as a fresh cache's
    o.values.back().Poison();
    CB_CUDA_CHECK(cudaMemcpy(o.keys[l].data(), impl_->keys[l].data(), bytes, cudaMemcpyDeviceToDevice));
    CB_CUDA_CHECK(cudaMemcpy(o.values[l].data(), impl_->values[l].data(), bytes, cudaMemcpyDeviceToDevice));
  }
  return out;
}

std::vector<float> CudaKvCache::Keys(int layer) const {
  if (!impl_ || layer < 0 || layer >= impl_->layers)
    throw std::invalid_argument("cuda kv cache: no layer " + std::to_string(layer));
  return DownloadFloats(impl_->keys[layer].data(), static_cast<size_t>(impl_->length) * impl_->kvd);
}

std::vector<float> CudaKvCache::Values(int layer) const {
  if (!impl_ || layer < 0 || layer >= impl_->layers)
    throw std::invalid_argument("cuda kv cache: no layer " + std::to_string(layer));
  return DownloadFloats(impl_->values[layer].data(), static_cast<size_t>(impl_->length) * impl_->kvd);
}

CpuKvCache CudaKvCache::Download() const {
  CpuKvCache out;
  out.length = length();
  for (int l = 0; impl_ && l < impl_->layers; ++l) {
    out.keys.push_back(Keys(l));
    out.values.push_back(Values(l));
  }
  return out;
}

// -----------------------------------------------------------------------------
// The model

struct CudaTransformer::Impl {
  struct LayerActs {  // as CpuTransformer::LayerActs, on the device
    DeviceBuffer<float> x, r1, n;     // [M, D], [M], [M, D]
    DeviceBuffer<float> q, k, v;      // [M, H*d], [M, KV*d] x 2 (q, k after RoPE)
    DeviceBuffer<float> p;            // [B, H, T, S] probabilities (0 where masked)
    DeviceBuffer<float> att;          // [M, H*d]
    DeviceBuffer<float> h, r2, m;     // [M, D], [M], [M, D]
    DeviceBuffer<float> gate, up, a;  // [M, I]
  };

  ref::TransformerConfig config;
  ref::Architecture arch;
  size_t num_params = 0;
  std::vector<std::array<size_t, 9>> layer_offsets;  // [L][9] in LayerParams order
  size_t embed = 0, final_norm = 0, head = 0;        // head = embed when tied
  int D = 0, I = 0, d = 0, V = 0, H = 0, KV = 0, rep = 0, Hd = 0, KVd = 0, L = 0;
  float scale = 0;

  DeviceBuffer<float> params;                // [num_params]
  DeviceBuffer<float> rope_cos, rope_sin;    // [max_position_embeddings, d/2]
  std::unique_ptr<cublasContext, CublasDeleter> cublas;
  cb::harness::cuda_internal::EventTimer timer;

  // Workspace, grown on demand and kept between calls.
  std::vector<LayerActs> acts;  // [L] when training, else [1] reused by every layer
  DeviceBuffer<float> x, xf, rf, logits, dlogits, grad;
  DeviceBuffer<int> tokens, targets;
  DeviceBuffer<float> weights;
  DeviceBuffer<double> row_loss;
  DeviceBuffer<int> scatter_rows, scatter_start, scatter_pos;
  int scatter_count = 0;  // distinct tokens of the uploaded plan
  DeviceBuffer<float> norm_partial;  // [ceil(M / kRowsPerChunk), D]
  DeviceBuffer<float> dx, dh, da, dgate, dup, dm, datt, dq, dk, dv, dn, dxf, ds;
  DeviceBuffer<float> dec_x, dec_n, dec_q, dec_p, dec_att, dec_gate, dec_up;

  explicit Impl(const CpuTransformer& model)
      : config(model.config()), arch(model.arch()), num_params(model.num_params()),
        params(std::span<const float>(model.params())) {
    const ref::TransformerConfig& c = config;
    D = c.hidden_size;
    I = c.intermediate_size;
    d = c.HeadDim();
    V = c.vocab_size;
    H = c.num_attention_heads;
    KV = c.num_key_value_heads;
    rep = H / KV;
    Hd = H * d;
    KVd = KV * d;
    L = c.num_hidden_layers;
    scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
    static const char* kLayerTensors[9] = {
        "input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
        "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
        "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};
    for (int l = 0; l < L; ++l) {
      std::array<size_t, 9> offs{};
      for (int j = 0; j < 9; ++j)
        offs[j] = model.slot("model.layers." + std::to_string(l) + "." + kLayerTensors[j]).offset;
      layer_offsets.push_back(offs);
    }
    embed = model.slot("model.embed_tokens.weight").offset;
    final_norm = model.slot("model.norm.weight").offset;
    head = c.tie_word_embeddings ? embed : model.slot("lm_head.weight").offset;

    // RoPE tables for every position, with cpu_transformer.cpp's expression
    // (fp64 angle, rounded once), so both paths rotate by the same floats.
    const int half = d / 2, P = c.max_position_embeddings;
    std::vector<float> cs(static_cast<size_t>(P) * half), sn(cs.size());
    for (int t = 0; t < P; ++t)
      for (int i = 0; i < half; ++i) {
        const double f = t * std::pow(c.rope_theta, -2.0 * i / d);
        cs[static_cast<size_t>(t) * half + i] = static_cast<float>(std::cos(f));
        sn[static_cast<size_t>(t) * half + i] = static_cast<float>(std::sin(f));
      }
    rope_cos = DeviceBuffer<float>(std::span<const float>(cs));
    rope_sin = DeviceBuffer<float>(std::span<const float>(sn));

    cublasHandle_t handle = nullptr;
    CB_CUBLAS_CHECK(cublasCreate(&handle));
    cublas.reset(handle);
    // Plain fp32: TF32 tensor-op math (10-bit mantissas) would cost the
    // agreement with the reference.
    CB_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    CB_CUBLAS_CHECK(cublasSetStream(handle, nullptr));
  }

  const float* W(int l, int j) const { return params.data() + layer_offsets[l][j]; }

  // Row-major C [M, N] = alpha op(A) op(B) + beta C, `count` times with
  // element strides sa, sb, sc (the mapping in the file comment). A is [M, K]
  // (ta: [K, M]) with row stride lda, B is [K, N] (tb: [N, K]) with ldb.
  void Gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda,
            long long sa, const float* B, int ldb, long long sb, float beta, float* C, int ldc,
            long long sc, int count = 1) {
    const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (count == 1) {
      CB_CUBLAS_CHECK(cublasSgemm(cublas.get(), opb, opa, N, M, K, &alpha, B, ldb, A, lda, &beta, C,
                                  ldc));
    } else {
      CB_CUBLAS_CHECK(cublasSgemmStridedBatched(cublas.get(), opb, opa, N, M, K, &alpha, B, ldb, sb,
                                                A, lda, sa, &beta, C, ldc, sc, count));
    }
  }
  // y = A x W^T for activations [M, in] and a Linear weight W [out, in].
  void Linear(int M, int out, int in, const float* x, const float* w, float beta, float* y) {
    Gemm(false, true, M, out, in, 1.0f, x, in, 0, w, in, 0, beta, y, out, 0);
  }
  // y [out] = W x + beta y for a row-major W [out, in].
  void Gemv(const float* w, int out, int in, const float* xv, float beta, float* y) {
    const float one = 1.0f;
    CB_CUBLAS_CHECK(cublasSgemv(cublas.get(), CUBLAS_OP_T, in, out, &one, w, in, xv, 1, &beta, y, 1));
  }

  void RmsNorm(const float* in, const float* w, int M, float* out, float* r) {
    rmsnorm_kernel<<<M, kThreads>>>(in, w, D, config.rms_norm_eps, out, r);
    CB_CUDA_CHECK_LAUNCH();
  }
  void RmsNormBackward(const float* dy, const float* xin, const float* w, const float* r, int M,
                       float* dxo, float* dw) {
    rmsnorm_backward_rows_kernel<<<M, kThreads>>>(dy, xin, w, r, D, dxo);
    CB_CUDA_CHECK_LAUNCH();
    const int chunks = static_cast<int>(Blocks(M, kRowsPerChunk));
    float* partial = Ensure(norm_partial, static_cast<size_t>(chunks) * D);
    const unsigned grid_y = static_cast<unsigned>(std::min(chunks, 65535));
    rmsnorm_weight_partial_kernel<<<dim3(Blocks(D, kThreads), grid_y), kThreads>>>(dy, xin, r, M, D,
                                                                                   chunks, partial);
    CB_CUDA_CHECK_LAUNCH();
    column_sum_add_kernel<<<Blocks(D, kThreads), kThreads>>>(partial, chunks, D, dw);
    CB_CUDA_CHECK_LAUNCH();
  }
  void Rope(float* v, int M, int T, int heads, int pos0, float sign) {
    const size_t n = static_cast<size_t>(M) * heads * (d / 2);
    if (n == 0) return;
    rope_kernel<<<Blocks(n, kThreads), kThreads>>>(v, M, T, heads, d, pos0, rope_cos.data(),
                                                   rope_sin.data(), sign);
    CB_CUDA_CHECK_LAUNCH();
  }

  // Host checks (the CPU path's messages, "cuda transformer:" prefix).
  void CheckTokens(std::span<const int> toks, int pos_end) const {
    if (toks.empty()) throw std::invalid_argument("cuda transformer: empty token sequence");
    if (pos_end > config.max_position_embeddings)
      throw std::invalid_argument("cuda transformer: position " + std::to_string(pos_end - 1) +
                                  " past max_position_embeddings " +
                                  std::to_string(config.max_position_embeddings));
    for (size_t t = 0; t < toks.size(); ++t)
      if (toks[t] < 0 || toks[t] >= V)
        throw std::invalid_argument("cuda transformer: token id " + std::to_string(toks[t]) +
                                    " at position " + Str(t) + " outside [0, " +
                                    std::to_string(V) + ")");
  }
  void CheckCausal() const {
    if (!arch.causal) throw std::invalid_argument("cuda transformer: a KV cache needs a causal model");
  }

  // Sizes `cache` for this model (max_position_embeddings rows per layer)
  // and empties it.
  void ResetCache(CudaKvCache& cache) {
    auto& ci = cache.impl_;
    const int capacity = config.max_position_embeddings;
    if (!ci || ci->layers != L || ci->kvd != KVd || ci->capacity != capacity) {
      ci = std::make_unique<CudaKvCache::Impl>();
      ci->layers = L;
      ci->kvd = KVd;
      ci->capacity = capacity;
      for (int l = 0; l < L; ++l) {
        ci->keys.emplace_back(static_cast<size_t>(capacity) * KVd);
        ci->values.emplace_back(static_cast<size_t>(capacity) * KVd);
        ci->keys.back().Poison();
        ci->values.back().Poison();
      }
    }
    ci->length = 0;
  }
  void CheckDecode(int token, const CudaKvCache& cache) const {
    CheckCausal();
    const auto& ci = cache.impl_;
    if (!ci || ci->length == 0) throw std::invalid_argument("cuda transformer: DecodeStep before Prefill");
    // The capacity too: a cache of fewer positions than this model's
    // max_position_embeddings would be written past its end.
    if (ci->layers != L || ci->kvd != KVd || ci->capacity != config.max_position_embeddings)
      throw std::invalid_argument("cuda transformer: KV cache of another model shape (" +
                                  std::to_string(ci->layers) + " layers of " + std::to_string(ci->kvd) +
                                  " x " + std::to_string(ci->capacity) + " positions, not " +
                                  std::to_string(L) + " of " + std::to_string(KVd) + " x " +
                                  std::to_string(config.max_position_embeddings) + ")");
    const int tok[1] = {token};
    CheckTokens(tok, ci->length + 1);
  }

  // Embeds the uploaded tokens [B*T] and runs the blocks into logits
  // [B*T, V]; `train` keeps every layer's activations; with `cache` (B = 1)
  // positions start at cache->length, the keys and values are written into
  // the cache in place and read from there.
  void Run(int B, int T, bool train, CudaKvCache::Impl* cache) {
    const int M = B * T, pos0 = cache ? cache->length : 0, S = pos0 + T;
    const size_t MD = static_cast<size_t>(M) * D;
    float* xs = Ensure(x, MD);
    embed_kernel<<<M, kThreads>>>(params.data() + embed, tokens.data(), D, xs);
    CB_CUDA_CHECK_LAUNCH();
    if (acts.size() < static_cast<size_t>(train ? L : 1)) acts.resize(train ? L : 1);
    for (int l = 0; l < L; ++l) {
      LayerActs& A = acts[train ? l : 0];
      if (train) CopyDevice(Ensure(A.x, MD), xs, MD);
      float* n = Ensure(A.n, MD);
      RmsNorm(xs, W(l, 0), M, n, Ensure(A.r1, M));
      float* q = Ensure(A.q, static_cast<size_t>(M) * Hd);
      float* k = cache ? cache->keys[l].data() + static_cast<size_t>(pos0) * KVd
                       : Ensure(A.k, static_cast<size_t>(M) * KVd);
      float* v = cache ? cache->values[l].data() + static_cast<size_t>(pos0) * KVd
                       : Ensure(A.v, static_cast<size_t>(M) * KVd);
      Linear(M, Hd, D, n, W(l, 1), 0, q);
      Linear(M, KVd, D, n, W(l, 2), 0, k);
      Linear(M, KVd, D, n, W(l, 3), 0, v);
      Rope(q, M, T, H, pos0, +1);
      Rope(k, M, T, KV, pos0, +1);
      const float* keys = cache ? cache->keys[l].data() : k;  // sequence b's rows start at b*T
      const float* vals = cache ? cache->values[l].data() : v;
      const long long kv_stride = cache ? 0 : static_cast<long long>(T) * KVd;
      const long long p_stride = static_cast<long long>(H) * T * S;
      float* p = Ensure(A.p, static_cast<size_t>(B) * p_stride);
      float* att = Ensure(A.att, static_cast<size_t>(M) * Hd);
      // Per query head h, batched over the B sequences: P_bh [T, S] =
      // scale Q_bh [T, d] (ld Hd) K_bg^T (K_bg [S, d], ld KVd), g = h / rep.
      for (int h = 0; h < H; ++h) {
        const int g = h / rep;
        Gemm(false, true, T, S, d, scale, q + h * d, Hd, static_cast<long long>(T) * Hd,
             keys + g * d, KVd, kv_stride, 0, p + static_cast<size_t>(h) * T * S, S, p_stride, B);
      }
      softmax_kernel<<<B * H * T, kThreads>>>(p, S, T, pos0, arch.causal);
      CB_CUDA_CHECK_LAUNCH();
      for (int h = 0; h < H; ++h) {  // att_bh [T, d] (ld Hd) = P_bh V_bg
        const int g = h / rep;
        Gemm(false, false, T, d, S, 1.0f, p + static_cast<size_t>(h) * T * S, S, p_stride,
             vals + g * d, KVd, kv_stride, 0, att + h * d, Hd, static_cast<long long>(T) * Hd, B);
      }
      float* hs = Ensure(A.h, MD);  // h = x + att Wo^T
      CopyDevice(hs, xs, MD);
      Linear(M, D, Hd, att, W(l, 4), 1, hs);
      float* m = Ensure(A.m, MD);
      RmsNorm(hs, W(l, 5), M, m, Ensure(A.r2, M));
      const size_t MI = static_cast<size_t>(M) * I;
      float* gate = Ensure(A.gate, MI);
      float* up = Ensure(A.up, MI);
      float* a = Ensure(A.a, MI);
      Linear(M, I, D, m, W(l, 6), 0, gate);
      Linear(M, I, D, m, W(l, 7), 0, up);
      swiglu_kernel<<<Blocks(MI, kThreads), kThreads>>>(gate, up, a, MI);
      CB_CUDA_CHECK_LAUNCH();
      CopyDevice(xs, hs, MD);  // x = h + a Wd^T
      Linear(M, D, I, a, W(l, 8), 1, xs);
    }
    if (cache) cache->length = S;
    float* xfs = Ensure(xf, MD);
    RmsNorm(xs, params.data() + final_norm, M, xfs, Ensure(rf, M));
    Linear(M, V, D, xfs, params.data() + head, 0, Ensure(logits, static_cast<size_t>(M) * V));
  }

  // Uploads a checked batch's tokens, targets and weights (and, for the
  // backward, the embedding scatter plan).
  void UploadBatch(const Batch& b, bool with_plan) {
    UploadTo(tokens, std::span<const int>(b.tokens));
    UploadTo(targets, std::span<const int>(b.targets));
    UploadTo(weights, std::span<const float>(b.weights));
    if (with_plan) {
      const ScatterPlan plan = PlanScatter(b.tokens);
      UploadTo(scatter_rows, std::span<const int>(plan.rows));
      UploadTo(scatter_start, std::span<const int>(plan.start));
      UploadTo(scatter_pos, std::span<const int>(plan.pos));
      scatter_count = static_cast<int>(plan.rows.size());
    }
  }
  double CheckBatch(const Batch& b) const {
    CheckBatchShape(b);
    CheckTokens(b.tokens, b.seq);
    return CheckTargets(b, V);
  }

  // Row losses (and dlogits) of the current logits [M, V].
  void CrossEntropy(int M, double wsum, bool with_grad) {
    cross_entropy_kernel<<<M, kThreads>>>(
        logits.data(), targets.data(), weights.data(), V, wsum, Ensure(row_loss, M),
        with_grad ? Ensure(dlogits, static_cast<size_t>(M) * V) : nullptr);
    CB_CUDA_CHECK_LAUNCH();
  }
  // sum_t row_loss[t] in position order (the CPU path's order) / wsum.
  double ReduceLoss(const Batch& b, double wsum) const {
    const size_t M = b.weights.size();
    std::vector<double> rows(M);
    CB_CUDA_CHECK(cudaMemcpy(rows.data(), row_loss.data(), M * sizeof(double), cudaMemcpyDeviceToHost));
    double loss = 0;
    for (size_t t = 0; t < M; ++t)
      if (b.weights[t] != 0) loss += rows[t];
    return loss / wsum;
  }

  // The backward pass of cpu_transformer.cpp (dlogits and the activations of
  // Run(train) in place) into grad [num_params].
  void Backward(int B, int T) {
    const int M = B * T;
    const size_t MD = static_cast<size_t>(M) * D, MI = static_cast<size_t>(M) * I;
    const size_t MHd = static_cast<size_t>(M) * Hd, MKVd = static_cast<size_t>(M) * KVd;
    float* G = Ensure(grad, num_params);
    CB_CUDA_CHECK(cudaMemsetAsync(G, 0, num_params * sizeof(float), nullptr));
    // logits = xf head^T: dhead += dlogits^T xf, dxf = dlogits head.
    Gemm(true, false, V, D, M, 1.0f, dlogits.data(), V, 0, xf.data(), D, 0, 1.0f, G + head, D, 0);
    float* dxfs = Ensure(dxf, MD);
    Gemm(false, false, M, D, V, 1.0f, dlogits.data(), V, 0, params.data() + head, D, 0, 0.0f, dxfs, D, 0);
    float* dxs = Ensure(dx, MD);
    CB_CUDA_CHECK(cudaMemsetAsync(dxs, 0, MD * sizeof(float), nullptr));
    RmsNormBackward(dxfs, x.data(), params.data() + final_norm, rf.data(), M, dxs, G + final_norm);

    float *dhs = Ensure(dh, MD), *das = Ensure(da, MI), *dgates = Ensure(dgate, MI);
    float *dups = Ensure(dup, MI), *dms = Ensure(dm, MD), *datts = Ensure(datt, MHd);
    float *dqs = Ensure(dq, MHd), *dks = Ensure(dk, MKVd), *dvs = Ensure(dv, MKVd);
    float* dns = Ensure(dn, MD);
    const long long p_stride = static_cast<long long>(H) * T * T;
    float* dS = Ensure(ds, static_cast<size_t>(B) * p_stride);
    const long long q_stride = static_cast<long long>(T) * Hd, kv_stride = static_cast<long long>(T) * KVd;
    for (int l = L - 1; l >= 0; --l) {
      const std::array<size_t, 9>& o = layer_offsets[l];
      float *g_in = G + o[0], *g_q = G + o[1], *g_k = G + o[2], *g_v = G + o[3], *g_o = G + o[4];
      float *g_post = G + o[5], *g_gate = G + o[6], *g_up = G + o[7], *g_down = G + o[8];
      LayerActs& A = acts[l];

      // x_out = h + a Wd^T
      CopyDevice(dhs, dxs, MD);
      Gemm(false, false, M, I, D, 1.0f, dxs, D, 0, W(l, 8), I, 0, 0.0f, das, I, 0);
      Gemm(true, false, D, I, M, 1.0f, dxs, D, 0, A.a.data(), I, 0, 1.0f, g_down, I, 0);
      // a = silu(gate) * up
      swiglu_backward_kernel<<<Blocks(MI, kThreads), kThreads>>>(das, A.gate.data(), A.up.data(),
                                                                 dgates, dups, MI);
      CB_CUDA_CHECK_LAUNCH();
      Gemm(false, false, M, D, I, 1.0f, dgates, I, 0, W(l, 6), D, 0, 0.0f, dms, D, 0);
      Gemm(false, false, M, D, I, 1.0f, dups, I, 0, W(l, 7), D, 0, 1.0f, dms, D, 0);
      Gemm(true, false, I, D, M, 1.0f, dgates, I, 0, A.m.data(), D, 0, 1.0f, g_gate, D, 0);
      Gemm(true, false, I, D, M, 1.0f, dups, I, 0, A.m.data(), D, 0, 1.0f, g_up, D, 0);
      RmsNormBackward(dms, A.h.data(), W(l, 5), A.r2.data(), M, dhs, g_post);

      // h = x + att Wo^T
      CopyDevice(dxs, dhs, MD);
      Gemm(false, false, M, Hd, D, 1.0f, dhs, D, 0, W(l, 4), Hd, 0, 0.0f, datts, Hd, 0);
      Gemm(true, false, D, Hd, M, 1.0f, dhs, D, 0, A.att.data(), Hd, 0, 1.0f, g_o, Hd, 0);

      // Attention per query head, batched over sequences (S = T). Heads of
      // one KV group add into dK_g and dV_g in head order, as on the CPU.
      CB_CUDA_CHECK(cudaMemsetAsync(dks, 0, MKVd * sizeof(float), nullptr));
      CB_CUDA_CHECK(cudaMemsetAsync(dvs, 0, MKVd * sizeof(float), nullptr));
      for (int h = 0; h < H; ++h) {
        const int g = h / rep;
        const float* P = A.p.data() + static_cast<size_t>(h) * T * T;  // [T, T] per sequence
        float* dPh = dS + static_cast<size_t>(h) * T * T;
        // dP = dOut V^T
        Gemm(false, true, T, T, d, 1.0f, datts + h * d, Hd, q_stride, A.v.data() + g * d, KVd,
             kv_stride, 0.0f, dPh, T, p_stride, B);
        // dV += P^T dOut
        Gemm(true, false, T, d, T, 1.0f, P, T, p_stride, datts + h * d, Hd, q_stride, 1.0f,
             dvs + g * d, KVd, kv_stride, B);
      }
      dsoftmax_kernel<<<B * H * T, kThreads>>>(A.p.data(), dS, T);
      CB_CUDA_CHECK_LAUNCH();
      for (int h = 0; h < H; ++h) {
        const int g = h / rep;
        const float* dSh = dS + static_cast<size_t>(h) * T * T;
        // dQ = dS K / sqrt(d), dK += dS^T Q / sqrt(d)
        Gemm(false, false, T, d, T, scale, dSh, T, p_stride, A.k.data() + g * d, KVd, kv_stride,
             0.0f, dqs + h * d, Hd, q_stride, B);
        Gemm(true, false, T, d, T, scale, dSh, T, p_stride, A.q.data() + h * d, Hd, q_stride, 1.0f,
             dks + g * d, KVd, kv_stride, B);
      }
      Rope(dqs, M, T, H, 0, -1);
      Rope(dks, M, T, KV, 0, -1);
      Gemm(false, false, M, D, Hd, 1.0f, dqs, Hd, 0, W(l, 1), D, 0, 0.0f, dns, D, 0);
      Gemm(false, false, M, D, KVd, 1.0f, dks, KVd, 0, W(l, 2), D, 0, 1.0f, dns, D, 0);
      Gemm(false, false, M, D, KVd, 1.0f, dvs, KVd, 0, W(l, 3), D, 0, 1.0f, dns, D, 0);
      Gemm(true, false, Hd, D, M, 1.0f, dqs, Hd, 0, A.n.data(), D, 0, 1.0f, g_q, D, 0);
      Gemm(true, false, KVd, D, M, 1.0f, dks, KVd, 0, A.n.data(), D, 0, 1.0f, g_k, D, 0);
      Gemm(true, false, KVd, D, M, 1.0f, dvs, KVd, 0, A.n.data(), D, 0, 1.0f, g_v, D, 0);
      RmsNormBackward(dns, A.x.data(), W(l, 0), A.r1.data(), M, dxs, g_in);
    }
    // x0 = embed[tokens]: rows of repeated tokens add up in position order.
    embed_scatter_kernel<<<scatter_count, kThreads>>>(dxs, D, scatter_rows.data(),
                                                      scatter_start.data(), scatter_pos.data(),
                                                      G + embed);
    CB_CUDA_CHECK_LAUNCH();
  }
  // The fused decode step (CpuTransformer::DecodeStep on the device): one
  // token at position cache.length, matrix-vector products, logits left in
  // `logits` [V].
  void Decode(int token, CudaKvCache::Impl& cache) {
    const int pos = cache.length, S = pos + 1;
    float* xs = Ensure(dec_x, D);
    float* n = Ensure(dec_n, D);
    float* q = Ensure(dec_q, Hd);
    float* p = Ensure(dec_p, static_cast<size_t>(H) * config.max_position_embeddings);
    float* att = Ensure(dec_att, Hd);
    float* gate = Ensure(dec_gate, I);
    float* up = Ensure(dec_up, I);
    CopyDevice(xs, params.data() + embed + static_cast<size_t>(token) * D, D);
    for (int l = 0; l < L; ++l) {
      float* kc = cache.keys[l].data();  // [S, KVd]
      float* vc = cache.values[l].data();
      float* k = kc + static_cast<size_t>(pos) * KVd;
      float* v = vc + static_cast<size_t>(pos) * KVd;
      RmsNorm(xs, W(l, 0), 1, n, nullptr);
      Gemv(W(l, 1), Hd, D, n, 0, q);
      Gemv(W(l, 2), KVd, D, n, 0, k);
      Gemv(W(l, 3), KVd, D, n, 0, v);
      Rope(q, 1, 1, H, pos, +1);
      Rope(k, 1, 1, KV, pos, +1);
      // The rep query heads of KV group g are contiguous in q, so per group
      // (batched over g): P_g [rep, S] = scale Q_g [rep, d] K_g^T, then
      // att_g [rep, d] = P_g V_g.
      Gemm(false, true, rep, S, d, scale, q, d, static_cast<long long>(rep) * d, kc, KVd, d, 0, p, S,
           static_cast<long long>(rep) * S, KV);
      softmax_kernel<<<H, kThreads>>>(p, S, 1, pos, true);
      CB_CUDA_CHECK_LAUNCH();
      Gemm(false, false, rep, d, S, 1.0f, p, S, static_cast<long long>(rep) * S, vc, KVd, d, 0, att, d,
           static_cast<long long>(rep) * d, KV);
      Gemv(W(l, 4), D, Hd, att, 1, xs);  // x = h = x + Wo att
      RmsNorm(xs, W(l, 5), 1, n, nullptr);
      Gemv(W(l, 6), I, D, n, 0, gate);
      Gemv(W(l, 7), I, D, n, 0, up);
      swiglu_kernel<<<Blocks(I, kThreads), kThreads>>>(gate, up, gate, I);
      CB_CUDA_CHECK_LAUNCH();
      Gemv(W(l, 8), D, I, gate, 1, xs);
    }
    cache.length = S;
    RmsNorm(xs, params.data() + final_norm, 1, n, nullptr);
    Gemv(params.data() + head, V, D, n, 0, Ensure(logits, V));
  }
};

CudaTransformer::CudaTransformer(const CpuTransformer& model) {
  if (model.arch().Patches())
    throw std::invalid_argument("cuda transformer: patch (ViT) input runs on the CPU paths only");
  cb::harness::RequireAvailable(cb::harness::Backend::kCuda);
  impl_ = std::make_unique<Impl>(model);
}

CudaTransformer::~CudaTransformer() = default;

const ref::TransformerConfig& CudaTransformer::config() const { return impl_->config; }
const ref::Architecture& CudaTransformer::arch() const { return impl_->arch; }
size_t CudaTransformer::num_params() const { return impl_->num_params; }

void CudaTransformer::Upload(std::span<const float> flat) {
  if (flat.size() != impl_->num_params)
    throw std::invalid_argument("cuda transformer: buffer of " + Str(flat.size()) + " values for " +
                                Str(impl_->num_params) + " parameters");
  impl_->params.CopyFromHost(flat);
}

std::vector<float> CudaTransformer::Forward(std::span<const int> tokens) const {
  return ForwardBatch(tokens, 1, static_cast<int>(tokens.size()));
}

std::vector<float> CudaTransformer::ForwardBatch(std::span<const int> tokens, int batch,
                                                 int seq) const {
  RunTokens(tokens, batch, seq);
  return DownloadFloats(impl_->logits.data(), tokens.size() * impl_->V);
}

std::vector<float> CudaTransformer::ForwardHiddenBatch(std::span<const int> tokens, int batch,
                                                       int seq) const {
  RunTokens(tokens, batch, seq);
  return DownloadFloats(impl_->xf.data(), tokens.size() * impl_->D);
}

void CudaTransformer::RunTokens(std::span<const int> tokens, int batch, int seq) const {
  Impl& m = *impl_;
  if (tokens.empty()) throw std::invalid_argument("cuda transformer: empty token sequence");
  if (batch <= 0 || seq <= 0) throw std::invalid_argument("cuda transformer: empty batch");
  if (tokens.size() != static_cast<size_t>(batch) * seq)
    throw std::invalid_argument("cuda transformer: " + Str(tokens.size()) + " tokens for a batch of " +
                                std::to_string(batch) + " x " + std::to_string(seq));
  m.CheckTokens(tokens, seq);
  UploadTo(m.tokens, tokens);
  m.Run(batch, seq, false, nullptr);
}

double CudaTransformer::Loss(const Batch& b) const {
  Impl& m = *impl_;
  const double wsum = m.CheckBatch(b);
  m.UploadBatch(b, false);
  m.Run(b.batch, b.seq, false, nullptr);
  m.CrossEntropy(b.batch * b.seq, wsum, false);
  return m.ReduceLoss(b, wsum);
}

double CudaTransformer::LossAndGrad(const Batch& b, std::span<float> grad) const {
  Impl& m = *impl_;
  const double wsum = m.CheckBatch(b);
  if (grad.size() != m.num_params)
    throw std::invalid_argument("cuda transformer: gradient buffer of " + Str(grad.size()) +
                                " values for " + Str(m.num_params) + " parameters");
  m.UploadBatch(b, true);
  m.Run(b.batch, b.seq, true, nullptr);
  m.CrossEntropy(b.batch * b.seq, wsum, true);
  m.Backward(b.batch, b.seq);
  const double loss = m.ReduceLoss(b, wsum);  // synchronises
  CB_CUDA_CHECK(cudaMemcpy(grad.data(), m.grad.data(), grad.size_bytes(), cudaMemcpyDeviceToHost));
  return loss;
}

std::vector<float> CudaTransformer::Prefill(std::span<const int> tokens, CudaKvCache& cache) const {
  Impl& m = *impl_;
  m.CheckCausal();
  m.CheckTokens(tokens, static_cast<int>(tokens.size()));
  m.ResetCache(cache);
  UploadTo(m.tokens, tokens);
  m.Run(1, static_cast<int>(tokens.size()), false, cache.impl_.get());
  return DownloadFloats(m.logits.data(), tokens.size() * m.V);
}

std::vector<float> CudaTransformer::DecodeStep(int token, CudaKvCache& cache) const {
  Impl& m = *impl_;
  m.CheckDecode(token, cache);
  m.Decode(token, *cache.impl_);
  return DownloadFloats(m.logits.data(), m.V);
}

std::vector<float> CudaTransformer::Extend(std::span<const int> tokens, CudaKvCache& cache) const {
  Impl& m = *impl_;
  if (tokens.empty()) throw std::invalid_argument("cuda transformer: Extend by no tokens");
  m.CheckDecode(tokens[0], cache);  // causal, filled, this model's shape
  const auto& ci = *cache.impl_;
  m.CheckTokens(tokens, ci.length + static_cast<int>(tokens.size()));  // capacity = max positions
  UploadTo(m.tokens, tokens);
  m.Run(1, static_cast<int>(tokens.size()), false, cache.impl_.get());
  return DownloadFloats(m.logits.data(), tokens.size() * m.V);
}

double CudaTransformer::TimeLossAndGrad(const Batch& b) const {
  Impl& m = *impl_;
  const double wsum = m.CheckBatch(b);
  m.UploadBatch(b, true);
  m.timer.Start(nullptr);
  m.Run(b.batch, b.seq, true, nullptr);
  m.CrossEntropy(b.batch * b.seq, wsum, true);
  m.Backward(b.batch, b.seq);
  m.timer.Stop(nullptr);
  CB_CUDA_CHECK_LAUNCH();
  return m.timer.ElapsedSeconds();
}

double CudaTransformer::TimePrefill(std::span<const int> tokens, CudaKvCache& cache) const {
  Impl& m = *impl_;
  m.CheckCausal();
  m.CheckTokens(tokens, static_cast<int>(tokens.size()));
  m.ResetCache(cache);
  UploadTo(m.tokens, tokens);
  m.timer.Start(nullptr);
  m.Run(1, static_cast<int>(tokens.size()), false, cache.impl_.get());
  m.timer.Stop(nullptr);
  CB_CUDA_CHECK_LAUNCH();
  return m.timer.ElapsedSeconds();
}

double CudaTransformer::TimeDecodeStep(int token, CudaKvCache& cache) const {
  Impl& m = *impl_;
  m.CheckDecode(token, cache);
  m.timer.Start(nullptr);
  m.Decode(token, *cache.impl_);
  m.timer.Stop(nullptr);
  CB_CUDA_CHECK_LAUNCH();
  return m.timer.ElapsedSeconds();
}

}  // namespace cb::lm_suite

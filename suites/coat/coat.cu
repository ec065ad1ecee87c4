// File: suites/coat/coat.cu
// -----------------------------------------------------------------------------
// CUDA path of coat.h (COAT, Xi et al., ICLR 2025, §4-5), with cuda_fp8.h:
//   - encode_kernel: one thread per element, __nv_cvt_float_to_fp8 with
//     __NV_SATFINITE (cvt.rn.satfinite.{e4m3,e5m2}x2.f32 on sm_89+, the
//     header's software path on sm_80). Must equal reference/fp8 bit for bit.
//   - dre_quantize_kernel: one block of 128 threads per 1x128 group, thread i
//     owns element i of the group; max|x| and min nonzero |x| by warp shuffles
//     then shared memory (zeros are excluded exactly, unlike the authors'
//     kernel, see reference/coat/quant.h); thread 0 computes (s, k, c) with
//     the reference's float formulas; every thread encodes its element.
//   - dre_dequantize_kernel: same mapping, x^ = sign(q)(|q| s)^(1/k) c.
//   - group16_kernel: one thread per 1x16 group (64 contiguous bytes in).
//   - CompareGemmCuda: cuBLASLt E4M3 x E4M3 -> BF16 vs BF16 x BF16 -> BF16.
// DRE uses log2f/powf/sqrtf, whose device versions differ from glibc's by an
// ulp or two, so DRE is compared with the CPU within a tolerance; the FP8
// encodes and the 1x16 path (IEEE division, bf16 RN, max) are compared exactly.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "harness/stats.h"
#include "suites/coat/coat.h"
#include "suites/coat/coat_cuda.h"

namespace cb::coat {
namespace {

using harness::DeviceBuffer;
using ref::coat::DreGroup;
using ref::coat::DreOptions;
using ref::coat::kDreGroupSize;

constexpr int kThreads = 256;

__nv_fp8_interpretation_t Interp(ref::fp8::Format f) {
  return f == ref::fp8::Format::kE4M3 ? __NV_E4M3 : __NV_E5M2;
}

__global__ void encode_kernel(const float* __restrict__ x, uint8_t* __restrict__ out, int64_t n,
                              __nv_fp8_interpretation_t interp) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // Every NaN, -NaN included, to 0x7F as the CPU emulation (reference/fp8.h)
    // does: whichever byte the sm_89+ conversion gives a negative NaN is not
    // relied on (not checked on a device yet).
    out[i] = isnan(x[i]) ? uint8_t{0x7F} : __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, interp);
  }
}

__device__ __forceinline__ float SignOf(float v) { return signbit(v) ? -1.0f : 1.0f; }

// Block-wide max and min over 128 threads (4 warps).
__device__ void BlockMaxMin(float& mx, float& mn) {
  __shared__ float smax[kDreGroupSize / 32], smin[kDreGroupSize / 32];
  for (int off = 16; off > 0; off /= 2) {
    mx = fmaxf(mx, __shfl_down_sync(0xFFFFFFFFu, mx, off));
    mn = fminf(mn, __shfl_down_sync(0xFFFFFFFFu, mn, off));
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    smax[warp] = mx;
    smin[warp] = mn;
  }
  __syncthreads();
  mx = smax[0];
  mn = smin[0];
  for (int w = 1; w < kDreGroupSize / 32; ++w) {
    mx = fmaxf(mx, smax[w]);
    mn = fminf(mn, smin[w]);
  }
}

__global__ void dre_quantize_kernel(const float* __restrict__ x, int64_t n, DreOptions opt,
                                    uint8_t* __restrict__ codes, DreGroup* __restrict__ groups) {
  const int64_t g = blockIdx.x;
  const int64_t i = g * kDreGroupSize + threadIdx.x;
  const bool valid = i < n;
  const float v = valid ? x[i] : 0.0f;
  float mx = fabsf(v);
  float mn = (valid && (v != 0.0f || opt.min_includes_zeros)) ? fabsf(v) : INFINITY;
  BlockMaxMin(mx, mn);
  __shared__ float s_scale, s_k, s_center;  // DreGroup has initializers: not __shared__-able
  if (threadIdx.x == 0) {
    const float big = mx + opt.min_val;
    const float small = isinf(mn) ? big : mn + opt.min_val;
    const float ratio = big / small;
    DreGroup p;
    p.center = sqrtf(big) * sqrtf(small);
    float k;
    if (opt.target == ref::coat::DreTarget::kAuthorsKernel) {
      const float steps = float(opt.expand_min);
      k = floorf((log2f(448.0f * 448.0f / 2.0f) / log2f(ratio)) * steps) / steps;
    } else {
      k = log2f(448.0f / 0x1p-9f) / log2f(ratio);
    }
    if (isinf(k)) k = opt.k_if_ratio_is_one;  // R == 1: log2 R = 0
    if (k > opt.k_cap) k = opt.k_cap;
    if (opt.clamp_k_at_least_one) k = fmaxf(k, 1.0f);
    p.k = k;
    p.scale = powf(big / p.center, k) / 448.0f;
    s_scale = p.scale;
    s_k = p.k;
    s_center = p.center;
    groups[g] = p;
  }
  __syncthreads();
  if (valid) {
    const float y = SignOf(v) * powf(fabsf(v) / s_center, s_k);
    codes[i] = __nv_cvt_float_to_fp8(y / s_scale, __NV_SATFINITE, __NV_E4M3);
  }
}

__global__ void dre_dequantize_kernel(const uint8_t* __restrict__ codes,
                                      const DreGroup* __restrict__ groups, int64_t n,
                                      float* __restrict__ out) {
  const int64_t i = int64_t(blockIdx.x) * kDreGroupSize + threadIdx.x;
  if (i >= n) return;
  const DreGroup p = groups[blockIdx.x];
  __nv_fp8_e4m3 q;
  q.__x = codes[i];
  const float scaled = float(q) * p.scale;
  out[i] = SignOf(scaled) * powf(fabsf(scaled), 1.0f / p.k) * p.center;
}

__global__ void group16_kernel(const float* __restrict__ x, int64_t n, float fp8_max,
                               __nv_fp8_interpretation_t interp, uint8_t* __restrict__ codes,
                               float* __restrict__ scales) {
  const int64_t g = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t begin = g * ref::coat::kActGroupSize;
  if (begin >= n) return;
  const int64_t end = min(n, begin + ref::coat::kActGroupSize);
  float mx = 0.0f;
  for (int64_t i = begin; i < end; ++i) mx = fmaxf(mx, fabsf(x[i]));
  const float scale = __bfloat162float(__float2bfloat16_rn((mx + ref::coat::kActEps) / fp8_max));
  scales[g] = scale;
  for (int64_t i = begin; i < end; ++i) codes[i] = __nv_cvt_float_to_fp8(x[i] / scale, __NV_SATFINITE, interp);
}

unsigned Blocks(int64_t work, int per_block) {
  return static_cast<unsigned>(std::min<int64_t>((work + per_block - 1) / per_block, 65535));
}

}  // namespace

std::vector<uint8_t> EncodeFp8Cuda(std::span<const float> x, ref::fp8::Format f) {
  if (x.empty()) return {};
  DeviceBuffer<float> in(x);
  DeviceBuffer<uint8_t> out(x.size());
  out.Poison();
  encode_kernel<<<Blocks(int64_t(x.size()), kThreads), kThreads>>>(in.data(), out.data(),
                                                                  int64_t(x.size()), Interp(f));
  CB_CUDA_CHECK_LAUNCH();
  return out.ToHost();
}

ref::coat::DreTensor DreQuantizeCuda(std::span<const float> x, const DreOptions& opt) {
  ref::coat::DreTensor t;
  t.size = int64_t(x.size());
  if (x.empty()) return t;
  const int64_t groups = (t.size + kDreGroupSize - 1) / kDreGroupSize;
  if (groups > 0x7FFFFFFF) throw std::invalid_argument("DreQuantizeCuda: too many groups");
  DeviceBuffer<float> in(x);
  DeviceBuffer<uint8_t> codes(x.size());
  DeviceBuffer<DreGroup> params(static_cast<size_t>(groups));
  codes.Poison();
  params.Poison();
  dre_quantize_kernel<<<unsigned(groups), kDreGroupSize>>>(in.data(), t.size, opt, codes.data(),
                                                          params.data());
  CB_CUDA_CHECK_LAUNCH();
  t.codes = codes.ToHost();
  t.groups = params.ToHost();
  return t;
}

std::vector<float> DreDequantizeCuda(const ref::coat::DreTensor& t) {
  if (t.size == 0) return {};
  DeviceBuffer<uint8_t> codes(std::span<const uint8_t>(t.codes));
  DeviceBuffer<DreGroup> params(std::span<const DreGroup>(t.groups));
  DeviceBuffer<float> out(static_cast<size_t>(t.size));
  out.Poison();
  dre_dequantize_kernel<<<unsigned(t.groups.size()), kDreGroupSize>>>(codes.data(), params.data(),
                                                                     t.size, out.data());
  CB_CUDA_CHECK_LAUNCH();
  return out.ToHost();
}

ref::coat::ScaledTensor QuantizeGroup16Cuda(std::span<const float> x, ref::fp8::Format f) {
  ref::coat::ScaledTensor t;
  t.format = f;
  t.group_size = ref::coat::kActGroupSize;
  if (x.empty()) return t;
  const int64_t n = int64_t(x.size());
  const int64_t groups = (n + t.group_size - 1) / t.group_size;
  DeviceBuffer<float> in(x);
  DeviceBuffer<uint8_t> codes(x.size());
  DeviceBuffer<float> scales(static_cast<size_t>(groups));
  codes.Poison();
  scales.Poison();
  const unsigned blocks = static_cast<unsigned>((groups + kThreads - 1) / kThreads);
  group16_kernel<<<blocks, kThreads>>>(in.data(), n, ref::fp8::Info(f).max_finite, Interp(f),
                                       codes.data(), scales.data());
  CB_CUDA_CHECK_LAUNCH();
  t.codes = codes.ToHost();
  t.scales = scales.ToHost();
  return t;
}

DreKernelTiming TimeDreCuda(int64_t n, int repetitions) {
  const int64_t groups = (n + kDreGroupSize - 1) / kDreGroupSize;
  std::vector<float> host(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) host[i] = 1e-3f * float((i * 2654435761u) % 1000 + 1);
  DeviceBuffer<float> in{std::span<const float>(host)};
  DeviceBuffer<uint8_t> codes(static_cast<size_t>(n));
  DeviceBuffer<DreGroup> params(static_cast<size_t>(groups));
  DeviceBuffer<float> out(static_cast<size_t>(n));
  const DreOptions opt;
  DreKernelTiming t;
  t.quantize_samples = harness::cuda_internal::TimeKernel(
      [&](cudaStream_t s) {
        dre_quantize_kernel<<<unsigned(groups), kDreGroupSize, 0, s>>>(in.data(), n, opt,
                                                                      codes.data(), params.data());
      },
      3, repetitions, /*cold=*/true);
  t.dequantize_samples = harness::cuda_internal::TimeKernel(
      [&](cudaStream_t s) {
        dre_dequantize_kernel<<<unsigned(groups), kDreGroupSize, 0, s>>>(codes.data(), params.data(),
                                                                        n, out.data());
      },
      3, repetitions, /*cold=*/true);
  return t;
}

namespace {

struct LtGemm {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~LtGemm() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (op) cublasLtMatmulDescDestroy(op);
    if (handle) cublasLtDestroy(handle);
  }
};

// D (m, n) col-major = A^T B with A stored (k, m) and B (k, n) col-major:
// the "TN" layout cuBLASLt requires for FP8 inputs, used for BF16 too so the
// two differ only in input precision.
void SetUpGemm(LtGemm& g, cudaDataType_t in_type, int64_t m, int64_t n, int64_t k,
               size_t workspace) {
  CB_CUBLAS_CHECK(cublasLtCreate(&g.handle));
  CB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&g.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
  CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
  CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.a, in_type, k, m, k));
  CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.b, in_type, k, n, k));
  CB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g.d, CUDA_R_16BF, m, n, m));
  cublasLtMatmulPreference_t pref = nullptr;
  CB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(g.handle, g.op, g.a, g.b, g.d, g.d, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  CB_CUBLAS_CHECK(st);
  if (found == 0) CB_CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED);
  g.algo = result.algo;
}

std::vector<double> TimeGemm(cudaDataType_t in_type, size_t in_bytes, int64_t m, int64_t n,
                             int64_t k, int repetitions) {
  constexpr size_t kWorkspace = size_t{32} << 20;
  LtGemm g;
  SetUpGemm(g, in_type, m, n, k, kWorkspace);
  DeviceBuffer<uint8_t> a(size_t(k * m) * in_bytes), b(size_t(k * n) * in_bytes);
  DeviceBuffer<__nv_bfloat16> d(size_t(m * n));
  DeviceBuffer<uint8_t> workspace(kWorkspace);
  // 0x38 is 1.0 in E4M3 and a small normal in each bf16 byte pair: finite inputs.
  CB_CUDA_CHECK(cudaMemset(a.data(), 0x38, a.bytes()));
  CB_CUDA_CHECK(cudaMemset(b.data(), 0x38, b.bytes()));
  const float alpha = 1.0f, beta = 0.0f;
  return harness::cuda_internal::TimeKernel(
      [&](cudaStream_t s) {
        CB_CUBLAS_CHECK(cublasLtMatmul(g.handle, g.op, &alpha, a.data(), g.a, b.data(), g.b, &beta,
                                       d.data(), g.d, d.data(), g.d, &g.algo, workspace.data(),
                                       kWorkspace, s));
      },
      3, repetitions, /*cold=*/false, nullptr, 5);
}

}  // namespace

GemmComparison CompareGemmCuda(int64_t m, int64_t n, int64_t k, int repetitions) {
  if (m % 16 || n % 16 || k % 16) throw std::invalid_argument("CompareGemmCuda: FP8 GEMM needs multiples of 16");
  GemmComparison c;
  c.fp8_samples = TimeGemm(CUDA_R_8F_E4M3, 1, m, n, k, repetitions);
  c.bf16_samples = TimeGemm(CUDA_R_16BF, 2, m, n, k, repetitions);
  c.fp8_seconds = harness::Median(c.fp8_samples);
  c.bf16_seconds = harness::Median(c.bf16_samples);
  return c;
}

}  // namespace cb::coat

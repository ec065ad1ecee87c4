// File: harness/cuda/ceilings_gpu.cu
// -----------------------------------------------------------------------------
// GPU ceilings (DESIGN §5; harness/cuda/ceilings_gpu.h): device-to-device copy
// bandwidth and cuBLAS SGEMM / BF16 GEMM rates, timed with CUDA events after
// warm-up (harness/cuda/event_timer.cuh), one sample per repetition (the host
// keeps the best). Each GEMM's output is spot-checked on the host against
// fp64 dot products of the same Philox operands.
//
// Napkin math for an H200 (what the numbers should look like there):
//   copy   4.8 TB/s HBM3e peak; a D2D copy of 1 GiB reads 1 GiB and writes
//          1 GiB, ~0.5 ms; expect ~4.0-4.4 TB/s counting both.
//   sgemm  8192^3: 2*8192^3 = 1.1 TFLOP; FP32 (non-tensor) peak ~67 TFLOP/s,
//          so ~17 ms per call; expect 45-60 TFLOP/s.
//   bf16   same flops on tensor cores, ~990 TFLOP/s dense peak; expect
//          ~700-800 TFLOP/s on random data (~1.4 ms per call).
//
// Run: through MeasureGpuCeilings() (harness/ceilings.h), e.g.
//   CB_REQUIRE_GPU=1 harness/harness_ceilings_test
#include "harness/cuda/ceilings_gpu.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "harness/philox.h"

namespace cb::harness::cuda_internal {
namespace {

// GEMM operand element i: 2 u_i - 1 with u_i = PhiloxUniformAt(seed, 0, i),
// rounded to T; the CPU ceilings' operands (harness/ceilings.cpp). Exact in
// fp64 before the rounding, so host and device give the same bits, which lets
// the host recompute any output entry. Never all zeros (zero operands make
// GEMMs look faster).
template <typename T>
__host__ __device__ T Operand(uint64_t seed, size_t i) {
  return static_cast<T>(static_cast<float>(2.0 * PhiloxUniformAt(seed, 0, i) - 1.0));
}

// Thread mapping: grid-stride loop, one thread per element per pass.
template <typename T>
__global__ void fill_operand_kernel(T* out, size_t n, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = Operand<T>(seed, i);
  }
}

template <typename T>
void FillOperand(DeviceBuffer<T>& buf, uint64_t seed) {
  const int block = 256;
  const size_t blocks_needed = (buf.size() + block - 1) / block;
  const int grid = static_cast<int>(std::min<size_t>(blocks_needed, 8192));
  fill_operand_kernel<<<grid, block>>>(buf.data(), buf.size(), seed);
  CB_CUDA_CHECK_LAUNCH();
}

template <typename T>
double ToDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}

// Throws unless entry (i, j) of the column-major n x n product C = A B, with
// A and B filled by FillOperand(seed_a / seed_b), is the product within the
// worst-case error of fp32 accumulation in any order, gamma_n = n 2^-24 /
// (1 - n 2^-24) of sum_k |a_ik b_kj| (Higham 3.1; x4 for tensor-core
// accumulation), plus one ulp of the output type, 2 `out_unit_roundoff`
// relative (2^-24 for FP32, 2^-8 for BF16), whatever its rounding mode. NaN
// (the poison) fails. Loose on purpose, since it must never reject a right
// answer: at n = 4096 it is ~1.0, while a wrong entry (bad stride, transposed
// operand) is off by ~sqrt(2n)/3 ~ 30, so six entries all passing by chance
// has odds ~1e-9. It does not detect TF32.
template <typename T>
void CheckEntry(const DeviceBuffer<T>& c, int n, int i, int j, uint64_t seed_a, uint64_t seed_b,
                double out_unit_roundoff, const char* name) {
  T got_bits;
  CB_CUDA_CHECK(cudaMemcpy(&got_bits, c.data() + static_cast<size_t>(j) * n + i, sizeof(T),
                           cudaMemcpyDeviceToHost));
  const double got = ToDouble(got_bits);
  double want = 0.0, magnitude = 0.0;
  for (int k = 0; k < n; ++k) {
    const double p = ToDouble(Operand<T>(seed_a, static_cast<size_t>(k) * n + i)) *  // A(i, k)
                     ToDouble(Operand<T>(seed_b, static_cast<size_t>(j) * n + k));   // B(k, j)
    want += p;
    magnitude += std::abs(p);
  }
  const double u = 0x1p-24;
  const double gamma = n * u / (1.0 - n * u);
  const double tolerance = 4.0 * gamma * magnitude + 2.0 * out_unit_roundoff * std::abs(want);
  if (!(std::abs(got - want) <= tolerance)) {
    throw std::runtime_error(std::string(name) + ": C(" + std::to_string(i) + ", " +
                             std::to_string(j) + ") = " + std::to_string(got) + ", expected " +
                             std::to_string(want) + " +- " + std::to_string(tolerance));
  }
}

struct CublasDeleter {
  void operator()(cublasContext* h) const noexcept { cublasDestroy(h); }
};
using CublasHandle = std::unique_ptr<cublasContext, CublasDeleter>;

CublasHandle MakeCublas() {
  cublasHandle_t h = nullptr;
  CB_CUBLAS_CHECK(cublasCreate(&h));
  return CublasHandle(h);
}

// One sample per repetition, in units per second.
GpuCeiling Rates(const char* name, const char* unit, const std::vector<double>& seconds,
                 double units_per_call, int warmup) {
  GpuCeiling c{name, unit, warmup, {}, {}, {}};
  for (double s : seconds) c.samples.push_back(units_per_call / s);
  return c;
}

GpuCeiling CopyBandwidth(bool quick, const std::string& device) {
  const size_t bytes = quick ? (size_t{256} << 20) : (size_t{1} << 30);
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CB_CUDA_CHECK(cudaMemset(src.data(), 0x5A, bytes));
  const int warmup = 3, reps = quick ? 10 : 20;
  const auto seconds = TimeKernel(
      [&](cudaStream_t s) {
        CB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
      },
      warmup, reps, /*cold=*/false);
  // Bytes read + bytes written, the convention of every bandwidth here.
  GpuCeiling c = Rates("gpu_copy_bandwidth", "GB/s", seconds, 2.0 * static_cast<double>(bytes) / 1e9,
                       warmup);
  c.numbers.emplace_back("bytes_per_buffer", static_cast<double>(bytes));
  c.strings.emplace_back("bytes_counted", "read+write");
  c.strings.emplace_back("method", "cudaMemcpyAsync DeviceToDevice, CUDA events");
  c.strings.emplace_back("device", device);
  return c;
}

// C = A * B with n x n column-major operands (leading dimension n); `type` is
// the storage type of A, B and C, accumulation is FP32 either way.
// `out_unit_roundoff` is the unit roundoff of T, for the spot check.
template <typename T>
GpuCeiling Gemm(bool quick, const std::string& device, cudaDataType_t type,
                double out_unit_roundoff, const char* name, const char* math) {
  const int n = quick ? 4096 : 8192;
  const size_t elems = static_cast<size_t>(n) * n;
  constexpr uint64_t kSeedA = 1, kSeedB = 2;
  DeviceBuffer<T> a(elems), b(elems), c_out(elems);  // each (n, n), column-major
  FillOperand(a, kSeedA);
  FillOperand(b, kSeedB);
  c_out.Poison();
  CublasHandle handle = MakeCublas();
  // Explicitly the default math mode: FP32 GEMMs must not silently use TF32.
  CB_CUBLAS_CHECK(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH));
  // Set once, outside the timed calls: cublasSetStream also resets the
  // handle's workspace.
  const cudaStream_t stream = nullptr;
  CB_CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  const float alpha = 1.0f, beta = 0.0f;
  const int warmup = 3, reps = quick ? 5 : 10;
  const auto seconds = TimeKernel(
      [&](cudaStream_t) {
        CB_CUBLAS_CHECK(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                                     a.data(), type, n, b.data(), type, n, &beta, c_out.data(),
                                     type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      },
      warmup, reps, /*cold=*/false, stream);
  // beta = 0, so C holds one product; check the four corners and two inner
  // entries (a transposed or mis-strided operand changes all of them).
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  const int last = n - 1;
  const int entries[][2] = {{0, 0}, {0, last}, {last, 0}, {last, last}, {n / 2, n / 3}, {n / 3, n / 2}};
  for (const auto& e : entries) {
    CheckEntry(c_out, n, e[0], e[1], kSeedA, kSeedB, out_unit_roundoff, name);
  }
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  GpuCeiling c = Rates(name, "TFLOP/s", seconds, flops / 1e12, warmup);
  c.numbers.emplace_back("n", n);
  c.numbers.emplace_back("flops_per_call", flops);
  c.strings.emplace_back("method", math);
  c.strings.emplace_back("device", device);
  return c;
}

}  // namespace

std::vector<GpuCeiling> MeasureGpuCeilingsCuda(bool quick) {
  CB_CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::string device = prop.name;
  std::vector<GpuCeiling> out;
  out.push_back(CopyBandwidth(quick, device));
  out.push_back(Gemm<float>(quick, device, CUDA_R_32F, 0x1p-24, "gpu_sgemm",
                            "cublasGemmEx FP32 in/out, CUBLAS_COMPUTE_32F, default math (no TF32)"));
  out.push_back(Gemm<__nv_bfloat16>(quick, device, CUDA_R_16BF, 0x1p-8, "gpu_bf16_gemm",
                                    "cublasGemmEx BF16 in/out, CUBLAS_COMPUTE_32F"));
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

}  // namespace cb::harness::cuda_internal

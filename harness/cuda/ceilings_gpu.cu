// File: harness/cuda/ceilings_gpu.cu
// -----------------------------------------------------------------------------
// GPU ceilings (DESIGN §5; harness/cuda/ceilings_gpu.h): device-to-device copy
// bandwidth and cuBLAS SGEMM / BF16 GEMM rates, timed with CUDA events after
// warm-up (harness/cuda/event_timer.cuh), best of several repetitions.
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
#include <cstdint>
#include <memory>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"

namespace cb::harness::cuda_internal {
namespace {

// Thread mapping: grid-stride loop, one thread per element per pass.
// out[i] = uniform in [-1, 1) from a splitmix64 hash of (seed, i): cheap,
// deterministic, and never all zeros (zero operands make GEMMs look faster).
template <typename T>
__global__ void fill_uniform_kernel(T* out, size_t n, uint64_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    out[i] = static_cast<T>(u);
  }
}

template <typename T>
void FillUniform(DeviceBuffer<T>& buf, uint64_t seed) {
  const int block = 256;
  const size_t blocks_needed = (buf.size() + block - 1) / block;
  const int grid = static_cast<int>(std::min<size_t>(blocks_needed, 8192));
  fill_uniform_kernel<<<grid, block>>>(buf.data(), buf.size(), seed);
  CB_CUDA_CHECK_LAUNCH();
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

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Converts per-call seconds into `per_second_units / seconds` samples and
// fills value (best), samples and the median.
void Summarise(GpuCeiling& c, const std::vector<double>& seconds, double units_per_call,
               int warmup) {
  for (double s : seconds) c.samples.push_back(units_per_call / s);
  c.value = *std::max_element(c.samples.begin(), c.samples.end());
  c.numbers.emplace_back("median", Median(c.samples));
  c.numbers.emplace_back("repetitions", static_cast<double>(seconds.size()));
  c.numbers.emplace_back("warmup", warmup);
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
  GpuCeiling c{"gpu_copy_bandwidth", 0, "GB/s"};
  // Bytes read + bytes written, the convention of every bandwidth here.
  Summarise(c, seconds, 2.0 * static_cast<double>(bytes) / 1e9, warmup);
  c.numbers.emplace_back("bytes_per_buffer", static_cast<double>(bytes));
  c.strings.emplace_back("bytes_counted", "read+write");
  c.strings.emplace_back("method", "cudaMemcpyAsync DeviceToDevice, CUDA events");
  c.strings.emplace_back("device", device);
  return c;
}

// C = A * B with n x n column-major operands; `type` is the storage type of
// A, B and C, accumulation is FP32 either way.
template <typename T>
GpuCeiling Gemm(bool quick, const std::string& device, cudaDataType_t type, const char* name,
                const char* math) {
  const int n = quick ? 4096 : 8192;
  const size_t elems = static_cast<size_t>(n) * n;
  DeviceBuffer<T> a(elems), b(elems), c_out(elems);
  FillUniform(a, 1);
  FillUniform(b, 2);
  c_out.Poison();
  CublasHandle handle = MakeCublas();
  // Explicitly the default math mode: FP32 GEMMs must not silently use TF32.
  CB_CUBLAS_CHECK(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH));
  const float alpha = 1.0f, beta = 0.0f;
  const int warmup = 3, reps = quick ? 5 : 10;
  const auto seconds = TimeKernel(
      [&](cudaStream_t s) {
        CB_CUBLAS_CHECK(cublasSetStream(handle.get(), s));
        CB_CUBLAS_CHECK(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                                     a.data(), type, n, b.data(), type, n, &beta, c_out.data(),
                                     type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      },
      warmup, reps, /*cold=*/false);
  GpuCeiling c{name, 0, "TFLOP/s"};
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  Summarise(c, seconds, flops / 1e12, warmup);
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
  out.push_back(Gemm<float>(quick, device, CUDA_R_32F, "gpu_sgemm",
                            "cublasGemmEx FP32 in/out, CUBLAS_COMPUTE_32F, default math (no TF32)"));
  out.push_back(Gemm<__nv_bfloat16>(quick, device, CUDA_R_16BF, "gpu_bf16_gemm",
                                    "cublasGemmEx BF16 in/out, CUBLAS_COMPUTE_32F"));
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

}  // namespace cb::harness::cuda_internal

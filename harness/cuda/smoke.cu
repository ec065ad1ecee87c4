// File: harness/cuda/smoke.cu
// -----------------------------------------------------------------------------
// The CUDA smoke checks of harness/cuda/smoke.h: saxpy (BLAS level 1,
// out = a*x + y) as the smallest kernel with inputs, an output and arithmetic.
//
// Run: harness/harness_cuda_smoke_test (skips without a device; with
// CB_REQUIRE_GPU=1 a missing device fails).
#include "harness/cuda/smoke.h"

#include <cuda_runtime.h>

#include <stdexcept>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "harness/cuda/l2_flush.cuh"

namespace cb::harness::cuda_internal {
namespace {

constexpr int kBlock = 256;

// Thread mapping: one thread per element i, 1-D grid of ceil(n / blockDim)
// blocks; threads past n return.
__global__ void saxpy_kernel(float a, const float* __restrict__ x, const float* __restrict__ y,
                             float* __restrict__ out, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

unsigned GridFor(size_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace

std::vector<float> SmokeSaxpy(float a, std::span<const float> x, std::span<const float> y) {
  if (x.size() != y.size()) throw std::invalid_argument("SmokeSaxpy: x and y differ in size");
  const size_t n = x.size();
  if (n == 0) return {};
  DeviceBuffer<float> dx(x), dy(y), dout(n);
  dout.Poison();
  saxpy_kernel<<<GridFor(n, kBlock), kBlock>>>(a, dx.data(), dy.data(), dout.data(), n);
  CB_CUDA_CHECK_LAUNCH();
  return dout.ToHost();  // cudaMemcpy waits for the kernel
}

void SmokeBadLaunch() {
  DeviceBuffer<float> buf(16);
  saxpy_kernel<<<1, 2048>>>(1.0f, buf.data(), buf.data(), buf.data(), buf.size());
  CB_CUDA_CHECK_LAUNCH();
}

void SmokeMalloc(std::size_t bytes) {
  void* p = nullptr;
  CB_CUDA_CHECK(cudaMalloc(&p, bytes));
  CB_CUDA_CHECK(cudaFree(p));
}

std::vector<float> SmokePoisonedReadback(std::size_t n) {
  DeviceBuffer<float> buf(n);
  buf.Zero();
  buf.Poison();
  return buf.ToHost();
}

std::vector<double> SmokeTimeSaxpy(std::size_t n, int warmup, int repetitions, bool cold) {
  DeviceBuffer<float> x(n), y(n), out(n);
  x.Zero();
  y.Zero();
  return TimeKernel(
      [&](cudaStream_t stream) {
        saxpy_kernel<<<GridFor(n, kBlock), kBlock, 0, stream>>>(2.0f, x.data(), y.data(),
                                                                  out.data(), n);
        CB_CUDA_CHECK_LAUNCH();
      },
      warmup, repetitions, cold);
}

L2FlushSize SmokeL2FlushSize() {
  const L2Flush flush;
  return L2FlushSize{flush.l2_bytes(), flush.bytes()};
}

}  // namespace cb::harness::cuda_internal

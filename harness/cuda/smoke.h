// File: harness/cuda/smoke.h
// -----------------------------------------------------------------------------
// Host-callable CUDA smoke checks (harness/cuda/smoke.cu, CUDA builds only):
// a tiny saxpy and deliberate failures that prove the toolchain path end to
// end — nvcc-built kernel, static runtime, DeviceBuffer, poison, the
// CB_CUDA_CHECK family, the event timer and the L2 flush. Used by harness/cuda_smoke_test.cpp.
#ifndef CB_HARNESS_CUDA_SMOKE_H_
#define CB_HARNESS_CUDA_SMOKE_H_

#include <cstddef>
#include <span>
#include <vector>

namespace cb::harness::cuda_internal {

// out[i] = a * x[i] + y[i] on the GPU; the output buffer is poisoned before
// the launch. REQUIRES: x.size() == y.size(). Throws CudaError.
std::vector<float> SmokeSaxpy(float a, std::span<const float> x, std::span<const float> y);

// Launches the saxpy kernel with 2048 threads per block (over every GPU's
// 1024 limit), so CB_CUDA_CHECK_LAUNCH() must throw CudaError
// (cudaErrorInvalidConfiguration).
void SmokeBadLaunch();

// CB_CUDA_CHECK(cudaMalloc(&p, bytes)), then frees it. Throws CudaError when
// there is no device, or when `bytes` is more than the device has.
void SmokeMalloc(std::size_t bytes);

// A DeviceBuffer<float> of n elements, poisoned and read back.
std::vector<float> SmokePoisonedReadback(std::size_t n);

// TimeKernel over a saxpy of n elements: per-repetition seconds.
std::vector<double> SmokeTimeSaxpy(std::size_t n, int warmup, int repetitions, bool cold);

// What an L2Flush on the current device sized itself to.
struct L2FlushSize {
  int l2_bytes = 0;             // cudaDevAttrL2CacheSize
  std::size_t scratch_bytes = 0;  // the buffer each Flush() writes
};
L2FlushSize SmokeL2FlushSize();

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_SMOKE_H_

// File: harness/cuda/probe.cu
// Whether the CUDA runtime finds a usable device. The runtime is linked
// statically; with no driver installed it reports cudaErrorInsufficientDriver.
#include "harness/cuda/probe.h"

#include <cuda_runtime.h>

namespace cb::harness::cuda_internal {

std::string ProbeCuda() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    cudaGetLastError();
    return "no device: cudaErrorNoDevice";
  }
  if (err == cudaErrorInsufficientDriver) {
    cudaGetLastError();
    return "insufficient driver: cudaErrorInsufficientDriver";
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cuda unavailable: ") + cudaGetErrorName(err);
  }
  return "";
}

}  // namespace cb::harness::cuda_internal

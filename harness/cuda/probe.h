// File: harness/cuda/probe.h
// Host-callable CUDA probe (implemented in harness/cuda/probe.cu, CUDA builds only).
#ifndef CB_HARNESS_CUDA_PROBE_H_
#define CB_HARNESS_CUDA_PROBE_H_

#include <string>

namespace cb::harness::cuda_internal {

// Empty when a CUDA device can be used; otherwise why not, e.g.
// "no device: cudaErrorNoDevice" or "insufficient driver: cudaErrorInsufficientDriver".
std::string ProbeCuda();

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_PROBE_H_

// File: harness/cuda/l2_flush.cuh
// -----------------------------------------------------------------------------
// L2Flush: evicts the current device's L2 cache before a cold-mode timing
// (DESIGN §5), the way nvbench's l2flush and llm.c's benchmark_kernel do it:
// a cudaMemsetAsync over a scratch buffer twice the L2 size, so that after it
// the L2 holds (almost) only scratch lines and the kernel under test reads
// its inputs from HBM.
#ifndef CB_HARNESS_CUDA_L2_FLUSH_CUH_
#define CB_HARNESS_CUDA_L2_FLUSH_CUH_

#include <cuda_runtime.h>

#include <cstddef>

#include "harness/cuda/device_buffer.cuh"

namespace cb::harness::cuda_internal {

class L2Flush {
 public:
  // Sizes the scratch buffer from cudaDevAttrL2CacheSize of the current
  // device. Throws CudaError.
  L2Flush();

  // Enqueues the flush on `stream`; it is ordered before whatever is
  // enqueued after it on the same stream.
  void Flush(cudaStream_t stream);

  std::size_t bytes() const { return scratch_.bytes(); }
  int l2_bytes() const { return l2_bytes_; }

 private:
  int l2_bytes_ = 0;
  DeviceBuffer<unsigned char> scratch_;
  // Alternates the fill byte so that consecutive flushes write new values,
  // which no cache or compression can skip.
  unsigned char fill_ = 0;
};

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_L2_FLUSH_CUH_

// File: harness/cuda/l2_flush.cu
// -----------------------------------------------------------------------------
// L2Flush (harness/cuda/l2_flush.cuh): a memset over 2x the L2 size.
#include "harness/cuda/l2_flush.cuh"

namespace cb::harness::cuda_internal {

L2Flush::L2Flush() {
  int device = 0;
  CB_CUDA_CHECK(cudaGetDevice(&device));
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes_, cudaDevAttrL2CacheSize, device));
  // Twice the L2 so that LRU-ish replacement and set hashing still leave no
  // useful line behind; a device reporting no L2 still gets a small buffer.
  const std::size_t bytes = l2_bytes_ > 0 ? 2 * static_cast<std::size_t>(l2_bytes_) : (1u << 20);
  scratch_ = DeviceBuffer<unsigned char>(bytes);
}

void L2Flush::Flush(cudaStream_t stream) {
  fill_ ^= 0x5A;
  CB_CUDA_CHECK(cudaMemsetAsync(scratch_.data(), fill_, scratch_.bytes(), stream));
}

}  // namespace cb::harness::cuda_internal

// File: suites/harness/philox_stream.cu
// -----------------------------------------------------------------------------
// CUDA path of philox_stream.h: out[i] = PhiloxU64At(seed, stream, i), the
// same counter-based function the CPU's Rng walks, so the two must agree bit
// for bit. Run: suites/harness/harness_test (PhiloxStreamTest/cuda) and
// `claimbench run --claim harness.H6`.
#include <cuda_runtime.h>

#include <algorithm>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/philox.h"
#include "suites/harness/philox_stream.h"

namespace cb::harness_suite {
namespace {

constexpr int kBlock = 256;

// Thread mapping: one thread per output index i (1-D grid-stride loop, so
// any n fits any grid); each thread runs one Philox4x32-10 block and keeps
// the half its index selects.
__global__ void philox_stream_kernel(uint64_t seed, uint64_t stream, uint64_t* __restrict__ out,
                                     int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = cb::harness::PhiloxU64At(seed, stream, static_cast<uint64_t>(i));
  }
}

}  // namespace

std::vector<uint64_t> PhiloxStreamCuda(uint64_t seed, uint64_t stream, int64_t n) {
  if (n == 0) return {};
  cb::harness::DeviceBuffer<uint64_t> out(static_cast<size_t>(n));
  out.Poison();  // a missed index shows up as 0xFF..FF, not a stale value
  const int64_t blocks = std::min<int64_t>((n + kBlock - 1) / kBlock, 65535);
  philox_stream_kernel<<<static_cast<unsigned>(blocks), kBlock>>>(seed, stream, out.data(), n);
  CB_CUDA_CHECK_LAUNCH();
  return out.ToHost();
}

}  // namespace cb::harness_suite

// File: suites/harness/philox_stream.h
// -----------------------------------------------------------------------------
// The same Philox stream drawn on each backend: out[i] is the i-th NextU64()
// of Rng(seed, stream) (harness/philox.h, PhiloxU64At). The CPU path walks an
// Rng; the CUDA path (philox_stream.cu) computes every index independently on
// the device. Claim harness.H6 and its test check that they agree bit for bit,
// which every sampling method that cross-checks CPU and GPU relies on.
// Also the smallest example of a method's host dispatch header (DESIGN §1):
// host-only, never includes cuda_runtime.h.
#ifndef CB_SUITES_HARNESS_PHILOX_STREAM_H_
#define CB_SUITES_HARNESS_PHILOX_STREAM_H_

#include <cstdint>
#include <vector>

#include "harness/backend.h"

namespace cb::harness_suite {

// n 64-bit draws of stream `stream` under `seed`, computed on `backend`.
// Throws std::runtime_error when the backend is unavailable (with its reason)
// and cb::harness::CudaError on a CUDA failure.
std::vector<uint64_t> PhiloxStream(cb::harness::Backend backend, uint64_t seed, uint64_t stream,
                                   int64_t n);

#if CB_HAVE_CUDA
// The CUDA path (philox_stream.cu); call through PhiloxStream().
std::vector<uint64_t> PhiloxStreamCuda(uint64_t seed, uint64_t stream, int64_t n);
#endif

}  // namespace cb::harness_suite

#endif  // CB_SUITES_HARNESS_PHILOX_STREAM_H_

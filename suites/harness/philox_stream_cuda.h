// File: suites/harness/philox_stream_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the Philox stream path, private to the suite: called by the
// dispatchers in philox_stream.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/harness/philox_stream.h. CUDA builds only.
#ifndef CB_SUITES_HARNESS_PHILOX_STREAM_CUDA_H_
#define CB_SUITES_HARNESS_PHILOX_STREAM_CUDA_H_

#include "suites/harness/philox_stream.h"

#if CB_HAVE_CUDA

namespace cb::harness_suite {

// The CUDA path (philox_stream.cu); call through PhiloxStream().
std::vector<uint64_t> PhiloxStreamCuda(uint64_t seed, uint64_t stream, int64_t n);

}  // namespace cb::harness_suite

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_HARNESS_PHILOX_STREAM_CUDA_H_

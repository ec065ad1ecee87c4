// File: harness/philox_rate.h
// -----------------------------------------------------------------------------
// How many Philox4x32-10 blocks this CPU makes per second: the bound of every
// kernel that draws one keyed block per element (PF sampling: one block per
// two tokens), recorded as the cpu_philox4x32_10[_1t] ceilings
// (harness/ceilings.h) so such a kernel's rate is a fraction of it.
//
// The kernel is the one the PF samplers run (harness/philox_avx512.h: eight
// blocks per vector, eight independent chains) where the CPU has AVX-512,
// else the scalar harness/philox.h; both xor-fold every output word so none
// can be optimised away, and the first 64 blocks of each thread are checked
// bit for bit against harness/philox.h.
#ifndef CB_HARNESS_PHILOX_RATE_H_
#define CB_HARNESS_PHILOX_RATE_H_

#include <cstdint>
#include <string>

namespace cb::harness {

// Which kernel PhiloxBlocksPerSecond runs here: "avx512, 8 chains of 8 blocks"
// or "scalar (harness/philox.h)".
std::string PhiloxRateKernel();

// One timed pass: `threads` threads (the caller's and threads - 1 started for
// it, harness/parallel.h) each make `blocks_per_thread` consecutive blocks of
// their own stream; returns blocks per second of wall time for all threads
// together. Throws std::runtime_error when a checked block differs from
// harness/philox.h. blocks_per_thread is rounded up to a multiple of 64.
double PhiloxBlocksPerSecond(int threads, int64_t blocks_per_thread);

}  // namespace cb::harness

#endif  // CB_HARNESS_PHILOX_RATE_H_

// File: harness/parallel.h
// -----------------------------------------------------------------------------
// ParallelFor: the one fork-join fan-out of the CPU kernels.
//
//   cb::harness::ParallelFor(rows, threads, [&](int part, int64_t begin, int64_t end) {
//     for (int64_t r = begin; r < end; ++r) ...;   // part indexes per-thread scratch
//   });
//
// Chunking: [0, n) is cut into P = clamp(threads, 1, max(n, 1)) contiguous
// parts, part k = [n*k/P, n*(k+1)/P) (sizes differ by at most one; with
// n = 0 the single part is empty). fn(k, begin, end) runs once per part:
// part 0 on the calling thread, every other part on a std::thread of its own,
// started for this call and joined before ParallelFor returns (so P = 1 costs
// nothing, and no thread outlives the call; starting one costs ~15 us, too
// much for work of a few tens of microseconds: see suites/pf/pair_runner.h).
//
// Exceptions: every part runs to its end; then the exception of the lowest
// part that threw is rethrown on the calling thread.
//
// Thread safety: fn runs concurrently with itself; parts must write disjoint
// data (index scratch by `part`).
#ifndef CB_HARNESS_PARALLEL_H_
#define CB_HARNESS_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace cb::harness {

using ParallelBody = std::function<void(int part, int64_t begin, int64_t end)>;

void ParallelFor(int64_t n, int threads, const ParallelBody& fn);

// The number of parts ParallelFor(n, threads, ...) runs.
int ParallelParts(int64_t n, int threads);

// std::thread::hardware_concurrency(), at least 1, asked once per process
// (it reads sysfs on every call).
int HardwareThreads();

}  // namespace cb::harness

#endif  // CB_HARNESS_PARALLEL_H_

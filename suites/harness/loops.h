// File: suites/harness/loops.h
// -----------------------------------------------------------------------------
// Two loops of known complexity, with deterministic operation counters, for
// the harness self-check (harness_claims.cpp) and its benchmarks:
//   LinearLoop     one pass: running maximum of prefix sums      n operations
//   QuadraticLoop  all pairs: count inversions by brute force    n(n-1)/2 operations
#ifndef CB_SUITES_HARNESS_LOOPS_H_
#define CB_SUITES_HARNESS_LOOPS_H_

#include <cstdint>
#include <vector>

#include "harness/random.h"

namespace cb::harness_suite {

struct LoopResult {
  double value = 0;        // the loop's answer (kept so the work is not optimised away)
  int64_t operations = 0;  // inner-loop iterations executed
};

// n uniform doubles in (0, 1).
std::vector<double> RandomData(cb::harness::Rng& rng, int64_t n);

LoopResult LinearLoop(const std::vector<double>& x);
LoopResult QuadraticLoop(const std::vector<double>& x);

// Consumes a result so the compiler must compute it.
void Sink(const LoopResult& r);

}  // namespace cb::harness_suite

#endif  // CB_SUITES_HARNESS_LOOPS_H_

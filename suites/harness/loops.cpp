// File: suites/harness/loops.cpp
#include "suites/harness/loops.h"

#include <algorithm>

#include "harness/timer.h"

namespace cb::harness_suite {

std::vector<double> RandomData(cb::harness::Rng& rng, int64_t n) {
  std::vector<double> x(n);
  for (auto& v : x) v = rng.Uniform();
  return x;
}

LoopResult LinearLoop(const std::vector<double>& x) {
  LoopResult r;
  double prefix = 0, best = 0;
  for (const double v : x) {
    prefix += v - 0.5;
    best = std::max(best, prefix);
    ++r.operations;
  }
  r.value = best;
  return r;
}

LoopResult QuadraticLoop(const std::vector<double>& x) {
  LoopResult r;
  int64_t inversions = 0;
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      inversions += x[i] > x[j];
      ++r.operations;
    }
  }
  r.value = static_cast<double>(inversions);
  return r;
}

void Sink(const LoopResult& r) { cb::harness::DoNotOptimize(r.value); }

}  // namespace cb::harness_suite


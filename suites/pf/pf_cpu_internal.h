// File: suites/pf/pf_cpu_internal.h
// -----------------------------------------------------------------------------
// Pieces shared by the scalar (pf_cpu.cpp) and AVX-512 (pf_cpu_avx512.cpp)
// CPU paths of suites/pf/pf.h: the exact value of one token and the running
// best. The value is the reference's expression (reference/pf/pf.cpp
// NoisyArgmax), so every path picks the reference's token.
#ifndef CB_SUITES_PF_PF_CPU_INTERNAL_H_
#define CB_SUITES_PF_PF_CPU_INTERNAL_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "harness/philox.h"
#include "suites/pf/pf.h"

namespace cb::pf::internal {

// ln 2, and 53 ln 2 = the largest noise any r in (0, 1) can give:
// r >= 2^-53 and 1 - r >= 2^-53 (harness/philox.h UniformFromBits), and
// -log(-log r) <= -log(1 - r).
inline constexpr double kLn2 = 0.69314718055994530942;

struct Best {
  int64_t index = -1;
  double value = -std::numeric_limits<double>::infinity();
};

// The better of (value, index) pairs: higher value, then lower id. Order
// independent, so ranges may be scanned in any order and merged.
inline bool Better(double value, int64_t index, const Best& best) {
  return best.index < 0 || value > best.value || (value == best.value && index < best.index);
}

inline void Merge(Best& best, const Best& other) {
  if (other.index >= 0 && Better(other.value, other.index, best)) best = other;
}

// The reference's value of token i: logit / T + noise(r).
inline double ExactValue(float logit, double temperature, Noise noise, uint64_t word) {
  const double a = static_cast<double>(logit) / temperature;
  const double r = cb::harness::UniformFromBits(word);
  return noise == Noise::kExponential ? a + -std::log(r) : a + -std::log(-std::log(r));
}

// Best token among [begin, end) of one row (begin even), scalar.
Best ScanRangeScalar(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream);

// The same with AVX-512 (REQUIRES CpuHasAvx512(), noise != kNone): Philox on
// eight blocks per vector, a per-token upper bound on the value that skips
// the log, and whole 128-token steps skipped before Philox when no logit can
// reach the best (pf_cpu_avx512.cpp). Falls back to ScanRangeScalar for the
// rest of a range once |best| >= 2^28, where the bounds' rounding margin
// would not hold. Checks the input in the same pass: *bad = some logit of
// [begin, end) is NaN or +inf (then the returned token means nothing); with
// *bad false, the range holds a finite logit iff the returned index is >= 0.
Best ScanRangeAvx512(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream, bool* bad);

// The vector scan's upper bounds on the values of sixteen tokens (REQUIRES
// CpuHasAvx512(), noise != kNone): bounds[i] > ExactValue(logits[i],
// temperature, noise, words[i]) whenever |logits[i] / temperature| < 2^29.
// Exposed for the test that checks it on adversarial words.
void TokenBoundsAvx512(const float* logits, const uint64_t* words, double temperature, Noise noise,
                       double* bounds);

// The vector scan's step test on sixteen tokens, one per position (REQUIRES
// CpuHasAvx512(), noise != kNone, |best| < 2^28, T in [2^-64, 2^64]): false
// only if every token's ExactValue is below `best`. Exposed for its test.
bool StepMayReachAvx512(const float* logits, const uint64_t* words, double temperature, Noise noise,
                        double best);

// One pass over a row for CheckSampleInput: *bad = some logit is NaN or
// +inf, *any_finite = some logit is finite. AVX-512 when `vector`.
void ScanLogits(const float* row, int64_t n, bool vector, bool* bad, bool* any_finite);

// Greedy: the first maximum of a row (REQUIRES a finite logit). AVX-512
// when `vector`.
int64_t ArgmaxRow(const float* row, int64_t n, bool vector);

}  // namespace cb::pf::internal

#endif  // CB_SUITES_PF_PF_CPU_INTERNAL_H_

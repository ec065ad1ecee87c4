// File: reference/common/numeric.h
// -----------------------------------------------------------------------------
// Shared fp64 numerics for the CPU references: compensated summation and
// log-sum-exp. Plain loops; the spec, not a fast path.
#ifndef CB_REFERENCE_COMMON_NUMERIC_H_
#define CB_REFERENCE_COMMON_NUMERIC_H_

#include <span>

namespace cb::ref {

// Kahan-Babuska (Neumaier) sum: error O(eps) independent of length.
double NeumaierSum(std::span<const double> x);

// log(sum_i exp(x_i)), stable for any magnitude; -inf for an empty span.
double LogSumExp(std::span<const double> x);

}  // namespace cb::ref

#endif  // CB_REFERENCE_COMMON_NUMERIC_H_

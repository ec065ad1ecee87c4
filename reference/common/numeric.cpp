// File: reference/common/numeric.cpp
#include "reference/common/numeric.h"

#include <cmath>
#include <limits>

namespace cb::ref {

double NeumaierSum(std::span<const double> x) {
  double sum = 0, compensation = 0;
  for (const double v : x) {
    const double t = sum + v;
    // Whichever operand is larger keeps its low-order bits; recover the other's.
    compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

double LogSumExp(std::span<const double> x) {
  double max = -std::numeric_limits<double>::infinity();
  for (const double v : x) max = std::fmax(max, v);
  if (!std::isfinite(max)) return max;
  double sum = 0;
  for (const double v : x) sum += std::exp(v - max);
  return max + std::log(sum);
}

}  // namespace cb::ref

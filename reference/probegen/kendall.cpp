// File: reference/probegen/kendall.cpp
// -----------------------------------------------------------------------------
// Kendall's tau-b (scipy.stats.kendalltau's default variant, which ProbeGen's
// main.py@4872aa7 reports) by the O(n^2) pair loop; see kendall.h.
#include "reference/probegen/kendall.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace cb::ref::probegen {

double KendallTauB(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("KendallTauB: x and y differ in length (" +
                                std::to_string(x.size()) + " vs " + std::to_string(y.size()) + ")");
  }
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const int64_t n = int64_t(x.size());
  if (n < 2) return kNaN;
  // A NaN compares false with everything and would be counted as discordant;
  // scipy's default nan_policy ('propagate') returns nan instead.
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) return kNaN;
  }
  int64_t concordant = 0, discordant = 0, tied_x = 0, tied_y = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      // Comparisons, not the sign of x[j] - x[i]: that difference is NaN for
      // two equal infinities, which are a tie.
      const bool tx = x[j] == x[i], ty = y[j] == y[i];
      if (tx) ++tied_x;
      if (ty) ++tied_y;
      if (tx || ty) continue;
      if ((x[j] > x[i]) == (y[j] > y[i])) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  const int64_t pairs = n * (n - 1) / 2;
  // tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2)); a constant x or y leaves
  // no untied pair on that side and the ratio 0/0, which scipy reports as nan.
  const double denom = std::sqrt(double(pairs - tied_x) * double(pairs - tied_y));
  if (denom == 0.0) return kNaN;
  return double(concordant - discordant) / denom;
}

}  // namespace cb::ref::probegen

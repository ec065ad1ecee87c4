// File: harness/chi_square.cpp
// Pearson's chi-square goodness of fit (harness/chi_square.h).
#include "harness/chi_square.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "harness/stats.h"

namespace cb::harness {

ChiSquare ChiSquareGoodnessOfFit(std::span<const int64_t> observed,
                                 std::span<const double> expected_p, double min_expected) {
  if (observed.size() != expected_p.size() || observed.empty()) {
    throw std::invalid_argument("ChiSquareGoodnessOfFit: observed and expected differ in length or are empty");
  }
  int64_t total = 0;
  for (int64_t o : observed) total += o;
  if (total <= 0) throw std::invalid_argument("ChiSquareGoodnessOfFit: no observations");
  double pooled_e = 0, stat = 0;
  int64_t pooled_o = 0;
  int cells = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double e = expected_p[i] * double(total);
    if (e <= 0) {
      if (observed[i] > 0) return {std::numeric_limits<double>::infinity(), 1, 0.0};
      continue;
    }
    if (e < min_expected) {
      pooled_e += e;
      pooled_o += observed[i];
      continue;
    }
    stat += (observed[i] - e) * (observed[i] - e) / e;
    ++cells;
  }
  if (pooled_e > 0 && pooled_e >= min_expected) {
    stat += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
    ++cells;
  }
  ChiSquare r;
  r.statistic = stat;
  r.df = std::max(1, cells - 1);
  r.p_value = ChiSquareSurvival(stat, r.df);
  return r;
}

}  // namespace cb::harness

// File: harness/chi_square.h
// -----------------------------------------------------------------------------
// Pearson's chi-square goodness of fit of observed counts against exact cell
// probabilities: the one test by which suites check that a sampler draws
// from a known distribution (pf.P1/P4, mtad.M5). The tail probability is
// ChiSquareSurvival() (harness/stats.h).
#ifndef CB_HARNESS_CHI_SQUARE_H_
#define CB_HARNESS_CHI_SQUARE_H_

#include <cstdint>
#include <span>

namespace cb::harness {

struct ChiSquare {
  double statistic = 0;
  int df = 0;
  double p_value = 1;
};

// ChiSquareGoodnessOfFit()
//
// Pearson's statistic of `observed` against n * `expected_p` (n = total
// count). Cells whose expected count is below `min_expected` are pooled into
// one cell, which is dropped if it is still below it (min_expected = 0 pools
// nothing); an observation in a zero-probability cell makes the statistic
// infinite (p = 0). df = max(1, cells - 1).
// REQUIRES: observed and expected_p non-empty and of one length; a positive
// total count (std::invalid_argument otherwise).
ChiSquare ChiSquareGoodnessOfFit(std::span<const int64_t> observed,
                                 std::span<const double> expected_p, double min_expected = 5);

}  // namespace cb::harness

#endif  // CB_HARNESS_CHI_SQUARE_H_

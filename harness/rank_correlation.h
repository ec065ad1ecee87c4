// File: harness/rank_correlation.h
// -----------------------------------------------------------------------------
// Spearman's rank correlation, for claims of the form "y falls as x grows"
// (e.g. DOCS against noise level, recall against feature count).
#ifndef CB_HARNESS_RANK_CORRELATION_H_
#define CB_HARNESS_RANK_CORRELATION_H_

#include <span>
#include <vector>

namespace cb::harness {

// Ranks()
//
// 1-based ranks of x, ties given the average of the ranks they span
// ("fractional ranking"): Ranks({10, 20, 20, 5}) = {2, 3.5, 3.5, 1}.
// REQUIRES: x free of NaN.
std::vector<double> Ranks(std::span<const double> x);

// SpearmanRho()
//
// Pearson's correlation of Ranks(x) and Ranks(y), in [-1, 1]; with ties this
// is the tie-corrected rho. Returns 0 when either input is constant (its
// ranks have no variance, so no monotone relation can be seen).
// REQUIRES: x.size() == y.size() >= 2, no NaN (throws std::invalid_argument).
double SpearmanRho(std::span<const double> x, std::span<const double> y);

}  // namespace cb::harness

#endif  // CB_HARNESS_RANK_CORRELATION_H_

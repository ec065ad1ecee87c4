// File: reference/probegen/kendall.h
// -----------------------------------------------------------------------------
// Kendall's tau-b, the metric of ProbeGen's accuracy prediction (the authors
// call scipy.stats.kendalltau, whose default variant is tau-b):
//
//   tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2)),  n0 = n (n - 1) / 2,
//   C, D: concordant / discordant pairs; n1, n2: pairs tied in x / in y.
// A pair tied in both counts in n1 and n2 and in neither C nor D.
// O(n^2) pair loop: the plain definition, the spec.
#ifndef CB_REFERENCE_PROBEGEN_KENDALL_H_
#define CB_REFERENCE_PROBEGEN_KENDALL_H_

#include <span>

namespace cb::ref::probegen {

// NaN when n < 2, when x or y is constant, or when either holds a NaN (scipy
// returns nan in all three; nan_policy 'propagate' is its default).
// REQUIRES: x.size() == y.size() (else std::invalid_argument).
double KendallTauB(std::span<const double> x, std::span<const double> y);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_KENDALL_H_

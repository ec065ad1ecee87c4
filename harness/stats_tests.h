// File: harness/stats_tests.h
// -----------------------------------------------------------------------------
// Two-sample tests used by the regression gate (issue 4; harness-anchors §3.2):
//   - the two-sided Mann-Whitney U test (exact null distribution for small
//     samples without ties, normal approximation with tie and continuity
//     correction otherwise), as Google Benchmark's compare.py and asv use;
//   - Benjamini-Hochberg adjusted p-values (q-values) for false-discovery-rate
//     control across the rows of one run (anchors §3.7.6);
//   - a seeded bootstrap CI of the relative change of medians, the magnitude
//     half of criterion's "significant AND beyond the noise threshold" rule.
//
// Errors: a violated REQUIRES throws std::invalid_argument naming the function.
#ifndef CB_HARNESS_STATS_TESTS_H_
#define CB_HARNESS_STATS_TESTS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/stats.h"

namespace cb::harness {

struct MannWhitneyResult {
  double u = 0.0;        // U of the first sample: #{(i, j): x_i > y_j} + #ties / 2
  double p_value = 1.0;  // two-sided
  bool exact = false;    // exact null distribution (no ties, small n) or normal approx
};

// MannWhitneyU()
//
// Two-sided Mann-Whitney U test of x against y. U = R_x - n(n+1)/2 with R_x
// the sum of x's mid-ranks in the pooled sample.
//   exact (no ties and n * m <= kMannWhitneyExactMaxCells): the permutation
//     distribution of U by the recurrence c(n, m, u) = c(n-1, m, u-m) +
//     c(n, m-1, u); p = min(1, 2 min(P(U <= u), P(U >= u))).
//   otherwise: z = (|U - nm/2| - 1/2) / sigma with
//     sigma^2 = nm/12 ((N + 1) - sum_t (t^3 - t) / (N (N - 1))), N = n + m,
//     t the sizes of tie groups; p = 2 (1 - Phi(z)) (capped at 1). When
//     sigma = 0 (every value equal) p = 1.
// REQUIRES: x and y non-empty, free of NaN.
inline constexpr int kMannWhitneyExactMaxCells = 400;
MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y);

// BenjaminiHochberg()
//
// Adjusted p-values of the Benjamini-Hochberg (1995) step-up procedure, in the
// input order: q_(i) = min_{k >= i} min(1, p_(k) m / k) over p sorted
// ascending. Rejecting every hypothesis with q <= alpha controls the false
// discovery rate at alpha for independent (or positively dependent) tests.
// REQUIRES: every p in [0, 1].
std::vector<double> BenjaminiHochberg(std::span<const double> p_values);

// BootstrapRelativeChange()
//
// Percentile bootstrap CI (level, e.g. 0.95) of median(cand) / median(base) - 1:
// each resample draws len(base) values from base and len(cand) from cand with
// replacement (indices from Rng(seed, 0) by multiply-shift of 32-bit words:
// bias < n / 2^32), takes the two medians and their relative change. Medians of
// resamples are found by counting draws per sorted position (O(n) each), so
// 100k rows of n = 10 cost seconds, not minutes.
// REQUIRES: base and cand non-empty, free of NaN; median(base) != 0 in every
// resample (i.e. base has no zero at or below its median... in practice: timing
// samples are > 0); 0 < level < 1; resamples >= 2.
Interval BootstrapRelativeChange(std::span<const double> base, std::span<const double> cand,
                                 double level, int resamples, uint64_t seed);

}  // namespace cb::harness

#endif  // CB_HARNESS_STATS_TESTS_H_

// File: harness/stats_tests.h
// -----------------------------------------------------------------------------
// Two-sample tests used by the regression gate (issue 4; harness-anchors §3.2):
//   - the two-sided Mann-Whitney U test (exact null distribution for small
//     samples without ties, normal approximation with tie and continuity
//     correction otherwise), as Google Benchmark's compare.py and asv use;
//   - Benjamini-Hochberg adjusted p-values (q-values) for false-discovery-rate
//     control across the rows of one run (anchors §3.7.6);
//   - the percentile-bootstrap CI of the relative change of medians (exact for
//     samples of up to 64, seeded Monte Carlo beyond), the magnitude half of
//     criterion's "significant AND beyond the noise threshold" rule.
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
// Percentile bootstrap CI (level, e.g. 0.95) of median(cand) / median(base) - 1,
// where a bootstrap replicate resamples len(base) values from base and
// len(cand) from cand with replacement and takes the relative change of their
// medians.
//   n <= kResampleMedianTableMaxN on both sides and base > 0 (timings): the
//     interval of the bootstrap distribution itself, with no Monte Carlo
//     error: each median's resampling distribution is exact
//     (ResampleMedianOrderStats), and the quantiles (1 -+ level) / 2 of their
//     ratio, inf { r : P(C / B <= r) >= q }, are found by bisection to 1e-13
//     relative over a merge sweep of the two distributions. `resamples` and
//     `seed` are unused. This is what makes 100k-row gates take seconds.
//   otherwise: `resamples` Monte Carlo replicates with indices drawn from
//     Rng(seed, 0) (multiply-shift of 32-bit words, bias < n / 2^32), and the
//     type-7 percentile interval of the replicates (as PercentileInterval).
// REQUIRES: base and cand non-empty, free of NaN; no resampled baseline median
// is 0; 0 < level < 1; resamples >= 2.
inline constexpr int kResampleMedianTableMaxN = 64;

// One cell of the distribution of a resample's median: with the sample sorted
// and n draws with replacement, the median is (x[a] + x[b]) / 2 (0-based; a = b
// for odd n) with probability p. Exact: P(A <= a, B <= b) =
// P(C_a >= lo, C_b >= hi) with C_j ~ Binomial(n, j / n) the draws at positions
// <= j, lo / hi the median's order statistics, and the draws between a and b
// binomial given C_a. REQUIRES: 1 <= n <= kResampleMedianTableMaxN.
struct ResampleMedianCell {
  int a = 0, b = 0;
  double p = 0;
};
std::vector<ResampleMedianCell> ResampleMedianOrderStats(int n);

Interval BootstrapRelativeChange(std::span<const double> base, std::span<const double> cand,
                                 double level, int resamples, uint64_t seed);

}  // namespace cb::harness

#endif  // CB_HARNESS_STATS_TESTS_H_

// File: harness/complexity.h
// -----------------------------------------------------------------------------
// Empirical complexity from costs measured on a grid of sizes (DESIGN §5;
// harness-anchors §3.4). Two complementary tools:
//
//   FitPowerLaw       a free exponent: least squares of log cost on log n, with
//                     a pairs-bootstrap CI on the slope. This is what a claim
//                     such as "exponent in [0.9, 1.1]" is checked against.
//   SelectComplexity  a named class: cost = a + b g(n) fitted WITH an intercept
//                     for each g in {1, log n, sqrt n, n, n log n, n^2, n^3},
//                     compared by AICc on relative residuals.
//
// Why both: a fixed overhead bends the log-log line at small n (1000 + 3n on
// n = 2^6..2^14 has a log-log slope of 0.69, not 1), so the free exponent is a
// local exponent over the grid and must be read with the grid; the class fit
// models the overhead explicitly. google/benchmark's fit (through the origin,
// unweighted, no CI) has neither property.
//
// Gate claims on deterministic operation counts (MACs, keys touched) where
// possible; wall-time exponents are recorded beside them.
#ifndef CB_HARNESS_COMPLEXITY_H_
#define CB_HARNESS_COMPLEXITY_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "harness/stats.h"

namespace cb::harness {

struct PowerFit {
  double exponent = 0.0;   // b in log cost = a + b log n.
  Interval exponent_ci;    // Pairs-bootstrap percentile CI of b.
  double intercept = 0.0;  // a (natural log): cost ~ exp(a) * n^b.
  double r2 = 0.0;         // Coefficient of determination of the log-log fit.
};

// FitPowerLaw()
//
// Ordinary least squares of y = ln cost on x = ln n. The CI on the exponent is
// a percentile bootstrap over (n, cost) PAIRS: `resamples` draws of the points
// with replacement (indices from Rng(seed, 0)), refitting b each time; draws in
// which all resampled n are equal (slope undefined) are redrawn; the CI is
// PercentileInterval(slopes, level) (harness/stats.h). Pairs rather
// than residuals are resampled because the residuals of a log-log line fitted
// to a + b g(n) are systematic (curvature), not exchangeable noise; pairs let
// that lack of fit widen the interval instead of hiding it.
// Repeated measurements at the same n are allowed and used as-is.
// REQUIRES: n.size() == cost.size() >= 3; every n > 0 and cost > 0, finite;
//           at least two distinct n; resamples >= 2; 0 < level < 1.
PowerFit FitPowerLaw(std::span<const double> n, std::span<const double> cost, uint64_t seed,
                     int resamples = 2000, double level = 0.95);

enum class ComplexityClass { kConstant, kLogN, kSqrtN, kN, kNLogN, kN2, kN3 };

// ComplexityName()
//
// "O(1)", "O(log n)", "O(n^0.5)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)".
const char* ComplexityName(ComplexityClass c);

// ComplexityBasis()
//
// g(n) of the class: 1, log2 n, sqrt n, n, n log2 n, n^2, n^3. (The base of
// the logarithm only rescales b.)
double ComplexityBasis(ComplexityClass c, double n);

struct ClassFit {
  ComplexityClass best = ComplexityClass::kConstant;
  double a = 0.0;    // Intercept of the best class (cost units).
  double b = 0.0;    // Coefficient of g(n) of the best class (0 for O(1)).
  double rss = 0.0;  // Sum of squared RELATIVE residuals ((cost - fit) / cost)^2.
  // AICc of every ELIGIBLE class, in enum order (smaller is better). A class
  // is left out when its best-fitting b is negative or g is constant over the
  // grid (b not identifiable).
  std::vector<std::pair<ComplexityClass, double>> aicc;
  // AICc of the runner-up minus AICc of the best (infinity when only one class
  // is eligible). A gap under ~4 means the data barely prefer `best` (Burnham
  // and Anderson's rule of thumb): do not assert a class on such a fit. A
  // large gap is no proof either: with one measurement per size on 2^6..2^14
  // and 5% noise, 1000 + 3n was read as O(n log n) in 35 of 2000 seeds, with
  // gaps up to 14; three measurements per size removed every error (0/2000).
  double aicc_margin = 0.0;
};

// SelectComplexity()
//
// For each class fits cost = a + b g(n) by weighted least squares with
// weights 1 / cost^2, i.e. it minimises the sum of squared relative residuals
// r_i = (cost_i - a - b g(n_i)) / cost_i, so that the largest n do not decide
// the fit alone and 5% noise at n = 2^14 weighs as much as 5% at n = 2^6
// (for multiplicative noise this approximates a fit of log cost). O(1) is
// cost = a. A class is eligible only if its fitted b >= 0.
// Classes are compared by AICc with Gaussian relative residuals:
//   AICc = N ln(RSS / N) + 2k + 2k(k + 1) / (N - k - 1),
// k = number of fitted parameters + 1 for the residual variance (2 for O(1),
// 3 otherwise). RSS is floored at N * 1e-20 (relative rms 1e-10) so that exact
// operation counts, which some classes fit to rounding error, compare by k
// rather than by the noise of the last bits; remaining ties go to the simpler
// (earlier) class.
// REQUIRES: n.size() == cost.size() >= 5; every n >= 1 and cost > 0, finite.
ClassFit SelectComplexity(std::span<const double> n, std::span<const double> cost);

}  // namespace cb::harness

#endif  // CB_HARNESS_COMPLEXITY_H_

// File: harness/changepoint.h
// -----------------------------------------------------------------------------
// Change points in a series of per-run medians (issue 4 "History";
// harness-anchors §3.3): binary segmentation of a piecewise-constant mean.
//
// A split of segment y[a, b) at k lowers the sum of squared errors by
//   R(k) = (n1 n2 / n) (mean(y[a,k)) - mean(y[k,b)))^2,  n1 = k - a, n2 = b - k.
// The best split is kept when R > penalty = penalty_factor * sigma^2 * ln(n)
// AND the step |mean1 - mean2| is at least the minimum step; both halves are
// then searched again. sigma is estimated robustly from first differences,
// sigma = 1.4826 MAD(diff) / sqrt(2), so the steps themselves barely inflate it.
//
// Penalty: under pure noise R(k) / sigma^2 is a chi-square(1) variable at each
// k, and the maximum over k grows like 2 ln ln n; BIC (factor 1-2) lets several
// percent of noise series through for n = 20..100, so the default factor 3 is
// the modified BIC of Zhang & Siegmund (2007), which keeps false steps well
// under 5% of noise series (tested on 200 seeded series) while a step of 2 sigma
// in the middle of 50 points has R / sigma^2 = 50 >> 3 ln 50 = 11.7.
#ifndef CB_HARNESS_CHANGEPOINT_H_
#define CB_HARNESS_CHANGEPOINT_H_

#include <cstddef>
#include <span>
#include <vector>

namespace cb::harness {

struct ChangePointOptions {
  double penalty_factor = 3.0;     // penalty = factor * sigma^2 * ln(n)
  double min_step = 0.0;           // absolute minimum |mean1 - mean2|
  double min_relative_step = 0.0;  // ... and at least this fraction of |median(y)|
  size_t min_segment = 2;          // a step that lasts one run is an outlier, not a step
};

struct ChangePoint {
  size_t index = 0;            // the first point after the step
  double before = 0, after = 0;  // segment means on either side (final segmentation)
};

// DetectChangePoints()
//
// Indices (ascending) where a new segment starts. Empty for series shorter than
// 2 * min_segment.
// REQUIRES: y free of NaN; min_segment >= 1; penalty_factor >= 0.
std::vector<ChangePoint> DetectChangePoints(std::span<const double> y,
                                            const ChangePointOptions& options = {});

}  // namespace cb::harness

#endif  // CB_HARNESS_CHANGEPOINT_H_

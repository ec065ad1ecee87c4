// File: harness/seed_stats.h
// -----------------------------------------------------------------------------
// The interval of a mean over a few training seeds: Student's t, two-sided
// 95% (t_{0.975, n-1} from the standard table), because a percentile
// bootstrap over 3-10 values is too narrow. n = 1 gives an unbounded interval
// (INCONCLUSIVE under any CI criterion). Shared by the suites whose claims
// compare methods over training seeds (ibedl, probegen).
#ifndef CB_HARNESS_SEED_STATS_H_
#define CB_HARNESS_SEED_STATS_H_

#include <cmath>
#include <limits>
#include <span>

namespace cb::harness {

struct MeanCi {
  double mean = 0, low = 0, high = 0;
  int n = 0;
};

inline double StudentT975(int df) {
  static constexpr double kTable[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::numeric_limits<double>::infinity();
  return df <= 30 ? kTable[df - 1] : 1.96;
}

inline MeanCi TMeanCi(std::span<const double> x) {
  MeanCi c;
  c.n = static_cast<int>(x.size());
  if (x.empty()) return c;
  for (double v : x) c.mean += v / c.n;
  double ss = 0;
  for (double v : x) ss += (v - c.mean) * (v - c.mean);
  const double half = c.n > 1 ? StudentT975(c.n - 1) * std::sqrt(ss / (c.n - 1) / c.n)
                              : std::numeric_limits<double>::infinity();
  c.low = c.mean - half;
  c.high = c.mean + half;
  return c;
}

}  // namespace cb::harness

#endif  // CB_HARNESS_SEED_STATS_H_

// File: harness/stats_tests.cpp
// -----------------------------------------------------------------------------
// Mann-Whitney U, Benjamini-Hochberg and the bootstrap of a relative change of
// medians (see stats_tests.h for the formulas).
#include "harness/stats_tests.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "harness/random.h"

namespace cb::harness {
namespace {

void RequireSample(std::span<const double> x, const char* what) {
  if (x.empty()) throw std::invalid_argument(std::string(what) + ": empty sample");
  for (double v : x) {
    if (std::isnan(v)) throw std::invalid_argument(std::string(what) + ": NaN in sample");
  }
}

// Cumulative null distribution of U for sizes (n, m) without ties:
// cdf[u] = P(U <= u). The counts are the coefficients of the Gaussian binomial
// [n+m choose n]_q = prod_{k=1..n} (1 - q^(m+k)) / (1 - q^k), built by one
// multiplication and one exact division per k (integers below 2^53 here, so
// every count is exact in a double).
std::vector<double> ExactUCdf(int n, int m) {
  const int max_u = n * m;
  std::vector<double> c(static_cast<size_t>(max_u + m + n + 2), 0.0);
  c[0] = 1.0;
  for (int k = 1; k <= n; ++k) {
    const int up = m + k;
    for (int i = static_cast<int>(c.size()) - 1; i >= up; --i) c[i] -= c[i - up];  // * (1 - q^up)
    for (int i = k; i < static_cast<int>(c.size()); ++i) c[i] += c[i - k];          // / (1 - q^k)
  }
  double total = 0.0;
  for (int u = 0; u <= max_u; ++u) total += c[u];
  std::vector<double> cdf(static_cast<size_t>(max_u + 1));
  double run = 0.0;
  for (int u = 0; u <= max_u; ++u) {
    run += c[u];
    cdf[u] = run / total;
  }
  return cdf;
}

// The exact CDFs are reused across the many rows of one gate (same n, m).
const std::vector<double>& CachedExactUCdf(int n, int m) {
  static std::mutex mu;
  static std::map<std::pair<int, int>, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find({n, m});
  if (it == cache.end()) it = cache.emplace(std::make_pair(n, m), ExactUCdf(n, m)).first;
  return it->second;
}

// Median of the resample whose draw counts per sorted position are `counts`
// (sum n): the order statistics (n+1)/2, or n/2 and n/2+1 averaged.
double CountedMedian(std::span<const double> sorted, std::span<const int> counts) {
  const int n = static_cast<int>(sorted.size());
  const int lo_rank = (n + 1) / 2;           // 1-based
  const int hi_rank = n % 2 == 1 ? lo_rank : n / 2 + 1;
  double lo = 0.0, hi = 0.0;
  int cum = 0;
  bool have_lo = false;
  for (int i = 0; i < n; ++i) {
    cum += counts[i];
    if (!have_lo && cum >= lo_rank) {
      lo = sorted[i];
      have_lo = true;
    }
    if (cum >= hi_rank) {
      hi = sorted[i];
      break;
    }
  }
  return 0.5 * (lo + hi);
}

}  // namespace

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y) {
  RequireSample(x, "MannWhitneyU");
  RequireSample(y, "MannWhitneyU");
  const size_t n = x.size(), m = y.size(), total = n + m;
  // Pooled values tagged with their sample; mid-ranks over tie groups.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(total);
  for (double v : x) pooled.emplace_back(v, 0);
  for (double v : y) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0.0, tie_term = 0.0;
  bool ties = false;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && pooled[j].first == pooled[i].first) ++j;
    const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1..j
    const double t = static_cast<double>(j - i);
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_x += mid_rank;
    }
    i = j;
  }
  const double dn = static_cast<double>(n), dm = static_cast<double>(m);
  MannWhitneyResult r;
  r.u = rank_sum_x - dn * (dn + 1) / 2;
  if (!ties && n * m <= static_cast<size_t>(kMannWhitneyExactMaxCells)) {
    const auto& cdf = CachedExactUCdf(static_cast<int>(n), static_cast<int>(m));
    const int u = static_cast<int>(std::lround(r.u));
    const double lower = cdf[u];                       // P(U <= u)
    const double upper = u == 0 ? 1.0 : 1.0 - cdf[u - 1];  // P(U >= u)
    r.p_value = std::min(1.0, 2.0 * std::min(lower, upper));
    r.exact = true;
    return r;
  }
  const double dN = dn + dm;
  const double var = dn * dm / 12.0 * ((dN + 1) - tie_term / (dN * (dN - 1)));
  if (var <= 0) {
    r.p_value = 1.0;
    return r;
  }
  const double z = std::max(0.0, std::fabs(r.u - dn * dm / 2) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, 2.0 * NormalCdf(-z));
  return r;
}

std::vector<double> BenjaminiHochberg(std::span<const double> p_values) {
  const size_t m = p_values.size();
  for (double p : p_values) {
    if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("BenjaminiHochberg: p outside [0, 1]");
  }
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> q(m);
  double running = 1.0;
  for (size_t k = m; k-- > 0;) {
    const size_t i = order[k];
    running = std::min(running, p_values[i] * static_cast<double>(m) / static_cast<double>(k + 1));
    q[i] = std::min(1.0, running);
  }
  return q;
}

Interval BootstrapRelativeChange(std::span<const double> base, std::span<const double> cand,
                                 double level, int resamples, uint64_t seed) {
  RequireSample(base, "BootstrapRelativeChange");
  RequireSample(cand, "BootstrapRelativeChange");
  if (!(level > 0 && level < 1) || resamples < 2) {
    throw std::invalid_argument("BootstrapRelativeChange: need 0 < level < 1 and resamples >= 2");
  }
  std::vector<double> sb(base.begin(), base.end()), sc(cand.begin(), cand.end());
  std::sort(sb.begin(), sb.end());
  std::sort(sc.begin(), sc.end());
  std::vector<int> cb(sb.size()), cc(sc.size());
  Rng rng(seed, 0);
  auto resample_median = [&rng](const std::vector<double>& sorted, std::vector<int>& counts) {
    std::fill(counts.begin(), counts.end(), 0);
    const uint64_t n = sorted.size();
    for (uint64_t k = 0; k < n; ++k) ++counts[(static_cast<uint64_t>(rng.NextU32()) * n) >> 32];
    return CountedMedian(sorted, counts);
  };
  std::vector<double> replicates(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    const double mb = resample_median(sb, cb);
    const double mc = resample_median(sc, cc);
    if (mb == 0.0) throw std::invalid_argument("BootstrapRelativeChange: a baseline median is 0");
    replicates[r] = mc / mb - 1.0;
  }
  return PercentileInterval(std::move(replicates), level);
}

}  // namespace cb::harness

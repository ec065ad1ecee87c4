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

// P(Binomial(n, p) = k) for k = 0..n.
std::vector<double> BinomialPmf(int n, double p) {
  std::vector<double> pmf(static_cast<size_t>(n + 1), 0.0);
  if (p <= 0) {
    pmf[0] = 1;
    return pmf;
  }
  if (p >= 1) {
    pmf[n] = 1;
    return pmf;
  }
  double choose = 1.0;  // C(n, k), exact in a double for n <= 64 to ~1e-16 relative
  for (int k = 0; k <= n; ++k) {
    if (k > 0) choose = choose * (n - k + 1) / k;
    pmf[k] = choose * std::pow(p, k) * std::pow(1 - p, n - k);
  }
  return pmf;
}

// Counting fallback for large n: the median of one resample drawn index by index.
double CountedMedian(std::span<const double> sorted, std::vector<int>& counts, Rng& rng) {
  const int n = static_cast<int>(sorted.size());
  std::fill(counts.begin(), counts.end(), 0);
  for (int k = 0; k < n; ++k) ++counts[(static_cast<uint64_t>(rng.NextU32()) * n) >> 32];
  const int lo_rank = (n + 1) / 2, hi_rank = n % 2 == 1 ? lo_rank : n / 2 + 1;
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

const std::vector<ResampleMedianCell>& CachedMedianCells(int n) {
  static std::mutex mu;
  static std::map<int, std::vector<ResampleMedianCell>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, ResampleMedianOrderStats(n)).first;
  return it->second;
}

// The bootstrap distribution of the median of a sorted sample: values
// ascending (equal ones merged) with their probabilities.
struct Discrete {
  std::vector<double> value, prob;
};

Discrete MedianDistribution(const std::vector<double>& sorted) {
  const auto& cells = CachedMedianCells(static_cast<int>(sorted.size()));
  std::vector<std::pair<double, double>> vp;
  vp.reserve(cells.size());
  for (const auto& c : cells) vp.emplace_back(0.5 * (sorted[c.a] + sorted[c.b]), c.p);
  std::sort(vp.begin(), vp.end());
  Discrete d;
  for (const auto& [v, p] : vp) {
    if (!d.value.empty() && d.value.back() == v) {
      d.prob.back() += p;
    } else {
      d.value.push_back(v);
      d.prob.push_back(p);
    }
  }
  return d;
}

// P(C / B <= r) for independent B (all values > 0) and C: one merge sweep,
// since r * b grows with b.
double RatioCdf(const Discrete& b, const Discrete& c, double r) {
  double sum = 0, cum_c = 0;
  size_t j = 0;
  for (size_t i = 0; i < b.value.size(); ++i) {
    const double t = r * b.value[i];
    while (j < c.value.size() && c.value[j] <= t) cum_c += c.prob[j++];
    sum += b.prob[i] * cum_c;
  }
  return sum;
}

// inf { r : P(C / B <= r) >= q }, by bisection to 1e-13 relative.
double RatioQuantile(const Discrete& b, const Discrete& c, double q) {
  double lo = c.value.front() / b.value.back(), hi = c.value.back() / b.value.front();
  if (RatioCdf(b, c, lo) >= q) return lo;
  for (int iter = 0; iter < 200 && hi - lo > 1e-13 * std::max(std::fabs(lo), std::fabs(hi)); ++iter) {
    const double mid = 0.5 * (lo + hi);
    if (RatioCdf(b, c, mid) >= q) hi = mid;
    else lo = mid;
  }
  return hi;
}

// The percentile interval of `x` (type 7, as PercentileInterval) by selection
// instead of a full sort: same values, O(B).
Interval SelectPercentileInterval(std::vector<double>& x, double level) {
  auto quantile = [&x](double q) {
    const double h = (static_cast<double>(x.size()) - 1) * q;
    const size_t lo = static_cast<size_t>(std::floor(h));
    std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(lo), x.end());
    const double v_lo = x[lo];
    if (lo + 1 >= x.size()) return v_lo;
    const double v_hi = *std::min_element(x.begin() + static_cast<std::ptrdiff_t>(lo) + 1, x.end());
    return v_lo + (h - std::floor(h)) * (v_hi - v_lo);
  };
  const double low = quantile((1 - level) / 2);
  const double high = quantile((1 + level) / 2);
  return {low, high};
}

}  // namespace

std::vector<ResampleMedianCell> ResampleMedianOrderStats(int n) {
  if (n < 1 || n > kResampleMedianTableMaxN) {
    throw std::invalid_argument("ResampleMedianOrderStats: n outside [1, 64]");
  }
  const int lo = (n + 1) / 2, hi = n % 2 == 1 ? lo : n / 2 + 1;
  // binom[j] = pmf of C_j ~ Binomial(n, j / n), the draws at sorted positions <= j.
  std::vector<std::vector<double>> binom(static_cast<size_t>(n + 1));
  for (int j = 0; j <= n; ++j) binom[j] = BinomialPmf(n, double(j) / n);
  // G(a, b) = P(A <= a, B <= b) = P(C_a >= lo, C_b >= hi) for a <= b, given
  // C_a = c the draws in (a, b] are Binomial(n - c, (b - a) / (n - a)).
  std::vector<double> g(static_cast<size_t>((n + 1) * (n + 1)), 0.0);
  auto G = [&](int a, int b) -> double& { return g[static_cast<size_t>(a * (n + 1) + b)]; };
  for (int a = 1; a <= n; ++a) {
    for (int b = a; b <= n; ++b) {
      double sum = 0;
      for (int c = lo; c <= n; ++c) {
        if (binom[a][c] == 0) continue;
        double tail = 1.0;
        if (hi - c > 0) {
          const auto rest = BinomialPmf(n - c, a == n ? 0.0 : double(b - a) / (n - a));
          tail = 0;
          for (int k = hi - c; k <= n - c; ++k) tail += rest[k];
        }
        sum += binom[a][c] * tail;
      }
      G(a, b) = sum;
    }
    for (int b = 1; b < a; ++b) G(a, b) = 0;  // filled below from G(b, b)
  }
  for (int a = 1; a <= n; ++a) {
    for (int b = 1; b < a; ++b) G(a, b) = G(b, b);  // A <= B always
  }
  std::vector<ResampleMedianCell> cells;
  for (int a = 1; a <= n; ++a) {
    for (int b = a; b <= n; ++b) {
      const double p = G(a, b) - G(a - 1, b) - G(a, b - 1) + G(a - 1, b - 1);
      if (p > 1e-300) cells.push_back({a - 1, b - 1, p});
    }
  }
  return cells;
}

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
  if (static_cast<int>(sb.size()) <= kResampleMedianTableMaxN &&
      static_cast<int>(sc.size()) <= kResampleMedianTableMaxN && sb.front() > 0) {
    // Exact: the percentile interval of the bootstrap distribution itself (B = infinity).
    const Discrete db = MedianDistribution(sb), dc = MedianDistribution(sc);
    const double tail = (1 - level) / 2;
    return {RatioQuantile(db, dc, tail) - 1.0, RatioQuantile(db, dc, 1 - tail) - 1.0};
  }
  Rng rng(seed, 0);
  std::vector<int> counts(std::max(sb.size(), sc.size()));
  std::vector<double> replicates(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    const double mb = CountedMedian(sb, counts, rng);
    const double mc = CountedMedian(sc, counts, rng);
    if (mb == 0.0) throw std::invalid_argument("BootstrapRelativeChange: a baseline median is 0");
    replicates[r] = mc / mb - 1.0;
  }
  return SelectPercentileInterval(replicates, level);
}

}  // namespace cb::harness

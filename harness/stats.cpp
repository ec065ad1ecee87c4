// File: harness/stats.cpp
// -----------------------------------------------------------------------------
// Implementations of harness/stats.h. Formulas and references are in the
// header; comments here explain numerical choices only.
#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/random.h"

namespace cb::harness {
namespace {

void RequireNonEmpty(std::span<const double> x, const char* fn) {
  if (x.empty()) throw std::invalid_argument(std::string(fn) + ": empty input");
}

void RequireNoNan(std::span<const double> x, const char* fn) {
  RequireNonEmpty(x, fn);
  for (double v : x) {
    if (std::isnan(v)) throw std::invalid_argument(std::string(fn) + ": input contains NaN");
  }
}

// Median of a scratch vector that may be reordered.
double MedianInPlace(std::vector<double>& v) {
  const size_t n = v.size();
  const size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  // After nth_element everything before mid is <= v[mid]; the lower middle is
  // the largest of them.
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  // Halving each term first cannot overflow for finite inputs.
  return lower / 2 + upper / 2;
}

}  // namespace

double Mean(std::span<const double> x) {
  RequireNonEmpty(x, "Mean");
  double sum = 0.0;
  double compensation = 0.0;
  for (double v : x) {
    const double t = sum + v;
    compensation += std::abs(sum) >= std::abs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  return (sum + compensation) / static_cast<double>(x.size());
}

double Median(std::span<const double> x) {
  RequireNoNan(x, "Median");
  std::vector<double> v(x.begin(), x.end());
  return MedianInPlace(v);
}

double QuantileSorted(std::span<const double> sorted, double q) {
  RequireNonEmpty(sorted, "QuantileSorted");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("Quantile: q must be in [0, 1]");
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double Quantile(std::span<const double> x, double q) {
  RequireNoNan(x, "Quantile");
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  return QuantileSorted(v, q);
}

double Mad(std::span<const double> x) {
  RequireNoNan(x, "Mad");
  std::vector<double> v(x.begin(), x.end());
  const double m = MedianInPlace(v);
  for (size_t i = 0; i < x.size(); ++i) v[i] = std::abs(x[i] - m);
  return MedianInPlace(v);
}

Interval PercentileInterval(std::vector<double> replicates, double level) {
  RequireNoNan(replicates, "PercentileInterval");
  if (!(level > 0.0 && level < 1.0)) {
    throw std::invalid_argument("PercentileInterval: level must be in (0, 1)");
  }
  std::sort(replicates.begin(), replicates.end());
  const double alpha = 1.0 - level;
  return Interval{QuantileSorted(replicates, alpha / 2), QuantileSorted(replicates, 1.0 - alpha / 2)};
}

Interval BootstrapCi(std::span<const double> x,
                     const std::function<double(std::span<const double>)>& statistic,
                     double level, int resamples, uint64_t seed) {
  RequireNonEmpty(x, "BootstrapCi");
  if (!(level > 0.0 && level < 1.0)) {
    throw std::invalid_argument("BootstrapCi: level must be in (0, 1)");
  }
  if (resamples < 2) throw std::invalid_argument("BootstrapCi: resamples must be >= 2");
  Rng rng(seed, 0);
  const uint64_t last = x.size() - 1;
  std::vector<double> resample(x.size());
  std::vector<double> values(static_cast<size_t>(resamples));
  for (double& value : values) {
    for (double& r : resample) r = x[rng.UniformInt(0, last)];
    value = statistic(resample);
    if (std::isnan(value)) throw std::invalid_argument("BootstrapCi: statistic returned NaN");
  }
  return PercentileInterval(std::move(values), level);
}

Summary Summarize(std::span<const double> samples, uint64_t seed, double level, int resamples) {
  RequireNoNan(samples, "Summarize");
  Summary s;
  s.n = static_cast<int64_t>(samples.size());
  s.median = Median(samples);
  s.mad = Mad(samples);
  s.mean = Mean(samples);
  const auto [min_it, max_it] = std::minmax_element(samples.begin(), samples.end());
  s.min = *min_it;
  s.max = *max_it;
  s.ci = BootstrapCi(samples, [](std::span<const double> r) { return Median(r); }, level,
                     resamples, seed);
  return s;
}

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

Interval MeanBootstrapCi(std::span<const double> x, uint64_t seed, double level, int resamples) {
  return BootstrapCi(x, [](std::span<const double> r) { return Mean(r); }, level, resamples, seed);
}

Interval WilsonInterval(double successes, double n, double level) {
  if (!(level > 0.0 && level < 1.0)) throw std::invalid_argument("WilsonInterval: level must be in (0, 1)");
  if (!(successes >= 0.0 && successes <= n)) {
    throw std::invalid_argument("WilsonInterval: successes must be in [0, n]");
  }
  if (n == 0.0) return {0.0, 1.0};
  const double z = NormalQuantile(0.5 + level / 2), z2 = z * z / n, p = successes / n;
  const double centre = (p + z2 / 2) / (1 + z2);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n)) / (1 + z2);
  // The bounds at 0 and n successes are exactly 0 and 1; rounding would not say so.
  return {successes == 0 ? 0.0 : std::max(0.0, centre - half),
          successes == n ? 1.0 : std::min(1.0, centre + half)};
}

double NormalQuantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("NormalQuantile: p must be in [0, 1]");
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();

  // Coefficients of AS 241 (PPND16), highest degree last; each rational
  // function is num(r) / den(r) with den's constant term 1.
  static constexpr double kCentralNum[8] = {
      3.3871328727963666080e+00, 1.3314166789178437745e+02, 1.9715909503065514427e+03,
      1.3731693765509461125e+04, 4.5921953931549871457e+04, 6.7265770927008700853e+04,
      3.3430575583588128105e+04, 2.5090809287301226727e+03};
  static constexpr double kCentralDen[8] = {
      1.0,                       4.2313330701600911252e+01, 6.8718700749205790830e+02,
      5.3941960214247511077e+03, 2.1213794301586595867e+04, 3.9307895800092710610e+04,
      2.8729085735721942674e+04, 5.2264952788528545610e+03};
  static constexpr double kNearNum[8] = {
      1.42343711074968357734e+00, 4.63033784615654529590e+00, 5.76949722146069140550e+00,
      3.64784832476320460504e+00, 1.27045825245236838258e+00, 2.41780725177450611770e-01,
      2.27238449892691845833e-02, 7.74545014278341407640e-04};
  static constexpr double kNearDen[8] = {
      1.0,                        2.05319162663775882187e+00, 1.67638483018380384940e+00,
      6.89767334985100004550e-01, 1.48103976427480074590e-01, 1.51986665636164571966e-02,
      5.47593808499534494600e-04, 1.05075007164441684324e-09};
  static constexpr double kFarNum[8] = {
      6.65790464350110377720e+00, 5.46378491116411436990e+00, 1.78482653991729133580e+00,
      2.96560571828504891230e-01, 2.65321895265761230930e-02, 1.24266094738807843860e-03,
      2.71155556874348757815e-05, 2.01033439929228813265e-07};
  static constexpr double kFarDen[8] = {
      1.0,                        5.99832206555887937690e-01, 1.36929880922735805310e-01,
      1.48753612908506148525e-02, 7.86869131145613259100e-04, 1.84631831751005468180e-05,
      1.42151175831644588870e-07, 2.04426310338993978564e-15};
  const auto ratio = [](const double (&num)[8], const double (&den)[8], double r) {
    double n = num[7];
    double d = den[7];
    for (int i = 6; i >= 0; --i) {
      n = n * r + num[i];
      d = d * r + den[i];
    }
    return n / d;
  };

  const double q = p - 0.5;
  if (std::abs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * ratio(kCentralNum, kCentralDen, r);
  }
  // Tail: work with the smaller of p and 1 - p so the log keeps its precision.
  double r = q < 0 ? p : 1.0 - p;
  r = std::sqrt(-std::log(r));
  const double z =
      r <= 5.0 ? ratio(kNearNum, kNearDen, r - 1.6) : ratio(kFarNum, kFarDen, r - 5.0);
  return q < 0 ? -z : z;
}

double KolmogorovSurvival(double lambda) {
  if (!(lambda > 0.0)) return 1.0;
  if (lambda < 1.18) {
    // Jacobi-theta form of the CDF; at lambda = 1.18 the ratio of successive
    // terms is exp(-pi^2 / lambda^2) ~ 8e-4, so five terms reach 1e-16.
    const double c = -std::numbers::pi * std::numbers::pi / (8.0 * lambda * lambda);
    double sum = 0.0;
    for (int k = 1; k <= 20; ++k) {
      const double odd = 2.0 * k - 1.0;
      const double term = std::exp(c * odd * odd);
      sum += term;
      if (term < 1e-18 * sum) break;
    }
    const double cdf = std::sqrt(2.0 * std::numbers::pi) / lambda * sum;
    return std::clamp(1.0 - cdf, 0.0, 1.0);
  }
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1) ? term : -term;
    if (term < 1e-18) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

KsResult KsTest(std::span<const double> x, const std::function<double(double)>& cdf) {
  RequireNoNan(x, "KsTest");
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    const double above = static_cast<double>(i + 1) / n - f;
    const double below = f - static_cast<double>(i) / n;
    d = std::max(d, std::max(above, below));
  }
  const double sqrt_n = std::sqrt(n);
  return KsResult{d, KolmogorovSurvival((sqrt_n + 0.12 + 0.11 / sqrt_n) * d)};
}

double LogGammaPrefactor(double a, double x) { return a * std::log(x) - x - std::lgamma(a); }

double GammaLowerSeries(double a, double x, double eps, int max_terms) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < max_terms; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * eps) break;
  }
  return sum;
}

double GammaUpperFraction(double a, double x, double eps, int max_terms) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < max_terms; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < eps) break;
  }
  return h;
}

double ChiSquareSurvival(double x, double df) {
  if (!(df > 0.0)) throw std::invalid_argument("ChiSquareSurvival: df must be > 0");
  if (!(x > 0.0)) return 1.0;
  const double a = df / 2.0;
  const double y = x / 2.0;
  const double log_prefactor = LogGammaPrefactor(a, y);
  constexpr double kEps = 1e-15;
  constexpr int kMaxTerms = 10000;
  if (y < a + 1.0) {
    return std::clamp(1.0 - std::exp(log_prefactor) * GammaLowerSeries(a, y, kEps, kMaxTerms),
                      0.0, 1.0);
  }
  return std::clamp(std::exp(log_prefactor) * GammaUpperFraction(a, y, kEps, kMaxTerms), 0.0, 1.0);
}

}  // namespace cb::harness

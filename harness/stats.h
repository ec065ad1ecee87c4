// File: harness/stats.h
// -----------------------------------------------------------------------------
// Descriptive statistics and intervals used by measurement (DESIGN §5): median,
// type-7 quantiles, MAD, a seeded percentile bootstrap, the Summary stored with
// every timing, the normal CDF/quantile (fp64), and two goodness-of-fit tools
// (one-sample Kolmogorov-Smirnov, chi-square survival) used to test the RNG and
// by later gates.
//
// No function reorders the caller's data (inputs are spans, or copies). Randomness
// (bootstrap) comes only from cb::harness::Rng with an explicit seed, so every
// interval is reproducible bit for bit on the same platform.
//
// Errors: a violated REQUIRES throws std::invalid_argument naming the function;
// nothing here returns NaN for bad input silently.
#ifndef CB_HARNESS_STATS_H_
#define CB_HARNESS_STATS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace cb::harness {

// A closed interval [low, high].
struct Interval {
  double low = 0.0;
  double high = 0.0;

  bool Contains(double v) const { return low <= v && v <= high; }
};

// Mean()
//
// Arithmetic mean with Neumaier-compensated summation (so a long vector of
// similar timings does not lose the low digits).
// REQUIRES: x non-empty.
double Mean(std::span<const double> x);

// Median()
//
// The middle order statistic; for even n, the average of the two middle ones
// (equal to Quantile(x, 0.5)).
// REQUIRES: x non-empty and free of NaN.
double Median(std::span<const double> x);

// Quantile()
//
// Hyndman-Fan type 7 (R's default, numpy's "linear"): with x sorted and
// h = (n - 1) q, returns x[floor(h)] + (h - floor(h)) (x[floor(h)+1] - x[floor(h)]).
// Quantile(x, 0) = min, Quantile(x, 1) = max.
// REQUIRES: x non-empty and free of NaN; 0 <= q <= 1.
double Quantile(std::span<const double> x, double q);

// QuantileSorted()
//
// As Quantile() for input already sorted ascending (not checked); no copy.
// REQUIRES: sorted non-empty, 0 <= q <= 1.
double QuantileSorted(std::span<const double> sorted, double q);

// Mad()
//
// Median absolute deviation, RAW: median(|x_i - median(x)|), with no
// consistency factor. Multiply by 1.482602218505602 (= 1 / Phi^-1(3/4)) to
// estimate the standard deviation of normal data.
// REQUIRES: x non-empty and free of NaN.
double Mad(std::span<const double> x);

// PercentileInterval()
//
// The percentile interval of bootstrap replicates: the type-7 quantiles
// (1 - level) / 2 and (1 + level) / 2 of `replicates` (Quantile() above). Every
// percentile bootstrap here (BootstrapCi, FitPowerLaw in harness/complexity.h)
// ends with it.
// REQUIRES: replicates non-empty and free of NaN; 0 < level < 1.
Interval PercentileInterval(std::vector<double> replicates, double level);

// BootstrapCi()
//
// Percentile bootstrap (Efron): draws `resamples` samples of size n with
// replacement from x, indices from Rng(seed, 0).UniformInt(0, n - 1) in order,
// evaluates `statistic` on each, and returns PercentileInterval() of those
// values. Deterministic given (x, statistic, level, resamples, seed); for
// n == 1 every resample is x itself.
// REQUIRES: x non-empty; 0 < level < 1; resamples >= 2; statistic returns no NaN.
Interval BootstrapCi(std::span<const double> x,
                     const std::function<double(std::span<const double>)>& statistic,
                     double level, int resamples, uint64_t seed);

// MeanBootstrapCi()
//
// BootstrapCi() of the mean: the interval claims report beside a mean over
// seeds, pairs or items.
// REQUIRES: as BootstrapCi().
Interval MeanBootstrapCi(std::span<const double> x, uint64_t seed, double level = 0.95,
                         int resamples = 2000);

// WilsonInterval()
//
// Wilson score interval of a proportion `successes / n` (Wilson 1927): unlike
// the normal approximation it stays inside [0, 1] and is usable at 0 or n
// successes. Returns [0, 1] for n == 0.
// REQUIRES: 0 <= successes <= n; 0 < level < 1.
Interval WilsonInterval(double successes, double n, double level = 0.95);

// What DESIGN §5 stores for a set of repeated measurements.
struct Summary {
  int64_t n = 0;
  double median = 0.0;
  double mad = 0.0;  // Raw MAD (see Mad()).
  double mean = 0.0;
  double min = 0.0;
  double max = 0.0;
  Interval ci;  // Percentile-bootstrap CI of the median.
};

// Summarize()
//
// Summary of `samples`, with ci = BootstrapCi(samples, Median, level,
// resamples, seed) (for n == 1, the single value).
// REQUIRES: samples non-empty and free of NaN; 0 < level < 1; resamples >= 2.
Summary Summarize(std::span<const double> samples, uint64_t seed, double level = 0.95,
                  int resamples = 2000);

// NormalCdf()
//
// Standard normal CDF, Phi(x) = erfc(-x / sqrt 2) / 2 (erfc keeps full relative
// accuracy in the lower tail, e.g. Phi(-8) ~ 6.2e-16).
double NormalCdf(double x);

// NormalQuantile()
//
// Phi^-1(p) by Wichura's algorithm AS 241 (PPND16, Applied Statistics 37(3),
// 1988), relative accuracy about 1e-16. Returns -inf for p == 0 and +inf for
// p == 1.
// REQUIRES: 0 <= p <= 1.
double NormalQuantile(double p);

// KolmogorovSurvival()
//
// P(K > lambda) for the Kolmogorov distribution (the limit law of
// sqrt(n) * D_n):
//   lambda >= 1.18: 2 * sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2)
//   lambda <  1.18: 1 - sqrt(2 pi) / lambda * sum_{k>=1} exp(-(2k-1)^2 pi^2 / (8 lambda^2))
// (both series converge in a handful of terms on their side of 1.18).
// Returns 1 for lambda <= 0.
double KolmogorovSurvival(double lambda);

// Result of a one-sample Kolmogorov-Smirnov test.
struct KsResult {
  double d = 0.0;        // sup_x |F_n(x) - F(x)|
  double p_value = 1.0;  // Asymptotic, see KsTest().
};

// KsTest()
//
// One-sample KS test of x against the continuous CDF `cdf`:
// d = max_i max(i/n - F(x_(i)), F(x_(i)) - (i-1)/n) and
// p = KolmogorovSurvival((sqrt(n) + 0.12 + 0.11 / sqrt(n)) * d), Stephens'
// (1970) finite-n correction of the asymptotic law (good for n >= ~5).
// REQUIRES: x non-empty and free of NaN; cdf non-decreasing with values in [0, 1].
KsResult KsTest(std::span<const double> x, const std::function<double(double)>& cdf);

// ChiSquareSurvival()
//
// P(X > x) for X ~ chi-square with `df` degrees of freedom, i.e. the
// regularized upper incomplete gamma Q(a, y) with a = df/2, y = x/2, by the
// series of P(a, y) for y < a + 1 and by Lentz's continued fraction for Q
// otherwise (to ~1e-14).
// REQUIRES: df > 0. Returns 1 for x <= 0.
double ChiSquareSurvival(double x, double df);

// The two expansions of the regularized incomplete gamma functions
// P(a, x) and Q(a, x) = 1 - P(a, x), shared by ChiSquareSurvival() and the
// watermark p-values of reference/pf (cb::ref::pf::GammaQ). Each caller picks
// its own stopping tolerance `eps` and term cap, so both keep their numbers.
//
// LogGammaPrefactor(a, x) = log(x^a e^-x / Gamma(a)), the common factor.
// GammaLowerSeries(a, x, eps, max_terms) = sum_{n>=0} x^n / (a (a+1) ... (a+n)),
//   so P(a, x) = exp(prefactor) * series; stops once a term is below
//   eps * sum (converges fast for x < a + 1).
// GammaUpperFraction(a, x, eps, max_terms) = the continued fraction
//   1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...))) by the modified Lentz
//   method, so Q(a, x) = exp(prefactor) * fraction; stops once a step
//   changes it by a factor within eps of 1 (for x >= a + 1).
// REQUIRES: a > 0, x > 0.
double LogGammaPrefactor(double a, double x);
double GammaLowerSeries(double a, double x, double eps, int max_terms);
double GammaUpperFraction(double a, double x, double eps, int max_terms);

}  // namespace cb::harness

#endif  // CB_HARNESS_STATS_H_

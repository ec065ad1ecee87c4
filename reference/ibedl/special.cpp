// File: reference/ibedl/special.cpp
// Digamma, trigamma, lgamma and torch's softplus (special.h).
#include "reference/ibedl/special.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace cb::ref::ibedl {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
bool IsPole(double x) { return x <= 0 && x == std::floor(x); }
}  // namespace

double Digamma(double x) {
  if (std::isnan(x) || IsPole(x)) return kNaN;
  if (x < 0.5) return Digamma(1.0 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  double acc = 0;
  while (x < 10) {
    acc -= 1.0 / x;
    x += 1;
  }
  const double z = 1.0 / (x * x);
  // B_2n / (2n): 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12.
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

double Trigamma(double x) {
  if (std::isnan(x) || IsPole(x)) return kNaN;
  if (x < 0.5) {
    const double s = std::sin(std::numbers::pi * x);
    return -Trigamma(1.0 - x) + std::numbers::pi * std::numbers::pi / (s * s);
  }
  double acc = 0;
  while (x < 10) {
    acc += 1.0 / (x * x);
    x += 1;
  }
  const double z = 1.0 / (x * x);
  // B_2n: 1/6, -1/30, 1/42, -1/30, 5/66, -691/2730, 7/6.
  const double series =
      z * (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7.0 / 6))))));
  return acc + 1.0 / x + 0.5 * z + series / x;
}

double LogGamma(double x) { return std::lgamma(x); }

double Softplus(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }

double SoftplusGrad(double x) {
  if (x > 20) return 1.0;
  const double z = std::exp(x);
  return z / (z + 1.0);
}

}  // namespace cb::ref::ibedl

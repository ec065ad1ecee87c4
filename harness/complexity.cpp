// File: harness/complexity.cpp
// -----------------------------------------------------------------------------
// Implementation of harness/complexity.h: log-log least squares with a pairs
// bootstrap, and weighted per-class fits compared by AICc.
#include "harness/complexity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/random.h"

namespace cb::harness {
namespace {

constexpr ComplexityClass kAllClasses[] = {
    ComplexityClass::kConstant, ComplexityClass::kLogN, ComplexityClass::kSqrtN,
    ComplexityClass::kN,        ComplexityClass::kNLogN, ComplexityClass::kN2,
    ComplexityClass::kN3};

// Throws unless n and cost have the same size >= min_points and every point
// is finite with cost > 0 and n > 0 (n >= 1 when n_at_least_one).
void RequireInputs(std::span<const double> n, std::span<const double> cost, size_t min_points,
                   bool n_at_least_one, const char* fn) {
  const std::string name(fn);
  if (n.size() != cost.size()) throw std::invalid_argument(name + ": n and cost differ in size");
  if (n.size() < min_points) {
    throw std::invalid_argument(name + ": needs at least " + std::to_string(min_points) +
                                " points");
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const bool n_ok = n_at_least_one ? n[i] >= 1.0 : n[i] > 0.0;
    if (!(std::isfinite(n[i]) && n_ok && std::isfinite(cost[i]) && cost[i] > 0.0)) {
      throw std::invalid_argument(name + ": bad point " + std::to_string(i) +
                                  " (need finite cost > 0 and finite n " +
                                  (n_at_least_one ? ">= 1" : "> 0") + ")");
    }
  }
}

struct Line {
  double intercept = 0.0;
  double slope = 0.0;
  bool ok = false;  // False when all x are equal.
};

// Weighted least squares of y on x (w == nullptr: unweighted), centred for
// accuracy when x spans many orders of magnitude (n^3 up to ~1e13).
Line FitLine(std::span<const double> x, std::span<const double> y, const double* w) {
  double sw = 0.0, mx = 0.0, my = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double wi = w ? w[i] : 1.0;
    sw += wi;
    mx += wi * x[i];
    my += wi * y[i];
  }
  mx /= sw;
  my /= sw;
  double sxx = 0.0, sxy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double wi = w ? w[i] : 1.0;
    sxx += wi * (x[i] - mx) * (x[i] - mx);
    sxy += wi * (x[i] - mx) * (y[i] - my);
  }
  Line line;
  // Relative test: x constant up to rounding means no slope.
  if (!(sxx > 1e-24 * sw * (mx * mx + 1.0))) return line;
  line.slope = sxy / sxx;
  line.intercept = my - line.slope * mx;
  line.ok = true;
  return line;
}

}  // namespace

PowerFit FitPowerLaw(std::span<const double> n, std::span<const double> cost, uint64_t seed,
                     int resamples, double level) {
  RequireInputs(n, cost, 3, /*n_at_least_one=*/false, "FitPowerLaw");
  if (resamples < 2) throw std::invalid_argument("FitPowerLaw: resamples must be >= 2");
  if (!(level > 0.0 && level < 1.0)) {
    throw std::invalid_argument("FitPowerLaw: level must be in (0, 1)");
  }
  const size_t count = n.size();
  std::vector<double> x(count), y(count);
  for (size_t i = 0; i < count; ++i) {
    x[i] = std::log(n[i]);
    y[i] = std::log(cost[i]);
  }
  const Line line = FitLine(x, y, nullptr);
  if (!line.ok) throw std::invalid_argument("FitPowerLaw: needs at least two distinct n");

  PowerFit fit;
  fit.exponent = line.slope;
  fit.intercept = line.intercept;
  const double my = Mean(y);
  double ss_res = 0.0, ss_tot = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double r = y[i] - (line.intercept + line.slope * x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - my) * (y[i] - my);
  }
  fit.r2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : 1.0;

  Rng rng(seed, 0);
  std::vector<double> bx(count), by(count), slopes;
  slopes.reserve(static_cast<size_t>(resamples));
  // A draw with a single distinct n happens with probability about
  // distinct * (1/distinct)^count; the cap only guards degenerate input.
  const int64_t max_draws = int64_t{100} * resamples;
  for (int64_t draw = 0; static_cast<int>(slopes.size()) < resamples; ++draw) {
    if (draw >= max_draws) {
      throw std::invalid_argument("FitPowerLaw: resamples keep collapsing to one n");
    }
    for (size_t i = 0; i < count; ++i) {
      const size_t j = static_cast<size_t>(rng.UniformInt(0, count - 1));
      bx[i] = x[j];
      by[i] = y[j];
    }
    const Line b = FitLine(bx, by, nullptr);
    if (b.ok) slopes.push_back(b.slope);
  }
  fit.exponent_ci = PercentileInterval(std::move(slopes), level);
  return fit;
}

const char* ComplexityName(ComplexityClass c) {
  switch (c) {
    case ComplexityClass::kConstant: return "O(1)";
    case ComplexityClass::kLogN: return "O(log n)";
    case ComplexityClass::kSqrtN: return "O(n^0.5)";
    case ComplexityClass::kN: return "O(n)";
    case ComplexityClass::kNLogN: return "O(n log n)";
    case ComplexityClass::kN2: return "O(n^2)";
    case ComplexityClass::kN3: return "O(n^3)";
  }
  return "O(?)";
}

double ComplexityBasis(ComplexityClass c, double n) {
  switch (c) {
    case ComplexityClass::kConstant: return 1.0;
    case ComplexityClass::kLogN: return std::log2(n);
    case ComplexityClass::kSqrtN: return std::sqrt(n);
    case ComplexityClass::kN: return n;
    case ComplexityClass::kNLogN: return n * std::log2(n);
    case ComplexityClass::kN2: return n * n;
    case ComplexityClass::kN3: return n * n * n;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

ClassFit SelectComplexity(std::span<const double> n, std::span<const double> cost) {
  RequireInputs(n, cost, 5, /*n_at_least_one=*/true, "SelectComplexity");
  const size_t count = n.size();
  const double big_n = static_cast<double>(count);
  std::vector<double> w(count), g(count);
  for (size_t i = 0; i < count; ++i) w[i] = 1.0 / (cost[i] * cost[i]);
  const double rss_floor = big_n * 1e-20;

  ClassFit out;
  double best_aicc = std::numeric_limits<double>::infinity();
  for (ComplexityClass c : kAllClasses) {
    double a = 0.0, b = 0.0;
    int k = 3;  // a, b and the residual variance.
    if (c == ComplexityClass::kConstant) {
      // Weighted mean: minimises sum ((cost - a) / cost)^2.
      double sw = 0.0, swc = 0.0;
      for (size_t i = 0; i < count; ++i) {
        sw += w[i];
        swc += w[i] * cost[i];
      }
      a = swc / sw;
      k = 2;
    } else {
      for (size_t i = 0; i < count; ++i) g[i] = ComplexityBasis(c, n[i]);
      const Line line = FitLine(g, cost, w.data());
      if (!line.ok || line.slope < 0.0) continue;  // Not identifiable / not eligible.
      a = line.intercept;
      b = line.slope;
    }
    double rss = 0.0;
    for (size_t i = 0; i < count; ++i) {
      const double fit = c == ComplexityClass::kConstant ? a : a + b * g[i];
      const double r = (cost[i] - fit) / cost[i];
      rss += r * r;
    }
    const double kk = static_cast<double>(k);
    const double aicc = big_n * std::log(std::max(rss, rss_floor) / big_n) + 2.0 * kk +
                        2.0 * kk * (kk + 1.0) / (big_n - kk - 1.0);
    out.aicc.emplace_back(c, aicc);
    if (aicc < best_aicc) {  // Strict: ties keep the simpler class.
      best_aicc = aicc;
      out.best = c;
      out.a = a;
      out.b = b;
      out.rss = rss;
    }
  }
  out.aicc_margin = std::numeric_limits<double>::infinity();
  for (const auto& [c, aicc] : out.aicc) {
    if (c != out.best) out.aicc_margin = std::min(out.aicc_margin, aicc - best_aicc);
  }
  return out;
}

}  // namespace cb::harness

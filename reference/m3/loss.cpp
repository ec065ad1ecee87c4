// File: reference/m3/loss.cpp
#include "reference/m3/loss.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace cb::ref::m3 {
namespace {
constexpr double kCosEps = 1e-8;
}

double CosineSimilarity(const double* x, const double* y, int dim) {
  double xy = 0, xx = 0, yy = 0;
  for (int k = 0; k < dim; ++k) xy += x[k] * y[k], xx += x[k] * x[k], yy += y[k] * y[k];
  return xy / std::max(std::sqrt(xx) * std::sqrt(yy), kCosEps);
}

FeatureDistance CosineMseLoss(const double* pred, const double* gt, int64_t pixels, int dim, bool masked,
                              double* dpred) {
  if (dim < 1) throw std::invalid_argument("CosineMseLoss: dim must be >= 1");
  std::vector<char> valid(size_t(pixels), 1);
  FeatureDistance d;
  for (int64_t p = 0; p < pixels; ++p) {
    if (masked) {
      double sum = 0.0;
      for (int k = 0; k < dim; ++k) sum += gt[p * dim + k];
      valid[p] = sum != 0.0;
    }
    d.valid += valid[p];
  }
  if (d.valid == 0) throw std::invalid_argument("CosineMseLoss: no valid pixel (every target is zero)");
  const double nv = double(d.valid);
  if (dpred) std::fill(dpred, dpred + pixels * dim, 0.0);
  for (int64_t p = 0; p < pixels; ++p) {
    if (!valid[p]) continue;
    const double* x = pred + p * dim;
    const double* y = gt + p * dim;
    double xy = 0, xx = 0, yy = 0, se = 0;
    for (int k = 0; k < dim; ++k) {
      xy += x[k] * y[k], xx += x[k] * x[k], yy += y[k] * y[k];
      se += (x[k] - y[k]) * (x[k] - y[k]);
    }
    const double nx = std::sqrt(xx), ny = std::sqrt(yy), den = nx * ny;
    const double cos = xy / std::max(den, kCosEps);
    d.cosine += (1.0 - cos) / nv;
    d.mse += se / (nv * dim);
    if (!dpred) continue;
    double* g = dpred + p * dim;
    for (int k = 0; k < dim; ++k) {
      // d(-cos)/dx = -(y / den - cos x / |x|²) where den > eps.
      const double dcos = den > kCosEps ? y[k] / den - cos * x[k] / xx : y[k] / kCosEps;
      g[k] = -dcos / nv + 2.0 * (x[k] - y[k]) / (nv * dim);
    }
  }
  return d;
}

}  // namespace cb::ref::m3

// File: reference/m3/splat.cpp
#include "reference/m3/splat.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::ref::m3 {

Conic ConicOf(const Gaussian2D& g) {
  // Σ = R diag(sx², sy²) Rᵀ; its inverse R diag(1/sx², 1/sy²) Rᵀ.
  const double c = std::cos(g.rot), s = std::sin(g.rot);
  const double ix = 1.0 / (g.sx * g.sx), iy = 1.0 / (g.sy * g.sy);
  return {c * c * ix + s * s * iy, c * s * (ix - iy), s * s * ix + c * c * iy};
}

SplatWeights ComputeSplatWeights(const std::vector<Gaussian2D>& gaussians, const View& view) {
  if (view.width < 1 || view.height < 1) throw std::invalid_argument("ComputeSplatWeights: empty view");
  std::vector<Conic> conic;
  for (size_t i = 0; i < gaussians.size(); ++i) {
    const Gaussian2D& g = gaussians[i];
    if (!(g.sx > 0 && g.sy > 0 && g.opacity > 0 && g.opacity <= 1))
      throw std::invalid_argument("ComputeSplatWeights: Gaussian " + std::to_string(i) +
                                  " needs sx, sy > 0 and opacity in (0, 1]");
    conic.push_back(ConicOf(g));
  }
  SplatWeights w;
  w.pixels = view.Pixels();
  w.offset.reserve(w.pixels + 1);
  w.offset.push_back(0);
  for (int i = 0; i < view.height; ++i) {
    for (int j = 0; j < view.width; ++j) {
      const double px = view.x0 + j, py = view.y0 + i;
      double t = 1.0;
      for (size_t k = 0; k < gaussians.size(); ++k) {
        const double dx = px - gaussians[k].x, dy = py - gaussians[k].y;
        const double power = -0.5 * (conic[k].a * dx * dx + 2.0 * conic[k].b * dx * dy + conic[k].c * dy * dy);
        if (power > 0.0) continue;
        const double alpha = std::min(kMaxAlpha, gaussians[k].opacity * std::exp(power));
        if (alpha < kMinAlpha) continue;
        const double next = t * (1.0 - alpha);
        if (next < kMinTransmittance) break;
        w.gaussian.push_back(int(k));
        w.weight.push_back(alpha * t);
        t = next;
      }
      w.offset.push_back(int64_t(w.gaussian.size()));
    }
  }
  return w;
}

void Composite(const SplatWeights& w, const double* values, int c, double* out) {
  for (int64_t p = 0; p < w.pixels; ++p) {
    double* o = out + p * c;
    for (int k = 0; k < c; ++k) o[k] = 0.0;
    for (int64_t e = w.offset[p]; e < w.offset[p + 1]; ++e) {
      const double* v = values + size_t(w.gaussian[e]) * c;
      for (int k = 0; k < c; ++k) o[k] += w.weight[e] * v[k];
    }
  }
}

void CompositeTranspose(const SplatWeights& w, const double* dout, int c, double* dvalues) {
  for (int64_t p = 0; p < w.pixels; ++p) {
    const double* g = dout + p * c;
    for (int64_t e = w.offset[p]; e < w.offset[p + 1]; ++e) {
      double* dv = dvalues + size_t(w.gaussian[e]) * c;
      for (int k = 0; k < c; ++k) dv[k] += w.weight[e] * g[k];
    }
  }
}

}  // namespace cb::ref::m3

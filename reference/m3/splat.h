// File: reference/m3/splat.h
// -----------------------------------------------------------------------------
// A 2-D (image-plane) Gaussian splatting renderer: the part of 3DGS that M3's
// memory rides on, without the projection from 3-D. Each Gaussian has a
// centre, a covariance (scales and a rotation), an opacity and a value row (a
// query q_i of c channels for M3, a full feature f_i for the F-3DGS-style
// baseline). A pixel composites the values front to back (the vector's order
// is the depth order):
//
//   α_i = min(0.99, o_i exp(-½ dᵀ Σ_i⁻¹ d)),  d = pixel centre - μ_i
//   V_p = Σ_i v_i α_i T_i,                    T_i = Π_{j<i} (1 - α_j)
//
// with 3DGS's rasteriser conventions: a Gaussian with α < 1/255 is skipped,
// and compositing stops before the Gaussian that would take T below 1e-4.
// Pixel (i, j) of a view with origin (x0, y0) has its centre at canvas
// coordinates (x0 + j, y0 + i).
//
// Geometry is fixed after initialisation here (the values are what M3 and
// the baseline learn), so the compositing weights α_i T_i of a view are a
// sparse (pixels, gaussians) matrix: SplatWeights() computes it once,
// Composite() is the forward and CompositeTranspose() the backward.
#ifndef CB_REFERENCE_M3_SPLAT_H_
#define CB_REFERENCE_M3_SPLAT_H_

#include <cstdint>
#include <vector>

namespace cb::ref::m3 {

struct Gaussian2D {
  double x = 0, y = 0;          // centre, canvas pixels
  double sx = 1, sy = 1;        // standard deviations along the rotated axes
  double rot = 0;               // radians
  double opacity = 0.5;         // o in (0, 1]
};

struct View {
  int x0 = 0, y0 = 0, width = 0, height = 0;
  int64_t Pixels() const { return int64_t(width) * height; }
};

inline constexpr double kMinAlpha = 1.0 / 255.0;
inline constexpr double kMaxAlpha = 0.99;
inline constexpr double kMinTransmittance = 1e-4;

// Σ⁻¹ as (a, b, c): power = -½ (a dx² + 2 b dx dy + c dy²).
struct Conic {
  double a = 0, b = 0, c = 0;
};
Conic ConicOf(const Gaussian2D& g);

// The compositing weights α_i T_i of every pixel, CSR by pixel (row-major
// pixels), each row in front-to-back order.
struct SplatWeights {
  int64_t pixels = 0;
  std::vector<int64_t> offset;  // pixels + 1
  std::vector<int> gaussian;
  std::vector<double> weight;
};

// REQUIRES (else std::invalid_argument): view width, height >= 1; every
// Gaussian with sx, sy > 0 and opacity in (0, 1].
SplatWeights ComputeSplatWeights(const std::vector<Gaussian2D>& gaussians, const View& view);

// out (pixels, c) = W values, values (gaussians, c).
void Composite(const SplatWeights& w, const double* values, int c, double* out);
// dvalues (gaussians, c) += Wᵀ dout, dout (pixels, c).
void CompositeTranspose(const SplatWeights& w, const double* dout, int c, double* dvalues);

}  // namespace cb::ref::m3

#endif  // CB_REFERENCE_M3_SPLAT_H_

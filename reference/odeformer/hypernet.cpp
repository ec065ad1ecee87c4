// File: reference/odeformer/hypernet.cpp
// -----------------------------------------------------------------------------
// Hypernetworks, forward and backward (hypernet.h).
#include "reference/odeformer/hypernet.h"

#include <cmath>

namespace cb::ref::odeformer::internal {
namespace {

double Silu(double y) { return y / (1.0 + std::exp(-y)); }
double SiluGrad(double y) {
  const double sg = 1.0 / (1.0 + std::exp(-y));
  return sg * (1.0 + y * (1.0 - sg));
}

// y = lin1 s [T] (pre-activation), z = silu(y) [T].
void Hidden(const HyperNet& net, std::span<const double> s, std::vector<double>& y,
            std::vector<double>& z) {
  const size_t T = net.lin1_b.size(), F = s.size();
  y.assign(T, 0.0);
  z.assign(T, 0.0);
  for (size_t k = 0; k < T; ++k) {
    double a = net.lin1_b[k];
    for (size_t f = 0; f < F; ++f) a += net.lin1_w[k * F + f] * s[f];
    y[k] = a;
    z[k] = Silu(a);
  }
}

// dh [T] -> the hypernetwork's parameter gradients.
void HyperBackward(const HyperNet& net, std::span<const double> s, std::span<const double> dh,
                   HyperNet& g) {
  const size_t T = net.lin1_b.size(), F = s.size();
  std::vector<double> y, z;
  Hidden(net, s, y, z);
  std::vector<double> dz(T, 0.0);
  for (size_t k = 0; k < T; ++k) {
    g.lin2_b[k] += dh[k];
    for (size_t j = 0; j < T; ++j) {
      g.lin2_w[k * T + j] += dh[k] * z[j];
      dz[j] += dh[k] * net.lin2_w[k * T + j];
    }
  }
  for (size_t k = 0; k < T; ++k) {
    const double dy = dz[k] * SiluGrad(y[k]);
    g.lin1_b[k] += dy;
    for (size_t f = 0; f < F; ++f) g.lin1_w[k * F + f] += dy * s[f];
  }
}

// out[r] = base + sum_k m[r*T + k] h[k] for r < rows.
void Affine(std::span<const double> m, std::span<const double> h, size_t rows, double base,
            std::span<const double> bias, std::vector<double>& out) {
  const size_t T = h.size();
  out.assign(rows, base);
  for (size_t r = 0; r < rows; ++r) {
    double a = bias.empty() ? base : bias[r];
    for (size_t k = 0; k < T; ++k) a += m[r * T + k] * h[k];
    out[r] = a;
  }
}

// dm[r*T + k] += d[r] h[k];  dh[k] += sum_r d[r] m[r*T + k]
void AffineBackward(std::span<const double> m, std::span<const double> h, std::span<const double> d,
                    std::span<double> dm, std::span<double> dh) {
  const size_t T = h.size();
  for (size_t r = 0; r < d.size(); ++r) {
    if (d[r] == 0.0) continue;
    for (size_t k = 0; k < T; ++k) {
      dm[r * T + k] += d[r] * h[k];
      dh[k] += d[r] * m[r * T + k];
    }
  }
}

}  // namespace

std::vector<double> HyperForward(const HyperNet& net, std::span<const double> s) {
  const size_t T = net.lin2_b.size();
  std::vector<double> y, z;
  Hidden(net, s, y, z);
  std::vector<double> h(T);
  for (size_t k = 0; k < T; ++k) {
    double a = net.lin2_b[k];
    for (size_t j = 0; j < T; ++j) a += net.lin2_w[k * T + j] * z[j];
    h[k] = a;
  }
  return h;
}

void LinearAt(const TemporalLinear& l, std::span<const double> s, std::vector<double>& w,
              std::vector<double>& b) {
  const std::vector<double> h = HyperForward(l.hyper, s);
  Affine(l.fw_w, h, size_t(l.out) * l.in, 0.0, l.fw_b, w);
  Affine(l.fb, h, size_t(l.out), 0.0, {}, b);
}

void NormAt(const TemporalLayerNorm& l, std::span<const double> s, std::vector<double>& gamma,
            std::vector<double>& beta) {
  const std::vector<double> h = HyperForward(l.hyper, s);
  const size_t D = l.fw.size() / h.size();
  Affine(l.fw, h, D, 1.0, {}, gamma);
  Affine(l.fb, h, D, 0.0, {}, beta);
}

void LinearBackward(const TemporalLinear& l, std::span<const double> s, std::span<const double> dw,
                    std::span<const double> db, TemporalLinear& g) {
  const std::vector<double> h = HyperForward(l.hyper, s);
  std::vector<double> dh(h.size(), 0.0);
  for (size_t r = 0; r < dw.size(); ++r) g.fw_b[r] += dw[r];
  AffineBackward(l.fw_w, h, dw, g.fw_w, dh);
  AffineBackward(l.fb, h, db, g.fb, dh);
  HyperBackward(l.hyper, s, dh, g.hyper);
}

void NormBackward(const TemporalLayerNorm& l, std::span<const double> s,
                  std::span<const double> dgamma, std::span<const double> dbeta,
                  TemporalLayerNorm& g) {
  const std::vector<double> h = HyperForward(l.hyper, s);
  std::vector<double> dh(h.size(), 0.0);
  AffineBackward(l.fw, h, dgamma, g.fw, dh);
  AffineBackward(l.fb, h, dbeta, g.fb, dh);
  HyperBackward(l.hyper, s, dh, g.hyper);
}

}  // namespace cb::ref::odeformer::internal

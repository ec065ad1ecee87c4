// File: reference/lm/transformer_ops.h
// -----------------------------------------------------------------------------
// The layer primitives of the fp64 reference transformer (transformer.h), each
// with its hand-derived backward beside it: Linear, RMSNorm, RoPE (and its
// transpose), SiLU. Plain loops, row-major, fp64. Internal to reference/lm.
#ifndef CB_REFERENCE_LM_TRANSFORMER_OPS_H_
#define CB_REFERENCE_LM_TRANSFORMER_OPS_H_

#include <cmath>
#include <cstddef>
#include <vector>

namespace cb::ref::lm::ops {

// Linear, y += x W^T (torch's F.linear without bias, ADDED to y).
//   x [T, in], W [out, in], y [T, out]
inline void Linear(const double* x, const double* W, int T, int in, int out, double* y) {
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < out; ++o) {
      double s = 0;
      for (int i = 0; i < in; ++i) s += W[static_cast<size_t>(o) * in + i] * x[static_cast<size_t>(t) * in + i];
      y[static_cast<size_t>(t) * out + o] += s;
    }
}

// Backward of y = x W^T: dx += dy W, dW += dy^T x.
//   dy [T, out], x [T, in], W [out, in], dx [T, in] (may be null), dW [out, in]
inline void LinearBackward(const double* dy, const double* x, const double* W, int T, int in,
                           int out, double* dx, double* dW) {
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < out; ++o) {
      const double g = dy[static_cast<size_t>(t) * out + o];
      for (int i = 0; i < in; ++i) {
        if (dx) dx[static_cast<size_t>(t) * in + i] += g * W[static_cast<size_t>(o) * in + i];
        dW[static_cast<size_t>(o) * in + i] += g * x[static_cast<size_t>(t) * in + i];
      }
    }
}

// RMSNorm (LlamaRMSNorm): r_t = 1 / sqrt(mean_i x_ti^2 + eps), y_ti = w_i x_ti r_t.
//   x [T, D], w [D] -> y [T, D], r [T]
inline void RmsNorm(const double* x, const double* w, int T, int D, double eps,
                    std::vector<double>* y, std::vector<double>* r) {
  y->assign(static_cast<size_t>(T) * D, 0.0);
  r->assign(T, 0.0);
  for (int t = 0; t < T; ++t) {
    const double* xt = x + static_cast<size_t>(t) * D;
    double ms = 0;
    for (int i = 0; i < D; ++i) ms += xt[i] * xt[i];
    (*r)[t] = 1.0 / std::sqrt(ms / D + eps);
    for (int i = 0; i < D; ++i) (*y)[static_cast<size_t>(t) * D + i] = w[i] * xt[i] * (*r)[t];
  }
}

// Backward of RMSNorm. With g_i = w_i dy_i and dr/dx_j = -r^3 x_j / D:
//   dx_j += r g_j - r^3 x_j (sum_i g_i x_i) / D,   dw_i += dy_i x_i r.
//   dy [T, D], x [T, D], w [D], r [T], dx [T, D], dw [D]
inline void RmsNormBackward(const double* dy, const double* x, const double* w, const double* r,
                            int T, int D, double* dx, double* dw) {
  for (int t = 0; t < T; ++t) {
    const double* dyt = dy + static_cast<size_t>(t) * D;
    const double* xt = x + static_cast<size_t>(t) * D;
    const double rt = r[t];
    double gx = 0;
    for (int i = 0; i < D; ++i) gx += w[i] * dyt[i] * xt[i];
    for (int i = 0; i < D; ++i) {
      dx[static_cast<size_t>(t) * D + i] += rt * w[i] * dyt[i] - rt * rt * rt * xt[i] * gx / D;
      dw[i] += dyt[i] * xt[i] * rt;
    }
  }
}

// RoPE in HF's rotate_half layout, in place on one head vector v [d] at
// position `pos`. With h = d/2, f_i = pos * theta^(-2i/d) for i < h and
// c_i = cos f_{i mod h}, s_i = sin f_{i mod h} (cat(freqs, freqs)):
//   v'_i = v_i c_i - v_{i+h} s_i   (i <  h)     [rotate_half(v)_i = -v_{i+h}]
//   v'_i = v_i c_i + v_{i-h} s_i   (i >= h)     [rotate_half(v)_i =  v_{i-h}]
// i.e. a rotation by f_i of each pair (v_i, v_{i+h}). sign = -1 applies the
// inverse rotation, which is the transpose: the backward of RoPE.
inline void Rope(double* v, int d, int pos, double theta, int sign) {
  const int h = d / 2;
  for (int i = 0; i < h; ++i) {
    const double inv_freq = std::pow(theta, -2.0 * i / d);
    const double f = pos * inv_freq;
    const double c = std::cos(f), s = sign * std::sin(f);
    const double a = v[i], b = v[i + h];
    v[i] = a * c - b * s;
    v[i + h] = b * c + a * s;
  }
}

// SiLU z * sigmoid(z) and its derivative sigmoid(z) (1 + z (1 - sigmoid(z))).
inline double Sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
inline double Silu(double z) { return z * Sigmoid(z); }
inline double SiluGrad(double z) {
  const double s = Sigmoid(z);
  return s * (1.0 + z * (1.0 - s));
}

}  // namespace cb::ref::lm::ops

#endif  // CB_REFERENCE_LM_TRANSFORMER_OPS_H_

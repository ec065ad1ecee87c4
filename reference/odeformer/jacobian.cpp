// File: reference/odeformer/jacobian.cpp
// -----------------------------------------------------------------------------
// The analytic row Jacobian of the parallel block (jacobian.h).
#include "reference/odeformer/jacobian.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "reference/odeformer/block.h"

namespace cb::ref::odeformer {
namespace {

// P [D, D] = dLN(x)/dx for one row.
std::vector<double> LayerNormJacobian(std::span<const double> gamma, const double* xhat,
                                      double rstd, int D) {
  std::vector<double> p(size_t(D) * D);
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b)
      p[size_t(a) * D + b] =
          gamma[a] * rstd * ((a == b ? 1.0 : 0.0) - 1.0 / D - xhat[a] * xhat[b] / D);
  return p;
}

// out [D, D] += m [D, D] p [D, D]
void MatMulAdd(const std::vector<double>& m, const std::vector<double>& p, int D, double* out) {
  for (int a = 0; a < D; ++a)
    for (int c = 0; c < D; ++c) {
      const double mac = m[size_t(a) * D + c];
      if (mac == 0.0) continue;
      for (int b = 0; b < D; ++b) out[size_t(a) * D + b] += mac * p[size_t(c) * D + b];
    }
}

}  // namespace

std::vector<double> RowJacobian(const OdeConfig& c, const BlockWeights& w,
                                std::span<const double> x, int n, int j) {
  if (j < 0 || j >= n) throw std::invalid_argument("odeformer jacobian: row out of range");
  const int D = c.hidden_size, H = c.num_heads, d = c.HeadSize(), I = c.mlp_size;
  const double s = 1.0 / std::sqrt(double(d));
  internal::BlockActs A;
  internal::BlockForward(c, w, x, n, &A);
  auto q = [&](int t, int h) { return &A.qkv[size_t(t) * 3 * D + h * d]; };
  auto k = [&](int t, int h) { return &A.qkv[size_t(t) * 3 * D + D + h * d]; };
  auto v = [&](int t, int h) { return &A.qkv[size_t(t) * 3 * D + 2 * D + h * d]; };
  auto wrow = [&](int part, int h, int e) { return &w.w_qkv[(size_t(part) * D + h * d + e) * D]; };

  std::vector<double> J(size_t(n) * D * D, 0.0);
  std::vector<double> G(size_t(d) * D), M(size_t(D) * D);
  for (int kk = 0; kk <= j; ++kk) {
    std::fill(M.begin(), M.end(), 0.0);
    for (int h = 0; h < H; ++h) {
      const double* p = &A.probs[(size_t(h) * n + j) * n];
      const double* o = &A.o[size_t(j) * D + h * d];
      // wk_q [D] = W_k^hT q_j
      std::vector<double> wkq(D, 0.0);
      for (int e = 0; e < d; ++e)
        for (int b = 0; b < D; ++b) wkq[b] += wrow(1, h, e)[b] * q(j, h)[e];
      for (int e = 0; e < d; ++e)
        for (int b = 0; b < D; ++b)
          G[size_t(e) * D + b] = p[kk] * wrow(2, h, e)[b] + s * p[kk] * (v(kk, h)[e] - o[e]) * wkq[b];
      if (kk == j)
        for (int u = 0; u <= j; ++u) {
          std::vector<double> wqk(D, 0.0);  // W_q^hT k_u
          for (int e = 0; e < d; ++e)
            for (int b = 0; b < D; ++b) wqk[b] += wrow(0, h, e)[b] * k(u, h)[e];
          for (int e = 0; e < d; ++e)
            for (int b = 0; b < D; ++b) G[size_t(e) * D + b] += s * p[u] * (v(u, h)[e] - o[e]) * wqk[b];
        }
      for (int a = 0; a < D; ++a)
        for (int e = 0; e < d; ++e) {
          const double woe = w.w_o[size_t(a) * D + h * d + e];
          for (int b = 0; b < D; ++b) M[size_t(a) * D + b] += woe * G[size_t(e) * D + b];
        }
    }
    double* Jk = &J[size_t(kk) * D * D];
    MatMulAdd(M, LayerNormJacobian(w.ln_a_g, &A.ln_a.xhat[size_t(kk) * D], A.ln_a.rstd[kk], D), D, Jk);
  }

  // MLP: W_p diag(gelu'(u_j)) W_fc P^m_j.
  std::fill(M.begin(), M.end(), 0.0);
  for (int a = 0; a < D; ++a)
    for (int i = 0; i < I; ++i) {
      const double wg = w.w_p[size_t(a) * I + i] * GeluTanhGrad(A.u[size_t(j) * I + i]);
      for (int b = 0; b < D; ++b) M[size_t(a) * D + b] += wg * w.w_fc[size_t(i) * D + b];
    }
  MatMulAdd(M, LayerNormJacobian(w.ln_m_g, &A.ln_m.xhat[size_t(j) * D], A.ln_m.rstd[j], D), D,
            &J[size_t(j) * D * D]);
  return J;
}

}  // namespace cb::ref::odeformer

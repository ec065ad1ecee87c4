// File: reference/odeformer/block.cpp
// -----------------------------------------------------------------------------
// The parallel block, forward and backward, in plain fp64 loops (block.h).
#include "reference/odeformer/block.h"

#include <algorithm>
#include <cmath>

namespace cb::ref::odeformer::internal {

void LayerNormForward(std::span<const double> x, int n, int d, std::span<const double> gamma,
                      std::span<const double> beta, double eps, std::vector<double>& y,
                      LayerNormActs* acts) {
  y.assign(size_t(n) * d, 0.0);
  if (acts) {
    acts->xhat.assign(size_t(n) * d, 0.0);
    acts->rstd.assign(n, 0.0);
  }
  for (int t = 0; t < n; ++t) {
    const double* xt = &x[size_t(t) * d];
    double mean = 0;
    for (int i = 0; i < d; ++i) mean += xt[i];
    mean /= d;
    double var = 0;
    for (int i = 0; i < d; ++i) var += (xt[i] - mean) * (xt[i] - mean);
    var /= d;
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int i = 0; i < d; ++i) {
      const double xh = (xt[i] - mean) * rstd;
      y[size_t(t) * d + i] = gamma[i] * xh + beta[i];
      if (acts) acts->xhat[size_t(t) * d + i] = xh;
    }
    if (acts) acts->rstd[t] = rstd;
  }
}

void LayerNormBackward(std::span<const double> dy, const LayerNormActs& acts, int n, int d,
                       std::span<const double> gamma, std::span<double> dx,
                       std::span<double> dgamma, std::span<double> dbeta) {
  for (int t = 0; t < n; ++t) {
    const double* xh = &acts.xhat[size_t(t) * d];
    const double* g = &dy[size_t(t) * d];
    // dxhat = dy * gamma; dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat))
    double mean_dxh = 0, mean_dxh_xh = 0;
    for (int i = 0; i < d; ++i) {
      const double dxh = g[i] * gamma[i];
      mean_dxh += dxh;
      mean_dxh_xh += dxh * xh[i];
      if (!dgamma.empty()) dgamma[i] += g[i] * xh[i];
      if (!dbeta.empty()) dbeta[i] += g[i];
    }
    mean_dxh /= d;
    mean_dxh_xh /= d;
    for (int i = 0; i < d; ++i)
      dx[size_t(t) * d + i] += acts.rstd[t] * (g[i] * gamma[i] - mean_dxh - xh[i] * mean_dxh_xh);
  }
}

namespace {

// y [N, out] = x [N, in] W^T + b
void Linear(std::span<const double> x, int n, int in, std::span<const double> w,
            std::span<const double> b, int out, std::vector<double>& y) {
  y.assign(size_t(n) * out, 0.0);
  for (int t = 0; t < n; ++t)
    for (int o = 0; o < out; ++o) {
      double s = b[o];
      for (int i = 0; i < in; ++i) s += w[size_t(o) * in + i] * x[size_t(t) * in + i];
      y[size_t(t) * out + o] = s;
    }
}

// dx += dy W; dW += dy^T x; db += sum_t dy
void LinearBackward(std::span<const double> dy, std::span<const double> x, int n, int in,
                    std::span<const double> w, int out, std::span<double> dx, std::span<double> dw,
                    std::span<double> db) {
  for (int t = 0; t < n; ++t)
    for (int o = 0; o < out; ++o) {
      const double g = dy[size_t(t) * out + o];
      db[o] += g;
      for (int i = 0; i < in; ++i) {
        dw[size_t(o) * in + i] += g * x[size_t(t) * in + i];
        dx[size_t(t) * in + i] += g * w[size_t(o) * in + i];
      }
    }
}

}  // namespace

BlockWeights ZeroBlockWeights(const OdeConfig& c) {
  const size_t D = c.hidden_size, I = c.mlp_size;
  BlockWeights w;
  w.ln_a_g.assign(D, 0.0);
  w.ln_a_b.assign(D, 0.0);
  w.w_qkv.assign(3 * D * D, 0.0);
  w.b_qkv.assign(3 * D, 0.0);
  w.w_o.assign(D * D, 0.0);
  w.b_o.assign(D, 0.0);
  w.ln_m_g.assign(D, 0.0);
  w.ln_m_b.assign(D, 0.0);
  w.w_fc.assign(I * D, 0.0);
  w.b_fc.assign(I, 0.0);
  w.w_p.assign(D * I, 0.0);
  w.b_p.assign(D, 0.0);
  return w;
}

std::vector<double> BlockForward(const OdeConfig& c, const BlockWeights& w,
                                 std::span<const double> x, int n, BlockActs* acts) {
  const int D = c.hidden_size, H = c.num_heads, d = c.HeadSize(), I = c.mlp_size;
  BlockActs local;
  BlockActs& A = acts ? *acts : local;
  LayerNormForward(x, n, D, w.ln_a_g, w.ln_a_b, c.ln_eps, A.a, &A.ln_a);
  LayerNormForward(x, n, D, w.ln_m_g, w.ln_m_b, c.ln_eps, A.m, &A.ln_m);

  // Attention.
  Linear(A.a, n, D, w.w_qkv, w.b_qkv, 3 * D, A.qkv);
  A.probs.assign(size_t(H) * n * n, 0.0);
  A.o.assign(size_t(n) * D, 0.0);
  const double scale = 1.0 / std::sqrt(double(d));
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < n; ++t) {
      const double* q = &A.qkv[size_t(t) * 3 * D + h * d];
      double* p = &A.probs[(size_t(h) * n + t) * n];
      double mx = -INFINITY;
      for (int u = 0; u <= t; ++u) {
        const double* k = &A.qkv[size_t(u) * 3 * D + D + h * d];
        double s = 0;
        for (int e = 0; e < d; ++e) s += q[e] * k[e];
        p[u] = s * scale;
        mx = std::max(mx, p[u]);
      }
      double z = 0;
      for (int u = 0; u <= t; ++u) z += (p[u] = std::exp(p[u] - mx));
      for (int u = 0; u <= t; ++u) p[u] /= z;
      double* o = &A.o[size_t(t) * D + h * d];
      for (int u = 0; u <= t; ++u) {
        const double* v = &A.qkv[size_t(u) * 3 * D + 2 * D + h * d];
        for (int e = 0; e < d; ++e) o[e] += p[u] * v[e];
      }
    }
  std::vector<double> attn;
  Linear(A.o, n, D, w.w_o, w.b_o, D, attn);

  // MLP.
  Linear(A.m, n, D, w.w_fc, w.b_fc, I, A.u);
  A.g.resize(A.u.size());
  for (size_t i = 0; i < A.u.size(); ++i) A.g[i] = GeluTanh(A.u[i]);
  std::vector<double> mlp;
  Linear(A.g, n, I, w.w_p, w.b_p, D, mlp);

  for (size_t i = 0; i < attn.size(); ++i) attn[i] += mlp[i];
  return attn;
}

void BlockBackward(const OdeConfig& c, const BlockWeights& w, const BlockActs& A,
                   std::span<const double> dF, int n, std::span<double> dx, BlockWeights& dw) {
  const int D = c.hidden_size, H = c.num_heads, d = c.HeadSize(), I = c.mlp_size;
  const double scale = 1.0 / std::sqrt(double(d));

  // MLP branch.
  std::vector<double> dg(size_t(n) * I, 0.0), dm(size_t(n) * D, 0.0);
  LinearBackward(dF, A.g, n, I, w.w_p, D, dg, dw.w_p, dw.b_p);
  for (size_t i = 0; i < dg.size(); ++i) dg[i] *= GeluTanhGrad(A.u[i]);
  LinearBackward(dg, A.m, n, D, w.w_fc, I, dm, dw.w_fc, dw.b_fc);
  LayerNormBackward(dm, A.ln_m, n, D, w.ln_m_g, dx, dw.ln_m_g, dw.ln_m_b);

  // Attention branch.
  std::vector<double> d_o(size_t(n) * D, 0.0), dqkv(size_t(n) * 3 * D, 0.0), da(size_t(n) * D, 0.0);
  LinearBackward(dF, A.o, n, D, w.w_o, D, d_o, dw.w_o, dw.b_o);
  std::vector<double> dp(n);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < n; ++t) {
      const double* p = &A.probs[(size_t(h) * n + t) * n];
      const double* g = &d_o[size_t(t) * D + h * d];
      // dv_u += p_tu g;  dp_u = g . v_u;  ds_u = p_u (dp_u - sum_w p_w dp_w)
      double pdp = 0;
      for (int u = 0; u <= t; ++u) {
        const double* v = &A.qkv[size_t(u) * 3 * D + 2 * D + h * d];
        double* dv = &dqkv[size_t(u) * 3 * D + 2 * D + h * d];
        double s = 0;
        for (int e = 0; e < d; ++e) {
          s += g[e] * v[e];
          dv[e] += p[u] * g[e];
        }
        dp[u] = s;
        pdp += p[u] * s;
      }
      const double* q = &A.qkv[size_t(t) * 3 * D + h * d];
      double* dq = &dqkv[size_t(t) * 3 * D + h * d];
      for (int u = 0; u <= t; ++u) {
        const double ds = p[u] * (dp[u] - pdp) * scale;
        const double* k = &A.qkv[size_t(u) * 3 * D + D + h * d];
        double* dk = &dqkv[size_t(u) * 3 * D + D + h * d];
        for (int e = 0; e < d; ++e) {
          dq[e] += ds * k[e];
          dk[e] += ds * q[e];
        }
      }
    }
  LinearBackward(dqkv, A.a, n, D, w.w_qkv, 3 * D, da, dw.w_qkv, dw.b_qkv);
  LayerNormBackward(da, A.ln_a, n, D, w.ln_a_g, dx, dw.ln_a_g, dw.ln_a_b);
}

}  // namespace cb::ref::odeformer::internal

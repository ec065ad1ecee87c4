// File: reference/odeformer/odeformer_backward.cpp
// -----------------------------------------------------------------------------
// The hand-derived gradient of the neural-ODE transformer's loss (odeformer.h):
// back through the tied head and ln_f, then the Euler steps in reverse
//   x_{i+1} = x_i + dt F(t_i, x_i)  =>  dx_i = dx_{i+1} + dt (dF/dx)^T dx_{i+1},
//   dW(t_i) = dt * (dF/dW)^T dx_{i+1}
// and each step's weight gradient back through its hypernetworks
// (hypernet.h); the gradients of all steps add up in the shared parameters.
#include <cmath>
#include <stdexcept>

#include "reference/odeformer/block.h"
#include "reference/odeformer/hypernet.h"
#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer {

double OdeTransformer::LossAndGrad(std::span<const int> tokens, OdeParams& grad) const {
  const OdeConfig& c = config_;
  const int D = c.hidden_size, V = c.vocab_size, n = int(tokens.size()), L = c.num_steps;
  if (n < 2) throw std::invalid_argument("odeformer: a loss needs >= 2 tokens");
  const double dt = 1.0 / L;
  grad = ZeroParams(c);

  // Forward, keeping every step's input, weights and activations.
  std::vector<std::vector<double>> xs{Embed(tokens)};
  std::vector<BlockWeights> ws;
  std::vector<internal::BlockActs> acts(L);
  for (int i = 0; i < L; ++i) {
    ws.push_back(WeightsAt(StepTime(TimeGrid::kForward, i, dt)));
    const std::vector<double> f = internal::BlockForward(c, ws[i], xs[i], n, &acts[i]);
    std::vector<double> next = xs[i];
    for (size_t j = 0; j < next.size(); ++j) next[j] += dt * f[j];
    xs.push_back(std::move(next));
  }
  internal::LayerNormActs lnf;
  std::vector<double> xf;
  internal::LayerNormForward(xs[L], n, D, params_.lnf_w, params_.lnf_b, c.ln_eps, xf, &lnf);

  // Loss and the head.
  std::vector<double> dxf(size_t(n) * D, 0.0), logits(V);
  double loss = 0;
  for (int t = 0; t + 1 < n; ++t) {
    double mx = -INFINITY;
    for (int v = 0; v < V; ++v) {
      double s = 0;
      for (int i = 0; i < D; ++i) s += xf[size_t(t) * D + i] * params_.wte[size_t(v) * D + i];
      logits[v] = s;
      mx = std::max(mx, s);
    }
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(logits[v] - mx);
    loss += mx + std::log(z) - logits[tokens[t + 1]];
    for (int v = 0; v < V; ++v) {
      const double dl = (std::exp(logits[v] - mx) / z - (v == tokens[t + 1] ? 1.0 : 0.0)) / (n - 1);
      for (int i = 0; i < D; ++i) {
        dxf[size_t(t) * D + i] += dl * params_.wte[size_t(v) * D + i];
        grad.wte[size_t(v) * D + i] += dl * xf[size_t(t) * D + i];
      }
    }
  }
  std::vector<double> dx(size_t(n) * D, 0.0);
  internal::LayerNormBackward(dxf, lnf, n, D, params_.lnf_w, dx, grad.lnf_w, grad.lnf_b);

  // The Euler steps in reverse.
  for (int i = L - 1; i >= 0; --i) {
    std::vector<double> dF(dx.size());
    for (size_t j = 0; j < dx.size(); ++j) dF[j] = dt * dx[j];
    BlockWeights dw = internal::ZeroBlockWeights(c);
    internal::BlockBackward(c, ws[i], acts[i], dF, n, dx, dw);
    const std::vector<double> s = TimeFeatures(StepTime(TimeGrid::kForward, i, dt), c.sinusoidal_dim);
    internal::NormBackward(params_.attn_ln, s, dw.ln_a_g, dw.ln_a_b, grad.attn_ln);
    internal::NormBackward(params_.mlp_ln, s, dw.ln_m_g, dw.ln_m_b, grad.mlp_ln);
    internal::LinearBackward(params_.c_attn, s, dw.w_qkv, dw.b_qkv, grad.c_attn);
    internal::LinearBackward(params_.attn_proj, s, dw.w_o, dw.b_o, grad.attn_proj);
    internal::LinearBackward(params_.c_fc, s, dw.w_fc, dw.b_fc, grad.c_fc);
    internal::LinearBackward(params_.mlp_proj, s, dw.w_p, dw.b_p, grad.mlp_proj);
  }

  // Embeddings.
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < D; ++i) {
      grad.wte[size_t(tokens[t]) * D + i] += dx[size_t(t) * D + i];
      grad.wpe[size_t(t) * D + i] += dx[size_t(t) * D + i];
    }
  return loss / (n - 1);
}

}  // namespace cb::ref::odeformer

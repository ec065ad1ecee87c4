// File: reference/odeformer/lyapunov.cpp
// -----------------------------------------------------------------------------
// QR iteration for the as-implemented Lyapunov exponents (lyapunov.h).
#include "reference/odeformer/lyapunov.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/odeformer/jacobian.h"

namespace cb::ref::odeformer {

void HouseholderQr(std::vector<double>& a, int D, std::vector<double>& r_diag) {
  std::vector<std::vector<double>> vs(D);
  r_diag.assign(D, 0.0);
  for (int c = 0; c < D; ++c) {
    const double x0 = a[size_t(c) * D + c];
    double below = 0;  // ||a[c+1:, c]||^2
    for (int r = c + 1; r < D; ++r) below += a[size_t(r) * D + c] * a[size_t(r) * D + c];
    std::vector<double>& v = vs[c];
    if (below == 0.0) {  // LAPACK's dlarfg: tau = 0, no reflection, R_cc = a_cc
      r_diag[c] = x0;
      continue;
    }
    const double norm = std::sqrt(x0 * x0 + below);
    const double alpha = x0 >= 0 ? -norm : norm;
    v.assign(D - c, 0.0);
    for (int r = c; r < D; ++r) v[r - c] = a[size_t(r) * D + c];
    v[0] -= alpha;
    double vn = 0;
    for (double e : v) vn += e * e;
    vn = std::sqrt(vn);
    for (double& e : v) e /= vn;
    for (int col = c; col < D; ++col) {  // A[c:, c:] -= 2 v (v^T A[c:, c:])
      double dot = 0;
      for (int r = c; r < D; ++r) dot += v[r - c] * a[size_t(r) * D + col];
      for (int r = c; r < D; ++r) a[size_t(r) * D + col] -= 2 * v[r - c] * dot;
    }
    r_diag[c] = a[size_t(c) * D + c];
  }
  // Q = H_0 H_1 ... H_{D-1} applied to I.
  std::vector<double> q(size_t(D) * D, 0.0);
  for (int i = 0; i < D; ++i) q[size_t(i) * D + i] = 1.0;
  for (int c = D - 1; c >= 0; --c) {
    const std::vector<double>& v = vs[c];
    if (v.empty()) continue;
    for (int col = 0; col < D; ++col) {
      double dot = 0;
      for (int r = c; r < D; ++r) dot += v[r - c] * q[size_t(r) * D + col];
      for (int r = c; r < D; ++r) q[size_t(r) * D + col] -= 2 * v[r - c] * dot;
    }
  }
  a = std::move(q);
}

std::vector<double> TokenScores(const LyapunovResult& r) {
  std::vector<double> score(r.tokens);
  for (int k = 0; k < r.tokens; ++k) {
    double best = -std::numeric_limits<double>::infinity();
    for (int d = 0; d < r.dim; ++d) {
      double sum = 0;
      for (int i = 0; i < r.steps; ++i) sum += r.lambda[(size_t(i) * r.tokens + k) * r.dim + d];
      best = std::max(best, sum);
    }
    score[k] = best;
  }
  return score;
}

LyapunovResult LyapunovQr(int steps, int tokens, int dim, double dt,
                          const std::function<std::vector<double>(int step)>& jacobians) {
  const size_t DD = size_t(dim) * dim;
  LyapunovResult res{steps, tokens, dim, std::vector<double>(size_t(steps) * tokens * dim, 0.0),
                     std::vector<double>(tokens, 0.0)};
  std::vector<std::vector<double>> Q(tokens, std::vector<double>(DD, 0.0));
  for (auto& q : Q)
    for (int i = 0; i < dim; ++i) q[size_t(i) * dim + i] = 1.0;
  std::vector<double> r;
  for (int i = 0; i < steps; ++i) {
    const std::vector<double> J = jacobians(i);
    if (J.size() != size_t(tokens) * DD)
      throw std::invalid_argument("lyapunov: step " + std::to_string(i) + " gave " +
                                  std::to_string(J.size()) + " Jacobian values, expected " +
                                  std::to_string(size_t(tokens) * DD));
    for (int k = 0; k < tokens; ++k) {
      const double* Jk = &J[k * DD];
      std::vector<double> m = Q[k];  // Q + dt J Q
      for (int a = 0; a < dim; ++a)
        for (int c = 0; c < dim; ++c) {
          const double jac = Jk[size_t(a) * dim + c];
          if (jac == 0.0) continue;
          for (int b = 0; b < dim; ++b) m[size_t(a) * dim + b] += dt * jac * Q[k][size_t(c) * dim + b];
        }
      HouseholderQr(m, dim, r);
      Q[k] = std::move(m);
      for (int d = 0; d < dim; ++d)
        res.lambda[(size_t(i) * tokens + k) * dim + d] = std::log(std::abs(r[d]));
    }
  }
  res.score = TokenScores(res);
  return res;
}

LyapunovResult ModelLyapunov(const OdeTransformer& model, std::span<const int> tokens, int j,
                             int steps) {
  const int n = int(tokens.size());
  const int L = steps ? steps : model.config().num_steps;
  if (j < 0) j = n - 1;
  const double dt = 1.0 / L;
  const auto traj = model.Trajectory(model.Embed(tokens), n, L, TimeGrid::kForward);
  return LyapunovQr(L, n, model.config().hidden_size, dt, [&](int i) {
    return RowJacobian(model.config(), model.WeightsAt(StepTime(TimeGrid::kAnalysis, i, dt)),
                       traj[i], n, j);
  });
}

}  // namespace cb::ref::odeformer

// File: suites/odeformer/odeformer_reference_test.cpp
// -----------------------------------------------------------------------------
// The fp64 reference of the neural-ODE transformer (reference/odeformer):
// gradients and Jacobians against central differences, the Lyapunov oracles,
// the QR, the eigen/rank helpers and the time embedding, on fresh random
// models.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "fixtures/fresh_seed.h"

#include "harness/random.h"
#include "reference/odeformer/jacobian.h"
#include "reference/odeformer/lyapunov.h"
#include "reference/odeformer/odeformer.h"
#include "reference/odeformer/spectral.h"

namespace cb::ref::odeformer {
namespace {

OdeConfig Tiny() {
  return {.vocab_size = 11, .hidden_size = 8, .num_heads = 2, .mlp_size = 16, .num_steps = 3,
          .max_positions = 8, .sinusoidal_dim = 4, .tembed_dim = 3};
}

// Every tensor non-trivial (the default init leaves the LayerNorms' fw, fb and
// the Linears' fw_b at 0, which would hide their gradients).
OdeParams Rough(const OdeConfig& c, uint64_t seed) { return PerturbedParams(c, seed, 0.3); }

TEST(OdeTimeFeatures, AreTheSinusoidsOfQkvflow) {
  const std::vector<double> s = TimeFeatures(0.25, 4);
  ASSERT_EQ(s.size(), 9u);
  EXPECT_EQ(s[0], 0.25);
  for (int k = 0; k < 4; ++k) {
    const double w = std::pow(10000.0, -k / 4.0);
    EXPECT_NEAR(s[1 + k], std::sin(250.0 * w), 1e-12);
    EXPECT_NEAR(s[5 + k], std::cos(250.0 * w), 1e-12);
  }
}

TEST(OdeGrid, ForwardIsOneStepAheadOfTheAnalyses) {
  EXPECT_DOUBLE_EQ(StepTime(TimeGrid::kForward, 0, 0.25), 0.25);
  EXPECT_DOUBLE_EQ(StepTime(TimeGrid::kAnalysis, 0, 0.25), 0.0);
  EXPECT_DOUBLE_EQ(StepTime(TimeGrid::kForward, 3, 0.25), 1.0);
}

TEST(OdeModel, LossAndGradMatchCentralDifferences) {
  const OdeConfig c = Tiny();
  CB_FRESH_SEED(seed);
  OdeParams p = Rough(c, seed);
  const std::vector<int> tokens{3, 1, 4, 1, 5, 9};
  OdeParams grad;
  const double loss = OdeTransformer(c, p).LossAndGrad(tokens, grad);
  EXPECT_NEAR(loss, OdeTransformer(c, p).Loss(tokens), 1e-12);

  harness::Rng pick(seed, 2);
  auto views = ListParams(p);
  auto gviews = ListParams(grad);
  int checked = 0;
  for (size_t v = 0; v < views.size(); ++v) {
    std::vector<double>& x = *views[v].data;
    for (int probe = 0; probe < 4; ++probe) {
      const size_t i = size_t(pick.UniformInt(0, x.size() - 1));
      const double keep = x[i], h = 1e-5;
      x[i] = keep + h;
      const double up = OdeTransformer(c, p).Loss(tokens);
      x[i] = keep - h;
      const double down = OdeTransformer(c, p).Loss(tokens);
      x[i] = keep;
      const double fd = (up - down) / (2 * h), an = (*gviews[v].data)[i];
      EXPECT_NEAR(an, fd, 1e-7 + 1e-5 * std::abs(fd)) << views[v].name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4 * int(views.size()));
}

TEST(OdeJacobian, MatchesCentralDifferencesForEveryRowPair) {
  const OdeConfig c = Tiny();
  CB_FRESH_SEED(seed);
  const OdeTransformer model(c, Rough(c, seed));
  const BlockWeights w = model.WeightsAt(0.4);
  harness::Rng rng(seed, 3);
  const int n = 5, D = c.hidden_size;
  std::vector<double> x(size_t(n) * D);
  for (double& e : x) e = rng.Normal();
  for (int j : {0, 2, n - 1}) {
    const std::vector<double> J = RowJacobian(c, w, x, n, j);
    for (int k = 0; k < n; ++k)
      for (int b = 0; b < D; ++b) {
        std::vector<double> xp = x, xm = x;
        const double h = 1e-6;
        xp[size_t(k) * D + b] += h;
        xm[size_t(k) * D + b] -= h;
        const std::vector<double> fp = model.VectorField(w, xp, n), fm = model.VectorField(w, xm, n);
        for (int a = 0; a < D; ++a) {
          const double fd = (fp[size_t(j) * D + a] - fm[size_t(j) * D + a]) / (2 * h);
          EXPECT_NEAR(J[(size_t(k) * D + a) * D + b], fd, 1e-7 + 1e-6 * std::abs(fd))
              << "j " << j << " k " << k << " a " << a << " b " << b;
        }
      }
  }
}

TEST(OdeModel, TrajectoryIsEulerOnTheForwardGrid) {
  // Step by step by hand: x <- x + dt F((i+1) dt, x), dt = 1/7.
  const OdeConfig c = Tiny();
  CB_FRESH_SEED(seed);
  const OdeTransformer model(c, Rough(c, seed));
  const std::vector<int> tokens{1, 2, 3};
  std::vector<double> x = model.Embed(tokens);
  const auto traj = model.Trajectory(x, 3, 7);
  ASSERT_EQ(traj.size(), 7u);
  const double dt = 1.0 / 7;
  for (int i = 0; i < 7; ++i) {
    const std::vector<double> f = model.VectorField(model.WeightsAt((i + 1) * dt), x, 3);
    for (size_t k = 0; k < x.size(); ++k) x[k] += dt * f[k];
    for (size_t k = 0; k < x.size(); ++k) ASSERT_DOUBLE_EQ(traj[i][k], x[k]) << "step " << i;
  }
  // The analysis grid starts at t = 0 instead: another trajectory.
  EXPECT_NE(model.Trajectory(model.Embed(tokens), 3, 7, TimeGrid::kAnalysis).back(), traj.back());
}

TEST(OdeModel, BadInputIsOneLineError) {
  OdeConfig c = Tiny();
  const OdeTransformer model(c, RandomParams(c, 1));
  EXPECT_THROW(model.Forward(std::vector<int>{1, 11}), std::invalid_argument);
  EXPECT_THROW(model.Forward(std::vector<int>(9, 0)), std::invalid_argument);
  EXPECT_THROW(model.Loss(std::vector<int>{1}), std::invalid_argument);
  c.sinusoidal_dim = 3;
  EXPECT_THROW(ZeroParams(c), std::invalid_argument);
  OdeParams short_wte = RandomParams(Tiny(), 1);
  short_wte.wte.pop_back();
  EXPECT_THROW(OdeTransformer(Tiny(), short_wte), std::invalid_argument);
}

TEST(OdeQr, IsOrthogonalTimesUpperTriangular) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 4);
  const int D = 6;
  std::vector<double> a(D * D);
  for (double& e : a) e = rng.Normal();
  std::vector<double> q = a, r;
  HouseholderQr(q, D, r);
  // Q^T a is upper triangular with diagonal r, and Q^T Q = I.
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      double qta = 0, qtq = 0;
      for (int k = 0; k < D; ++k) {
        qta += q[k * D + i] * a[k * D + j];
        qtq += q[k * D + i] * q[k * D + j];
      }
      EXPECT_NEAR(qtq, i == j ? 1.0 : 0.0, 1e-12);
      if (i > j) {
        EXPECT_NEAR(qta, 0.0, 1e-12);
      } else if (i == j) {
        EXPECT_NEAR(qta, r[i], 1e-12);
      }
    }
}

TEST(OdeLyapunov, DiagonalFieldGivesTheLogOfTheEulerFactorsExactly) {
  // One token, F = A x with A diagonal: Q stays diagonal (+-1) and R_dd = 1 + dt a_d.
  const int D = 4, L = 50;
  const std::vector<double> a{-2.0, -0.5, 0.3, 1.7};
  std::vector<double> J(D * D, 0.0);
  for (int d = 0; d < D; ++d) J[d * D + d] = a[d];
  const LyapunovResult r = LyapunovQr(L, 1, D, 1.0 / L, [&](int) { return J; });
  for (int d = 0; d < D; ++d) {
    double sum = 0;
    for (int i = 0; i < L; ++i) sum += r.lambda[size_t(i) * D + d];
    EXPECT_NEAR(sum, L * std::log(std::abs(1.0 + a[d] / L)), 1e-12) << d;
  }
  EXPECT_NEAR(r.score[0], L * std::log(1.0 + 1.7 / L), 1e-12);
}

TEST(OdeLyapunov, NormalFieldApproachesTheRealPartsOfItsEigenvalues) {
  // A = U B U^T with U orthogonal and B rotation-scaling pairs (a +- ib) and
  // one real eigenvalue. Over t in [0, 1] (the model's horizon) only the sum
  // over d is pinned down: sum_d sum_i lambda = ln |det prod_i (I + dt A)|,
  // which tends to trace A. Each exponent tends to Re eig(A) only per unit
  // time over a long horizon: dt = 1/1000 as the L = 1000, for 1000
  // units of time (a complex pair's volume growth is shared between its two
  // columns in a way that oscillates with the rotation: compared as the
  // pair's mean).
  const int D = 5, L = 1000, horizon = 1000;
  std::vector<double> B(D * D, 0.0);
  auto pair = [&](int i, double re, double im) {
    B[i * D + i] = re;
    B[(i + 1) * D + i + 1] = re;
    B[i * D + i + 1] = -im;
    B[(i + 1) * D + i] = im;
  };
  pair(0, 0.8, 2.0);
  pair(2, -1.1, 0.7);
  B[4 * D + 4] = 0.2;
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 5);
  std::vector<double> U(D * D), r;
  for (double& e : U) e = rng.Normal();
  HouseholderQr(U, D, r);
  std::vector<double> A(D * D, 0.0);
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      for (int k = 0; k < D; ++k)
        for (int l = 0; l < D; ++l) A[i * D + j] += U[i * D + k] * B[k * D + l] * U[j * D + l];
  const LyapunovResult one = LyapunovQr(L, 1, D, 1.0 / L, [&](int) { return A; });
  const double total = std::accumulate(one.lambda.begin(), one.lambda.end(), 0.0);
  EXPECT_NEAR(total, -1.1 * 2 + 0.2 + 0.8 * 2, 1e-2);  // trace A, to O(dt)

  const LyapunovResult res = LyapunovQr(L * horizon, 1, D, 1.0 / L, [&](int) { return A; });
  std::vector<double> rates(D, 0.0);
  for (int i = 0; i < L * horizon; ++i)
    for (int d = 0; d < D; ++d) rates[d] += res.lambda[size_t(i) * D + d] / horizon;
  std::sort(rates.begin(), rates.end());
  EXPECT_NEAR((rates[0] + rates[1]) / 2, -1.1, 1e-2);
  EXPECT_NEAR(rates[2], 0.2, 1e-2);
  EXPECT_NEAR((rates[3] + rates[4]) / 2, 0.8, 1e-2);
}

TEST(OdeLyapunov, LaterTokensThanTheOutputRowHaveZeroExponents) {
  CB_FRESH_SEED(seed);
  const OdeConfig c = Tiny();
  const OdeTransformer model(c, RandomParams(c, seed));
  const LyapunovResult r = ModelLyapunov(model, std::vector<int>{1, 2, 3, 4}, /*j=*/1);
  for (int i = 0; i < r.steps; ++i)
    for (int k = 2; k < 4; ++k)
      for (int d = 0; d < r.dim; ++d) EXPECT_EQ(r.lambda[(size_t(i) * 4 + k) * r.dim + d], 0.0);
  EXPECT_TRUE(std::isfinite(r.score[0]) && std::isfinite(r.score[1]));
}

TEST(OdeSpectral, EigenvaluesSortLikeNumpyAndDropImaginaryParts) {
  // [[0, -2, 0], [2, 0, 0], [0, 0, -1]]: eigenvalues -1, -2i, +2i.
  const std::vector<double> m{0, -2, 0, 2, 0, 0, 0, 0, -1};
  const Spectrum s = Eigenvalues(m, 3);
  EXPECT_NEAR(s.real[0], -1, 1e-12);
  EXPECT_NEAR(s.real[1], 0, 1e-12);
  EXPECT_NEAR(s.imag[1], -2, 1e-12);
  EXPECT_NEAR(s.imag[2], 2, 1e-12);
  EXPECT_NEAR(s.magnitude[2], 2, 1e-12);
}

TEST(OdeSpectral, QkRankIsAtMostTheHeadSize) {
  CB_FRESH_SEED(seed);
  OdeConfig c = Tiny();
  c.hidden_size = 12;
  c.num_heads = 3;
  const OdeTransformer model(c, Rough(c, seed));
  const BlockWeights w = model.WeightsAt(0.5);
  for (int h = 0; h < c.num_heads; ++h) {
    EXPECT_EQ(NumericalRank(QkMatrix(c, w, h), 12, 12), c.HeadSize());
    EXPECT_EQ(NumericalRank(OvMatrix(c, w, h), 12, 12), c.HeadSize());
  }
  EXPECT_EQ(NumericalRank(FfMatrix(c, w), 12, 12), 12);
  const auto spectra = ModelSpectra(model, 4);
  ASSERT_EQ(spectra.size(), 4u);
  EXPECT_DOUBLE_EQ(spectra[0].t, 0.0);
  EXPECT_DOUBLE_EQ(spectra[3].t, 0.75);
}

}  // namespace
}  // namespace cb::ref::odeformer

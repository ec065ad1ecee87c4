// File: suites/ibedl/ibedl_reference_test.cpp
// The fp64 reference of IB-EDL (reference/ibedl): special functions against
// known values, closed forms, analytic gradients against central differences,
// and the metrics on hand-computed cases. Formulas as in sandylaker/ib-edl at
// ac8d8bc129df0d8d79c0270c45ab0e019a60e207 (ib_edl/train_eval/losses.py,
// evidential_trainer.py, metrics.py, tools/ood.py) and torchmetrics'
// _binning_bucketize (functional/classification/calibration_error.py).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/common/roc.h"
#include "reference/ibedl/evidential.h"
#include "reference/ibedl/metrics.h"
#include "reference/ibedl/special.h"

namespace cb::ref::ibedl {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Special, DigammaKnownValues) {
  const double g = kEulerGamma;
  EXPECT_NEAR(Digamma(1.0), -g, 1e-15);
  EXPECT_NEAR(Digamma(0.5), -g - 2 * std::log(2.0), 1e-14);
  EXPECT_NEAR(Digamma(2.0), 1 - g, 1e-15);
  double h9 = 0;
  for (int i = 1; i <= 9; ++i) h9 += 1.0 / i;
  EXPECT_NEAR(Digamma(10.0), h9 - g, 1e-14);
  EXPECT_NEAR(Digamma(0.25), -g - kPi / 2 - 3 * std::log(2.0), 1e-14);
  // Recurrence psi(x + 1) = psi(x) + 1/x across the switch to the series.
  for (double x : {0.3, 3.7, 9.5, 9.999, 10.0, 57.25})
    EXPECT_NEAR(Digamma(x + 1), Digamma(x) + 1 / x, 1e-13 * std::max(1.0, std::abs(Digamma(x)))) << x;
  EXPECT_TRUE(std::isnan(Digamma(0.0)));
  EXPECT_TRUE(std::isnan(Digamma(-2.0)));
}

TEST(Special, TrigammaKnownValues) {
  constexpr double kCatalan = 0.915965594177219015054603514932384110774;
  EXPECT_NEAR(Trigamma(1.0), kPi * kPi / 6, 1e-14);
  EXPECT_NEAR(Trigamma(0.5), kPi * kPi / 2, 1e-13);
  EXPECT_NEAR(Trigamma(2.0), kPi * kPi / 6 - 1, 1e-14);
  EXPECT_NEAR(Trigamma(0.25), kPi * kPi + 8 * kCatalan, 1e-12);
  for (double x : {0.3, 3.7, 9.5, 10.0, 57.25})
    EXPECT_NEAR(Trigamma(x), Trigamma(x + 1) + 1 / (x * x), 1e-13 * Trigamma(x)) << x;
  // psi' = d psi / dx.
  for (double x : {0.7, 2.5, 12.0}) {
    const double h = 1e-5;
    EXPECT_NEAR(Trigamma(x), (Digamma(x + h) - Digamma(x - h)) / (2 * h), 1e-8) << x;
  }
}

TEST(Special, LogGammaAndSoftplus) {
  EXPECT_NEAR(LogGamma(0.5), 0.5 * std::log(kPi), 1e-15);
  EXPECT_NEAR(LogGamma(5.0), std::log(24.0), 1e-14);
  EXPECT_DOUBLE_EQ(Softplus(25.0), 25.0);  // torch's threshold 20
  EXPECT_NEAR(Softplus(0.0), std::log(2.0), 1e-16);
  EXPECT_DOUBLE_EQ(SoftplusGrad(25.0), 1.0);
  EXPECT_NEAR(SoftplusGrad(0.0), 0.5, 1e-16);
}

TEST(Losses, ClosedForms) {
  // ss at alpha = (2, 1, 1), y = 0: S = 4, p = (1/2, 1/4, 1/4): 1/4 + 2/16 + (1/4 + 3/8) / 5 = 1/2.
  EXPECT_NEAR(SsRisk(std::vector<double>{2, 1, 1}, 0), 0.5, 1e-15);
  for (int K = 2; K <= 8; ++K) {
    const std::vector<double> ones(K, 1.0);
    EXPECT_NEAR(SsRisk(ones, 1), double(K - 1) * (K + 2) / (double(K) * (K + 1)), 1e-15);
    EXPECT_NEAR(DirichletKl(ones, 0), 0.0, 1e-14);
    EXPECT_NEAR(GaussianKl(std::vector<double>(K, 0.0), ones), 0.0, 0.0);
  }
  // ce at alpha = (3, 1): psi(4) - psi(3) = 1/3.
  EXPECT_NEAR(CeRisk(std::vector<double>{3, 1}, 0), 1.0 / 3, 1e-15);
  // KL(Dir(2, 1) || Dir(1, 1)) with y = 1 (at = (2, 1)): ln G(3) - ln G(2) - ln G(2) + (psi(2) - psi(3)) = ln 2 - 1/2.
  EXPECT_NEAR(DirichletKl(std::vector<double>{2, 7}, 1), std::log(2.0) - 0.5, 1e-14);
  // The label's alpha is replaced by 1 (modify_alphas): its value does not matter.
  EXPECT_EQ(DirichletKl(std::vector<double>{2, 7}, 1), DirichletKl(std::vector<double>{2, 100}, 1));
  EXPECT_NEAR(GaussianKl(std::vector<double>{1.0}, std::vector<double>{2.0}), 0.5 * (1 + 4 - 2 * std::log(2.0) - 1), 1e-15);
}

TEST(Losses, RegWeightFollowsTheCallback) {
  // start_epoch 0.1 of 10 epochs -> int(1.0) = 1.
  EXPECT_EQ(RegWeight(0, 10, 0.1, 1.0), 0.0);
  EXPECT_NEAR(RegWeight(1, 10, 0.1, 1.0), 0.1, 1e-15);
  EXPECT_NEAR(RegWeight(5, 10, 0.1, 1.0), 0.5, 1e-15);
  EXPECT_EQ(RegWeight(12, 10, 0.1, 1.0), 1.0);
  EXPECT_EQ(RegWeight(5, 10, 0.1, 0.0), 0.0);  // IB-EDL's final_reg_weight 0
  // start_epoch 0.25 of 3 epochs -> int(0.75) = 0: weight from epoch 0 on (0 at epoch 0 anyway).
  EXPECT_NEAR(RegWeight(1, 3, 0.25, 2.0), 2.0 / 3, 1e-15);
}

// Central differences of f at x, each coordinate.
std::vector<double> NumGrad(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double h = 1e-6 * std::max(1.0, std::abs(x[i])), x0 = x[i];
    x[i] = x0 + h;
    const double fp = f(x);
    x[i] = x0 - h;
    const double fm = f(x);
    x[i] = x0;
    g[i] = (fp - fm) / (2 * h);
  }
  return g;
}

void ExpectGradNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  double scale = 1e-8;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * scale) << i;
}

TEST(Losses, RowGradientsMatchFiniteDifferences) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 1);
  for (int trial = 0; trial < 20; ++trial) {
    const int K = 2 + int(rng.UniformInt(0, 5)), y = int(rng.UniformInt(0, K - 1));
    std::vector<double> a(K);
    for (double& v : a) v = 1 + 5 * rng.Uniform();
    for (auto [name, fn] : {std::pair{"ss", &SsRisk}, {"ce", &CeRisk}, {"kl", &DirichletKl}}) {
      std::vector<double> g(K);
      fn(a, y, g.data());
      ExpectGradNear(g, NumGrad([&](const std::vector<double>& x) { return fn(x, y, nullptr); }, a), 1e-6);
    }
  }
}

TEST(Losses, BatchGradientMatchesFiniteDifferences) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 2);
  const int B = 3, K = 4, J = 5;
  std::vector<double> mu(B * K), tail(B * K), eps(B * J * K);
  std::vector<int> labels(B);
  for (double& v : mu) v = 2 * rng.Normal();
  for (double& v : tail) v = rng.Normal();
  for (double& v : eps) v = rng.Normal();
  for (int& y : labels) y = int(rng.UniformInt(0, K - 1));
  for (const LossConfig c : {LossConfig{.data = DataTerm::kSs, .vib = true, .draws = J, .beta = 0.3},
                             LossConfig{.data = DataTerm::kCe, .vib = true, .draws = J, .beta = 0.1},
                             LossConfig{.data = DataTerm::kSs, .vib = false, .reg_weight = 0.7},
                             LossConfig{.data = DataTerm::kSs, .vib = true, .draws = J, .beta = 1e-5, .reg_weight = 0.5}}) {
    std::vector<double> dmu(B * K), dtail(B * K);
    EvidentialLoss(c, B, K, mu, tail, labels, eps, dmu.data(), dtail.data());
    ExpectGradNear(dmu, NumGrad([&](const std::vector<double>& m) {
                     return EvidentialLoss(c, B, K, m, tail, labels, eps);
                   }, mu), 1e-6);
    ExpectGradNear(dtail, NumGrad([&](const std::vector<double>& t) {
                     return EvidentialLoss(c, B, K, mu, t, labels, eps);
                   }, tail), 1e-6);
  }
  std::vector<double> dmu(B * K);
  MapLoss(B, K, mu, labels, dmu.data());
  ExpectGradNear(dmu, NumGrad([&](const std::vector<double>& m) { return MapLoss(B, K, m, labels); }, mu), 1e-6);
}

TEST(Losses, LossIsTheMeanOverDrawsAndTheIbTerm) {
  // B = 1, K = 2, J = 2 by hand: rows alpha_j = softplus(mu + sigma eps_j) + 1.
  const std::vector<double> mu = {0.5, -1.0}, tail = {0.0, 1.0}, eps = {1.0, -0.5, -2.0, 0.25};
  const std::vector<int> y = {1};
  const LossConfig c{.data = DataTerm::kSs, .vib = true, .draws = 2, .beta = 0.5};
  double want = 0;
  for (int j = 0; j < 2; ++j) {
    std::vector<double> a(2);
    for (int k = 0; k < 2; ++k) a[k] = Softplus(mu[k] + Softplus(tail[k]) * eps[j * 2 + k]) + 1;
    want += SsRisk(a, 1) / 2;
  }
  const std::vector<double> sig = {Softplus(0.0), Softplus(1.0)};
  want += 0.5 * GaussianKl(mu, sig);
  EXPECT_NEAR(EvidentialLoss(c, 1, 2, mu, tail, y, eps), want, 1e-15);
}

TEST(Inference, MeanAlphaProbsLogitsAndU) {
  const std::vector<double> mu = {1.0, 0.0, -1.0}, tail = {0.0, 0.0, 0.0};
  const std::vector<double> eps = {0.5, -0.5, 1.0, -1.0, 0.0, 2.0};  // J = 2
  const Prediction p = PredictEvidential(mu, tail, eps, 2, true);
  double S = 0;
  for (int k = 0; k < 3; ++k) {
    const double s = Softplus(0.0);
    const double want = (Softplus(mu[k] + s * eps[k]) + Softplus(mu[k] + s * eps[3 + k])) / 2 + 1;
    EXPECT_NEAR(p.alpha[k], want, 1e-15);
    S += want;
  }
  EXPECT_NEAR(p.strength, S, 1e-14);
  EXPECT_NEAR(p.uncertainty, 3 / S, 1e-15);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.logits[k], std::log(p.probs[k]) - std::log(p.probs[2]), 1e-14);
  EXPECT_EQ(p.logits[2], 0.0);
  // EDL: no draws.
  const Prediction e = PredictEvidential(mu, tail, {}, 0, false);
  EXPECT_NEAR(e.alpha[0], Softplus(1.0) + 1, 1e-15);
  EXPECT_GT(e.uncertainty, 0);
  EXPECT_LE(e.uncertainty, 1);
}

TEST(Metrics, EceBinningIsTorchmetrics) {
  // K = 2, four predictions. Confidences 0.6 (correct), 0.6 (wrong), 1.0
  // (correct, its own 16th bin), 1/15 + 0.5... all >= 1/2 for K = 2.
  const std::vector<double> p = {0.6, 0.4, 0.4, 0.6, 1.0, 0.0, 0.8, 0.2};
  const std::vector<int> y = {0, 0, 0, 1};
  // bin of 0.6 (index 9: [9/15, 10/15)): acc 1/2, conf 0.6; bin of 1.0: acc 1, conf 1;
  // bin of 0.8 (index 12: [12/15, 13/15)): acc 0, conf 0.8.
  const double want = 0.1 * 2 / 4 + 0 + 0.8 * 1 / 4;
  EXPECT_NEAR(Ece(p, 2, y), want, 1e-15);
  // right = True: a confidence exactly on a boundary, 10/15, goes up into bin 10.
  const std::vector<double> q = {10.0 / 15, 5.0 / 15};
  EXPECT_NEAR(Ece(q, 2, std::vector<int>{0}), 1 - 10.0 / 15, 1e-15);
  // Confident and correct: 0.
  EXPECT_EQ(Ece(std::vector<double>{0, 1, 1, 0}, 2, std::vector<int>{1, 0}), 0.0);
}

TEST(Metrics, EceFromLogitsSoftmaxesOnlyOutsideTheUnitInterval) {
  const std::vector<double> in_unit = {0.9, 0.1, 0.3, 0.7};
  const std::vector<int> y = {0, 0};
  EXPECT_EQ(EceFromLogits(in_unit, 2, y), Ece(in_unit, 2, y));  // read as probabilities
  const std::vector<double> logits = {2.0, 0.0, 0.0, 1.5};
  EXPECT_EQ(EceFromLogits(logits, 2, y), Ece(Softmax(logits, 2), 2, y));
}

TEST(Metrics, NllBrierAccuracy) {
  const std::vector<double> z = {std::log(0.5), std::log(0.25), std::log(0.25)};
  EXPECT_NEAR(Nll(z, 3, std::vector<int>{1}), std::log(4.0), 1e-15);
  const std::vector<double> p = {0.5, 0.25, 0.25};
  EXPECT_NEAR(Brier(p, 3, std::vector<int>{0}), 0.25 + 2 * 0.0625, 1e-15);
  EXPECT_EQ(Accuracy(p, 3, std::vector<int>{0}), 1.0);
  EXPECT_EQ(Accuracy(std::vector<double>{0.5, 0.5}, 2, std::vector<int>{1}), 0.0);  // ties: first max
  EXPECT_THROW(Nll(z, 3, std::vector<int>{3}), std::invalid_argument);
}

TEST(Metrics, AveragePrecisionAndOod) {
  // sklearn's docstring example: AP = 0.8333...
  EXPECT_NEAR(AveragePrecision(std::vector<double>{0.1, 0.4, 0.35, 0.8}, std::vector<int>{0, 0, 1, 1}), 5.0 / 6,
              1e-15);
  // Ties: one tied group of everything -> AP = positive fraction.
  EXPECT_NEAR(AveragePrecision(std::vector<double>{1, 1, 1, 1}, std::vector<int>{1, 0, 0, 0}), 0.25, 1e-15);
  // ID confident, OOD uniform; u: ID small, OOD large.
  const std::vector<double> id = {3, 0, 0, 0, 4, 0}, ood = {0, 0, 0, 0.1, 0, 0};
  const OodScores o = Ood(id, 3, std::vector<double>{0.1, 0.2}, ood, 3, std::vector<double>{0.9, 1.0});
  EXPECT_EQ(o.auroc_mp, 1.0);
  EXPECT_EQ(o.auroc_um, 1.0);
  EXPECT_EQ(o.aupr_um, 1.0);
  EXPECT_TRUE(o.has_um);
  // K may differ between the splits.
  const OodScores k = Ood(id, 3, {}, std::vector<double>{0, 0, 0, 0}, 4, {});
  EXPECT_FALSE(k.has_um);
  EXPECT_EQ(k.auroc_mp, 1.0);
}

}  // namespace
}  // namespace cb::ref::ibedl

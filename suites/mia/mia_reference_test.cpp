// File: suites/mia/mia_reference_test.cpp
// Tests of the fp64 membership-inference reference (reference/mia/mia.h) and
// the detection metrics (reference/common/roc.h): sklearn's known answers,
// both TPR@FPR conventions, the brief's edge cases (sigma -> 0, floor(k n) = 0),
// Min-K%++'s exact properties (shift invariance, s = 0 at the mean, the
// two-pass variance against the papers' E[(log p)^2] - mu^2 form).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/random.h"
#include "reference/common/roc.h"
#include "reference/mia/mia.h"

namespace {

namespace mia = cb::ref::mia;

TEST(Roc, SklearnKnownAnswers) {
  const std::vector<double> s = {0.1, 0.4, 0.35, 0.8};
  const std::vector<int> y = {0, 0, 1, 1};
  EXPECT_DOUBLE_EQ(cb::ref::Auroc(s, y), 0.75);
  const auto curve = cb::ref::RocCurve(s, y);
  ASSERT_EQ(curve.size(), 5u);
  const double fpr[] = {0, 0, 0.5, 0.5, 1}, tpr[] = {0, 0.5, 0.5, 1, 1};
  for (int i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(curve[i].fpr, fpr[i]);
    EXPECT_DOUBLE_EQ(curve[i].tpr, tpr[i]);
  }
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(curve, 0.5, false), 1.0);  // fpr <= 0.5
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(curve, 0.5, true), 0.5);   // fpr < 0.5
  EXPECT_DOUBLE_EQ(cb::ref::FprAtTpr(curve, 0.95), 0.5);
}

TEST(Roc, TiesCountHalf) {
  EXPECT_DOUBLE_EQ(cb::ref::Auroc(std::vector<double>{1, 1, 1, 1}, std::vector<int>{1, 0, 1, 0}), 0.5);
  EXPECT_DOUBLE_EQ(cb::ref::Auroc(std::vector<double>{2, 1, 1}, std::vector<int>{1, 1, 0}), 0.75);
  EXPECT_THROW(cb::ref::Auroc(std::vector<double>{1, 2}, std::vector<int>{1, 1}), std::invalid_argument);
  EXPECT_THROW(cb::ref::Auroc(std::vector<double>{1, NAN}, std::vector<int>{1, 0}), std::invalid_argument);
  EXPECT_THROW(cb::ref::Auroc(std::vector<double>{1}, std::vector<int>{1, 0}), std::invalid_argument);
}

TEST(Roc, PairedBootstrapSeesARealDifferenceAndNotANullOne) {
  cb::harness::Rng rng(1, 0);
  cb::ref::PairedScores g;
  for (int i = 0; i < 400; ++i) {
    const int label = i % 2;
    const double noise = rng.Normal();
    g.labels.push_back(label);
    g.a.push_back(noise + 1.0 * label);  // informative
    g.b.push_back(noise + 0.3 * label + 0.8 * rng.Normal());
  }
  const auto d = cb::ref::PairedAurocDiff(std::vector<cb::ref::PairedScores>{g}, 500, 3);
  EXPECT_GT(d.ci.low, 0.0);
  auto same = g;
  same.b = same.a;
  const auto z = cb::ref::PairedAurocDiff(std::vector<cb::ref::PairedScores>{same}, 200, 3);
  EXPECT_EQ(z.ci.low, 0.0);
  EXPECT_EQ(z.ci.high, 0.0);
  const auto ci = cb::ref::BootstrapAurocCi(g.a, g.labels, 300, 4);
  const double auc = cb::ref::Auroc(g.a, g.labels);
  EXPECT_LT(ci.low, auc);
  EXPECT_GT(ci.high, auc);
}

TEST(Roc, MannWhitneyOneSided) {
  std::vector<double> x, y;
  cb::harness::Rng rng(2, 0);
  for (int i = 0; i < 200; ++i) {
    x.push_back(rng.Normal() + 0.5);
    y.push_back(rng.Normal());
  }
  EXPECT_LT(cb::ref::MannWhitneyGreater(x, y).p_value, 1e-3);
  EXPECT_GT(cb::ref::MannWhitneyGreater(y, x).p_value, 0.99);
}

std::vector<double> RandomLogits(cb::harness::Rng& rng, int v, double scale) {
  std::vector<double> z(v);
  for (double& x : z) x = scale * rng.Normal();
  return z;
}

TEST(MiaReference, TokenScoreIsInvariantToALogitShift) {
  cb::harness::Rng rng(3, 0);
  for (int rep = 0; rep < 20; ++rep) {
    auto z = RandomLogits(rng, 1000, 1.0 + rep);
    const int64_t target = static_cast<int64_t>(rng.UniformInt(0, 999));
    const auto a = mia::StatsFromLogits(z, target);
    for (double& x : z) x += 123.25;
    const auto b = mia::StatsFromLogits(z, target);
    const double sa = (a.logp - a.mu) / std::sqrt(a.sigma2), sb = (b.logp - b.mu) / std::sqrt(b.sigma2);
    EXPECT_NEAR(sa, sb, 1e-10);
  }
}

TEST(MiaReference, TwoPassVarianceMatchesThePapersForm) {
  cb::harness::Rng rng(4, 0);
  const auto z = RandomLogits(rng, 512, 2.0);
  const auto s = mia::StatsFromLogits(z, 7);
  double lse = -INFINITY;
  for (double x : z) lse = std::max(lse, x);
  double sum = 0;
  for (double x : z) sum += std::exp(x - lse);
  lse += std::log(sum);
  double e2 = 0;
  for (double x : z) e2 += std::exp(x - lse) * (x - lse) * (x - lse);
  EXPECT_NEAR(s.sigma2, e2 - s.mu * s.mu, 1e-10 * s.sigma2);
  // The token score is 0 when the token's log-prob equals the mean.
  const std::vector<double> zero = mia::MinKppTokenScores(std::vector<double>{s.mu}, std::vector<double>{s.mu},
                                                          std::vector<double>{s.sigma2});
  EXPECT_EQ(zero[0], 0.0);
}

TEST(MiaReference, EdgeCases) {
  // A flat distribution: sigma = 0; the floor keeps the score finite.
  const auto flat = mia::StatsFromLogits(std::vector<double>(16, 3.0), 2);
  EXPECT_NEAR(flat.sigma2, 0.0, 1e-15);
  const auto s = mia::MinKppTokenScores(std::vector<double>{flat.logp}, std::vector<double>{flat.mu},
                                        std::vector<double>{flat.sigma2});
  EXPECT_TRUE(std::isfinite(s[0]));
  EXPECT_NEAR(s[0], 0.0, 1e-6);
  // floor(k n) = 0 takes the single smallest value instead of NaN.
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(std::vector<double>{-1, -3, -2}, 0.1), -3.0);
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(std::vector<double>{-1, -3, -2, -4}, 0.5), -3.5);
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(std::vector<double>(10, 1.0), 0.3), 1.0);
  EXPECT_THROW(mia::MeanOfSmallest(std::vector<double>{}, 0.2), std::invalid_argument);
  EXPECT_THROW(mia::MeanOfSmallest(std::vector<double>{1}, 0.0), std::invalid_argument);
  mia::TextStats empty;
  EXPECT_THROW(mia::LossScore(empty), std::invalid_argument);
  EXPECT_THROW(mia::StatsFromLogits(std::vector<double>{1, NAN}, 0), std::invalid_argument);
}

TEST(MiaReference, ScoresFollowThePapersFormulas) {
  EXPECT_EQ(mia::ZlibLength("hello"), 13);  // len(zlib.compress(b"hello")) in Python
  mia::TextStats t;
  t.label = 1;
  t.text = "hello";
  t.ll = {-1, -2, -3, -6};
  t.ll_lower = {-2, -4, -6, -12};
  t.ll_ref = {-2, -2, -2, -2};
  t.ll_ft = {-0.5, -1, -1.5, -3};
  t.ll_lower_ft = {-1, -2, -3, -6};
  EXPECT_DOUBLE_EQ(mia::LossScore(t), -3.0);
  EXPECT_DOUBLE_EQ(mia::ZlibScore(t), -3.0 / 13);
  EXPECT_DOUBLE_EQ(mia::LowercaseScore(t), 2.0);
  EXPECT_DOUBLE_EQ(mia::MinKScore(t, 0.5), -4.5);
  EXPECT_DOUBLE_EQ(mia::RefScore(t), -1.0);
  EXPECT_DOUBLE_EQ(mia::FsdScore(t, "loss"), std::exp(1.5) - std::exp(3.0));
  EXPECT_DOUBLE_EQ(mia::FsdScore(t, "mink"), 3.0 - 6.0);  // -MinK(0.2): one token
  EXPECT_DOUBLE_EQ(mia::FsdScore(t, "lowercase"), -2.0 - -2.0);
  const auto all = mia::ScoreAll(std::vector<mia::TextStats>{t, t});
  EXPECT_EQ(all.front().method, "loss");
  bool has_minkpp = false;
  for (const auto& m : all) has_minkpp |= m.method.rfind("minkpp", 0) == 0;
  EXPECT_FALSE(has_minkpp);  // no mu / sigma2 given
}

}  // namespace

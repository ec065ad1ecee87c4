// File: suites/mia/mia_reference_test.cpp
// Tests of the fp64 membership-inference reference (reference/mia/mia.h) and
// the detection metrics (reference/common/roc.h): sklearn's known answers,
// both TPR@FPR conventions on the full and on sklearn's default curve, the
// authors' Min-K% token count, the brief's edge cases (sigma -> 0, floor(k n) = 0),
// Min-K%++'s exact properties (shift invariance, s = 0 at the mean, the
// two-pass variance against the papers' E[(log p)^2] - mu^2 form).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fixtures/fresh_seed.h"
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

// sklearn's roc_curve with its default drop_intermediate=True, which both
// papers' code calls (zjysteven/mink-plus-plus 5596c65dd7d5ca767c0efa80cbebf76f2e56d0a2
// run.py lines 118-121: tpr[np.where(fpr <= 0.05)[0][-1]] and
// fpr[np.where(tpr >= 0.95)[0][0]]; ml-stat-Sustech/Fine-tuned-Score-Deviation
// e3d9060847c1aa94c0c451efd391542ced52ac32 utils/tools.py lines 10 and 18:
// tpr[np.where(fpr < 0.05)[0][-1]]). Six tie groups of one member and one
// non-member (of 10 and 100) step the curve by (0.01, 0.1) six times; sklearn
// keeps only the ends of that run, so the point (0.05, 0.5) is gone and its
// TPR@5%FPR is 0.1 where the full curve's is 0.5. Expected values: sklearn
// 1.2.1 (Debian python3-sklearn) roc_curve on these inputs.
struct TieCase {
  std::vector<double> scores;
  std::vector<int> labels;
};
TieCase DiagonalRunAcross5PercentFpr() {
  TieCase c;
  for (int g = 0; g < 6; ++g) {
    for (int label : {1, 0}) {
      c.scores.push_back(16.0 - g);
      c.labels.push_back(label);
    }
  }
  for (int i = 0; i < 94; ++i) c.scores.push_back(0.0), c.labels.push_back(0);
  for (int i = 0; i < 4; ++i) c.scores.push_back(0.0), c.labels.push_back(1);
  return c;
}
// 17 members alone on top, then three {member, non-member} ties, then 7
// non-members: tpr reaches 0.95 in the middle of a diagonal run.
TieCase DiagonalRunAcross95PercentTpr() {
  TieCase c;
  for (int i = 0; i < 17; ++i) c.scores.push_back(100.0), c.labels.push_back(1);
  for (int g = 0; g < 3; ++g) {
    for (int label : {1, 0}) c.scores.push_back(99.0 - g), c.labels.push_back(label);
  }
  for (int i = 0; i < 7; ++i) c.scores.push_back(0.0), c.labels.push_back(0);
  return c;
}

TEST(Roc, SklearnDefaultCurveDropsCollinearTieGroupsAsRocCurveDoes) {
  const auto c = DiagonalRunAcross5PercentFpr();
  const auto full = cb::ref::RocCurve(c.scores, c.labels, cb::ref::RocPoints::kAll);
  const auto sk = cb::ref::RocCurve(c.scores, c.labels, cb::ref::RocPoints::kSklearnDefault);
  ASSERT_EQ(full.size(), 8u);
  // sklearn 1.2.1: fpr [0, 0.01, 0.06, 1], tpr [0, 0.1, 0.6, 1], thresholds
  // [17, 16, 11, 0] (the first is inf from 1.3 on, as here); with
  // drop_intermediate=False it gives our 8 points and tpr05 0.5 (<=), 0.4 (<).
  ASSERT_EQ(sk.size(), 4u);
  const double fpr[] = {0, 0.01, 0.06, 1}, tpr[] = {0, 0.1, 0.6, 1}, thr[] = {INFINITY, 16, 11, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(sk[i].fpr, fpr[i]) << i;
    EXPECT_DOUBLE_EQ(sk[i].tpr, tpr[i]) << i;
    EXPECT_EQ(sk[i].threshold, thr[i]) << i;
  }
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(sk, 0.05, false), 0.1);    // Min-K%++'s tpr05
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(sk, 0.05, true), 0.1);     // FSD's TPR@5%FPR
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(full, 0.05, false), 0.5);  // the full curve's
  EXPECT_DOUBLE_EQ(cb::ref::TprAtFpr(full, 0.05, true), 0.4);

  const auto d = DiagonalRunAcross95PercentTpr();
  const auto sk2 = cb::ref::RocCurve(d.scores, d.labels, cb::ref::RocPoints::kSklearnDefault);
  // sklearn 1.2.1: fpr [0, 0, 0.3, 1], tpr [0, 0.85, 1, 1]; fpr95 0.3 (0.2 with
  // drop_intermediate=False).
  ASSERT_EQ(sk2.size(), 4u);
  EXPECT_DOUBLE_EQ(sk2[2].fpr, 0.3);
  EXPECT_DOUBLE_EQ(cb::ref::FprAtTpr(sk2, 0.95), 0.3);  // Min-K%++'s fpr95
  EXPECT_DOUBLE_EQ(cb::ref::FprAtTpr(cb::ref::RocCurve(d.scores, d.labels), 0.95), 0.2);
  // A curve with two thresholds is never thinned (len(fps) > 2 in sklearn).
  EXPECT_EQ(cb::ref::RocCurve(std::vector<double>{1, 1, 0, 0}, std::vector<int>{1, 0, 1, 0},
                              cb::ref::RocPoints::kSklearnDefault).size(), 3u);
  EXPECT_THROW(cb::ref::TprAtFpr(sk, 0.0, true), std::invalid_argument);
}

// Without ties each dropped point shares its tpr (a run of non-members) or
// its fpr (a run of members) with a kept corner, so the operating points of
// the two curves agree on fresh continuous scores.
TEST(Roc, WithoutTiesBothCurvesGiveTheSameOperatingPoints) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 0);
  std::vector<double> s;
  std::vector<int> y;
  for (int i = 0; i < 500; ++i) {
    y.push_back(i % 2);
    s.push_back(rng.Normal() + 0.7 * y.back());
  }
  const auto full = cb::ref::RocCurve(s, y, cb::ref::RocPoints::kAll);
  const auto sk = cb::ref::RocCurve(s, y, cb::ref::RocPoints::kSklearnDefault);
  EXPECT_LT(sk.size(), full.size());
  for (double x : {0.01, 0.05, 0.1, 0.3}) {
    EXPECT_EQ(cb::ref::TprAtFpr(sk, x, false), cb::ref::TprAtFpr(full, x, false)) << x;
    EXPECT_EQ(cb::ref::TprAtFpr(sk, x, true), cb::ref::TprAtFpr(full, x, true)) << x;
    EXPECT_EQ(cb::ref::FprAtTpr(sk, 1 - x), cb::ref::FprAtTpr(full, 1 - x)) << x;
  }
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

// Min-K% / Min-K%++ average int(n * ratio) tokens, the fp64 product
// truncated, with ratio the literal 0.7 etc. (zjysteven/mink-plus-plus
// 5596c65dd7d5ca767c0efa80cbebf76f2e56d0a2 run.py lines 103-112;
// ml-stat-Sustech/Fine-tuned-Score-Deviation e3d9060847c1aa94c0c451efd391542ced52ac32
// eval.py lines 58-60). 0.7 is stored below 7/10, so at n = 90 the product is
// 62.99999999999999 and the authors average 62 tokens, not 63. The lists of
// such n are CPython 3.11's answers:
//   [n for n in range(1, 1001) if int(n * 0.7) != n * 7 // 10]
// and the same for the other nine ratios (all empty).
TEST(MiaReference, MinKCountsAsTheAuthorsCodeDoes) {
  std::vector<double> v;
  for (int i = 90; i >= 1; --i) v.push_back(double(i));  // 1..90, unsorted
  const double k07 = mia::KGrid()[6];
  ASSERT_EQ(k07, 0.7);
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(v, k07), 31.5);  // mean of 1..62: np.mean(np.sort(x)[:62])
  // Through ScoreAll, as the claims and `eval mia` score: Min-K% and Min-K%++.
  mia::TextStats t;
  for (int i = 1; i <= 90; ++i) {
    t.ll.push_back(-double(i));
    t.mu.push_back(0.0);
    t.sigma2.push_back(1.0);  // s_t = ll_t
  }
  for (const auto& m : mia::ScoreAll(std::vector<mia::TextStats>{t})) {
    if (m.method == "mink_0.7" || m.method == "minkpp_0.7") {
      EXPECT_DOUBLE_EQ(m.scores[0], -59.5) << m.method;  // mean of -90..-29 (62 values)
    }
  }
}

TEST(MiaReference, MinKCountMatchesPythonOnEveryLengthAndTheExactCountIsNamed) {
  const std::vector<size_t> python_short_07 = {90,  170, 180, 330, 340, 350, 360, 650,
                                               660, 670, 680, 690, 700, 710, 720, 730};
  const auto grid = mia::KGrid();
  for (size_t i = 0; i < grid.size(); ++i) {
    const size_t tenths = i + 1;
    for (size_t n = 1; n <= 1000; ++n) {
      const size_t exact = std::max<size_t>(1, n * tenths / 10);
      const bool short_one =
          tenths == 7 && std::find(python_short_07.begin(), python_short_07.end(), n) != python_short_07.end();
      EXPECT_EQ(mia::MinKCount(n, grid[i]), short_one ? exact - 1 : exact) << "n=" << n << " k=" << grid[i];
      EXPECT_EQ(mia::MinKCount(n, grid[i], mia::KCount::kExactDecimal), exact) << "n=" << n << " k=" << grid[i];
    }
  }
  EXPECT_EQ(mia::MinKCount(3, 0.1), 1u);  // int(0.3) = 0: at least one (the authors: NaN)
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(std::vector<double>(90, 0.0), 0.7, mia::KCount::kExactDecimal), 0.0);
  std::vector<double> v;
  for (int i = 1; i <= 90; ++i) v.push_back(double(i));
  EXPECT_DOUBLE_EQ(mia::MeanOfSmallest(v, 0.7, mia::KCount::kExactDecimal), 32.0);  // mean of 1..63
  EXPECT_THROW(mia::MinKCount(0, 0.5), std::invalid_argument);
  EXPECT_THROW(mia::MinKCount(10, 1.5), std::invalid_argument);
  EXPECT_THROW(mia::MinKCount(10, 1.0 / 3.0, mia::KCount::kExactDecimal), std::invalid_argument);
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

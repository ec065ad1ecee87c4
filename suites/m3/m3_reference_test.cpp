// File: suites/m3/m3_reference_test.cpp
// The fp64 reference of M3 (reference/m3/) against hand-worked cases and
// its own definitions: PSC's walk and drop quirk (m3-spatial@03fdfd6
// lmm/clip/fea2mem.py::filter_embeddings_efficient), GMA's forms and
// gradient (xy_utils/memory.py), splatting's compositing rules, the loss of
// utils/loss_utils.py (mask by the channel sum), skimage's Otsu threshold
// and the grounding evaluator's IoU conventions
// (evaluators/grounding_evaluation.py).
#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "harness/random.h"
#include "reference/m3/gma.h"
#include "reference/m3/loss.h"
#include "reference/m3/metrics.h"
#include "reference/m3/psc.h"
#include "reference/m3/splat.h"

namespace cb::ref::m3 {
namespace {

std::vector<double> Normals(size_t n, uint64_t seed, double sd = 1.0) {
  cb::harness::Rng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = rng.Normal() * sd;
  return v;
}

// ---------------------------------------------------------------------------
// PSC

TEST(Psc, DuplicatesCollapseToTheirFirstRow) {
  // Rows 0 and 2 equal, 1 and 3 equal (up to scale): two components.
  const std::vector<double> rows = {1, 0, 0,  0, 1, 0,  2, 0, 0,  0, 3, 0};
  const PscResult r = PrincipalSceneComponents(rows.data(), 4, 3, 0.99);
  EXPECT_EQ(r.selected, (std::vector<int>{0, 1}));
  EXPECT_TRUE(r.dropped.empty());
  EXPECT_TRUE(r.unrepresented.empty());
}

TEST(Psc, ThetaOneKeepsExactlyTheUniqueDirections) {
  const std::vector<double> rows = {1, 2, 3,  1, 2, 3,  3, 2, 1,  -1, 0, 0,  3, 2, 1};
  const PscResult r = PrincipalSceneComponents(rows.data(), 5, 3, 1.0 - 1e-12);
  EXPECT_EQ(r.selected, (std::vector<int>{0, 2, 3}));
}

TEST(Psc, TheDropQuirkLeavesARowUnrepresentedAndDependsOnOrder) {
  // Unit vectors at 0, 40 and 80 degrees, θ = cos 45°: 0~40 and 40~80 are
  // similar, 0 and 80 are not. In order 0, 40, 80: 0 is selected and marks
  // {0, 40}; 40 is used; 80's J = {40, 80} holds the used 40, so 80 is
  // dropped and nothing within 45° of it was selected.
  auto unit = [](double deg) { return std::vector<double>{std::cos(deg * M_PI / 180), std::sin(deg * M_PI / 180)}; };
  std::vector<double> rows;
  for (double deg : {0.0, 40.0, 80.0})
    for (double x : unit(deg)) rows.push_back(x);
  const double theta = std::cos(M_PI / 4);
  const PscResult a = PrincipalSceneComponents(rows.data(), 3, 2, theta);
  EXPECT_EQ(a.selected, (std::vector<int>{0}));
  EXPECT_EQ(a.dropped, (std::vector<int>{2}));
  EXPECT_EQ(a.unrepresented, (std::vector<int>{2}));
  // Order 40, 0, 80: 40 is selected and covers all three.
  std::vector<double> reordered;
  for (double deg : {40.0, 0.0, 80.0})
    for (double x : unit(deg)) reordered.push_back(x);
  const PscResult b = PrincipalSceneComponents(reordered.data(), 3, 2, theta);
  EXPECT_EQ(b.selected, (std::vector<int>{0}));
  EXPECT_TRUE(b.dropped.empty());
  EXPECT_TRUE(b.unrepresented.empty());
}

TEST(Psc, BadInputIsRefused) {
  const std::vector<double> rows = {1, 0, 0, 0};
  EXPECT_THROW(PrincipalSceneComponents(rows.data(), 2, 2, 0.9), std::invalid_argument);  // zero row
  EXPECT_THROW(PrincipalSceneComponents(rows.data(), 1, 2, NAN), std::invalid_argument);
  EXPECT_THROW(PrincipalSceneComponents(rows.data(), 1, 0, 0.9), std::invalid_argument);
}

TEST(Psc, Fp32SelfCosineCanFallBelowOne) {
  // Worked by hand in binary32 (products, sums, sqrt and quotients each
  // rounded): (1, 1) and (1, 2, 3) normalise to a self-dot of 1 - 2^-24 and
  // 1 - 2^-23, below 1; (2, 3) gives 1 + 2^-23 and (3, 4, 5) exactly 1; a
  // row of one non-zero entry is exact.
  const std::vector<double> below = {1, 1, 0,  1, 2, 3};
  EXPECT_EQ(SelfCosineBelowOneF32(below.data(), 2, 3), 2);
  const std::vector<double> not_below = {2, 3, 0,  3, 4, 5,  3, 0, 0,  0, -2, 0};
  EXPECT_EQ(SelfCosineBelowOneF32(not_below.data(), 4, 3), 0);
}

// ---------------------------------------------------------------------------
// GMA

TEST(Gma, OneMemoryRowIsReturnedExactly) {
  const GmaShape s{3, 2, 4, 1};
  const auto q = Normals(6, 1), w = Normals(8, 2), m = Normals(4, 3);
  std::vector<double> out(12);
  GmaForward(s, q.data(), w.data(), m.data(), kGmaTemperature, out.data());
  for (int p = 0; p < 3; ++p)
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(out[p * 4 + k], m[k], 1e-15);
}

TEST(Gma, CodeFormEqualsItsDefinitionAndPaperFormDiffers) {
  const GmaShape s{5, 3, 6, 4};
  const auto q = Normals(15, 4), w = Normals(18, 5), m = Normals(24, 6);
  std::vector<double> out(30), paper(30);
  GmaForward(s, q.data(), w.data(), m.data(), 0.05, out.data());
  GmaPaper(s, q.data(), w.data(), m.data(), paper.data());
  double differ = 0.0;
  for (int p = 0; p < 5; ++p) {
    std::vector<double> e(6, 0.0), logit(4);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 6; ++k) e[k] += q[p * 3 + i] * w[i * 6 + k];
    double en = 0;
    for (double x : e) en += x * x;
    en = std::sqrt(en) + 1e-6;
    double z = 0;
    for (int j = 0; j < 4; ++j) {
      double mn = 0, dot = 0;
      for (int k = 0; k < 6; ++k) mn += m[j * 6 + k] * m[j * 6 + k], dot += e[k] * m[j * 6 + k];
      logit[j] = std::exp(dot / en / (std::sqrt(mn) + 1e-6) / 0.05);
      z += logit[j];
    }
    for (int k = 0; k < 6; ++k) {
      double want = 0;
      for (int j = 0; j < 4; ++j) want += logit[j] / z * m[j * 6 + k];
      EXPECT_NEAR(out[p * 6 + k], want, 1e-12);
      differ = std::max(differ, std::abs(paper[p * 6 + k] - want));
    }
  }
  EXPECT_GT(differ, 1e-3);  // the paper's equation is another function
}

TEST(Gma, BackwardMatchesCentralDifferences) {
  const GmaShape s{3, 3, 5, 4};
  const auto q = Normals(9, 7), w = Normals(15, 8), m = Normals(20, 9), g = Normals(15, 10);
  const double tau = 0.3;  // a softer softmax keeps the differences well conditioned
  GmaCache cache;
  std::vector<double> out(15), dq(9, 0.0), dw(15, 0.0);
  GmaForward(s, q.data(), w.data(), m.data(), tau, out.data(), &cache);
  GmaBackward(s, q.data(), w.data(), m.data(), tau, cache, g.data(), dq.data(), dw.data());
  auto loss = [&](const std::vector<double>& qq, const std::vector<double>& ww) {
    std::vector<double> o(15);
    GmaForward(s, qq.data(), ww.data(), m.data(), tau, o.data());
    double l = 0;
    for (int i = 0; i < 15; ++i) l += o[i] * g[i];
    return l;
  };
  const double h = 1e-6;
  for (int i = 0; i < 9; ++i) {
    auto a = q, b = q;
    a[i] += h, b[i] -= h;
    EXPECT_NEAR(dq[i], (loss(a, w) - loss(b, w)) / (2 * h), 1e-6) << "dq " << i;
  }
  for (int i = 0; i < 15; ++i) {
    auto a = w, b = w;
    a[i] += h, b[i] -= h;
    EXPECT_NEAR(dw[i], (loss(q, a) - loss(q, b)) / (2 * h), 1e-6) << "dW " << i;
  }
}

TEST(Gma, ArgmaxBoundHoldsAndShrinksWithTemperature) {
  const GmaShape s{40, 4, 8, 6};
  const auto q = Normals(160, 11), w = Normals(32, 12), m = Normals(48, 13);
  double last = INFINITY;
  for (double tau : {0.05, 0.02, 0.01, 0.005}) {
    std::vector<double> out(320), bound(40);
    std::vector<int> arg(40);
    GmaForward(s, q.data(), w.data(), m.data(), tau, out.data());
    GmaArgmaxBound(s, q.data(), w.data(), m.data(), tau, bound.data(), arg.data());
    double worst_bound = 0;
    for (int p = 0; p < 40; ++p) {
      double dist = 0;
      for (int k = 0; k < 8; ++k) dist += std::pow(out[p * 8 + k] - m[arg[p] * 8 + k], 2);
      EXPECT_LE(std::sqrt(dist), bound[p] * (1 + 1e-9) + 1e-15) << "tau " << tau << " pixel " << p;
      worst_bound = std::max(worst_bound, bound[p]);
    }
    EXPECT_LE(worst_bound, last);
    last = worst_bound;
  }
}

TEST(Gma, HalfAgreesWithDoubleWithinItsBudget) {
  // fp16 cosines carry ~2^-11 relative error; /τ = 20 makes it ~0.01 in the
  // logits, so softmax weights move by about 1%: the budget is 0.08 of the
  // largest memory entry (4 half ulps of 1 over τ), asserted here.
  const GmaShape s{64, 16, 32, 10};
  const auto q = Normals(1024, 14), w = Normals(512, 15), m = Normals(320, 16);
  std::vector<double> full(64 * 32), half(64 * 32);
  GmaForward(s, q.data(), w.data(), m.data(), kGmaTemperature, full.data());
  GmaHalf(s, q.data(), w.data(), m.data(), kGmaTemperature, half.data());
  double worst = 0, mmax = 0;
  for (size_t i = 0; i < full.size(); ++i) worst = std::max(worst, std::abs(full[i] - half[i]));
  for (double x : m) mmax = std::max(mmax, std::abs(x));
  EXPECT_LE(worst, 4 * std::ldexp(1.0, -10) / kGmaTemperature * mmax);
  EXPECT_GT(worst, 0.0);  // it is a different computation
}

TEST(Gma, BadShapesAreRefused) {
  const std::vector<double> x(4, 1.0);
  std::vector<double> out(4);
  EXPECT_THROW(GmaForward({1, 0, 2, 1}, x.data(), x.data(), x.data(), 0.05, out.data()), std::invalid_argument);
  EXPECT_THROW(GmaForward({1, 1, 2, 1}, x.data(), x.data(), x.data(), 0.0, out.data()), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Splatting

TEST(Splat, FrontToBackCompositingByHand) {
  // Two Gaussians centred on pixel (0, 0): α = 0.5 then 0.4, so weights
  // 0.5 and 0.4 * 0.5 = 0.2; a value row of ones sums to 0.7.
  const std::vector<Gaussian2D> g = {{.x = 0, .y = 0, .opacity = 0.5}, {.x = 0, .y = 0, .opacity = 0.4}};
  const SplatWeights w = ComputeSplatWeights(g, {0, 0, 1, 1});
  ASSERT_EQ(w.weight.size(), 2u);
  EXPECT_DOUBLE_EQ(w.weight[0], 0.5);
  EXPECT_DOUBLE_EQ(w.weight[1], 0.2);
  const std::vector<double> v = {2.0, 10.0};
  double out = 0;
  Composite(w, v.data(), 1, &out);
  EXPECT_DOUBLE_EQ(out, 0.5 * 2 + 0.2 * 10);
}

TEST(Splat, AlphaIsClampedSkippedAndStopsAtTheTransmittanceFloor) {
  // Opacity 1 at the centre clamps to 0.99. T after one: 0.01; after two:
  // (1 - 0.99)² = 1.00000000000000018e-4 in doubles, not below 1e-4, so the
  // second counts; the third would take T to 1e-6 and stops the walk.
  const std::vector<Gaussian2D> g = {{.x = 0, .y = 0, .opacity = 1.0}, {.x = 0, .y = 0, .opacity = 1.0},
                                     {.x = 0, .y = 0, .opacity = 1.0}};
  const SplatWeights w = ComputeSplatWeights(g, {0, 0, 1, 1});
  ASSERT_EQ(w.weight.size(), 2u);
  EXPECT_DOUBLE_EQ(w.weight[0], 0.99);
  EXPECT_DOUBLE_EQ(w.weight[1], 0.99 * (1 - 0.99));
  // A far Gaussian (α < 1/255) is skipped.
  const std::vector<Gaussian2D> far = {{.x = 10, .y = 0, .sx = 1, .sy = 1, .opacity = 1.0}};
  EXPECT_TRUE(ComputeSplatWeights(far, {0, 0, 1, 1}).weight.empty());
}

TEST(Splat, TransposeIsTheAdjointOfComposite) {
  cb::harness::Rng rng(21);
  std::vector<Gaussian2D> g;
  for (int i = 0; i < 30; ++i)
    g.push_back({.x = rng.Uniform() * 12, .y = rng.Uniform() * 10, .sx = 0.5 + rng.Uniform() * 2,
                 .sy = 0.5 + rng.Uniform() * 2, .rot = rng.Uniform() * 3, .opacity = 0.1 + 0.8 * rng.Uniform()});
  const SplatWeights w = ComputeSplatWeights(g, {1, 2, 9, 7});
  const auto v = Normals(30 * 3, 22), u = Normals(63 * 3, 23);
  std::vector<double> wv(63 * 3), wtu(30 * 3, 0.0);
  Composite(w, v.data(), 3, wv.data());
  CompositeTranspose(w, u.data(), 3, wtu.data());
  double a = 0, b = 0;
  for (size_t i = 0; i < wv.size(); ++i) a += u[i] * wv[i];
  for (size_t i = 0; i < wtu.size(); ++i) b += v[i] * wtu[i];
  EXPECT_NEAR(a, b, 1e-12 * (std::abs(a) + 1));
}

TEST(Splat, ConicIsTheInverseCovariance) {
  const Gaussian2D g{.sx = 2.0, .sy = 0.5, .rot = 0.7};
  const Conic c = ConicOf(g);
  const double co = std::cos(0.7), si = std::sin(0.7);
  // Σ = R diag(4, 0.25) Rᵀ
  const double s00 = co * co * 4 + si * si * 0.25, s01 = co * si * (4 - 0.25), s11 = si * si * 4 + co * co * 0.25;
  EXPECT_NEAR(c.a * s00 + c.b * s01, 1.0, 1e-12);
  EXPECT_NEAR(c.a * s01 + c.b * s11, 0.0, 1e-12);
  EXPECT_NEAR(c.b * s01 + c.c * s11, 1.0, 1e-12);
}

// ---------------------------------------------------------------------------
// Loss

TEST(Loss, MaskIsTheChannelSumNotTheNorm) {
  // Pixel 1's target (1, -1) sums to 0: the code masks it though it is not zero.
  const std::vector<double> pred = {1, 0, 5, 5}, gt = {2, 0, 1, -1};
  const FeatureDistance masked = CosineMseLoss(pred.data(), gt.data(), 2, 2, true);
  EXPECT_EQ(masked.valid, 1);
  EXPECT_NEAR(masked.cosine, 0.0, 1e-15);
  EXPECT_NEAR(masked.mse, (1.0 + 0.0) / 2, 1e-15);
  const FeatureDistance all = CosineMseLoss(pred.data(), gt.data(), 2, 2, false);
  EXPECT_EQ(all.valid, 2);
  EXPECT_NEAR(all.cosine, (0.0 + 1.0) / 2, 1e-15);  // (5, 5) ⟂ (1, -1)
  EXPECT_NEAR(all.mse, (1.0 + 0 + 16 + 36) / 4, 1e-12);
  const std::vector<double> zero = {0, 0, 1, -1};
  EXPECT_THROW(CosineMseLoss(pred.data(), zero.data(), 2, 2, true), std::invalid_argument);
}

TEST(Loss, GradientMatchesCentralDifferences) {
  const auto pred = Normals(12, 31), gt = Normals(12, 32);
  std::vector<double> g(12);
  CosineMseLoss(pred.data(), gt.data(), 3, 4, true, g.data());
  for (int i = 0; i < 12; ++i) {
    auto a = pred, b = pred;
    a[i] += 1e-6, b[i] -= 1e-6;
    const FeatureDistance la = CosineMseLoss(a.data(), gt.data(), 3, 4, true);
    const FeatureDistance lb = CosineMseLoss(b.data(), gt.data(), 3, 4, true);
    EXPECT_NEAR(g[i], ((la.cosine + la.mse) - (lb.cosine + lb.mse)) / 2e-6, 1e-7);
  }
}

// ---------------------------------------------------------------------------
// Metrics

TEST(Otsu, SplitsTwoClustersAndMatchesTheBruteForceDefinition) {
  std::vector<double> x;
  for (int i = 0; i < 50; ++i) x.push_back(0.1 + 0.001 * i);
  for (int i = 0; i < 30; ++i) x.push_back(0.8 + 0.001 * i);
  const double t = OtsuThreshold(x);
  EXPECT_GT(t, 0.149);
  EXPECT_LT(t, 0.8);
  // Brute force over the 255 splits between bins, as skimage defines it.
  const double lo = 0.1, hi = 0.829, step = (hi - lo) / 256;
  double best = -1, best_c = 0;
  for (int b = 0; b < 255; ++b) {
    const double edge = lo + (b + 1) * step;
    double w1 = 0, s1 = 0, w2 = 0, s2 = 0;
    for (double v : x) {
      const int bin = std::min(255, int((v - lo) / step));
      const double c = lo + (bin + 0.5) * step;
      if (v < edge) w1 += 1, s1 += c;
      else w2 += 1, s2 += c;
    }
    const double var = w1 * w2 * std::pow(s1 / w1 - s2 / w2, 2);
    if (var > best) best = var, best_c = lo + (b + 0.5) * step;
  }
  EXPECT_NEAR(t, best_c, 1e-12);
}

TEST(Otsu, ConstantInputReturnsItsValueAndBadInputIsRefused) {
  const std::vector<double> c(5, 0.25);
  EXPECT_EQ(OtsuThreshold(c), 0.25);
  EXPECT_THROW(OtsuThreshold(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(OtsuThreshold(std::vector<double>{1.0, NAN}), std::invalid_argument);
}

TEST(Grounding, IoUConventionsOfTheEvaluator) {
  GroundingScore g;
  const std::vector<char> pred1 = {1, 1, 0, 0}, gt1 = {1, 0, 0, 0};  // IoU 1 / (2 + 1e-6)
  const std::vector<char> pred2 = {0, 0, 0, 0}, gt2 = {0, 0, 1, 1};  // IoU 0
  g.Add(pred1, gt1);
  g.Add(pred2, gt2);
  EXPECT_NEAR(g.MIoU(), 100.0 * (1.0 / (2 + 1e-6)) / 2, 1e-9);
  EXPECT_NEAR(g.CIoU(), 100.0 * 1.0 / 4.0, 1e-12);
  EXPECT_DOUBLE_EQ(g.Ap50(), 0.0);  // 1/(2 + 1e-6) < 0.5: the epsilon decides a tie
  EXPECT_THROW(g.Add(pred1, std::vector<char>{1}), std::invalid_argument);
}

TEST(Recall, TiesCountAgainstTheCorrectCandidate) {
  // Query 0: correct 0 scores 0.9, best; query 1: correct 1 ties with 0.
  const std::vector<double> s = {0.9, 0.1, 0.5, 0.5};
  EXPECT_DOUBLE_EQ(RecallAtK(s, 2, 2, {0, 1}, 1), 50.0);
  EXPECT_DOUBLE_EQ(RecallAtK(s, 2, 2, {0, 1}, 2), 100.0);
  EXPECT_THROW(RecallAtK(s, 2, 2, {0}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace cb::ref::m3

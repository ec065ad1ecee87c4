// File: suites/unip/unip_reference_test.cpp
// -----------------------------------------------------------------------------
// reference/unip: the NMI oracles (exact without the 1e-8, moved by it with),
// invariances and range on fresh random maps, CLS handling, NMI-HAD's choice;
// the distillation KL against its closed form and central differences; mmseg
// mIoU by hand, accumulation, the ignore label, histc's range and the fp32
// counts of the paper-compatible mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/unip/distill.h"
#include "reference/unip/miou.h"
#include "reference/unip/nmi.h"

namespace cb::ref::unip {
namespace {

// Rows softmax(scale * N(0, 1)): a dense, uneven attention map [q, k].
std::vector<double> RandomMap(harness::Rng& rng, int q, int k, double scale) {
  std::vector<double> a(static_cast<size_t>(q) * k);
  for (int i = 0; i < q; ++i) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) sum += a[static_cast<size_t>(i) * k + j] = std::exp(scale * rng.Normal());
    for (int j = 0; j < k; ++j) a[static_cast<size_t>(i) * k + j] /= sum;
  }
  return a;
}

TEST(Nmi, OraclesAreExactWithoutTheEpsilon) {
  const int n = 196;  // ViT-B/16's 14 x 14 patches
  EXPECT_NEAR(Nmi(CircularWindowMap(n, 1), n, n, 0.0), 1.0, 1e-14);  // A = I
  for (int w : {2, 4, 7, 14, 49, 98}) {
    EXPECT_NEAR(Nmi(CircularWindowMap(n, w), n, n, 0.0), std::log(double(n) / w) / std::log(double(n)), 1e-13) << w;
  }
  EXPECT_NEAR(Nmi(CircularWindowMap(n, n), n, n, 0.0), 0.0, 1e-14);  // uniform rows
  // Identical uneven rows: p(k) is the row itself, MI = 0.
  std::vector<double> same(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) same[static_cast<size_t>(i) * n + j] = (j + 1.0) / (n * (n + 1.0) / 2);
  }
  EXPECT_NEAR(Nmi(same, n, n, 0.0), 0.0, 1e-14);
}

TEST(Nmi, TheEpsilonLowersTheSharpOraclesOnly) {
  const int n = 196;
  // With cl-vs-mim's 1e-8 a one-hot row keeps 1 - 195e-8 of its mass: A = I
  // comes out below 1, by far more than rounding.
  const double identity = Nmi(CircularWindowMap(n, 1), n, n);
  EXPECT_LT(identity, 1.0 - 1e-6);
  EXPECT_GT(identity, 1.0 - 1e-3);
  // Uniform rows stay uniform: no effect.
  EXPECT_NEAR(Nmi(CircularWindowMap(n, n), n, n), 0.0, 1e-14);
}

TEST(Nmi, InvariancesAndRangeOnFreshRandomMaps) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  for (int t = 0; t < 20; ++t) {
    const int q = static_cast<int>(rng.UniformInt(2, 40)), k = static_cast<int>(rng.UniformInt(2, 40));
    const std::vector<double> a = RandomMap(rng, q, k, 0.5 + 3.0 * rng.Uniform());
    const double v = Nmi(a, q, k);
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
    // Relabelling queries or keys changes nothing.
    std::vector<int> qp(q), kp(k);
    std::iota(qp.begin(), qp.end(), 0);
    std::iota(kp.begin(), kp.end(), 0);
    rng.Shuffle(std::span<int>(qp));
    rng.Shuffle(std::span<int>(kp));
    std::vector<double> b(a.size());
    for (int i = 0; i < q; ++i) {
      for (int j = 0; j < k; ++j) b[static_cast<size_t>(qp[i]) * k + kp[j]] = a[static_cast<size_t>(i) * k + j];
    }
    EXPECT_NEAR(Nmi(b, q, k), v, 1e-12);
    // Rows scaled before the call are renormalised.
    for (int i = 0; i < q; ++i) {
      for (int j = 0; j < k; ++j) b[static_cast<size_t>(i) * k + j] = 3.0 * a[static_cast<size_t>(i) * k + j];
    }
    EXPECT_NEAR(Nmi(b, q, k, 0.0), Nmi(a, q, k, 0.0), 1e-12);
  }
}

TEST(Nmi, LayerValueDropsClsAndAveragesImagesAndHeads) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 1);
  const int images = 2, heads = 3, n = 10;
  std::vector<double> a(static_cast<size_t>(images) * heads * n * n);
  std::vector<double> inner;  // the NMI of each (image, head) without its CLS row and column
  for (int m = 0; m < images * heads; ++m) {
    const std::vector<double> map = RandomMap(rng, n, n, 2.0);
    std::copy(map.begin(), map.end(), a.begin() + static_cast<ptrdiff_t>(m) * n * n);
    std::vector<double> cut;
    for (int i = 1; i < n; ++i) {
      for (int j = 1; j < n; ++j) cut.push_back(map[static_cast<size_t>(i) * n + j]);
    }
    inner.push_back(Nmi(cut, n - 1, n - 1));
  }
  EXPECT_NEAR(LayerNmi(a, images, heads, n), std::accumulate(inner.begin(), inner.end(), 0.0) / inner.size(), 1e-14);
  EXPECT_NE(LayerNmi(a, images, heads, n, /*drop_cls=*/false), LayerNmi(a, images, heads, n));
  EXPECT_THROW(LayerNmi(a, images, heads, n + 1), std::invalid_argument);
  EXPECT_THROW(Nmi(std::vector<double>{0.5, -0.1, 0.3, 0.3}, 2, 2), std::invalid_argument);
  EXPECT_THROW(Nmi(std::vector<double>{0.0, 0.0, 1.0, 0.0}, 2, 2, 0.0), std::invalid_argument);  // a zero row
}

TEST(NmiHad, ClosestLayerFirstOnTies) {
  const std::vector<double> profile = {0.45, 0.30, 0.12, 0.085, 0.095, 0.04};
  EXPECT_EQ(NmiHadLayer(profile), 3);  // 0.085 is nearer 0.09 than 0.095 is, in binary
  EXPECT_EQ(NmiHadLayer(std::vector<double>{0.75, 0.25}, 0.5), 0);  // an exact tie: the first
  EXPECT_EQ(NmiHadLayer(profile, 0.06), 5);    // 0.04 is 0.02 away, 0.085 is 0.025
  EXPECT_EQ(NmiHadLayer(profile, 0.12), 2);
  EXPECT_STREQ(NmiKind(0.3), "local");
  EXPECT_STREQ(NmiKind(0.09), "hybrid");
  EXPECT_STREQ(NmiKind(0.01), "global");
  EXPECT_THROW(NmiHadLayer(std::vector<double>{}), std::invalid_argument);
}

TEST(AttentionKl, ClosedFormShiftInvarianceAndGradient) {
  // Two keys: KL(p || s) with p = softmax(0, ln 3) = (1/4, 3/4), s = (1/2, 1/2):
  // 1/4 ln(1/2) + 3/4 ln(3/2).
  EXPECT_NEAR(AttentionKl(std::vector<double>{0.0, 0.0}, std::vector<double>{0.0, std::log(3.0)}, 2), 0.25 * std::log(0.5) + 0.75 * std::log(1.5), 1e-15);
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 2);
  const int rows = 6, k = 5;
  std::vector<double> s(rows * k), t(rows * k);
  for (double& x : s) x = 2 * rng.Normal();
  for (double& x : t) x = 2 * rng.Normal();
  std::vector<double> g(s.size());
  const double loss = AttentionKl(s, t, k, g);
  EXPECT_GT(loss, 0.0);
  // A constant added to a row of logits changes no softmax.
  std::vector<double> shifted = s;
  for (int j = 0; j < k; ++j) shifted[j] += 7.0;
  EXPECT_NEAR(AttentionKl(shifted, t, k), loss, 1e-13);
  EXPECT_NEAR(AttentionKl(t, t, k), 0.0, 1e-15);
  for (size_t i = 0; i < s.size(); ++i) {
    std::vector<double> up = s, down = s;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    EXPECT_NEAR(g[i], (AttentionKl(up, t, k) - AttentionKl(down, t, k)) / 2e-6, 1e-8) << i;
  }
  EXPECT_THROW(AttentionKl(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0}, 1), std::invalid_argument);
}

TEST(Miou, HandWorkedWithIgnoreAbsentClassAndOutOfRangePredictions) {
  MiouAccumulator acc(4);
  // label 255 dropped; class 3 absent and never predicted -> NaN, left out;
  // a prediction of 9 is outside histc's [0, 3]: counted in no class.
  acc.Add(std::vector<int>{0, 0, 1, 1, 2, 9, 0}, std::vector<int>{0, 1, 1, 1, 2, 2, 255});
  const MiouResult r = acc.Result();
  // class 0: I 1, pred 2, label 1 -> 1/2;  class 1: I 2, pred 2, label 3 -> 2/3;
  // class 2: I 1, pred 1, label 2 -> 1/2.
  EXPECT_DOUBLE_EQ(r.iou[0], 0.5);
  EXPECT_DOUBLE_EQ(r.iou[1], 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.iou[2], 0.5);
  EXPECT_TRUE(std::isnan(r.iou[3]));
  EXPECT_DOUBLE_EQ(r.miou, (0.5 + 2.0 / 3 + 0.5) / 3);
  EXPECT_DOUBLE_EQ(r.aacc, 4.0 / 6);
  // Accumulating over images is summing histograms, not averaging IoUs.
  MiouAccumulator split(4);
  split.Add(std::vector<int>{0, 0, 1}, std::vector<int>{0, 1, 1});
  split.Add(std::vector<int>{1, 2, 9, 0}, std::vector<int>{1, 2, 2, 255});
  EXPECT_EQ(split.Result().iou[1], r.iou[1]);
  EXPECT_EQ(split.Result().miou, r.miou);
  EXPECT_THROW(acc.Add(std::vector<int>{0}, std::vector<int>{0, 1}), std::invalid_argument);
  EXPECT_THROW(MiouAccumulator(1), std::invalid_argument);
}

TEST(Miou, PaperCompatibleCountsInFp32) {
  // 2^24 + 1 pixels of class 0, the last one predicted as class 1: in fp32
  // the label count 2^24 + 1 rounds to 2^24 and class 0's IoU becomes 1.
  MiouAccumulator acc(2);
  const std::vector<int> zeros(1 << 20, 0);
  for (int i = 0; i < 16; ++i) acc.Add(zeros, zeros);
  acc.Add(std::vector<int>{1}, std::vector<int>{0});
  const double exact = 16777216.0 / 16777217.0;
  EXPECT_EQ(acc.Result().iou[0], exact);
  EXPECT_EQ(acc.Result(/*paper_compatible=*/true).iou[0], 1.0);
  EXPECT_EQ(acc.Result().iou[1], 0.0);
  EXPECT_EQ(acc.Result(true).iou[1], 0.0);
}

}  // namespace
}  // namespace cb::ref::unip

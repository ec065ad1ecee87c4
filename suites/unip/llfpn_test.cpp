// File: suites/unip/llfpn_test.cpp
// -----------------------------------------------------------------------------
// The simplified LL-FPN head (llfpn.h): its forward worked by hand (the
// ConvT taps, nearest upsampling, max-pool, exact GELU, painting, mIoU),
// the hand-written backward against central differences for every head
// tensor and the features on fresh random inputs, the ignore label (255)
// adding nothing, training on oracle features (one-hot majority labels)
// that learns far above a constant prediction and uses the 2G grid, seeded
// determinism, and bad input.
#include "suites/unip/llfpn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "generators/segscenes.h"
#include "harness/random.h"
#include "reference/unip/miou.h"
#include "suites/unip/distill.h"

namespace cb::unip {
namespace {

double GeluErf(double s) { return 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0))); }

// A scenes object of hand-made label maps (size x size each), `classes`
// object classes.
gen::SegScenes HandScenes(int size, int classes, const std::vector<std::vector<uint8_t>>& labels) {
  gen::SegScenes s;
  s.params.size = size;
  s.params.classes = classes;
  s.params.count = int(labels.size());
  for (const auto& l : labels) {
    gen::SegScene scene;
    scene.size = size;
    scene.label = l;
    s.scenes.push_back(scene);
  }
  return s;
}

// D = 1, F = 1, K = 2, G = 2 (one image, features x = [2 -2; 0 1]):
//   (a) taps up_w[0, 0, :, :] = [1 0.5; 0 0]: in each 2x2 block of the
//       output the top-left pixel gets x, the top-right 0.5 x, the others 0
//   (b) mid_w = 0.5: every pixel of the block gets 0.5 x
//   (c) max-pool of all four = 2, down_w = 1, down_b = -1: every pixel + 1
//   s = 4  3 -2 -1        class 1's logit = GELU(s), class 0's = 0.1
//       2  2  0  0
//       1  1  2.5 2
//       1  1  1.5 1.5
LlFpnHead HandHead() {
  LlFpnHead h{.dim = 1, .width = 1, .classes = 2};
  h.up_w = {1, 0.5, 0, 0};
  h.up_b = {0};
  h.mid_w = {0.5};
  h.mid_b = {0};
  h.down_w = {1};
  h.down_b = {-1};
  h.cls_w = {0, 1};
  h.cls_b = {0.1, 0};
  return h;
}

TEST(LlFpn, ForwardByHand) {
  const LlFpnHead h = HandHead();
  const std::vector<double> x = {2, -2, 0, 1};
  const double s[16] = {4, 3, -2, -1, 2, 2, 0, 0, 1, 1, 2.5, 2, 1, 1, 1.5, 1.5};
  const std::vector<double> logits = LlFpnLogits(h, x, 2);
  ASSERT_EQ(logits.size(), 16u * 2);
  for (int c = 0; c < 16; ++c) {
    EXPECT_DOUBLE_EQ(logits[c * 2], 0.1) << c;
    EXPECT_NEAR(logits[c * 2 + 1], GeluErf(s[c]), 1e-15) << c;
  }
  // The exact GELU, not tanh's (0.84119199 at 1): Phi(1) and -2 Phi(-2).
  EXPECT_NEAR(logits[8 * 2 + 1], 0.8413447460685429, 1e-15);
  EXPECT_NEAR(logits[2 * 2 + 1], -0.04550026389635842, 1e-15);
  // Class 1 where GELU(s) > 0.1: every cell but the top-right 2x2 (s = -2,
  // -1, 0, 0). Patch 4: each cell paints 2x2 pixels of the 8x8 map.
  const std::vector<int> pred = LlFpnPredict(h, x, 2, 4);
  ASSERT_EQ(pred.size(), 64u);
  for (int py = 0; py < 8; ++py)
    for (int px = 0; px < 8; ++px) EXPECT_EQ(pred[py * 8 + px], (py < 4 && px >= 4) ? 0 : 1) << py << "," << px;
  // mIoU against an all-object scene: class 0 predicted on 16 pixels, never
  // present -> 0; class 1: 48 / 64. Against the prediction itself: 1.
  EXPECT_NEAR(LlFpnMiou(h, x, HandScenes(8, 1, {std::vector<uint8_t>(64, 1)}), 4), (0.0 + 48.0 / 64) / 2, 1e-15);
  std::vector<uint8_t> same(pred.begin(), pred.end());
  EXPECT_DOUBLE_EQ(LlFpnMiou(h, x, HandScenes(8, 1, {same}), 4), 1.0);
}

// G = 4: level (b) alone (mid_w = 1) gives cell (y, x) the feature of
// patch (y/2, x/2); level (c) alone (down_w = 1) the max over the 2x2
// patches of window (y/4, x/4): 1.5, 2, 0.9, 1.7 here.
TEST(LlFpn, LevelsUpsampleByNearest) {
  const std::vector<double> x = {0.3, -1,   2,    0.5,  //
                                 1.5, 0.2,  -0.7, 1.1,  //
                                 -2,  0.9,  0.4,  0.8,  //
                                 0.1, -0.3, 1.7,  -1.2};
  const double window_max[2][2] = {{1.5, 2}, {0.9, 1.7}};
  LlFpnHead h = HandHead();
  h.up_w = {0, 0, 0, 0};
  h.down_b = {0};
  h.mid_w = {1};
  h.down_w = {0};
  const std::vector<double> mid = LlFpnLogits(h, x, 4);
  h.mid_w = {0};
  h.down_w = {1};
  const std::vector<double> down = LlFpnLogits(h, x, 4);
  ASSERT_EQ(mid.size(), 64u * 2);
  for (int y = 0; y < 8; ++y)
    for (int c = 0; c < 8; ++c) {
      EXPECT_NEAR(mid[(y * 8 + c) * 2 + 1], GeluErf(x[(y / 2) * 4 + c / 2]), 1e-15) << y << "," << c;
      EXPECT_NEAR(down[(y * 8 + c) * 2 + 1], GeluErf(window_max[y / 4][c / 4]), 1e-15) << y << "," << c;
    }
}

// Every head tensor at random values (biases too), features with every
// max-pool window's top two at least 1e-3 apart (central differences of
// step 1e-5 never cross a max), labels with ~15% ignored.
TEST(LlFpn, GradientMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  const int D = 6, K = 4, G = 4, N = 2, patch = 4, S = G * patch;
  LlFpnHead head = MakeLlFpnHead(D, K, {.width = 5, .seed = seed});
  for (std::vector<double>* t : head.Tensors())
    for (double& v : *t) v = 0.7 * rng.Normal();
  std::vector<double> x(size_t(N) * G * G * D);
  for (bool separated = false; !separated;) {
    for (double& v : x) v = rng.Normal();
    separated = true;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < G; i += 2)
        for (int j = 0; j < G; j += 2)
          for (int d = 0; d < D; ++d) {
            double w[4];
            for (int t = 0; t < 4; ++t) w[t] = x[((size_t(n) * G + i + t / 2) * G + j + t % 2) * D + d];
            std::sort(w, w + 4);
            separated = separated && w[3] - w[2] >= 1e-3;
          }
  }
  std::vector<int> labels(size_t(N) * S * S);
  for (int& l : labels) l = rng.Uniform() < 0.15 ? ref::unip::kIgnoreLabel : int(rng.UniformInt(0, K - 1));

  LlFpnHead grad;
  std::vector<double> dx;
  const double loss = LlFpnLossAndGrad(head, x, G, labels, patch, &grad, &dx);
  EXPECT_EQ(LlFpnLossAndGrad(head, x, G, labels, patch, nullptr, nullptr), loss);
  const double h = 1e-5;
  auto check = [&](const char* name, std::vector<double>& param, const std::vector<double>& analytic) {
    ASSERT_EQ(param.size(), analytic.size()) << name;
    double scale = 0;
    for (double g : analytic) scale = std::max(scale, std::abs(g));
    EXPECT_GT(scale, 1e-4) << name << ": a gradient that is all (nearly) zero checks nothing";
    for (size_t i = 0; i < param.size(); ++i) {
      const double keep = param[i];
      param[i] = keep + h;
      const double up = LlFpnLossAndGrad(head, x, G, labels, patch, nullptr, nullptr);
      param[i] = keep - h;
      const double down = LlFpnLossAndGrad(head, x, G, labels, patch, nullptr, nullptr);
      param[i] = keep;
      EXPECT_NEAR((up - down) / (2 * h), analytic[i], 1e-9 + 1e-6 * scale) << name << "[" << i << "]";
    }
  };
  auto tensors = head.Tensors();
  const auto grads = grad.Tensors();
  for (size_t t = 0; t < tensors.size(); ++t) check(kLlFpnTensorNames[t], *tensors[t], *grads[t]);
  check("features", x, dx);
}

// The loss is a sum over pixels divided by ALL pixels (mmseg's default):
// so splitting the pixels into two label maps, each with the other's
// pixels set to 255, splits loss and gradients exactly, an all-ignored map
// costs 0 with zero gradients, and the loss equals a per-pixel sum of
// -log softmax over the non-ignored pixels, recomputed here from the logits.
TEST(LlFpn, IgnoredPixelsContributeNothing) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 1);
  const int D = 5, K = 5, G = 4, N = 3, patch = 8, S = G * patch, cp = patch / 2;
  const LlFpnHead head = MakeLlFpnHead(D, K, {.width = 7, .seed = seed + 1});
  std::vector<double> x(size_t(N) * G * G * D);
  for (double& v : x) v = rng.Normal();
  std::vector<int> full(size_t(N) * S * S), a(full.size(), ref::unip::kIgnoreLabel), b = a;
  for (size_t i = 0; i < full.size(); ++i) {
    full[i] = int(rng.UniformInt(0, K - 1));
    (rng.Uniform() < 0.3 ? a : b)[i] = full[i];
  }
  LlFpnHead g_full, g_a, g_b;
  std::vector<double> dx_full, dx_a, dx_b;
  const double l_full = LlFpnLossAndGrad(head, x, G, full, patch, &g_full, &dx_full);
  const double l_a = LlFpnLossAndGrad(head, x, G, a, patch, &g_a, &dx_a);
  const double l_b = LlFpnLossAndGrad(head, x, G, b, patch, &g_b, &dx_b);
  EXPECT_NEAR(l_a + l_b, l_full, 1e-13 * l_full);
  EXPECT_GT(l_a, 0.1 * l_full);
  EXPECT_GT(l_b, 0.1 * l_full);
  for (size_t t = 0; t < 8; ++t)
    for (size_t i = 0; i < g_full.Tensors()[t]->size(); ++i)
      EXPECT_NEAR((*g_a.Tensors()[t])[i] + (*g_b.Tensors()[t])[i], (*g_full.Tensors()[t])[i], 1e-13)
          << kLlFpnTensorNames[t] << "[" << i << "]";
  for (size_t i = 0; i < dx_full.size(); ++i) EXPECT_NEAR(dx_a[i] + dx_b[i], dx_full[i], 1e-13) << i;

  // Per pixel from the cell logits: sum of (lse - z_label) / (N S S).
  const std::vector<double> logits = LlFpnLogits(head, x, G);
  double expect = 0;
  for (int n = 0; n < N; ++n)
    for (int py = 0; py < S; ++py)
      for (int px = 0; px < S; ++px) {
        const int l = a[(size_t(n) * S + py) * S + px];
        if (l == ref::unip::kIgnoreLabel) continue;
        const double* z = &logits[((size_t(n) * 2 * G + py / cp) * 2 * G + px / cp) * K];
        double sum = 0;
        for (int k = 0; k < K; ++k) sum += std::exp(z[k]);
        expect += (std::log(sum) - z[l]) / (double(N) * S * S);
      }
  EXPECT_NEAR(l_a, expect, 1e-13 * expect);

  LlFpnHead g0;
  std::vector<double> dx0;
  const std::vector<int> none(full.size(), ref::unip::kIgnoreLabel);
  EXPECT_EQ(LlFpnLossAndGrad(head, x, G, none, patch, &g0, &dx0), 0.0);
  for (const std::vector<double>* t : g0.Tensors())
    EXPECT_TRUE(std::all_of(t->begin(), t->end(), [](double v) { return v == 0.0; }));
  EXPECT_TRUE(std::all_of(dx0.begin(), dx0.end(), [](double v) { return v == 0.0; }));
}

// Oracle features: per patch, the one-hot majority label (K values) of
// each of its r x r sub-blocks (P/r x P/r pixels), [N * G * G, r * r * K].
std::vector<double> OneHotBlockFeatures(const gen::SegScenes& s, int patch, int r, int K) {
  const int G = s.params.size / patch, B = G * r;
  const std::vector<int> block = PatchMajorityLabels(s, patch / r);  // [N, B, B]
  std::vector<double> out;
  for (size_t n = 0; n < s.scenes.size(); ++n)
    for (int i = 0; i < G; ++i)
      for (int j = 0; j < G; ++j)
        for (int q = 0; q < r * r; ++q)
          for (int k = 0; k < K; ++k)
            out.push_back(block[(n * B + i * r + q / r) * B + j * r + q % r] == k ? 1.0 : 0.0);
  return out;
}

// mIoU of block labels [N, B, B] painted over their (S/B)^2 pixels.
double PaintedMiou(const gen::SegScenes& s, const std::vector<int>& block, int K) {
  const int S = s.params.size, B = int(std::lround(std::sqrt(double(block.size() / s.scenes.size())))), c = S / B;
  ref::unip::MiouAccumulator acc(K);
  std::vector<int> pred(size_t(S) * S), label(pred.size());
  for (size_t n = 0; n < s.scenes.size(); ++n) {
    for (int y = 0; y < S; ++y)
      for (int x = 0; x < S; ++x) pred[size_t(y) * S + x] = block[(n * B + y / c) * B + x / c];
    std::copy(s.scenes[n].label.begin(), s.scenes[n].label.end(), label.begin());
    acc.Add(pred, label);
  }
  return acc.Result().miou;
}

const gen::SegScenesParams kTrain{
    .size = 32, .classes = 4, .min_objects = 1, .max_objects = 3, .count = 48, .seed = 7};
const gen::SegScenesParams kTest{
    .size = 32, .classes = 4, .min_objects = 1, .max_objects = 3, .count = 32, .seed = 507};

// 32 x 32 scenes, 8 x 8 patches (G = 4), K = 5, 48 training and 32 test
// scenes. Reference points on the test scenes: a constant background
// prediction (mIoU 0.168), the patch-majority map painted over 8 x 8 pixels
// (0.563, the best a per-patch classifier can paint) and the
// quadrant-majority map painted over 4 x 4 pixels (0.735, the same at the
// head's 2G = 8 grid). Features one-hot at patch level (r = 1, D = 5) and
// at quadrant level (r = 2, D = 20, one one-hot per quadrant: only the ConvT
// level (a) can put the four quadrants back in place). F 16, 150 steps of 8
// scenes, lr 1e-2 (0.16 s). Measured: r = 1 loss 1.082 -> 0.432 (first /
// last 10 steps), test mIoU 0.549 (the patch oracle's 0.563 less 0.014);
// r = 2 loss 0.863 -> 0.224, mIoU 0.723 (the quadrant oracle's 0.735 less
// 0.012, and 0.16 above the patch oracle). Asserted with margins: within
// 0.04 of each oracle, r = 2 at least 0.1 above the patch oracle, both at
// least 0.3 above the constant prediction.
TEST(LlFpn, TrainingOnOneHotFeaturesLearnsTheLabels) {
  const int K = 5, patch = 8;
  const gen::SegScenes train = gen::MakeSegScenes(kTrain), test = gen::MakeSegScenes(kTest);
  const double constant = PaintedMiou(test, std::vector<int>(test.scenes.size(), 0), K);
  const double patch_oracle = PaintedMiou(test, PatchMajorityLabels(test, patch), K);
  const double quad_oracle = PaintedMiou(test, PatchMajorityLabels(test, patch / 2), K);
  EXPECT_LT(constant, 0.2);
  EXPECT_GT(quad_oracle, patch_oracle + 0.1);
  const LlFpnSpec spec{.width = 16, .steps = 150, .batch = 8, .lr = 1e-2, .seed = 3};
  double miou[3] = {0, 0, 0};
  for (int r = 1; r <= 2; ++r) {
    const std::vector<double> ftrain = OneHotBlockFeatures(train, patch, r, K),
                              ftest = OneHotBlockFeatures(test, patch, r, K);
    LlFpnHead head = MakeLlFpnHead(r * r * K, K, spec);
    const std::vector<double> losses = TrainLlFpn(head, ftrain, train, patch, spec);
    ASSERT_EQ(losses.size(), 150u);
    const double first = std::accumulate(losses.begin(), losses.begin() + 10, 0.0) / 10;
    const double last = std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10;
    miou[r] = LlFpnMiou(head, ftest, test, patch);
    EXPECT_LT(last, 0.5 * first) << "r " << r << ": loss " << first << " -> " << last;
    EXPECT_GT(miou[r], constant + 0.3) << "r " << r;
  }
  EXPECT_GT(miou[1], patch_oracle - 0.04) << miou[1] << " vs " << patch_oracle;
  EXPECT_GT(miou[2], quad_oracle - 0.04) << miou[2] << " vs " << quad_oracle;
  EXPECT_GT(miou[2], patch_oracle + 0.1) << miou[2] << " vs " << patch_oracle;
}

TEST(LlFpn, SameSeedSameLosses) {
  const gen::SegScenes train = gen::MakeSegScenes({.size = 32, .classes = 4, .count = 8, .seed = 9});
  const std::vector<double> f = OneHotBlockFeatures(train, 8, 1, 5);
  auto run = [&](uint64_t seed, LlFpnHead* out) {
    const LlFpnSpec spec{.width = 8, .steps = 20, .batch = 4, .seed = seed};
    LlFpnHead head = MakeLlFpnHead(5, 5, spec);
    const std::vector<double> losses = TrainLlFpn(head, f, train, 8, spec);
    if (out != nullptr) *out = head;
    return losses;
  };
  LlFpnHead h1, h2;
  const std::vector<double> a = run(4, &h1), b = run(4, &h2), c = run(5, nullptr);
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(a, b);
  for (size_t t = 0; t < 8; ++t) EXPECT_EQ(*h1.Tensors()[t], *h2.Tensors()[t]) << kLlFpnTensorNames[t];
  EXPECT_NE(a, c);
}

// Each bad input throws std::invalid_argument with a one-line message.
TEST(LlFpn, BadInputIsOneLine) {
  auto one_line = [](auto&& call) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_FALSE(what.empty());
      return true;
    }
    return false;
  };
  const LlFpnHead h = MakeLlFpnHead(3, 4, {.width = 2});
  const std::vector<double> x(2 * 4 * 4 * 3, 0.5);  // N = 2, G = 4, D = 3
  const std::vector<int> labels(2 * 16 * 16, 0);     // patch 4
  EXPECT_TRUE(one_line([&] { MakeLlFpnHead(3, 1, {}); }));   // classes < 2
  EXPECT_TRUE(one_line([&] { MakeLlFpnHead(0, 4, {}); }));   // dim < 1
  EXPECT_TRUE(one_line([&] { MakeLlFpnHead(3, 4, {.width = 0}); }));
  EXPECT_TRUE(one_line([&] { LlFpnLogits(h, std::vector<double>(2 * 3 * 3 * 3), 3); }));  // G odd
  EXPECT_TRUE(one_line([&] { LlFpnLogits(h, std::vector<double>(x.size() - 1), 4); }));   // not [N, G, G, D]
  EXPECT_TRUE(one_line([&] { LlFpnLogits(h, {}, 4); }));
  LlFpnHead broken = h;
  broken.cls_b.pop_back();
  EXPECT_TRUE(one_line([&] { LlFpnLogits(broken, x, 4); }));
  broken = h;
  broken.classes = 1;
  EXPECT_TRUE(one_line([&] { LlFpnLogits(broken, x, 4); }));
  EXPECT_TRUE(one_line([&] { LlFpnLossAndGrad(h, x, 4, std::vector<int>(labels.size() - 1), 4, nullptr, nullptr); }));
  EXPECT_TRUE(one_line([&] { LlFpnLossAndGrad(h, x, 4, labels, 3, nullptr, nullptr); }));  // patch odd
  std::vector<int> bad = labels;
  bad[5] = 4;  // not in [0, 4) and not 255
  EXPECT_TRUE(one_line([&] { LlFpnLossAndGrad(h, x, 4, bad, 4, nullptr, nullptr); }));
  bad[5] = -1;
  EXPECT_TRUE(one_line([&] { LlFpnLossAndGrad(h, x, 4, bad, 4, nullptr, nullptr); }));
  bad[5] = ref::unip::kIgnoreLabel;
  EXPECT_FALSE(one_line([&] { LlFpnLossAndGrad(h, x, 4, bad, 4, nullptr, nullptr); }));

  const gen::SegScenes scenes = gen::MakeSegScenes({.size = 16, .classes = 3, .count = 2});  // K = 4
  LlFpnHead trained = h;
  EXPECT_FALSE(one_line([&] { TrainLlFpn(trained, x, scenes, 4, {.steps = 1}); }));
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, x, scenes, 8, {.steps = 1}); }));  // G = 2 != features' 4
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, std::vector<double>(x.begin(), x.begin() + 48), scenes, 4, {}); }));
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, x, scenes, 4, {.batch = 0}); }));
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, x, scenes, 4, {.lr = 0}); }));
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, x, scenes, 4, {.steps = -1}); }));
  EXPECT_TRUE(one_line([&] { TrainLlFpn(trained, x, scenes, 5, {}); }));  // patch odd, not dividing 16
  EXPECT_FALSE(one_line([&] { LlFpnMiou(h, x, scenes, 4); }));
  EXPECT_TRUE(one_line([&] { LlFpnMiou(MakeLlFpnHead(3, 3, {.width = 2}), x, scenes, 4); }));  // K < C + 1
  EXPECT_TRUE(one_line([&] { LlFpnPredict(h, x, 4, 0); }));
}

}  // namespace
}  // namespace cb::unip

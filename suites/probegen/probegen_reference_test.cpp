// File: suites/probegen/probegen_reference_test.cpp
// -----------------------------------------------------------------------------
// The fp64 reference of ProbeGen (reference/probegen): ConvTranspose2d's
// gather form against its scatter definition and hand-computed outputs, every
// backward against central differences, the generator stacks' shapes, counts
// and affine fold, the predictor MLP, Kendall's tau-b on hand-computed and
// published values, and Adam with the cosine schedule by hand. The authors'
// code summarised in the headers is jonkahana/ProbeGen@4872aa7.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/probegen/adam.h"
#include "reference/probegen/conv_transpose.h"
#include "reference/probegen/generator.h"
#include "reference/probegen/kendall.h"
#include "reference/probegen/predictor.h"

namespace cb::ref::probegen {
namespace {

using cb::testing::AllClose;
using Vec = std::vector<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> Uniform(harness::Rng& rng, int64_t n, double lo = -1.0, double hi = 1.0) {
  std::vector<double> v(n);
  for (double& x : v) x = lo + (hi - lo) * rng.Uniform();
  return v;
}

int Int(harness::Rng& rng, int lo, int hi) {
  return int(rng.UniformInt(uint64_t(lo), uint64_t(hi)));
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

double MaxAbs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Central difference of `loss` with respect to (*param)[i], restoring it after.
// For a ReLU net, `active` is where loss() leaves which units were on: the
// difference is exact only when no unit switches between the two points, and
// a few draws in ten thousand put a unit within h of its kink, so the step
// shrinks until the patterns agree.
double CentralDiff(std::vector<double>* param, int64_t i, double h,
                   const std::function<double()>& loss, const std::vector<bool>* active) {
  const double keep = (*param)[i];
  for (double step : {h, h * 1e-2, h * 1e-4}) {
    (*param)[i] = keep + step;
    const double up = loss();
    const std::vector<bool> active_up = active != nullptr ? *active : std::vector<bool>();
    (*param)[i] = keep - step;
    const double down = loss();
    (*param)[i] = keep;
    if (active == nullptr || *active == active_up) return (up - down) / (2.0 * step);
  }
  ADD_FAILURE() << "a ReLU kink lies within " << h * 1e-4 << " of " << keep;
  return kNaN;
}

// ||analytic - numeric|| / ||numeric|| over the checked entries: one number
// per tensor, so an entry whose gradient is tiny does not need its own scale.
// An all-zero numeric gradient (a layer whose ReLUs are all off) compares
// absolutely instead of giving 0 / 0.
double RelErr(const std::vector<double>& analytic, const std::vector<double>& numeric) {
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < numeric.size(); ++i) {
    diff += (analytic[i] - numeric[i]) * (analytic[i] - numeric[i]);
    norm += numeric[i] * numeric[i];
  }
  return norm > 0.0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// Checks d loss / d param against central differences on `picks` entries
// (all of them when picks <= 0 or >= the size), drawn from rng.
void ExpectGradient(const char* what, std::vector<double>* param, const std::vector<double>& grad,
                    const std::function<double()>& loss, harness::Rng& rng, int picks, double h,
                    double tol, const std::vector<bool>* active = nullptr) {
  ASSERT_EQ(param->size(), grad.size()) << what;
  std::vector<int64_t> idx;
  const int64_t n = int64_t(param->size());
  if (picks <= 0 || picks >= n) {
    for (int64_t i = 0; i < n; ++i) idx.push_back(i);
  } else {
    for (int p = 0; p < picks; ++p) idx.push_back(int64_t(rng.UniformInt(0, uint64_t(n - 1))));
  }
  std::vector<double> analytic, numeric;
  for (int64_t i : idx) {
    analytic.push_back(grad[i]);
    numeric.push_back(CentralDiff(param, i, h, loss, active));
  }
  EXPECT_LE(RelErr(analytic, numeric), tol) << what << " (" << idx.size() << " entries)";
}

// ---------------------------------------------------------------------------
// ConvTranspose2d

struct ConvCase {
  ConvTShape s;
  int batch, h, w;
};

void ExpectForwardMatchesScatter(const ConvCase& c, harness::Rng& rng) {
  const ConvTShape& s = c.s;
  SCOPED_TRACE(::testing::Message() << "c_in " << s.c_in << " c_out " << s.c_out << " k " << s.k
                                    << " stride " << s.stride << " pad " << s.pad << " batch "
                                    << c.batch << " h " << c.h << " w " << c.w);
  const int ho = ConvTOutSize(c.h, s), wo = ConvTOutSize(c.w, s);
  const auto x = Uniform(rng, int64_t(c.batch) * s.c_in * c.h * c.w);  // (B, c_in, h, w)
  const auto weight = Uniform(rng, int64_t(s.c_in) * s.c_out * s.k * s.k);
  const auto bias = Uniform(rng, s.c_out);
  // Poisoned, so an output pixel either form forgets to write fails.
  std::vector<double> gather(int64_t(c.batch) * s.c_out * ho * wo, kNaN), scatter = gather;
  ConvTransposeForward(s, c.batch, c.h, c.w, x.data(), weight.data(), bias.data(), gather.data());
  ConvTransposeScatter(s, c.batch, c.h, c.w, x.data(), weight.data(), bias.data(), scatter.data());
  // Sums of at most c_in * k * k products of O(1) terms: rounding is ~1e-15.
  EXPECT_TRUE(AllClose(gather, scatter, 1e-12, 1e-12));
}

TEST(ConvTranspose, GatherForwardMatchesScatterDefinition) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  // The generators' three kinds of layer, with batch > 1 and c_in != c_out.
  const std::vector<ConvCase> named = {
      {{3, 2, 4, 2, 1}, 2, 4, 5},  // k4 s2 p1: doubles the side
      {{5, 7, 4, 1, 0}, 3, 1, 1},  // k4 s1 p0 on the 1x1 latent
      {{2, 4, 3, 1, 1}, 3, 6, 4},  // k3 s1 p1: keeps the side
  };
  for (const ConvCase& c : named) ExpectForwardMatchesScatter(c, rng);
  // Fresh shapes, strides up to 3 and padding up to k - 1.
  int tried = 0;
  while (tried < 40) {
    ConvCase c;
    c.s.c_in = Int(rng, 1, 4);
    c.s.c_out = Int(rng, 1, 4);
    c.s.k = Int(rng, 1, 5);
    c.s.stride = Int(rng, 1, 3);
    c.s.pad = Int(rng, 0, c.s.k - 1);
    c.batch = Int(rng, 1, 3);
    c.h = Int(rng, 1, 6);
    c.w = Int(rng, 1, 6);
    if ((std::min(c.h, c.w) - 1) * c.s.stride - 2 * c.s.pad + c.s.k < 1) continue;
    ExpectForwardMatchesScatter(c, rng);
    ++tried;
  }
}

TEST(ConvTranspose, HandComputedOutputs) {
  // A 1x1 input, k2, stride 1: the output is the kernel scaled by x, plus bias.
  //   x = 2, weight[0, 0] = [[1, 2], [3, 4]], weight[0, 1] = [[-1, 0.5], [0, 2]],
  //   bias = (0.25, -1):
  //   y[0] = 2 * [1, 2, 3, 4] + 0.25 = [2.25, 4.25, 6.25, 8.25]
  //   y[1] = 2 * [-1, 0.5, 0, 2] - 1 = [-3, 0, -1, 3]
  {
    const ConvTShape s{1, 2, 2, 1, 0};
    const std::vector<double> x = {2.0};
    const std::vector<double> w = {1, 2, 3, 4, -1, 0.5, 0, 2};
    const std::vector<double> b = {0.25, -1.0};
    std::vector<double> y(8, kNaN);
    ConvTransposeForward(s, 1, 1, 1, x.data(), w.data(), b.data(), y.data());
    EXPECT_TRUE(AllClose(y, Vec{2.25, 4.25, 6.25, 8.25, -3, 0, -1, 3}, 0.0, 0.0));
  }
  // Overlapping footprints: a 1x2 input (1, 10), k2 [[1, 2], [3, 4]], stride 1,
  // no bias -> 2x3 output; the middle column gets both pixels:
  //   row 0: [1*1, 1*2 + 10*1, 10*2] = [1, 12, 20]
  //   row 1: [1*3, 1*4 + 10*3, 10*4] = [3, 34, 40]
  {
    const ConvTShape s{1, 1, 2, 1, 0};
    const std::vector<double> x = {1.0, 10.0};
    const std::vector<double> w = {1, 2, 3, 4};
    const std::vector<double> b = {0.0};
    std::vector<double> y(6, kNaN);
    ConvTransposeForward(s, 1, 1, 2, x.data(), w.data(), b.data(), y.data());
    EXPECT_TRUE(AllClose(y, Vec{1, 12, 20, 3, 34, 40}, 0.0, 0.0));
  }
  // Stride 2, pad 1, k3 on a 1x2 input (1, 10): each pixel's 3x3 footprint
  // starts at (-1, 2j - 1); the output is (1 - 1) * 2 - 2 + 3 = 1 row by
  // (2 - 1) * 2 - 2 + 3 = 3 columns, and keeps kernel row 1 only:
  //   col 0 = x0 * w[1][1]                 = 1 * 5           = 5
  //   col 1 = x0 * w[1][2] + x1 * w[1][0]  = 1 * 6 + 10 * 4  = 46
  //   col 2 = x1 * w[1][1]                 = 10 * 5          = 50
  {
    const ConvTShape s{1, 1, 3, 2, 1};
    const std::vector<double> x = {1.0, 10.0};
    const std::vector<double> w = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<double> b = {0.0};
    std::vector<double> y(3, kNaN);
    ConvTransposeForward(s, 1, 1, 2, x.data(), w.data(), b.data(), y.data());
    EXPECT_TRUE(AllClose(y, Vec{5, 46, 50}, 0.0, 0.0));
  }
}

TEST(ConvTranspose, OutSizesOfTheGeneratorLayers) {
  // (in - 1) * stride - 2 * pad + k along deep_linear_6: 1 -> 4 -> 8 -> 16 -> 16 -> 32 -> 32.
  EXPECT_EQ(ConvTOutSize(1, {32, 128, 4, 1, 0}), 4);   // 0 * 1 - 0 + 4
  EXPECT_EQ(ConvTOutSize(4, {128, 64, 4, 2, 1}), 8);   // 3 * 2 - 2 + 4
  EXPECT_EQ(ConvTOutSize(8, {64, 32, 4, 2, 1}), 16);   // 7 * 2 - 2 + 4
  EXPECT_EQ(ConvTOutSize(16, {32, 32, 3, 1, 1}), 16);  // 15 * 1 - 2 + 3
  EXPECT_EQ(ConvTOutSize(16, {32, 16, 4, 2, 1}), 32);  // 15 * 2 - 2 + 4
  EXPECT_EQ(ConvTOutSize(32, {16, 1, 3, 1, 1}), 32);   // 31 * 1 - 2 + 3
  // 0 * 1 - 2 + 1 = -1: nothing left.
  EXPECT_THROW(ConvTOutSize(1, {1, 1, 1, 1, 1}), std::invalid_argument);
  EXPECT_THROW(ConvTOutSize(4, {1, 1, 3, 0, 0}), std::invalid_argument);
  // batch * c_in * h * w * c_out * k * k = 5 * 2 * 6 * 7 * 3 * 4 * 4 = 20160 multiply-adds.
  EXPECT_EQ(ConvTransposeMacs({2, 3, 4, 2, 1}, 5, 6, 7), 20160);
}

TEST(ConvTranspose, BackwardMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 1);
  const std::vector<ConvCase> cases = {
      {{3, 2, 4, 2, 1}, 2, 3, 4},
      {{2, 3, 3, 1, 1}, 2, 4, 3},
      {{2, 2, 4, 1, 0}, 3, 1, 1},
      {{Int(rng, 1, 3), Int(rng, 1, 3), Int(rng, 2, 4), 3, 1}, Int(rng, 1, 2), Int(rng, 2, 4), 3},
  };
  for (const ConvCase& c : cases) {
    const ConvTShape& s = c.s;
    SCOPED_TRACE(::testing::Message() << "k " << s.k << " stride " << s.stride << " pad " << s.pad);
    const int ho = ConvTOutSize(c.h, s), wo = ConvTOutSize(c.w, s);
    auto x = Uniform(rng, int64_t(c.batch) * s.c_in * c.h * c.w);
    auto weight = Uniform(rng, int64_t(s.c_in) * s.c_out * s.k * s.k);
    auto bias = Uniform(rng, s.c_out);
    const auto r = Uniform(rng, int64_t(c.batch) * s.c_out * ho * wo);  // d loss / d y
    std::vector<double> y(r.size());
    auto loss = [&] {
      ConvTransposeForward(s, c.batch, c.h, c.w, x.data(), weight.data(), bias.data(), y.data());
      return Dot(r, y);
    };
    std::vector<double> dx(x.size(), kNaN), dw(weight.size(), kNaN), db(bias.size(), kNaN);
    ConvTransposeBackward(s, c.batch, c.h, c.w, x.data(), weight.data(), r.data(), dx.data(),
                          dw.data(), db.data());
    // The loss is linear in each tensor, so the difference is exact up to rounding.
    ExpectGradient("dx", &x, dx, loss, rng, 0, 1e-3, 1e-9);
    ExpectGradient("dweight", &weight, dw, loss, rng, 0, 1e-3, 1e-9);
    ExpectGradient("dbias", &bias, db, loss, rng, 0, 1e-3, 1e-9);
    // Null outputs are skipped, and the others come out the same.
    std::vector<double> dw_only(weight.size(), kNaN);
    ConvTransposeBackward(s, c.batch, c.h, c.w, x.data(), weight.data(), r.data(), nullptr,
                          dw_only.data(), nullptr);
    EXPECT_TRUE(AllClose(dw_only, dw, 0.0, 0.0));
  }
}

// ---------------------------------------------------------------------------
// Predictor MLP

TEST(Predictor, MakePredictorDimsAndCounts) {
  CB_FRESH_SEED(seed);
  // 64 probes (the authors' ProbeGen_64 scripts) x 10 logits, 256 wide, 6 linear layers, 1 out.
  const Mlp m = MakePredictor(640, 256, 1, 6, seed);
  EXPECT_EQ(m.dims, (std::vector<int>{640, 256, 256, 256, 256, 256, 1}));
  ASSERT_EQ(m.Layers(), 6);
  // 640*256 + 256 + 4 * (256*256 + 256) + 256 + 1 = 164096 + 263168 + 257.
  EXPECT_EQ(MlpParamCount(m), 427521);
  // 3 * (640*256 + 4 * 256*256 + 256) = 3 * 426240.
  EXPECT_EQ(MlpMacs(m, 3), 1278720);
  int64_t stored = 0;
  for (int l = 0; l < m.Layers(); ++l) {
    ASSERT_EQ(m.w[l].size(), size_t(m.dims[l + 1]) * m.dims[l]) << l;
    ASSERT_EQ(m.b[l].size(), size_t(m.dims[l + 1])) << l;
    stored += int64_t(m.w[l].size() + m.b[l].size());
    // nn.Linear's bound 1/sqrt(in), and the draws fill it (not all one value).
    const double bound = 1.0 / std::sqrt(double(m.dims[l]));
    EXPECT_LE(MaxAbs(m.w[l]), bound) << l;
    EXPECT_GT(MaxAbs(m.w[l]), 0.5 * bound) << l;
  }
  EXPECT_EQ(stored, MlpParamCount(m));
  // A pure function of the seed.
  EXPECT_EQ(MakePredictor(640, 256, 1, 6, seed).w[3], m.w[3]);
  EXPECT_NE(MakePredictor(640, 256, 1, 6, seed + 1).w[3], m.w[3]);
  EXPECT_THROW(MakePredictor(4, 4, 1, 1, seed), std::invalid_argument);
  EXPECT_THROW(MakePredictor(0, 4, 1, 3, seed), std::invalid_argument);
}

TEST(Predictor, ForwardOnAHandSetMlp) {
  // dims {2, 2, 1}: W0 = [[1, -1], [2, 0.5]], b0 = (0, -1), W1 = [[3, -2]], b1 = 0.5.
  //   x = (1, 2): W0 x + b0 = (1 - 2, 2 + 1 - 1) = (-1, 2) -> ReLU (0, 2)
  //               y = 3*0 - 2*2 + 0.5 = -3.5
  //   x = (3, 1): (3 - 1, 6 + 0.5 - 1) = (2, 5.5) -> y = 6 - 11 + 0.5 = -4.5
  //   x = (-1, -1): (0, -2 - 0.5 - 1) = (0, -3.5) -> ReLU (0, 0) -> y = 0.5
  Mlp m;
  m.dims = {2, 2, 1};
  m.w = {{1, -1, 2, 0.5}, {3, -2}};
  m.b = {{0, -1}, {0.5}};
  const std::vector<double> x = {1, 2, 3, 1, -1, -1};
  std::vector<double> y(3, kNaN);
  MlpTrace trace;
  MlpForward(m, 3, x.data(), y.data(), &trace);
  EXPECT_TRUE(AllClose(y, Vec{-3.5, -4.5, 0.5}, 0.0, 0.0));
  ASSERT_EQ(trace.act.size(), 3u);
  EXPECT_EQ(trace.act[0], x);
  EXPECT_TRUE(AllClose(trace.act[1], Vec{0, 2, 2, 5.5, 0, 0}, 0.0, 0.0));
  // No ReLU on the last layer: a negative output stays negative (above).
}

TEST(Predictor, BackwardMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 2);
  // Wide enough that a layer with every ReLU off for every row (a zero
  // gradient, nothing checked) is vanishingly unlikely.
  Mlp m = MakePredictor(5, 16, 3, 4, seed);
  const int batch = 4;
  auto x = Uniform(rng, int64_t(batch) * 5);
  const auto r = Uniform(rng, int64_t(batch) * 3);
  std::vector<double> y(r.size());
  MlpTrace trace;
  MlpForward(m, batch, x.data(), y.data(), &trace);
  Mlp grad;
  std::vector<double> dx(x.size(), kNaN);
  MlpBackward(m, batch, trace, r.data(), &grad, dx.data());
  EXPECT_EQ(grad.dims, m.dims);
  EXPECT_GT(MaxAbs(dx), 0.0);
  std::vector<bool> active;  // which hidden units the ReLUs let through
  auto loss = [&] {
    MlpTrace t;
    MlpForward(m, batch, x.data(), y.data(), &t);
    active.clear();
    for (const std::vector<double>& act : t.act) {
      for (double v : act) active.push_back(v > 0.0);
    }
    return Dot(r, y);
  };
  // Piecewise linear: exact when no ReLU switches within the step.
  for (int l = 0; l < m.Layers(); ++l) {
    SCOPED_TRACE(::testing::Message() << "layer " << l);
    ExpectGradient("dw", &m.w[l], grad.w[l], loss, rng, 0, 1e-6, 1e-6, &active);
    ExpectGradient("db", &m.b[l], grad.b[l], loss, rng, 0, 1e-6, 1e-6, &active);
  }
  ExpectGradient("dx", &x, dx, loss, rng, 0, 1e-6, 1e-6, &active);
}

// ---------------------------------------------------------------------------
// Generators

TEST(Generator, ShapesAndCounts) {
  CB_FRESH_SEED(seed);
  const int n = 2, c = 3;
  for (const char* name : {"deep_linear_5", "deep_linear_6"}) {
    SCOPED_TRACE(name);
    const GeneratorSpec spec = MakeGenerator(name, c);
    const GeneratorParams p = InitGenerator(spec, n, seed);
    ASSERT_EQ(p.input.size(), size_t(n) * 32);
    std::vector<double> probes(n * spec.ProbeElems(), kNaN), pre(probes.size(), kNaN);
    GeneratorTrace trace;
    GeneratorForward(spec, p, probes.data(), pre.data(), &trace);
    // Sides 1 -> 4 -> 8 -> 16 (-> 16) -> 32 -> 32, channels as the header lists.
    const std::vector<int> sides = spec.layers.size() == 6
                                       ? std::vector<int>{1, 4, 8, 16, 16, 32, 32}
                                       : std::vector<int>{1, 4, 8, 16, 32, 32};
    ASSERT_EQ(trace.act.size(), sides.size());
    int64_t macs = 0, params = int64_t(p.input.size());
    for (size_t l = 0; l < spec.layers.size(); ++l) {
      const ConvTShape& s = spec.layers[l];
      EXPECT_EQ(trace.act[l + 1].size(), size_t(n) * s.c_out * sides[l + 1] * sides[l + 1]) << l;
      macs += ConvTransposeMacs(s, n, sides[l], sides[l]);
      params += int64_t(p.weight[l].size() + p.bias[l].size());
      // PyTorch's ConvTranspose2d bound, fan_in from dim 1: c_out * k * k.
      const double bound = 1.0 / std::sqrt(double(s.c_out) * s.k * s.k);
      EXPECT_LE(MaxAbs(p.weight[l]), bound) << l;
      EXPECT_LE(MaxAbs(p.bias[l]), bound) << l;
    }
    EXPECT_EQ(spec.layers.back().c_out, c);
    EXPECT_EQ(GeneratorMacs(spec, n), macs);
    EXPECT_EQ(GeneratorParamCount(spec, n), params);
    for (size_t i = 0; i < probes.size(); ++i) {
      ASSERT_TRUE(std::isfinite(pre[i])) << i;
      ASSERT_EQ(probes[i], std::tanh(pre[i])) << i;
    }
    EXPECT_EQ(trace.act.back(), pre);
  }
  // deep_linear_5, c = 1, counted by hand:
  //   weights 32*128*16 + 128*64*16 + 64*32*16 + 32*16*16 + 16*1*9
  //         = 65536 + 131072 + 32768 + 8192 + 144 = 237712
  //   biases  128 + 64 + 32 + 16 + 1 = 241;  latents 4 * 32 = 128.
  EXPECT_EQ(GeneratorParamCount(MakeGenerator("deep_linear_5", 1), 4), 237712 + 241 + 128);
  // Vanilla: the probes are the parameters, and no layer multiplies.
  const GeneratorSpec vanilla = MakeGenerator("vanilla", 3);
  EXPECT_TRUE(vanilla.layers.empty());
  EXPECT_EQ(GeneratorParamCount(vanilla, 5), 5 * 3 * 32 * 32);
  EXPECT_EQ(GeneratorMacs(vanilla, 5), 0);
  const GeneratorParams vp = InitGenerator(vanilla, 2, seed);
  std::vector<double> vprobes(2 * vanilla.ProbeElems(), kNaN);
  GeneratorForward(vanilla, vp, vprobes.data(), nullptr, nullptr);
  for (size_t i = 0; i < vprobes.size(); ++i) ASSERT_EQ(vprobes[i], std::tanh(vp.input[i])) << i;

  EXPECT_THROW(MakeGenerator("deep_linear_7", 1), std::invalid_argument);
  EXPECT_THROW(MakeGenerator("deep_linear_5", 0), std::invalid_argument);
  EXPECT_THROW(InitGenerator(vanilla, 0, seed), std::invalid_argument);
}

// loss = sum(r * probes) through the generator; the gradients of every
// tensor against central differences on a few entries each.
void ExpectGeneratorGradients(const GeneratorSpec& spec, int n, uint64_t seed, int picks) {
  harness::Rng rng(seed, 3);
  GeneratorParams p = InitGenerator(spec, n, seed);
  const int64_t elems = int64_t(n) * spec.ProbeElems();
  const auto r = Uniform(rng, elems);
  std::vector<double> probes(elems);
  GeneratorTrace trace;
  GeneratorForward(spec, p, probes.data(), nullptr, &trace);
  GeneratorParams grad;
  GeneratorBackward(spec, p, trace, probes.data(), r.data(), &grad);
  ASSERT_EQ(grad.input.size(), p.input.size());
  auto loss = [&] {
    GeneratorForward(spec, p, probes.data(), nullptr, nullptr);
    return Dot(r, probes);
  };
  // tanh makes the loss curved: h = 1e-5 keeps truncation (~h^2) and
  // cancellation (~1e-16 |loss| / h) both well under the 1e-6 asked for.
  ExpectGradient("d input", &p.input, grad.input, loss, rng, picks, 1e-5, 1e-6);
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    SCOPED_TRACE(::testing::Message() << "layer " << l);
    ExpectGradient("d weight", &p.weight[l], grad.weight[l], loss, rng, picks, 1e-5, 1e-6);
    ExpectGradient("d bias", &p.bias[l], grad.bias[l], loss, rng, picks, 1e-5, 1e-6);
  }
}

TEST(Generator, DeepLinear5BackwardMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  ExpectGeneratorGradients(MakeGenerator("deep_linear_5", 1), 2, seed, 3);
}

TEST(Generator, VanillaBackwardMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  ExpectGeneratorGradients(MakeGenerator("vanilla", 2), 2, seed, 40);
}

TEST(Generator, FoldIsTheAffineMapOfTheStack) {
  CB_FRESH_SEED(seed);
  const int n = 3, c = 2;
  for (const char* name : {"deep_linear_5", "deep_linear_6"}) {
    SCOPED_TRACE(name);
    const GeneratorSpec spec = MakeGenerator(name, c);
    GeneratorParams p = InitGenerator(spec, n, seed);
    const AffineFold fold = FoldGenerator(spec, p);
    const int64_t elems = spec.ProbeElems();
    ASSERT_EQ(fold.a.size(), size_t(elems) * spec.latent);
    ASSERT_EQ(fold.c.size(), size_t(elems));
    // Fresh latents (not the ones the fold saw: it sees only units and zero).
    harness::Rng rng(seed, 4);
    p.input = Uniform(rng, int64_t(n) * spec.latent, -3.0, 3.0);
    std::vector<double> probes(n * elems), pre(n * elems);
    GeneratorForward(spec, p, probes.data(), pre.data(), nullptr);
    std::vector<double> folded(n * elems);
    for (int i = 0; i < n; ++i) {
      const double* z = p.input.data() + int64_t(i) * spec.latent;
      for (int64_t e = 0; e < elems; ++e) {
        double acc = fold.c[e];
        for (int k = 0; k < spec.latent; ++k) acc += fold.a[e * spec.latent + k] * z[k];
        folded[i * elems + e] = acc;
      }
    }
    // Same sums in another order: rounding relative to the output's scale.
    EXPECT_TRUE(AllClose(folded, pre, 1e-12 * MaxAbs(pre), 1e-12));
  }
  const GeneratorSpec vanilla = MakeGenerator("vanilla", 1);
  EXPECT_THROW(FoldGenerator(vanilla, InitGenerator(vanilla, 1, seed)), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Kendall's tau-b

TEST(Kendall, HandComputedWithTies) {
  // x = (1, 2, 2, 3), y = (1, 3, 2, 2); the six pairs (i, j):
  //   (0,1) dx  1 dy  2 C    (0,2) dx 1 dy  1 C    (0,3) dx 2 dy  1 C
  //   (1,2) dx  0 dy -1 tie x (1,3) dx 1 dy -1 D    (2,3) dx 1 dy  0 tie y
  // C = 3, D = 1, n0 = 6, n1 = 1, n2 = 1:
  //   tau_b = (3 - 1) / sqrt((6 - 1) (6 - 1)) = 2 / 5 = 0.4
  EXPECT_NEAR(KendallTauB(std::vector<double>{1, 2, 2, 3}, std::vector<double>{1, 3, 2, 2}), 0.4,
              1e-15);
  // A pair tied in both: x = (1, 1, 2), y = (5, 5, 4): (0,1) tied in both,
  // (0,2) and (1,2) discordant; C = 0, D = 2, n0 = 3, n1 = n2 = 1:
  //   tau_b = -2 / sqrt(2 * 2) = -1
  EXPECT_NEAR(KendallTauB(std::vector<double>{1, 1, 2}, std::vector<double>{5, 5, 4}), -1.0, 1e-15);
  // x = (1, 2, 3), y = (1, 1, 2): (0,1) tie y, (0,2) C, (1,2) C;
  //   tau_b = 2 / sqrt(3 * 2) = 0.816496580927726
  EXPECT_NEAR(KendallTauB(std::vector<double>{1, 2, 3}, std::vector<double>{1, 1, 2}),
              2.0 / std::sqrt(6.0), 1e-15);
}

TEST(Kendall, ScipyDocumentedExample) {
  // scipy.stats.kendalltau's docstring: x = [12, 2, 1, 12, 2], y = [1, 4, 7, 1, 0]
  // gives tau = -0.47140452079103173. By hand: C = 2, D = 6, n1 = 2 (x pairs
  // 12-12, 2-2), n2 = 1 (y pair 1-1), n0 = 10: -4 / sqrt(8 * 9) = -sqrt(2) / 3.
  EXPECT_NEAR(KendallTauB(std::vector<double>{12, 2, 1, 12, 2}, std::vector<double>{1, 4, 7, 1, 0}),
              -0.47140452079103173, 1e-15);
}

TEST(Kendall, LimitsAndDegenerateInputs) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 5);
  std::vector<double> x = Uniform(rng, 30), y(30), rev(30);
  for (int i = 0; i < 30; ++i) {
    y[i] = std::exp(x[i]);  // monotone: the same order
    rev[i] = -3.0 * x[i];   // the reverse order
  }
  EXPECT_DOUBLE_EQ(KendallTauB(x, y), 1.0);
  EXPECT_DOUBLE_EQ(KendallTauB(x, rev), -1.0);
  EXPECT_TRUE(std::isnan(KendallTauB(x, std::vector<double>(30, 2.0))));
  EXPECT_TRUE(std::isnan(KendallTauB(std::vector<double>(30, 2.0), x)));
  EXPECT_TRUE(std::isnan(KendallTauB(std::vector<double>{1.0}, std::vector<double>{2.0})));
  EXPECT_TRUE(std::isnan(KendallTauB(std::vector<double>{}, std::vector<double>{})));
  EXPECT_THROW(KendallTauB(Vec{1, 2}, Vec{1}), std::invalid_argument);
  // Symmetric in its arguments and odd in each, with ties (small integers).
  std::vector<double> a(40), b(40), neg_b(40);
  for (int i = 0; i < 40; ++i) {
    a[i] = double(Int(rng, 0, 4));
    b[i] = double(Int(rng, 0, 4)) + 0.5 * a[i];
    neg_b[i] = -b[i];
  }
  const double tau = KendallTauB(a, b);
  ASSERT_FALSE(std::isnan(tau));
  EXPECT_LT(std::abs(tau), 1.0);
  EXPECT_NEAR(KendallTauB(b, a), tau, 1e-15);
  EXPECT_NEAR(KendallTauB(a, neg_b), -tau, 1e-15);
}

// ---------------------------------------------------------------------------
// Adam and the cosine schedule

TEST(Adam, FirstStepIsLrTimesTheSign) {
  // Step 0: m = 0.1 g, v = 0.001 g^2; bias-corrected m / 0.1 = g and
  // v / 0.001 = g^2, so p moves by lr * g / (|g| + eps): lr * sign(g) unless
  // |g| is near eps.
  Adam adam;
  std::vector<double> p = {1.0, 1.0, 1.0, 1.0};
  const std::vector<double> g = {0.5, -2.0, 1e-9, 0.0};
  const double lr = 0.1;
  adam.Update(0, p, g, lr, 0);
  EXPECT_NEAR(p[0], 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-15);
  EXPECT_NEAR(p[1], 1.0 + 0.1 * 2.0 / (2.0 + 1e-8), 1e-15);
  EXPECT_NEAR(p[2], 1.0 - 0.1 * 1e-9 / (1e-9 + 1e-8), 1e-15);  // = 1 - 0.1 / 11
  EXPECT_EQ(p[3], 1.0);
}

TEST(Adam, SecondStepByHandAndSlotsAreSeparate) {
  // g = 1 then 3, lr = 0.01, from p = 0:
  //   step 0: p = -0.01 * 1 / (1 + 1e-8)
  //   step 1: m = 0.9 * 0.1 + 0.1 * 3 = 0.39,  v = 0.999 * 0.001 + 0.001 * 9 = 0.009999
  //           c1 = 1 - 0.9^2 = 0.19,  c2 = 1 - 0.999^2 = 0.001999
  //           p -= 0.01 * (0.39 / 0.19) / (sqrt(0.009999 / 0.001999) + 1e-8)
  Adam adam;
  std::vector<double> p = {0.0};
  std::vector<double> other = {5.0, 5.0};  // slot 1: its own moments
  adam.Update(0, p, std::vector<double>{1.0}, 0.01, 0);
  adam.Update(1, other, std::vector<double>{-1.0, 1.0}, 0.01, 0);
  adam.Update(0, p, std::vector<double>{3.0}, 0.01, 1);
  const double step0 = 0.01 * 1.0 / (1.0 + 1e-8);
  const double step1 = 0.01 * (0.39 / 0.19) / (std::sqrt(0.009999 / 0.001999) + 1e-8);
  EXPECT_NEAR(p[0], -step0 - step1, 1e-15);
  EXPECT_NEAR(other[0], 5.0 + 0.01 / (1.0 + 1e-8), 1e-15);
  EXPECT_NEAR(other[1], 5.0 - 0.01 / (1.0 + 1e-8), 1e-15);
  EXPECT_THROW(adam.Update(1, p, std::vector<double>{1.0}, 0.01, 1), std::invalid_argument);
  EXPECT_THROW(adam.Update(0, p, std::vector<double>{1.0, 2.0}, 0.01, 2), std::invalid_argument);
}

TEST(Adam, CosineScheduleEndpoints) {
  const double lr = 1e-3;
  const int64_t total = 1000;
  EXPECT_DOUBLE_EQ(CosineLr(lr, 0, total), lr);
  EXPECT_NEAR(CosineLr(lr, total / 2, total), lr / 2, 1e-18);
  EXPECT_NEAR(CosineLr(lr, total, total), 0.0, 1e-18);
  // t = T/4: (1 + cos(pi/4)) / 2 = (1 + sqrt(2)/2) / 2.
  EXPECT_NEAR(CosineLr(lr, total / 4, total), lr * (1 + std::numbers::sqrt2 / 2) / 2, 1e-18);
  EXPECT_THROW(CosineLr(lr, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace cb::ref::probegen

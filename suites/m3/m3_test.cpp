// File: suites/m3/m3_test.cpp
// The backends of m3.h against the fp64 reference on fresh random Gaussians,
// values and queries (CUDA: AllClose(atol 1e-4, rtol 1e-3), m3.h), and the
// field experiment's contract on a tiny scene.
#include "suites/m3/m3.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "suites/m3/field_experiment.h"

namespace cb::m3 {
namespace {

namespace rm = cb::ref::m3;

constexpr double kAtol = 1e-4, kRtol = 1e-3;

void ExpectAllClose(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), kAtol + kRtol * std::abs(want[i])) << what << " element " << i;
}

std::vector<rm::Gaussian2D> RandomGaussians(cb::harness::Rng& rng, int n, int span) {
  std::vector<rm::Gaussian2D> g;
  for (int i = 0; i < n; ++i)
    g.push_back({.x = rng.Uniform() * span, .y = rng.Uniform() * span, .sx = 0.7 + 2.5 * rng.Uniform(),
                 .sy = 0.7 + 2.5 * rng.Uniform(), .rot = rng.Uniform() * 3.1416,
                 .opacity = 0.05 + 0.9 * rng.Uniform()});
  return g;
}

std::vector<double> Normals(cb::harness::Rng& rng, size_t n) {
  std::vector<double> v(n);
  for (double& x : v) x = rng.Normal();
  return v;
}

class M3BackendTest : public cb::testing::BackendTest {};

TEST_P(M3BackendTest, RenderValuesMatchesTheReference) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed);
  const auto g = RandomGaussians(rng, 300, 32);
  const rm::View view{3, 5, 24, 20};
  const int c = 7;
  const auto values = Normals(rng, g.size() * c);
  std::vector<double> got(size_t(view.Pixels()) * c), want(got.size());
  RenderValues(backend(), g, view, values.data(), c, got.data());
  rm::Composite(rm::ComputeSplatWeights(g, view), values.data(), c, want.data());
  ExpectAllClose(got, want, "render");
}

TEST_P(M3BackendTest, RenderValuesBackwardMatchesTheReference) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed);
  const auto g = RandomGaussians(rng, 200, 24);
  const rm::View view{0, 0, 24, 24};
  const int c = 5;
  const auto dout = Normals(rng, size_t(view.Pixels()) * c);
  std::vector<double> got(g.size() * c, 0.0), want(got.size(), 0.0);
  RenderValuesBackward(backend(), g, view, dout.data(), c, got.data());
  rm::CompositeTranspose(rm::ComputeSplatWeights(g, view), dout.data(), c, want.data());
  ExpectAllClose(got, want, "backward");
}

TEST_P(M3BackendTest, GmaMatchesTheReference) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed);
  const rm::GmaShape s{300, 16, 96, 40};
  const auto q = Normals(rng, size_t(s.pixels) * s.query), w = Normals(rng, size_t(s.query) * s.dim),
             m = Normals(rng, size_t(s.memory) * s.dim);
  std::vector<double> got(size_t(s.pixels) * s.dim), want(got.size());
  Gma(backend(), s, q.data(), w.data(), m.data(), rm::kGmaTemperature, got.data());
  rm::GmaForward(s, q.data(), w.data(), m.data(), rm::kGmaTemperature, want.data());
  ExpectAllClose(got, want, "gma");
}

TEST_P(M3BackendTest, BadInputIsRefusedOnEveryBackend) {
  const std::vector<rm::Gaussian2D> g = {{.sx = 0.0}};
  const double v = 1.0;
  double out = 0;
  EXPECT_THROW(RenderValues(backend(), g, {0, 0, 1, 1}, &v, 1, &out), std::invalid_argument);
  EXPECT_THROW(Gma(backend(), {1, 1, 1, 1}, &v, &v, &v, -1.0, &out), std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(M3BackendTest);

// ---------------------------------------------------------------------------
// The field experiment on a tiny scene.

FieldSetting Tiny() {
  FieldSetting s;
  s.scene = {.canvas = 32, .classes = 3, .objects = 3, .view = 16, .train_views = 3, .test_views = 3, .seed = 2};
  s.width_scale = 0.02;
  s.lattice = 4;
  s.iterations = 40;
  s.sample_pixels = 64;
  return s;
}

TEST(FieldExperiment, TrainsBothMethodsAndCountsTheirParameters) {
  const FieldSetting s = Tiny();
  const FieldOutcome a = RunField(s);
  ASSERT_EQ(a.extractors.size(), 3u);
  int64_t m3 = a.gaussians * 6, f3 = a.gaussians * 6, width = 0;
  for (const ExtractorOutcome& e : a.extractors) {
    EXPECT_GE(e.memory_rows, 1);
    EXPECT_LE(e.memory_rows, e.tokens);
    EXPECT_EQ(e.tokens, 3 * 4);  // 3 views of 2 x 2 patch tokens
    width += e.query_channels;
    m3 += int64_t(e.query_channels + e.memory_rows) * e.dim;
    f3 += a.gaussians * e.dim;
    // Training moved both off their initial state: the zero-initialised
    // F-3DGS field renders zeros (cos distance 1) before any step.
    EXPECT_LT(e.f3dgs.cosine, 1.0);
    EXPECT_TRUE(std::isfinite(e.m3.cosine));
  }
  EXPECT_EQ(a.params_m3, m3 + a.gaussians * width);
  EXPECT_EQ(a.params_f3dgs, f3);
  EXPECT_GT(a.grounding_raw.queries, 0);
  EXPECT_EQ(a.grounding_raw.queries, a.grounding_m3.queries);
  // Deterministic at any thread count.
  FieldSetting one = s;
  one.threads = 1;
  const FieldOutcome b = RunField(one);
  EXPECT_EQ(a.final_loss_m3, b.final_loss_m3);
  EXPECT_EQ(a.extractors[2].m3.cosine, b.extractors[2].m3.cosine);
}

TEST(FieldExperiment, MoreStepsLowerTheTrainingLoss) {
  FieldSetting s = Tiny();
  s.iterations = 3;
  const FieldOutcome early = RunField(s);
  s.iterations = 120;
  const FieldOutcome late = RunField(s);
  EXPECT_LT(late.final_loss_f3dgs, early.final_loss_f3dgs);
  EXPECT_LT(late.final_loss_m3, early.final_loss_m3);
}

TEST(FieldExperiment, BadSettingsAreRefused) {
  FieldSetting s = Tiny();
  s.iterations = 0;
  EXPECT_THROW(RunField(s), std::invalid_argument);
  s = Tiny();
  s.scene.view = 40;
  EXPECT_THROW(RunField(s), std::invalid_argument);
  EXPECT_THROW(PscThetaOf("llama3"), std::invalid_argument);
}

}  // namespace
}  // namespace cb::m3

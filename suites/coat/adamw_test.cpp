// File: suites/coat/adamw_test.cpp
// Tests of Fp32AdamW, CoatAdamW (reference/coat/adamw.h), the small MLP and
// the memory accounting (reference/coat/memory.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "generators/coat_tasks.h"
#include "harness/random.h"
#include "reference/coat/adamw.h"
#include "reference/coat/memory.h"
#include "reference/coat/mlp.h"

namespace cb::ref::coat {
namespace {

TEST(AdamW, FirstStepMatchesClosedForm) {
  // Step 1: m = 0.1 g, v = 0.001 g^2, denom = (|g| + eps) 0.1, so
  // p' = p - lr (g / (|g| + eps) + wd p).
  const AdamWConfig cfg;
  std::vector<float> p = {0.5f, -1.0f, 2.0f}, g = {0.3f, -4.0f, 1e-3f};
  const std::vector<float> p0 = p;
  Fp32AdamW opt(3, cfg);
  opt.Step(p, g);
  for (int i = 0; i < 3; ++i) {
    const double want = p0[i] - cfg.lr * (g[i] / (std::fabs(g[i]) + cfg.eps) + cfg.weight_decay * p0[i]);
    EXPECT_NEAR(p[i], want, 1e-6) << i;
    EXPECT_NEAR(opt.m()[i], 0.1 * g[i], 1e-7);
    EXPECT_NEAR(opt.v()[i], 0.001 * g[i] * g[i], 1e-4 * 0.001 * g[i] * g[i]);  // 1 - b2 in fp32
  }
  std::vector<float> wrong(2);
  EXPECT_THROW(opt.Step(p, wrong), std::invalid_argument);
}

TEST(AdamW, CoatTracksFp32MomentsClosely) {
  const int64_t n = 128 * 20 + 50;
  harness::Rng rng(21, 1);
  std::vector<float> p32(n), pc(n);
  for (int64_t i = 0; i < n; ++i) p32[i] = pc[i] = static_cast<float>(rng.Normal());
  Fp32AdamW a(n);
  CoatAdamW b(n);
  std::vector<float> g(n);
  for (int step = 0; step < 30; ++step) {
    for (int64_t i = 0; i < n; ++i) g[i] = static_cast<float>(rng.Normal() * std::exp(rng.Normal()));
    a.Step(p32, g);
    b.Step(pc, g);
  }
  const auto m = b.m();
  const auto v = b.v();
  double num = 0, den = 0, num_v = 0, den_v = 0, dp = 0;
  for (int64_t i = 0; i < n; ++i) {
    num += std::pow(double(m[i]) - a.m()[i], 2);
    den += std::pow(double(a.m()[i]), 2);
    num_v += std::pow(double(v[i]) - a.v()[i], 2);
    den_v += std::pow(double(a.v()[i]), 2);
    dp = std::max(dp, std::fabs(double(pc[i]) - p32[i]));
  }
  EXPECT_LT(num / den, 1e-2);
  EXPECT_LT(num_v / den_v, 1e-2);
  EXPECT_GT(num / den, 0.0);  // it is quantized
  EXPECT_LT(dp, 30 * 1e-3 * 0.5);  // well inside 30 steps of lr-sized moves
}

TEST(AdamW, StateBytesPerParameter) {
  const int64_t n = 128 * 100;
  const int64_t before = StateAllocations().current;
  {
    Fp32AdamW a(n);
    EXPECT_EQ(a.StateBytes(), 8 * n);
    EXPECT_EQ(StateAllocations().current - before, 8 * n);
  }
  {
    CoatAdamW b(n);
    EXPECT_EQ(b.StateBytes(), 2 * n + 2 * 100 * int64_t(sizeof(DreGroup)));
    EXPECT_DOUBLE_EQ(double(b.StateBytes()) / n, 2.1875);
    EXPECT_EQ(StateAllocations().current - before, b.StateBytes());
  }
  EXPECT_EQ(StateAllocations().current, before);
}

TEST(Mlp, GradientMatchesFiniteDifferences) {
  const MlpShape s{6, 10, 3};
  const auto task = gen::TeacherClassification(1, 1, 16, 6, 3);
  auto params = InitMlp(s, 2);
  std::vector<int64_t> rows(16);
  std::iota(rows.begin(), rows.end(), 0);
  std::vector<float> grads;
  MlpLossAndGrad(s, params, task, rows, &grads);
  harness::Rng rng(3, 0);
  for (int t = 0; t < 25; ++t) {
    const auto i = static_cast<size_t>(rng.UniformInt(0, params.size() - 1));
    const float h = 1e-2f;
    const float keep = params[i];
    params[i] = keep + h;
    const double up = MlpLossAndGrad(s, params, task, rows, nullptr);
    params[i] = keep - h;
    const double down = MlpLossAndGrad(s, params, task, rows, nullptr);
    params[i] = keep;
    const double fd = (up - down) / (2.0 * h);
    EXPECT_NEAR(grads[i], fd, 2e-3 + 0.05 * std::fabs(fd)) << "param " << i;
  }
}

TEST(Mlp, BothOptimizersLearnTheTeacherTask) {
  const MlpShape s{16, 32, 4};
  const auto train = gen::TeacherClassification(4, 40, 512, 16, 4);
  const auto eval = gen::TeacherClassification(4, 41, 256, 16, 4);
  TrainConfig cfg;
  cfg.steps = 120;
  cfg.batch = 32;
  cfg.adamw.lr = 3e-3f;
  for (const auto kind : {OptimizerKind::kFp32AdamW, OptimizerKind::kCoatAdamW}) {
    const TrainResult r = TrainMlp(s, train, eval, kind, cfg);
    ASSERT_EQ(r.train_loss.size(), 120u);
    EXPECT_LT(r.eval_loss, 0.8 * std::log(4.0)) << OptimizerName(kind);
    EXPECT_GT(r.state_peak_bytes, 0);
    EXPECT_EQ(r.m.size(), size_t(s.NumParams()));
  }
}

TEST(Memory, ConfigsAndRatios) {
  const auto configs = PaperConfigs();
  ASSERT_EQ(configs.size(), 3u);
  // Llama-2-7B has 6.74e9 parameters.
  EXPECT_NEAR(double(ParamCount(configs[0])), 6.74e9, 0.02e9);
  EXPECT_DOUBLE_EQ(CoatOptimizerBytesPerParam(), 2.1875);
  EXPECT_DOUBLE_EQ(Bf16BytesPerParam().Total(), 16.0);
  for (const auto& c : configs) {
    const double ratio = EstimateBf16(c).Total() / EstimateCoat(c).Total();
    EXPECT_GT(ratio, 1.0) << c.name;
    EXPECT_LT(ratio, 16.0 / 9.1875 + 1e-9) << c.name;  // activations save less than states
  }
}

TEST(Generators, TeacherTaskIsDeterministicAndUsesAllClasses) {
  const auto a = gen::TeacherClassification(7, 70, 400, 8, 4);
  EXPECT_EQ(gen::ContentHash(a), gen::ContentHash(gen::TeacherClassification(7, 70, 400, 8, 4)));
  EXPECT_NE(gen::ContentHash(a), gen::ContentHash(gen::TeacherClassification(7, 71, 400, 8, 4)));
  std::vector<int> counts(4, 0);
  for (const int y : a.y) ++counts[y];
  for (const int c : counts) EXPECT_GT(c, 20);
}

}  // namespace
}  // namespace cb::ref::coat

// File: suites/odeformer/ode_lm_test.cpp
// -----------------------------------------------------------------------------
// OdeLm, the neural-ODE transformer behind the substrate trainer's interface:
// its batch loss and gradient are the reference's, and the trainer trains it.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "fixtures/fresh_seed.h"

#include "reference/odeformer/odeformer.h"
#include "suites/lm/trainer.h"
#include "suites/odeformer/ode_lm.h"

namespace cb::odeformer {
namespace {

namespace ro = cb::ref::odeformer;

ro::OdeConfig Small() {
  return {.vocab_size = 13, .hidden_size = 8, .num_heads = 2, .mlp_size = 16, .num_steps = 3,
          .max_positions = 16, .sinusoidal_dim = 4, .tembed_dim = 3};
}

TEST(OdeLm, BatchLossAndGradientAreTheReferencesAveragedOverRows) {
  CB_FRESH_SEED(seed);
  const ro::OdeConfig c = Small();
  OdeLm lm(c, ro::RandomParams(c, seed));
  std::vector<int> stream;
  std::mt19937 gen(static_cast<uint32_t>(seed));
  for (int i = 0; i < 200; ++i) stream.push_back(int(gen() % 13));
  const lm_suite::Batch b = lm_suite::SampleBatch(stream, 3, 6, seed, 0);
  std::vector<float> grad(lm.params().size());
  const double loss = lm.LossAndGrad(b, grad);
  EXPECT_NEAR(loss, lm.Loss(b), 1e-12);

  const ro::OdeTransformer model = lm.Model();
  double want = 0;
  std::vector<double> want_grad(grad.size(), 0.0);
  for (int r = 0; r < 3; ++r) {
    std::vector<int> row(b.tokens.begin() + r * 6, b.tokens.begin() + r * 6 + 6);
    row.push_back(b.targets[r * 6 + 5]);
    ro::OdeParams g;
    want += model.LossAndGrad(row, g) / 3;
    size_t i = 0;
    for (const ro::ParamView& v : ro::ListParams(g))
      for (double x : *v.data) want_grad[i++] += x / 3;
  }
  EXPECT_NEAR(loss, want, 1e-12);
  for (size_t i = 0; i < grad.size(); ++i)
    ASSERT_NEAR(grad[i], want_grad[i], 1e-6 * (1 + std::abs(want_grad[i]))) << i;
  // Another step count is another model output on the same weights.
  lm.set_eval_steps(6);
  EXPECT_NE(lm.Loss(b), loss);
}

TEST(OdeLm, TheSubstrateTrainerLowersItsLoss) {
  const ro::OdeConfig c = Small();
  OdeLm lm(c, ro::RandomParams(c, 3));
  std::vector<int> stream;
  for (int i = 0; i < 400; ++i) stream.push_back((i * 5) % 13);  // a deterministic cycle
  lm_suite::TrainOptions o;
  o.steps = 120;
  o.batch = 4;
  o.seq = 8;
  o.warmup = 4;
  o.lr = 1e-2;
  lm_suite::Trainer trainer(lm, stream, o);
  const double before = trainer.Evaluate(stream, 2, 99);
  trainer.Run(nullptr);
  const double after = trainer.Evaluate(stream, 2, 99);
  EXPECT_LT(after, 0.5 * before) << before << " -> " << after;
  EXPECT_EQ(trainer.state().step, 120);
}

TEST(OdeLm, RejectsWronglySizedParameters) {
  const ro::OdeConfig c = Small();
  OdeLm lm(c, ro::RandomParams(c, 1));
  lm.params().pop_back();
  EXPECT_THROW(lm.Model(), std::invalid_argument);
}

}  // namespace
}  // namespace cb::odeformer

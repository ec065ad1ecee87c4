// File: suites/odeformer/ode_backend_test.cpp
// -----------------------------------------------------------------------------
// The backends of ode_backend.h against the fp64 reference on fresh random
// models and tokens (CUDA: relative kCudaRelTolerance, both fp64). On a
// machine without a GPU the CUDA instances skip (fail under CB_REQUIRE_GPU=1).
#include "suites/odeformer/ode_backend.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "harness/random.h"

namespace cb::odeformer {
namespace {

namespace ro = cb::ref::odeformer;

ro::OdeTransformer FreshModel(uint64_t seed, int D, int H) {
  const ro::OdeConfig c{.vocab_size = 50, .hidden_size = D, .num_heads = H, .mlp_size = 3 * D, .num_steps = 5,
                        .max_positions = 24, .sinusoidal_dim = 6, .tembed_dim = 4};
  return ro::OdeTransformer(c, ro::PerturbedParams(c, seed, 0.2));
}

std::vector<int> FreshTokens(uint64_t seed, int n) {
  harness::Rng rng(seed, 2);
  std::vector<int> t(n);
  for (int& x : t) x = int(rng.UniformInt(0, 49));
  return t;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), kCudaRelTolerance * std::max(scale, 1.0)) << what << " element " << i;
}

class OdeBackendTest : public cb::testing::BackendTest {};

TEST_P(OdeBackendTest, TrajectoryMatchesTheReferenceOnBothGrids) {
  CB_FRESH_SEED(seed);
  const ro::OdeTransformer model = FreshModel(seed, 16, 2);
  const std::vector<int> tokens = FreshTokens(seed, 11);
  const std::vector<double> x0 = model.Embed(tokens);
  for (ro::TimeGrid grid : {ro::TimeGrid::kForward, ro::TimeGrid::kAnalysis}) {
    const auto got = Trajectory(backend(), model, x0, 11, 7, grid);
    const auto want = model.Trajectory(x0, 11, 7, grid);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ExpectClose(got[i], want[i], "state");
  }
}

TEST_P(OdeBackendTest, LyapunovMatchesTheReference) {
  CB_FRESH_SEED(seed);
  const ro::OdeTransformer model = FreshModel(seed, 12, 3);
  const std::vector<int> tokens = FreshTokens(seed, 9);
  for (int j : {-1, 4}) {
    const ro::LyapunovResult got = Lyapunov(backend(), model, tokens, j);
    const ro::LyapunovResult want = ro::ModelLyapunov(model, tokens, j);
    ExpectClose(got.lambda, want.lambda, "lambda");
    ExpectClose(got.score, want.score, "score");
  }
}

TEST_P(OdeBackendTest, BadInputIsRefusedOnEveryBackend) {
  const ro::OdeTransformer model = FreshModel(1, 8, 2);
  const std::vector<double> x0(3 * 8, 0.0);
  EXPECT_THROW(Trajectory(backend(), model, x0, 4, 3), std::invalid_argument);
  EXPECT_THROW(Trajectory(backend(), model, x0, 3, 0), std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(OdeBackendTest);

}  // namespace
}  // namespace cb::odeformer

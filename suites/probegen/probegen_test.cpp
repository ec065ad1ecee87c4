// File: suites/probegen/probegen_test.cpp
// The fast paths (CPU fp32, CUDA) against the fp64 reference on fresh random
// zoo models, probes and generators.
#include <gtest/gtest.h>

#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/probegen/generator.h"
#include "reference/probegen/zoo_model.h"
#include "suites/probegen/probegen.h"

namespace cb::probegen {
namespace {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;
using cb::testing::AllClose;

// fp32 sums of <= 1024 O(1) products (probegen.h).
constexpr double kAtol = 1e-4, kRtol = 1e-4;

class ZooRunnerTest : public cb::testing::BackendTest {};

TEST_P(ZooRunnerTest, LogitsOfMixedModelsMatchTheReference) {
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 1);
  std::vector<rp::ZooModel> models;
  models.push_back(rp::InitZooModel(rp::MakeCnnArch(2, 16, {4, 8}, 5), seed));
  models.push_back(rp::InitZooModel(rp::MakeMlpArch(2, 16, {12, 7}, 5), seed + 1));
  models.push_back(rp::InitZooModel(rp::MakeCnnArch(2, 16, {3, 5, 6}, 5), seed + 2));
  models.push_back(rp::InitZooModel(rp::MakeMlpArch(2, 16, {9}, 5), seed + 3));
  std::vector<const rp::ZooModel*> pointers;
  for (const auto& m : models) pointers.push_back(&m);
  const int n = 7;
  std::vector<float> probes(size_t(n) * 2 * 16 * 16);
  for (float& v : probes) v = float(2 * rng.Uniform() - 1);
  ZooRunner runner(backend(), pointers);
  ASSERT_EQ(runner.models(), 4);
  ASSERT_EQ(runner.classes(), 5);
  ASSERT_EQ(runner.ProbeElems(), 2 * 16 * 16);
  std::vector<float> got(size_t(4) * n * 5, -12345.0f);  // poisoned
  runner.Logits(probes.data(), n, got.data());
  const std::vector<double> x(probes.begin(), probes.end());
  std::vector<double> want;
  for (const auto& m : models) {
    std::vector<double> logits(size_t(n) * 5);
    rp::ZooForward(m, n, x.data(), logits.data(), nullptr);
    want.insert(want.end(), logits.begin(), logits.end());
  }
  EXPECT_TRUE(AllClose(std::span<const float>(got), want, kAtol, kRtol));
}

TEST_P(ZooRunnerTest, RejectsModelsThatDisagreeOnTheirInput) {
  const rp::ZooModel a = rp::InitZooModel(rp::MakeCnnArch(1, 16, {4}, 5), 1);
  const rp::ZooModel b = rp::InitZooModel(rp::MakeCnnArch(1, 32, {4}, 5), 2);
  EXPECT_THROW(ZooRunner(backend(), {&a, &b}), std::invalid_argument);
  EXPECT_THROW(ZooRunner(backend(), {}), std::invalid_argument);
}

class GenerateProbesTest : public cb::testing::BackendTest {};

TEST_P(GenerateProbesTest, MatchesTheReferenceForEveryGenerator) {
  CB_FRESH_SEED(seed);
  for (const char* name : {"deep_linear_5", "deep_linear_6", "vanilla"}) {
    SCOPED_TRACE(name);
    const rp::GeneratorSpec spec = rp::MakeGenerator(name, 3);
    const rp::GeneratorParams p = rp::InitGenerator(spec, 5, seed);
    std::vector<double> want(size_t(5) * spec.ProbeElems());
    rp::GeneratorForward(spec, p, want.data(), nullptr, nullptr);
    std::vector<float> got(want.size(), -12345.0f);
    GenerateProbes(backend(), spec, p, got.data());
    EXPECT_TRUE(AllClose(std::span<const float>(got), want, kAtol, kRtol));
  }
}

// Params or a spec that do not fit each other are refused before any work
// (the kernels index by the spec's sizes).
TEST_P(GenerateProbesTest, RefusesParamsThatDoNotFitTheSpec) {
  const rp::GeneratorSpec spec = rp::MakeGenerator("deep_linear_5", 3);
  const rp::GeneratorParams good = rp::InitGenerator(spec, 2, 7);
  std::vector<float> out(size_t(2) * spec.ProbeElems());
  rp::GeneratorParams no_bias = good, short_weight = good;
  no_bias.bias.pop_back();
  short_weight.weight[1].pop_back();
  rp::GeneratorSpec wide = spec;
  wide.layers.back().c_out += 1;  // more channels than a probe has
  rp::GeneratorParams wide_params = rp::InitGenerator(wide, 2, 7);
  EXPECT_THROW(GenerateProbes(backend(), spec, no_bias, out.data()), std::invalid_argument);
  EXPECT_THROW(GenerateProbes(backend(), spec, short_weight, out.data()), std::invalid_argument);
  EXPECT_THROW(GenerateProbes(backend(), wide, wide_params, out.data()), std::invalid_argument);
  GenerateProbes(backend(), spec, good, out.data());
}

CB_INSTANTIATE_BACKENDS(ZooRunnerTest);
CB_INSTANTIATE_BACKENDS(GenerateProbesTest);

}  // namespace
}  // namespace cb::probegen

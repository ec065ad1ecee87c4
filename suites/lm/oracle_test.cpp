// File: suites/lm/oracle_test.cpp
// -----------------------------------------------------------------------------
// The fp64 reference transformer (reference/lm/transformer.h) against an
// independent implementation: the plain-PyTorch float64 Llama of
// fixtures/lm/oracle/llama_oracle.py, written from Hugging Face's documented
// architecture, whose outputs on two tiny HF-layout checkpoints are committed
// (fixtures/PROVENANCE.md). Both sides compute in fp64 from the same float32
// weights, so they differ only by summation order: logits, loss, the residual
// stream and every parameter gradient must agree to 1e-10 of each tensor's
// largest magnitude (rounding is ~1e-15 here; a layout or formula bug is
// O(1)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures/paths.h"
#include "harness/safetensors.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/lm/transformer.h"

namespace cb::ref::lm {
namespace {

constexpr double kOracleTolerance = 1e-10;  // relative to the tensor's max |value|

// max |a - b| / max |b|.
double RelativeError(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return diff / std::max(scale, 1e-300);
}

class OracleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleTest, ForwardAndGradientsEqualThePyTorchOracle) {
  const std::string dir = cb::testing::FixturePath("lm/oracle/" + GetParam());
  const HfCheckpoint ck = LoadCheckpoint(dir);
  const Transformer model(ck.config, ck.tensors);
  const harness::SafetensorsFile golden = harness::SafetensorsFile::Open(dir + "/golden.safetensors");
  std::vector<int> tokens;
  for (const double id : golden.ReadAsDouble("tokens")) tokens.push_back(static_cast<int>(id));

  const Tensor logits = model.Forward(tokens);
  const double logit_error = RelativeError(logits.data, golden.ReadAsDouble("logits"));
  EXPECT_LE(logit_error, kOracleTolerance);

  const LossAndGrad lg = model.Backward(tokens, NextTokenTargets(tokens));
  const double want_loss = golden.ReadAsDouble("loss")[0];
  EXPECT_LE(std::fabs(lg.loss - want_loss), kOracleTolerance * std::fabs(want_loss));
  double worst_grad = 0;
  for (const auto& [name, grad] : lg.grads) {
    const double e = RelativeError(grad.data, golden.ReadAsDouble("grad." + name));
    EXPECT_LE(e, kOracleTolerance) << name;
    worst_grad = std::max(worst_grad, e);
  }
  EXPECT_EQ(lg.grads.size(), ck.tensors.size());
  std::cout << "[ measured ] " << GetParam() << ": logits rel. error " << logit_error
            << ", worst gradient rel. error " << worst_grad << " over " << lg.grads.size()
            << " tensors\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, OracleTest, ::testing::Values("untied_gqa", "tied_mqa"));

}  // namespace
}  // namespace cb::ref::lm

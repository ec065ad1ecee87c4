// File: suites/cbplm/cb_head_test.cpp
// -----------------------------------------------------------------------------
// reference/cbplm/cb_head.h: the hand-derived backward against central
// differences (every parameter and every input value, fresh random weights
// and inputs), the concept gradient, the linear concept-to-token map, and
// hand-worked pieces of lobster's wiring (lobster@0ac6932, _lm_base.py CBM /
// LMBaseClassificationHead: the classifier reads only the CLS row, the
// concept path is the same at every position).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/cbplm/cb_head.h"

namespace cb::ref::cbplm {
namespace {

struct Inputs {
  int B = 2, T = 4;
  std::vector<double> xf, c_in, truth, w;
  std::vector<int> targets;
};

Inputs RandomInputs(const CbHeadConfig& c, harness::Rng& rng) {
  Inputs in;
  for (int i = 0; i < in.B * in.T * c.hidden; ++i) in.xf.push_back(rng.Normal());
  for (int i = 0; i < in.B * c.concepts; ++i) in.c_in.push_back(rng.Uniform()), in.truth.push_back(rng.Uniform());
  for (int i = 0; i < in.B * in.T; ++i) {
    in.targets.push_back(static_cast<int>(rng.UniformInt(0, c.vocab - 1)));
    in.w.push_back(i % 3 == 0 ? 0.0 : 1.0);  // some positions unscored
  }
  return in;
}

// Larger weights than the init so every path carries a gradient of order 1.
CbHead RandomHead(const CbHeadConfig& c, uint64_t seed) {
  CbHead h(c, seed);
  harness::Rng rng(seed, 9);
  for (double& p : h.params()) p += 0.5 * rng.Normal();
  return h;
}

TEST(CbHead, BackwardEqualsCentralDifferences) {
  CB_FRESH_SEED(seed);
  const CbHeadConfig c{.hidden = 6, .concepts = 3, .concept_emb = 2, .vocab = 7};
  CbHead h = RandomHead(c, seed);
  harness::Rng rng(seed, 1);
  Inputs in = RandomInputs(c, rng);
  const LossWeights lw{.concept_mse = 0.7, .orth = 0.3};  // not 0.1: each term visible
  std::vector<double> dxf(in.xf.size()), grad(h.params().size()), scratch_x(in.xf.size()), scratch_g(grad.size());
  const HeadLoss l = h.LossAndGrad(in.xf, in.B, in.T, in.c_in, in.truth, in.targets, in.w, lw, dxf, grad);
  EXPECT_GT(l.mlm, 0);
  EXPECT_GT(l.concept_mse, 0);
  EXPECT_GT(l.orth, 0);
  EXPECT_NEAR(l.total, l.mlm + 0.7 * l.concept_mse + 0.3 * l.orth, 1e-12);
  auto loss = [&] {
    return h.LossAndGrad(in.xf, in.B, in.T, in.c_in, in.truth, in.targets, in.w, lw, scratch_x, scratch_g).total;
  };
  const double eps = 1e-5;
  auto fd = [&](double& v) {
    const double keep = v;
    v = keep + eps;
    const double up = loss();
    v = keep - eps;
    const double down = loss();
    v = keep;
    return (up - down) / (2 * eps);
  };
  for (const HeadSlot& s : h.slots()) {
    double worst = 0, scale = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      const double f = fd(h.params()[s.offset + i]);
      worst = std::max(worst, std::abs(f - grad[s.offset + i]));
      scale = std::max(scale, std::abs(f));
    }
    EXPECT_GT(scale, 1e-6) << s.name << ": a tensor without gradient cannot be checked";
    EXPECT_LE(worst, 1e-7 * std::max(1.0, scale)) << s.name;
  }
  double worst = 0;
  for (size_t i = 0; i < in.xf.size(); ++i) worst = std::max(worst, std::abs(fd(in.xf[i]) - dxf[i]));
  EXPECT_LE(worst, 1e-7);
}

TEST(CbHead, ConceptGradientIsTheClassifiersOnTheClsRowOnly) {
  CB_FRESH_SEED(seed);
  const CbHeadConfig c{.hidden = 5, .concepts = 3, .concept_emb = 2, .vocab = 6};
  const CbHead h = RandomHead(c, seed);
  harness::Rng rng(seed, 2);
  Inputs in = RandomInputs(c, rng);
  for (int k = 0; k < c.concepts; ++k) {
    std::vector<double> dxf(in.xf.size());
    h.ConceptGradient(in.xf, in.B, in.T, k, dxf);
    for (size_t i = 0; i < in.xf.size(); ++i) {
      const double keep = in.xf[i];
      in.xf[i] = keep + 1e-6;
      double up = 0, down = 0;
      for (int b = 0; b < in.B; ++b) up += h.Concepts(in.xf, in.B, in.T)[b * c.concepts + k];
      in.xf[i] = keep - 1e-6;
      for (int b = 0; b < in.B; ++b) down += h.Concepts(in.xf, in.B, in.T)[b * c.concepts + k];
      in.xf[i] = keep;
      const bool cls_row = (i / c.hidden) % in.T == 0;
      if (!cls_row) {
        ASSERT_EQ(dxf[i], 0.0) << i;
      }
      EXPECT_NEAR(dxf[i], (up - down) / 2e-6, 1e-7) << i;
    }
  }
}

// Changing one concept input by δ moves every position's logits by δ M[c].
TEST(CbHead, ConceptTokenMapIsTheLogitChange) {
  CB_FRESH_SEED(seed);
  const CbHeadConfig c{.hidden = 5, .concepts = 4, .concept_emb = 2, .vocab = 9};
  const CbHead h = RandomHead(c, seed);
  harness::Rng rng(seed, 3);
  Inputs in = RandomInputs(c, rng);
  const std::vector<double> map = h.ConceptTokenMap(), base = h.Logits(in.xf, in.B, in.T, in.c_in);
  for (int k = 0; k < c.concepts; ++k) {
    std::vector<double> moved = in.c_in;
    const double delta = 0.5 + rng.Uniform();
    for (int b = 0; b < in.B; ++b) moved[b * c.concepts + k] += delta;
    const std::vector<double> logits = h.Logits(in.xf, in.B, in.T, moved);
    for (int r = 0; r < in.B * in.T; ++r)
      for (int v = 0; v < c.vocab; ++v)
        ASSERT_NEAR(logits[r * c.vocab + v] - base[r * c.vocab + v], delta * map[k * c.vocab + v], 1e-12);
  }
  // The classifier reads the CLS row only: other rows do not move the concepts.
  const std::vector<double> pred = h.Concepts(in.xf, in.B, in.T);
  for (int i = c.hidden; i < in.T * c.hidden; ++i) in.xf[i] += 1.0;
  EXPECT_EQ(h.Concepts(in.xf, in.B, in.T), pred);
  in.xf[0] += 1.0;
  EXPECT_NE(h.Concepts(in.xf, in.B, in.T), pred);
}

TEST(CbHead, BadShapesAreOneLine) {
  const CbHead h(CbHeadConfig{.hidden = 4, .concepts = 2, .concept_emb = 2, .vocab = 5}, 1);
  std::vector<double> xf(2 * 3 * 4), dxf(xf.size()), grad(h.params().size()), c_in(4);
  EXPECT_THROW(h.Concepts(std::vector<double>(5), 2, 3), std::invalid_argument);
  EXPECT_THROW(h.Logits(xf, 2, 3, std::vector<double>(3)), std::invalid_argument);
  EXPECT_THROW(h.ConceptGradient(xf, 2, 3, 2, dxf), std::invalid_argument);
  const std::vector<int> bad_target(6, 5);
  EXPECT_THROW(h.LossAndGrad(xf, 2, 3, c_in, c_in, bad_target, std::vector<double>(6, 1.0), {}, dxf, grad),
               std::invalid_argument);
  EXPECT_THROW(CbHead(CbHeadConfig{.hidden = 0}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace cb::ref::cbplm

// File: suites/cbplm/cb_mlm_test.cpp
// -----------------------------------------------------------------------------
// suites/cbplm/cb_mlm.h: short training lowers the loss of all three models;
// the attribution is the gradient of the concept neuron dotted with
// (x0 - mask_emb), checked against central differences of the fp32 path; an
// intervention edits only the positions it masked, the k lowest / highest
// attributions (lobster@0ac6932 _create_intervene_mask); the pre-encoder
// baseline reads its concepts; bad input is one line. Tiny shapes: each
// test runs in well under a second in Release.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "generators/proteins.h"
#include "harness/random.h"
#include "suites/cbplm/cb_experiment.h"
#include "suites/cbplm/cb_mlm.h"

namespace cb::cbplm {
namespace {

constexpr CbShape kTiny{.hidden = 16, .layers = 1, .heads = 2, .intermediate = 32, .seq = 25};

std::vector<CbExample> Examples(uint64_t seed, int count) {
  gen::ProteinParams p{.seed = seed, .count = count, .min_length = 24, .max_length = 24, .median_length = 24};
  std::vector<CbExample> out;
  for (const gen::Protein& protein : gen::MakeProteins(p).proteins) out.push_back(MakeExample(protein.sequence));
  return out;
}

double Mean(const std::vector<double>& x, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += x[i];
  return s / double(to - from);
}

// Low-entropy residues (70% A, 10% each of G, L, K: ~0.94 nats against the
// ln 22 = 3.09 of the near-uniform initial logits), so that 80 steps of
// learning show far above batch noise. (Generated proteins have ~2.9 nats of
// composition entropy: a tiny model's first steps there move the loss by
// about its noise.)
std::vector<CbExample> SkewedExamples(uint64_t seed, int count) {
  harness::Rng rng(seed, 77);
  std::vector<CbExample> out;
  for (int i = 0; i < count; ++i) {
    std::string q(24, 'A');
    for (char& c : q) {
      const double u = rng.Uniform();
      c = u < 0.7 ? 'A' : u < 0.8 ? 'G' : u < 0.9 ? 'L' : 'K';
    }
    out.push_back(MakeExample(q));
  }
  return out;
}

TEST(CbMlm, TrainingLowersTheLossOfEveryModel) {
  CB_FRESH_SEED(seed);
  const std::vector<CbExample> data = SkewedExamples(seed, 64);
  for (Conditioning c : {Conditioning::kCbm, Conditioning::kPreEncoder, Conditioning::kNone}) {
    SCOPED_TRACE(ConditioningName(c));
    CbMlm model(c, kTiny, seed);
    const std::vector<double> losses = model.Train(data, {.steps = 80, .batch = 8, .lr = 1e-2, .seed = seed});
    ASSERT_EQ(losses.size(), 80u);
    EXPECT_LT(Mean(losses, 60, 80), Mean(losses, 0, 20) - 0.5);
  }
}

TEST(CbMlm, AttributionIsTheConceptGradientTimesInputMinusMask) {
  CB_FRESH_SEED(seed);
  const std::vector<CbExample> data = Examples(seed, 32);
  CbMlm model(Conditioning::kCbm, kTiny, seed);
  model.Train(data, {.steps = 30, .batch = 8, .lr = 2e-2, .seed = seed});  // away from the near-zero init
  const CbExample& ex = data[3];
  const int j = 0, D = kTiny.hidden, T = kTiny.seq;
  const std::vector<double> attribution = model.Attribution(ex.tokens, j);
  ASSERT_EQ(attribution.size(), size_t(T - 1));
  const auto& enc = model.encoder();
  const float* E = &enc.params()[enc.slot("model.embed_tokens.weight").offset];
  std::vector<float> x0(size_t(T) * D);
  for (int t = 0; t < T; ++t) std::copy_n(E + size_t(ex.tokens[t]) * D, D, &x0[size_t(t) * D]);
  auto pred = [&](const std::vector<float>& x) {
    const std::vector<float> xf = enc.ForwardEmbedded(x, 1, T);
    return model.head()->Concepts(std::vector<double>(xf.begin(), xf.end()), 1, T)[j];
  };
  double scale = 0;
  for (double a : attribution) scale = std::max(scale, std::abs(a));
  ASSERT_GT(scale, 1e-6);
  const double h = 1e-2;
  for (int t = 1; t < T; ++t) {  // directional derivative along (x0[t] - mask_emb)
    std::vector<float> up = x0, down = x0;
    for (int d = 0; d < D; ++d) {
      const float dir = x0[size_t(t) * D + d] - E[size_t(kMaskToken) * D + d];
      up[size_t(t) * D + d] += float(h * dir);
      down[size_t(t) * D + d] -= float(h * dir);
    }
    EXPECT_NEAR(attribution[t - 1], (pred(up) - pred(down)) / (2 * h), 2e-2 * scale) << t;
  }
}

TEST(CbMlm, InterventionEditsOnlyTheMaskedPositionsItChose) {
  CB_FRESH_SEED(seed);
  const std::vector<CbExample> data = Examples(seed, 32);
  CbMlm cb(Conditioning::kCbm, kTiny, seed);
  CbMlm pre(Conditioning::kPreEncoder, kTiny, seed);
  cb.Train(data, {.steps = 20, .batch = 8, .seed = seed});
  pre.Train(data, {.steps = 20, .batch = 8, .seed = seed});
  const CbExample& ex = data[5];
  for (bool raise : {true, false}) {
    const int k = 4;
    const Intervention iv = cb.Intervene(ex, 0, raise, k, seed);
    ASSERT_EQ(iv.positions.size(), size_t(k));
    // The chosen positions are the k lowest (raise) / highest (lower) attributions.
    std::vector<double> sorted = iv.attribution;
    std::sort(sorted.begin(), sorted.end());
    if (!raise) std::reverse(sorted.begin(), sorted.end());
    for (int p : iv.positions)
      EXPECT_TRUE(raise ? iv.attribution[p] <= sorted[k - 1] : iv.attribution[p] >= sorted[k - 1]) << p;
    for (const Intervention& v : {iv, pre.Intervene(ex, 0, raise, k, seed)}) {
      ASSERT_EQ(v.edited.size(), ex.residues.size());
      for (size_t i = 0; i < ex.residues.size(); ++i)
        if (std::find(v.positions.begin(), v.positions.end(), int(i)) == v.positions.end()) {
          EXPECT_EQ(v.edited[i], ex.residues[i]);
        }
    }
  }
  EXPECT_EQ(cb.Intervene(ex, 2, true, 0, seed).edited, ex.residues);
  // The baseline's positions come from the seed; another seed, other positions (almost surely).
  EXPECT_NE(pre.Intervene(ex, 0, true, 6, 1).positions, pre.Intervene(ex, 0, true, 6, 2).positions);
}

TEST(CbMlm, ConceptsReachTheLogits) {
  CB_FRESH_SEED(seed);
  const std::vector<CbExample> data = Examples(seed, 8);
  std::vector<double> a(data[0].concepts.begin(), data[0].concepts.end()), b = a;
  b[1] += 0.5;
  const CbMlm pre(Conditioning::kPreEncoder, kTiny, seed), cb(Conditioning::kCbm, kTiny, seed),
      none(Conditioning::kNone, kTiny, seed);
  EXPECT_NE(pre.Logits(data[0].tokens, 1, a), pre.Logits(data[0].tokens, 1, b));
  EXPECT_NE(cb.Logits(data[0].tokens, 1, a), cb.Logits(data[0].tokens, 1, b));
  // The CB model's logits with its own predicted concepts equal those with no c_in given.
  const std::vector<double> predicted = cb.PredictConcepts(data[0].tokens, 1);
  EXPECT_EQ(cb.Logits(data[0].tokens, 1, predicted), cb.Logits(data[0].tokens, 1, {}));
  EXPECT_GT(cb.num_params(), none.num_params());
}

TEST(CbMlm, BadInputIsOneLine) {
  EXPECT_THROW(EncodeProtein("MKX"), std::invalid_argument);
  const CbMlm none(Conditioning::kNone, kTiny, 1);
  const CbExample ex = MakeExample(std::string(24, 'A'));
  EXPECT_THROW(none.Attribution(ex.tokens, 0), std::invalid_argument);
  EXPECT_THROW(none.PredictConcepts(ex.tokens, 1), std::invalid_argument);
  EXPECT_THROW(none.Intervene(ex, 0, true, 25, 1), std::invalid_argument);
  EXPECT_THROW(none.Logits(std::vector<int>(5, 0), 1, {}), std::invalid_argument);
  CbMlm m(Conditioning::kNone, kTiny, 1);
  const std::vector<CbExample> wrong = {MakeExample(std::string(10, 'A'))};
  EXPECT_THROW(m.Train(wrong, {.steps = 1}), std::invalid_argument);
}

TEST(CbExperiment, SpearmanHandWorkedWithTies) {
  EXPECT_DOUBLE_EQ(Spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(Spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // ranks a = (0, 1, 2.5, 2.5) -> centred (-1.5, -0.5, 1, 1); b = (0, 1, 2, 3) -> (-1.5, -0.5, 0.5, 1.5):
  // Σab = 2.25 + 0.25 + 0.5 + 1.5 = 4.5, Σa² = 4.5, Σb² = 5.
  EXPECT_NEAR(Spearman({1, 2, 5, 5}, {1, 2, 3, 4}), 4.5 / std::sqrt(4.5 * 5.0), 1e-15);
  EXPECT_EQ(Spearman({1, 1, 1}, {1, 2, 3}), 0.0);
  EXPECT_THROW(Spearman({1}, {1}), std::invalid_argument);
}

// One seed at a tiny scale: every unit has a non-zero optimum, no method
// beats it (Δ/Δ* <= 1), edits stay within k, the map check is exact.
TEST(CbExperiment, OneTinySeedKeepsItsInvariants) {
  CB_FRESH_SEED(seed);
  CbScale sc;
  sc.train_count = 32, sc.test_count = 4, sc.length = 24, sc.edits = 3;
  sc.shape = kTiny;
  sc.train = {.steps = 20, .batch = 8};
  const CbSeedRun run = RunCbSeed(sc, seed);
  ASSERT_FALSE(run.units.empty());
  for (const InterventionUnit& u : run.units) {
    EXPECT_NE(u.delta_star, 0.0);
    for (double d : {u.delta_cb, u.delta_pre, u.delta_cb_random, u.delta_none})
      EXPECT_LE(d / u.delta_star, 1.0 + 1e-9) << "beats the exact optimum";
    EXPECT_LE(u.changed_cb, sc.edits);
    EXPECT_LE(u.changed_pre, sc.edits);
  }
  EXPECT_EQ(run.masked.size(), 4u);
  EXPECT_LE(run.map_max_abs_error, 1e-12 * std::max(1.0, run.map_scale));
  EXPECT_GT(run.map_scale, 0.0);
  EXPECT_THROW(RunCbSeed(CbScale{.length = 30}, seed), std::invalid_argument);  // seq != length + 1
}

}  // namespace
}  // namespace cb::cbplm

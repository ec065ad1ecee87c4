// File: suites/ibedl/finetune_test.cpp
// The pieces the IB-EDL fine-tuning adds to the substrate: a logit loss of the
// caller's (CpuTransformer::LogitLossAndGrad) equals the built-in
// cross-entropy when it computes it; LoRA on lm_head; and a few MAP / EDL /
// IB-EDL steps on a tiny random model lower the training loss on its batch.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "suites/ibedl/evidential_finetune.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/lora.h"

namespace cb::ibedl {
namespace {

namespace ref = cb::ref::lm;
namespace ls = cb::lm_suite;

ref::TransformerConfig Tiny(bool tied) {
  ref::TransformerConfig c;
  c.vocab_size = 24;
  c.hidden_size = 16;
  c.intermediate_size = 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.max_position_embeddings = 64;
  c.rms_norm_eps = 1e-5;
  c.tie_word_embeddings = tied;
  return c;
}

TEST(LogitLoss, EqualsTheBuiltInCrossEntropy) {
  CB_FRESH_SEED(seed);
  const ls::CpuTransformer model(ref::RandomInit(Tiny(false), seed, 0.2));
  cb::harness::Rng rng(seed, 1);
  const int B = 3, T = 5, V = 24;
  ls::Batch b{.batch = B, .seq = T};
  for (int i = 0; i < B * T; ++i) {
    b.tokens.push_back(int(rng.UniformInt(0, V - 1)));
    b.targets.push_back(int(rng.UniformInt(0, V - 1)));
    b.weights.push_back(i % T == T - 1 ? 1.0f : 0.0f);  // the last position of each sequence
  }
  std::vector<float> g1(model.num_params()), g2(model.num_params());
  const double l1 = model.LossAndGrad(b, g1);
  const double l2 = model.LogitLossAndGrad(
      b.tokens, B, T,
      [&](std::span<const float> z, std::span<float> dz) {
        double loss = 0;
        for (int s = 0; s < B; ++s) {
          const size_t r = size_t(s) * T + T - 1;
          double mx = -1e30, se = 0;
          for (int v = 0; v < V; ++v) mx = std::max(mx, double(z[r * V + v]));
          for (int v = 0; v < V; ++v) se += std::exp(z[r * V + v] - mx);
          const double lse = mx + std::log(se);
          loss += (lse - z[r * V + b.targets[r]]) / B;
          for (int v = 0; v < V; ++v)
            dz[r * V + v] = float((std::exp(z[r * V + v] - lse) - (v == b.targets[r])) / B);
        }
        return loss;
      },
      g2);
  EXPECT_NEAR(l1, l2, 1e-6 * std::abs(l1));
  double num = 0, den = 1e-12;
  for (size_t i = 0; i < g1.size(); ++i) num = std::max(num, double(std::abs(g1[i] - g2[i]))), den = std::max(den, double(std::abs(g1[i])));
  EXPECT_LE(num / den, 1e-5);
}

TEST(Lora, LmHeadTargetOnUntiedModelsOnly) {
  const ls::CpuTransformer untied(ref::RandomInit(Tiny(false), 1, 0.2));
  const ls::LoraAdapters a(untied, {.rank = 2, .alpha = 4, .targets = {"q_proj", "lm_head"}}, 1);
  // q_proj [16 x 16] per layer (2 layers) and lm_head [24 x 16]: r (in + out) each.
  EXPECT_EQ(a.num_params(), size_t(2 * 2 * (16 + 16) + 2 * (16 + 24)));
  EXPECT_TRUE(a.ToPeftTensors().count("base_model.model.lm_head.lora_A.weight"));
  const ls::CpuTransformer tied(ref::RandomInit(Tiny(true), 1, 0.2));
  EXPECT_THROW(ls::LoraAdapters(tied, {.rank = 2, .alpha = 4, .targets = {"lm_head"}}, 1), std::invalid_argument);
}

TEST(FineTune, EveryMethodLowersItsTrainingLoss) {
  const ls::CpuTransformer base(ref::RandomInit(Tiny(false), 3, 0.2));
  TokenizedSplit train;
  train.k = 3;
  train.target_ids = {1, 2, 3};
  cb::harness::Rng rng(5, 0);
  for (int i = 0; i < 8; ++i) {
    const int y = i % 3;
    train.prompts.push_back({5 + y, 9, 10, int(rng.UniformInt(11, 15))});  // the first token tells the class
    train.labels.push_back(y);
    train.clean_labels.push_back(y);
  }
  for (Method m : {Method::kMap, Method::kEdl, Method::kIbEdl}) {
    FineTuneOptions o{.method = m, .rank = 4, .lora_alpha = 8, .steps = 60, .batch = 8, .lr = 1e-2, .warmup = 2};
    FineTuneReport rep;
    const ls::CpuTransformer tuned = FineTune(base, train, o, &rep);
    EXPECT_LT(rep.last_loss, rep.first_loss) << MethodName(m);
    EXPECT_EQ(rep.targets.back(), "lm_head");
    const auto preds = Predict(tuned, train, m, 20, 7);
    ASSERT_EQ(preds.size(), train.prompts.size());
    for (const auto& p : preds) {
      ASSERT_EQ(p.probs.size(), 3u);
      if (m != Method::kMap) {
        EXPECT_GT(p.uncertainty, 0);
        EXPECT_LE(p.uncertainty, 1);
      }
    }
  }
}

}  // namespace
}  // namespace cb::ibedl

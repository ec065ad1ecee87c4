// File: suites/lm/cpu_transformer_test.cpp
// -----------------------------------------------------------------------------
// The fp32 CPU transformer (cpu_transformer.h) against the fp64 reference, on
// fresh random weights and tokens every run: logits, the batch loss, every
// gradient tensor (decoder tied and untied, encoder with masked targets, the
// ViT patch input), the KV-cache decode against recomputation, and the
// one-line errors.
#include "suites/lm/cpu_transformer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/directional_derivative.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"

namespace cb::lm_suite {
namespace {

namespace ref = cb::ref::lm;
using cb::testing::AllClose;

// Named tolerances of the fp32 path against fp64 (D = 32, two layers, weights
// ~ N(0, 0.2^2)): fp32 rounding of sums of <= 48 terms is ~1e-6 relative.
constexpr double kLogitAtol = 2e-5, kLogitRtol = 1e-4;
// Per tensor: max |g - g_ref| / max |g_ref| (the infinity-norm relative error).
constexpr double kGradRel = 2e-4;

ref::TransformerConfig Small(bool tied) {
  ref::TransformerConfig c;
  c.vocab_size = 37;
  c.hidden_size = 32;
  c.intermediate_size = 48;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 6;  // H*d = 24 != D: q_proj and o_proj are not square
  c.max_position_embeddings = 64;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 500.0;
  c.tie_word_embeddings = tied;
  return c;
}

std::vector<int> RandomTokens(cb::harness::Rng& rng, int n, int vocab) {
  std::vector<int> t(n);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, vocab - 1));
  return t;
}

// The infinity-norm relative error of every gradient tensor; the worst one.
double WorstGradError(const ref::NamedTensors& got, const ref::NamedTensors& want,
                      std::string* worst_name) {
  double worst = 0;
  for (const auto& [name, w] : want) {
    const ref::Tensor& g = got.at(name);
    double num = 0, den = 0;
    for (size_t i = 0; i < w.data.size(); ++i) {
      num = std::max(num, std::abs(g.data[i] - w.data[i]));
      den = std::max(den, std::abs(w.data[i]));
    }
    const double e = num / std::max(den, 1e-12);
    if (e > worst) {
      worst = e;
      *worst_name = name;
    }
  }
  return worst;
}

// 2 channels, a 4 x 6 image in 2 x 2 patches (2 x 3, non-square), 3 classes.
ref::Architecture Vit() {
  ref::Architecture a;
  a.causal = false;
  a.patch_size = 2;
  a.num_channels = 2;
  a.image_height = 4;
  a.image_width = 6;
  a.num_labels = 3;
  return a;
}

// The ViT input: class logits and every gradient (patch projection, CLS,
// positions, classifier, blocks) of a batch against the reference image by
// image (the batch loss is the mean of the per-image losses).
TEST(CpuTransformer, ImageLogitsAndGradientsMatchTheReference) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(false), seed, 0.2, Vit());
  const CpuTransformer fast(r);
  cb::harness::Rng rng(seed, 5);
  const int B = 3, pixels = 2 * 4 * 6;
  std::vector<float> images(B * pixels);
  for (float& x : images) x = static_cast<float>(rng.Normal());
  const std::vector<int> labels = {0, 2, static_cast<int>(rng.UniformInt(0, 2))};
  const std::vector<float> logits = fast.ForwardImages(images, B);
  ref::LossAndGrad want;
  for (int b = 0; b < B; ++b) {
    const ref::Tensor img{{2, 4, 6}, std::vector<double>(images.begin() + b * pixels,
                                                        images.begin() + (b + 1) * pixels)};
    EXPECT_TRUE(AllClose(std::span<const float>(logits).subspan(size_t(b) * 3, 3),
                         r.ForwardImage(img).data, kLogitAtol, kLogitRtol))
        << "image " << b;
    const ref::LossAndGrad lg = r.ImageBackward(img, labels[b]);
    want.loss += lg.loss / B;
    for (const auto& [name, g] : lg.grads) {
      ref::Tensor& acc = want.grads[name];
      if (acc.data.empty()) acc = ref::Tensor{g.shape, std::vector<double>(g.data.size(), 0.0)};
      for (size_t i = 0; i < g.data.size(); ++i) acc.data[i] += g.data[i] / B;
    }
  }
  std::vector<float> grad(fast.num_params(), -1.0f);
  const double loss = fast.ImageLossAndGrad(images, labels, grad);
  EXPECT_NEAR(loss, want.loss, 1e-5 * std::abs(want.loss));
  EXPECT_NEAR(fast.ImageLoss(images, labels), loss, 1e-6 * std::abs(loss));
  std::string worst;
  const double e = WorstGradError(fast.Named(grad), want.grads, &worst);
  EXPECT_LE(e, kGradRel) << "worst tensor " << worst;
  EXPECT_TRUE(fast.Named(grad).count("model.patch_embed.weight"));
}

TEST(CpuTransformer, LogitsMatchTheReference) {
  CB_FRESH_SEED(seed);
  for (bool tied : {false, true}) {
    const ref::Transformer r = ref::RandomInit(Small(tied), seed, 0.2);
    const CpuTransformer fast(r);
    cb::harness::Rng rng(seed, 1);
    const std::vector<int> tokens = RandomTokens(rng, 19, 37);
    EXPECT_TRUE(AllClose(std::span<const float>(fast.Forward(tokens)), r.Forward(tokens).data,
                         kLogitAtol, kLogitRtol))
        << "tied=" << tied;
  }
}

TEST(CpuTransformer, BatchRowsEqualSingleSequences) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(false), seed, 0.2);
  const CpuTransformer fast(r);
  cb::harness::Rng rng(seed, 1);
  const int B = 3, T = 10, V = 37;
  const std::vector<int> tokens = RandomTokens(rng, B * T, V);
  const std::vector<float> batch = fast.ForwardBatch(tokens, B, T);
  for (int b = 0; b < B; ++b) {
    const std::span<const int> seq(tokens.data() + b * T, T);
    const std::vector<double> want = r.Forward(seq).data;
    EXPECT_TRUE(AllClose(std::span<const float>(batch).subspan(size_t(b) * T * V, size_t(T) * V),
                         want, kLogitAtol, kLogitRtol))
        << "sequence " << b;
  }
}

// grad of sum_b W_b loss_b / W over the batch, from the reference's
// per-sequence (per-sequence normalised) losses and gradients.
ref::LossAndGrad ReferenceBatch(const ref::Transformer& r, const Batch& b) {
  ref::LossAndGrad total;
  double wsum = 0;
  for (float w : b.weights) wsum += w;
  for (int s = 0; s < b.batch; ++s) {
    ref::Targets tg;
    double ws = 0;
    for (int t = 0; t < b.seq; ++t) {
      tg.target.push_back(b.targets[s * b.seq + t]);
      tg.weight.push_back(b.weights[s * b.seq + t]);
      ws += b.weights[s * b.seq + t];
    }
    if (ws == 0) continue;
    const ref::LossAndGrad lg =
        r.Backward(std::span<const int>(b.tokens.data() + s * b.seq, b.seq), tg);
    total.loss += ws / wsum * lg.loss;
    for (const auto& [name, g] : lg.grads) {
      ref::Tensor& acc = total.grads[name];
      if (acc.data.empty()) acc = ref::Tensor{g.shape, std::vector<double>(g.data.size(), 0.0)};
      for (size_t i = 0; i < g.data.size(); ++i) acc.data[i] += ws / wsum * g.data[i];
    }
  }
  return total;
}

// Causal next-token batches (tied and untied) and a masked-LM encoder batch
// with fractional weights.
TEST(CpuTransformer, GradientsMatchTheReference) {
  CB_FRESH_SEED(seed);
  struct Case {
    const char* name;
    bool tied, causal;
  };
  for (const Case& k : {Case{"decoder untied", false, true}, Case{"decoder tied", true, true},
                        Case{"encoder", false, false}}) {
    ref::Architecture arch;
    arch.causal = k.causal;
    const ref::Transformer r = ref::RandomInit(Small(k.tied), seed, 0.2, arch);
    const CpuTransformer fast(r);
    cb::harness::Rng rng(seed, 2);
    Batch b;
    b.batch = 3;
    b.seq = 9;
    b.tokens = RandomTokens(rng, b.batch * b.seq, 37);
    b.targets = RandomTokens(rng, b.batch * b.seq, 37);
    for (int i = 0; i < b.batch * b.seq; ++i)
      b.weights.push_back(k.causal ? (i % b.seq == b.seq - 1 ? 0.0f : 1.0f)
                                   : (rng.Uniform() < 0.4 ? 0.5f + float(rng.Uniform()) : 0.0f));
    b.weights[1] = 1.0f;  // never all zero
    const ref::LossAndGrad want = ReferenceBatch(r, b);
    std::vector<float> grad(fast.num_params(), -1.0f);  // poisoned: must be overwritten
    const double loss = fast.LossAndGrad(b, grad);
    EXPECT_NEAR(loss, want.loss, 1e-5 * std::abs(want.loss)) << k.name;
    EXPECT_NEAR(fast.Loss(b), loss, 1e-6 * std::abs(loss)) << k.name;
    std::string worst;
    const double e = WorstGradError(fast.Named(grad), want.grads, &worst);
    EXPECT_LE(e, kGradRel) << k.name << ": worst tensor " << worst;
  }
}

// A loss on the final hidden states equals the same loss written on the
// logits (L = Σ r · (xf head^T)), minus the LM head's own gradient.
TEST(CpuTransformer, HiddenLossEqualsTheLogitLossThroughTheHead) {
  CB_FRESH_SEED(seed);
  for (bool causal : {true, false}) {
    ref::Architecture arch;
    arch.causal = causal;
    const CpuTransformer fast(ref::RandomInit(Small(false), seed, 0.2, arch));
    cb::harness::Rng rng(seed, 3);
    const int batch = 2, seq = 7, D = 32, V = 37, M = batch * seq;
    const std::vector<int> tokens = RandomTokens(rng, M, V);
    std::vector<float> r(size_t(M) * V);  // d loss / d logits
    for (float& x : r) x = static_cast<float>(rng.Normal());
    const ref::NamedTensors named = fast.ToNamedTensors();
    const std::vector<double>& head = named.at("lm_head.weight").data;  // [V, D]
    std::vector<float> via_logits(fast.num_params()), via_hidden(fast.num_params(), -1.0f);
    const double l1 = fast.LogitLossAndGrad(tokens, batch, seq,
                                            [&](std::span<const float> logits, std::span<float> dlogits) {
                                              double l = 0;
                                              for (size_t i = 0; i < r.size(); ++i) l += r[i] * logits[i], dlogits[i] = r[i];
                                              return l;
                                            },
                                            via_logits);
    const double l2 = fast.HiddenLossAndGrad(tokens, batch, seq,
                                             [&](std::span<const float> xf, std::span<float> dxf) {
                                               double l = 0;  // Σ_tv r[t,v] Σ_i xf[t,i] head[v,i]
                                               for (int t = 0; t < M; ++t) {
                                                 for (int v = 0; v < V; ++v) {
                                                   for (int i = 0; i < D; ++i) {
                                                     l += r[t * V + v] * xf[t * D + i] * head[v * D + i];
                                                     dxf[t * D + i] += static_cast<float>(r[t * V + v] * head[v * D + i]);
                                                   }
                                                 }
                                               }
                                               return l;
                                             },
                                             via_hidden);
    EXPECT_NEAR(l2, l1, 1e-4 * std::max(1.0, std::abs(l1))) << causal;
    const ref::NamedTensors a = fast.Named(via_logits), b = fast.Named(via_hidden);
    for (const auto& [name, t] : a) {
      SCOPED_TRACE(name + (causal ? " (decoder)" : " (encoder)"));
      if (name == "lm_head.weight") {
        for (double x : b.at(name).data) ASSERT_EQ(x, 0.0);
        continue;
      }
      double scale = 0;
      for (double x : t.data) scale = std::max(scale, std::abs(x));
      EXPECT_TRUE(AllClose(b.at(name).data, t.data, 1e-4 * scale, 1e-3));
    }
  }
}

// The blocks on caller-made embeddings: with x0 = embed[tokens] they give
// HiddenLossAndGrad's xf and loss, and dx0 scattered into the embedding rows
// gives its embedding gradient; every other tensor's gradient is the same.
TEST(CpuTransformer, EmbeddedInputEqualsTokenInput) {
  CB_FRESH_SEED(seed);
  ref::Architecture arch;
  arch.causal = false;
  const CpuTransformer fast(ref::RandomInit(Small(false), seed, 0.2, arch));
  cb::harness::Rng rng(seed, 5);
  const int batch = 2, seq = 6, D = 32, V = 37, M = batch * seq;
  const std::vector<int> tokens = RandomTokens(rng, M, V);
  std::vector<float> r(size_t(M) * D);
  for (float& x : r) x = static_cast<float>(rng.Normal());
  const CpuTransformer::HiddenLoss loss = [&](std::span<const float> xf, std::span<float> dxf) {
    double l = 0;
    for (size_t i = 0; i < r.size(); ++i) l += r[i] * xf[i] * xf[i], dxf[i] = 2 * r[i] * xf[i];
    return l;
  };
  const ParamSlot& embed = fast.slot("model.embed_tokens.weight");
  std::vector<float> x0(size_t(M) * D);
  for (int t = 0; t < M; ++t)
    std::copy_n(&fast.params()[embed.offset + size_t(tokens[t]) * D], D, &x0[size_t(t) * D]);
  std::vector<float> g_tokens(fast.num_params()), g_embedded(fast.num_params(), -1.0f), dx0(x0.size(), -1.0f);
  const double l1 = fast.HiddenLossAndGrad(tokens, batch, seq, loss, g_tokens);
  const double l2 = fast.EmbeddedLossAndGrad(x0, batch, seq, loss, g_embedded, dx0);
  EXPECT_EQ(l1, l2);
  for (size_t i = 0; i < embed.size; ++i) ASSERT_EQ(g_embedded[embed.offset + i], 0.0f);
  for (int t = 0; t < M; ++t)
    for (int i = 0; i < D; ++i) g_embedded[embed.offset + size_t(tokens[t]) * D + i] += dx0[size_t(t) * D + i];
  for (size_t i = 0; i < g_tokens.size(); ++i) ASSERT_NEAR(g_embedded[i], g_tokens[i], 1e-6 * (1 + std::abs(g_tokens[i]))) << i;
  const std::vector<float> xf = fast.ForwardEmbedded(x0, batch, seq);
  double l3 = 0;
  for (size_t i = 0; i < r.size(); ++i) l3 += r[i] * xf[i] * xf[i];
  EXPECT_EQ(l1, l3);
  // A changed input dimension changes the output (the input is read, not the tokens).
  x0[3] += 1.0f;
  EXPECT_NE(fast.ForwardEmbedded(x0, batch, seq), xf);
  EXPECT_THROW(fast.ForwardEmbedded(std::vector<float>(5), 1, 1), std::invalid_argument);
  std::vector<float> short_dx0(3);
  EXPECT_THROW(fast.EmbeddedLossAndGrad(x0, batch, seq, loss, g_embedded, short_dx0), std::invalid_argument);
}

TEST(CpuTransformer, KvCacheDecodeEqualsRecomputation) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(false), seed, 0.2);
  const CpuTransformer fast(r);
  cb::harness::Rng rng(seed, 3);
  const int T = 24, V = 37, prompt = 5;
  const std::vector<int> tokens = RandomTokens(rng, T, V);
  const std::vector<float> full = fast.Forward(tokens);  // [T, V]
  CpuKvCache cache;
  const std::vector<float> pre = fast.Prefill(std::span<const int>(tokens).first(prompt), cache);
  EXPECT_TRUE(AllClose(std::span<const float>(pre), cb::testing::AsDoubles(
                           std::span<const float>(full).first(size_t(prompt) * V)), 1e-5, 1e-5));
  for (int t = prompt; t < T; ++t) {
    const std::vector<float> step = fast.DecodeStep(tokens[t], cache);
    EXPECT_TRUE(AllClose(std::span<const float>(step),
                         cb::testing::AsDoubles(
                             std::span<const float>(full).subspan(size_t(t) * V, V)),
                         1e-5, 1e-5))
        << "position " << t;
  }
  EXPECT_EQ(cache.length, T);
  ASSERT_EQ(cache.keys.size(), 2u);
  EXPECT_EQ(cache.keys[0].size(), size_t(T) * 2 * 6);
}

// Extend appends a block to a filled cache in one batched forward: each
// block row equals the full forward's row at its position, and a fork
// (Truncated) at a shorter prefix extends like the original would have.
TEST(CpuTransformer, ExtendAppendsABlockAndTruncatedForks) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(false), seed, 0.2);
  const CpuTransformer fast(r);
  cb::harness::Rng rng(seed, 4);
  const int T = 20, V = 37, prompt = 6;
  const std::vector<int> tokens = RandomTokens(rng, T, V);
  const std::vector<float> full = fast.Forward(tokens);  // [T, V]
  auto rows = [&](int from, int n) {
    return cb::testing::AsDoubles(std::span<const float>(full).subspan(size_t(from) * V, size_t(n) * V));
  };
  CpuKvCache cache;
  fast.Prefill(std::span<const int>(tokens).first(prompt), cache);
  const CpuKvCache at_prompt = cache.Truncated(prompt);
  const std::vector<float> block = fast.Extend(std::span<const int>(tokens).subspan(prompt, 5), cache);
  EXPECT_TRUE(AllClose(std::span<const float>(block), rows(prompt, 5), 1e-5, 1e-5));
  EXPECT_EQ(cache.length, prompt + 5);
  const std::vector<float> rest = fast.Extend(std::span<const int>(tokens).subspan(prompt + 5), cache);
  EXPECT_TRUE(AllClose(std::span<const float>(rest), rows(prompt + 5, T - prompt - 5), 1e-5, 1e-5));
  CpuKvCache fork = cache.Truncated(prompt + 2);  // a fork two tokens into the first block
  EXPECT_EQ(fork.length, prompt + 2);
  EXPECT_EQ(fork.keys[1].size(), size_t(prompt + 2) * 2 * 6);
  const std::vector<float> again = fast.Extend(std::span<const int>(tokens).subspan(prompt + 2, 3), fork);
  EXPECT_TRUE(AllClose(std::span<const float>(again), rows(prompt + 2, 3), 1e-5, 1e-5));
  CpuKvCache from_prompt = at_prompt;
  EXPECT_EQ(fast.DecodeStep(tokens[prompt], from_prompt).size(), size_t(V));
  EXPECT_THROW(cache.Truncated(0), std::invalid_argument);
  EXPECT_THROW(cache.Truncated(T + 1), std::invalid_argument);
  EXPECT_THROW(fast.Extend(std::vector<int>{}, cache), std::invalid_argument);
  CpuKvCache empty;
  EXPECT_THROW(fast.Extend(std::vector<int>{1, 2}, empty), std::invalid_argument);
}

// DecodeBatch: B caches of different lengths advanced at once, each row
// equal to its own DecodeStep.
TEST(CpuTransformer, DecodeBatchEqualsOneDecodeStepPerCache) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(false), seed, 0.2);
  const CpuTransformer fast(r);
  cb::harness::Rng rng(seed, 5);
  const int V = 37;
  std::vector<CpuKvCache> batched(3), single(3);
  std::vector<int> next;
  for (int b = 0; b < 3; ++b) {
    const std::vector<int> prompt = RandomTokens(rng, 3 + 4 * b, V);
    fast.Prefill(prompt, batched[b]);
    single[b] = batched[b];
    next.push_back(static_cast<int>(rng.UniformInt(0, V - 1)));
  }
  std::vector<CpuKvCache*> ptrs = {&batched[0], &batched[1], &batched[2]};
  const std::vector<float> got = fast.DecodeBatch(next, ptrs);  // [3, V]
  for (int b = 0; b < 3; ++b) {
    const std::vector<float> want = fast.DecodeStep(next[b], single[b]);
    EXPECT_TRUE(AllClose(std::span<const float>(got).subspan(size_t(b) * V, V),
                         cb::testing::AsDoubles(std::span<const float>(want)), 1e-5, 1e-5)) << "row " << b;
    EXPECT_EQ(batched[b].length, single[b].length);
    EXPECT_TRUE(AllClose(std::span<const float>(batched[b].keys[1]), cb::testing::AsDoubles(std::span<const float>(single[b].keys[1])), 1e-5, 1e-5));
  }
  std::vector<CpuKvCache*> twice = {&batched[0], &batched[0]};
  EXPECT_THROW(fast.DecodeBatch(std::vector<int>{1, 2}, twice), std::invalid_argument);
  EXPECT_THROW(fast.DecodeBatch(std::vector<int>{1}, ptrs), std::invalid_argument);
}

TEST(CpuTransformer, NamedWeightsRoundTrip) {
  CB_FRESH_SEED(seed);
  const ref::Transformer r = ref::RandomInit(Small(true), seed, 0.2);
  const CpuTransformer fast(r);
  const ref::NamedTensors got = fast.ToNamedTensors();
  const ref::NamedTensors want = r.ToNamedTensors();
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, t] : want) {
    ASSERT_EQ(got.at(name).shape, t.shape) << name;
    for (size_t i = 0; i < t.data.size(); ++i)
      ASSERT_EQ(got.at(name).data[i], static_cast<double>(static_cast<float>(t.data[i]))) << name;
  }
  EXPECT_FALSE(got.count("lm_head.weight"));  // tied
}

TEST(CpuTransformer, BadInputIsRejectedWithOneLine) {
  const ref::Transformer r = ref::RandomInit(Small(false), 5, 0.2);
  const CpuTransformer fast(r);
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([&] { fast.Forward(std::vector<int>{1, 37}); }).find("token id 37"),
            std::string::npos);
  EXPECT_NE(message([&] { fast.Forward(std::vector<int>(65, 1)); }).find("max_position_embeddings"),
            std::string::npos);
  Batch b{.tokens = {1, 2, 3}, .targets = {1, 2}, .weights = {1, 1, 1}, .batch = 1, .seq = 3};
  std::vector<float> grad(fast.num_params());
  EXPECT_NE(message([&] { fast.LossAndGrad(b, grad); }).find("batch x seq"), std::string::npos);
  b.targets = {1, 2, 3};
  std::vector<float> short_grad(3);
  EXPECT_NE(message([&] { fast.LossAndGrad(b, short_grad); }).find("gradient buffer"),
            std::string::npos);
  b.weights = {0, 0, 0};
  EXPECT_NE(message([&] { fast.Loss(b); }).find("all weights are zero"), std::string::npos);
  CpuKvCache cache;
  EXPECT_NE(message([&] { fast.DecodeStep(1, cache); }).find("before Prefill"), std::string::npos);
  const CpuTransformer vit(ref::RandomInit(Small(false), 1, 0.2, Vit()));
  EXPECT_NE(message([&] { vit.Forward(std::vector<int>{1, 2}); }).find("patch-mode"),
            std::string::npos);
  EXPECT_NE(message([&] { fast.ForwardImages(std::vector<float>(48), 1); }).find("token model"),
            std::string::npos);
  EXPECT_NE(message([&] { vit.ForwardImages(std::vector<float>(47), 1); }).find("47 pixel values"),
            std::string::npos);
  EXPECT_NE(message([&] { vit.ImageLoss(std::vector<float>(96), std::vector<int>{0, 3}); })
                .find("target 3"),
            std::string::npos);
  const CpuTransformer::HiddenLoss zero = [](std::span<const float>, std::span<float>) { return 0.0; };
  std::vector<float> vit_grad(vit.num_params());
  EXPECT_NE(message([&] { vit.HiddenLossAndGrad(std::vector<int>{1, 2}, 1, 2, zero, vit_grad); }).find("token model"),
            std::string::npos);
  EXPECT_NE(message([&] { fast.HiddenLossAndGrad(std::vector<int>{1, 2, 3}, 1, 2, zero, grad); }).find("batch x seq"),
            std::string::npos);
  EXPECT_NE(message([&] { fast.HiddenLossAndGrad(std::vector<int>{1, 2}, 1, 2, zero, short_grad); })
                .find("gradient buffer"),
            std::string::npos);
}

// A loss on one layer's attention scores (ImageScoreLossAndGrad): the scores
// are that layer's softmax inputs (softmax of them is the saved "p"), the
// gradient matches central differences along a random direction in every
// parameter, and nothing above the scores (later layers, classifier) moves.
TEST(CpuTransformer, ImageScoreGradientMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  ref::TransformerConfig cfg = Small(false);
  cfg.num_hidden_layers = 2;
  CpuTransformer fast(ref::RandomInit(cfg, seed, 0.2, Vit()));
  cb::harness::Rng rng(seed, 9);
  const int B = 2, pixels = 2 * 4 * 6;
  std::vector<float> images(B * pixels);
  for (float& x : images) x = static_cast<float>(rng.Normal());
  const int layer = 0;
  std::vector<float> w;  // loss = sum w * s + 0.25 sum s^2
  auto loss = [&](std::span<const float> s, std::span<float> ds) {
    if (w.empty())
      for (size_t j = 0; j < s.size(); ++j) w.push_back(static_cast<float>(rng.Normal()));
    double v = 0;
    for (size_t j = 0; j < s.size(); ++j) {
      v += double(w[j]) * s[j] + 0.25 * double(s[j]) * s[j];
      ds[j] = w[j] + 0.5f * s[j];
    }
    return v;
  };
  std::vector<float> saved_p;
  fast.set_activation_hook([&](const SavedTensor& what, std::span<float> v) {
    if (std::string(what.name) == "p" && what.layer == layer) saved_p.assign(v.begin(), v.end());
  });
  std::vector<float> scores;
  std::vector<float> grad(fast.num_params());
  fast.ImageScoreLossAndGrad(images, B, layer, [&](std::span<const float> s, std::span<float> ds) {
    scores.assign(s.begin(), s.end());
    return loss(s, ds);
  }, grad);
  fast.set_activation_hook(nullptr);
  const int T = 1 + (4 / 2) * (6 / 2);
  ASSERT_EQ(scores.size(), saved_p.size());
  for (size_t row = 0; row < scores.size() / T; ++row) {
    const float* s = &scores[row * T];
    const float mx = *std::max_element(s, s + T);
    double z = 0;
    for (int u = 0; u < T; ++u) z += std::exp(double(s[u]) - mx);
    for (int u = 0; u < T; ++u) EXPECT_NEAR(std::exp(double(s[u]) - mx) / z, saved_p[row * T + u], 1e-6);
  }
  const auto named = fast.Named(grad);
  for (const auto& [name, g] : named) {
    if (name.find("layers.1.") != std::string::npos || name.find("classifier") != std::string::npos ||
        name.find("layers.0.mlp") != std::string::npos || name.find("o_proj") != std::string::npos ||
        name.find("v_proj") != std::string::npos || name == "model.norm.weight") {
      for (double x : g.data) ASSERT_EQ(x, 0.0) << name;
    }
  }
  const auto d = cb::fixtures::AlongRandomDirection(fast.params(), grad, rng, [&] {
    std::vector<float> g(fast.num_params());
    return fast.ImageScoreLossAndGrad(images, B, layer, loss, g);
  });
  EXPECT_NEAR(d.numeric, d.analytic, 5e-3 * std::max(1.0, std::abs(d.analytic)));
  std::vector<float> g(fast.num_params());
  EXPECT_THROW(fast.ImageScoreLossAndGrad(images, B, 2, loss, g), std::invalid_argument);
}

// A loss on the final hidden states of an image model (ImageHiddenLossAndGrad,
// the entry of a per-patch head): the gradient matches central differences
// along a random direction in every parameter and the classifier gets none.
TEST(CpuTransformer, ImageHiddenGradientMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  CpuTransformer fast(ref::RandomInit(Small(false), seed, 0.2, Vit()));
  cb::harness::Rng rng(seed, 10);
  const int B = 2, pixels = 2 * 4 * 6;
  std::vector<float> images(B * pixels);
  for (float& x : images) x = static_cast<float>(rng.Normal());
  std::vector<float> w;  // loss = sum w * xf + 0.25 sum xf^2
  auto loss = [&](std::span<const float> xf, std::span<float> dxf) {
    if (w.empty())
      for (size_t j = 0; j < xf.size(); ++j) w.push_back(static_cast<float>(rng.Normal()));
    double v = 0;
    for (size_t j = 0; j < xf.size(); ++j) {
      v += double(w[j]) * xf[j] + 0.25 * double(xf[j]) * xf[j];
      dxf[j] = w[j] + 0.5f * xf[j];
    }
    return v;
  };
  std::vector<float> grad(fast.num_params());
  fast.ImageHiddenLossAndGrad(images, B, loss, grad);
  for (const auto& [name, g] : fast.Named(grad)) {
    if (name.find("classifier") == std::string::npos) continue;
    for (double x : g.data) ASSERT_EQ(x, 0.0) << name;
  }
  const auto d = cb::fixtures::AlongRandomDirection(fast.params(), grad, rng, [&] {
    std::vector<float> g(fast.num_params());
    return fast.ImageHiddenLossAndGrad(images, B, loss, g);
  });
  ASSERT_NE(d.analytic, 0.0);
  EXPECT_NEAR(d.numeric, d.analytic, 5e-3 * std::max(1.0, std::abs(d.analytic)));
  std::vector<float> g(fast.num_params());
  EXPECT_THROW(fast.ImageHiddenLossAndGrad(std::span<const float>(images).first(pixels + 1), 1, loss, g),
               std::invalid_argument);
}

}  // namespace
}  // namespace cb::lm_suite

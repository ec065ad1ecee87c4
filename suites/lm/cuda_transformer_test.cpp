// File: suites/lm/cuda_transformer_test.cpp
// -----------------------------------------------------------------------------
// The CUDA transformer (cuda_transformer.h) against the fp64 reference
// (reference/lm/transformer.h) on fresh random weights and inputs: logits of
// decoders (untied GQA, tied MQA) and of a bidirectional encoder, the batch
// loss and every gradient tensor, KV-cache decode against a full forward pass
// on the same device, the downloaded cache against the CPU path's cache,
// bitwise reproducibility, and bad input. CUDA only: without CUDA or a device
// every case is a SKIP with the reason (BackendTest), a failure under
// CB_REQUIRE_GPU=1.
#include "suites/lm/cuda_transformer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/expect_invalid.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/backend.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::lm_suite {
namespace {

using cb::testing::ExpectInvalid;

namespace h = cb::harness;
namespace ref = cb::ref::lm;

class CudaTransformerTest : public cb::testing::BackendTest {};

#if CB_HAVE_CUDA

// Tolerances of the fp32 device path against fp64 (weights ~ N(0, 0.25^2),
// so logits and activations are O(1)). Calibrated on the CPU fp32 path over
// these three models and 30 seeds: its worst errors were 1.1e-5 absolute on
// logits, 1.8e-7 relative on the loss, 7.5e-6 relative (infinity norm) on a
// gradient tensor, 8.7e-6 between its decode step and its full forward pass,
// and 5.6e-6 on cached keys/values (|k| <= 6). The device rounds the same
// way in other summation orders (cuBLAS, block reductions), so each bound
// leaves ~10x room over those (for fp32 against fp32, over twice those), and
// is still ~1e3x below what a wrong formula (a RoPE sign, a mask, a scale)
// costs.
constexpr double kLogitAtol = 1e-4;
constexpr double kLogitRtol = 1e-4;
constexpr double kLossRtol = 1e-5;
constexpr double kGradRelTol = 1e-4;  // max |got - want| / max |want|, per tensor
// Device decode (SGEMV) against the device's full forward (SGEMM), and the
// device cache against the CPU path's: fp32 against fp32, both rounded.
constexpr double kDecodeAtol = 1e-4;
constexpr double kDecodeRtol = 1e-4;
constexpr double kCacheAtol = 5e-5;
constexpr double kCacheRtol = 5e-5;
constexpr double kInitStd = 0.25;

struct Case {
  const char* name;
  ref::TransformerConfig config;
  ref::Architecture arch;
};

std::vector<Case> Cases() {
  ref::TransformerConfig gqa;  // untied head, 4 query heads on 2 KV heads
  gqa.vocab_size = 37;
  gqa.hidden_size = 32;
  gqa.intermediate_size = 48;
  gqa.num_hidden_layers = 2;
  gqa.num_attention_heads = 4;
  gqa.num_key_value_heads = 2;
  gqa.max_position_embeddings = 64;
  gqa.rms_norm_eps = 1e-5;
  gqa.tie_word_embeddings = false;
  ref::TransformerConfig mqa = gqa;  // tied head, 3 heads of 6 on one KV head, theta 500
  mqa.vocab_size = 29;
  mqa.hidden_size = 24;
  mqa.intermediate_size = 40;
  mqa.num_attention_heads = 3;
  mqa.num_key_value_heads = 1;
  mqa.head_dim = 6;  // H*d = 18 != D: q_proj and o_proj are not square
  mqa.tie_word_embeddings = true;
  mqa.rope_theta = 500.0;
  ref::TransformerConfig mha = gqa;  // encoder: 4 heads, 4 KV heads
  mha.num_key_value_heads = 4;
  ref::Architecture encoder;
  encoder.causal = false;
  return {{"untied_gqa", gqa, {}}, {"tied_mqa", mqa, {}}, {"encoder_mha", mha, encoder}};
}

std::vector<int> RandomTokens(uint64_t seed, uint64_t stream, int n, int vocab) {
  h::Rng rng(seed, stream);
  std::vector<int> t(n);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(vocab - 1)));
  return t;
}

std::vector<double> Widen(const std::vector<float>& v) { return cb::testing::AsDoubles(v); }

// Row `row` of a row-major [rows, V] buffer.
std::vector<double> Row(const std::vector<double>& m, int row, int V) {
  return {m.begin() + static_cast<ptrdiff_t>(row) * V, m.begin() + static_cast<ptrdiff_t>(row + 1) * V};
}

// max |got - want| / max |want| (infinity norms).
double InfRelError(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num = std::max(num, std::abs(got[i] - want[i]));
    den = std::max(den, std::abs(want[i]));
  }
  return den > 0 ? num / den : num;
}

// A batch of B sequences of T with random targets and weights in
// {0, 0.5, 1, 2} (position 0 of each sequence always weighted), some repeated
// tokens (the embedding scatter adds rows), and each sequence's reference
// targets.
Batch RandomBatch(uint64_t seed, int B, int T, int V, std::vector<ref::Targets>* per_seq) {
  h::Rng rng(seed, 11);
  Batch b;
  b.batch = B;
  b.seq = T;
  b.tokens = RandomTokens(seed, 12, B * T, V);
  for (int s = 0; s < B; ++s) {
    b.tokens[s * T + 3] = b.tokens[s * T + 1];  // repeats inside and across sequences
    b.tokens[s * T + T - 1] = b.tokens[1];
  }
  const float kWeights[4] = {0.0f, 0.5f, 1.0f, 2.0f};
  for (int i = 0; i < B * T; ++i) {
    b.targets.push_back(static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(V - 1))));
    b.weights.push_back(i % T == 0 ? 1.0f : kWeights[rng.UniformInt(0, 3)]);
  }
  per_seq->assign(B, {});
  for (int s = 0; s < B; ++s)
    for (int t = 0; t < T; ++t) {
      (*per_seq)[s].target.push_back(b.targets[s * T + t]);
      (*per_seq)[s].weight.push_back(b.weights[s * T + t]);
    }
  return b;
}

#endif  // CB_HAVE_CUDA

TEST_P(CudaTransformerTest, LogitsMatchTheFp64Reference) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const ref::Transformer reference = ref::RandomInit(c.config, seed, kInitStd, c.arch);
    const CudaTransformer model{CpuTransformer(reference)};
    const int V = c.config.vocab_size;
    const std::vector<int> tokens = RandomTokens(seed, 1, 19, V);
    std::vector<float> got = model.Forward(tokens);
    ASSERT_EQ(got.size(), size_t{19} * V);
    EXPECT_TRUE(cb::testing::AllClose(got, reference.Forward(tokens).data, kLogitAtol, kLogitRtol));
    // A batch of 3 sequences of 11: each row block is its own sequence.
    const int B = 3, T = 11;
    const std::vector<int> batch_tokens = RandomTokens(seed, 2, B * T, V);
    got = model.ForwardBatch(batch_tokens, B, T);
    ASSERT_EQ(got.size(), size_t{B * T} * V);
    for (int s = 0; s < B; ++s) {
      const std::vector<int> seq(batch_tokens.begin() + s * T, batch_tokens.begin() + (s + 1) * T);
      const std::span<const float> rows(got.data() + static_cast<size_t>(s) * T * V,
                                        static_cast<size_t>(T) * V);
      EXPECT_TRUE(cb::testing::AllClose(rows, reference.Forward(seq).data, kLogitAtol, kLogitRtol))
          << "sequence " << s;
    }
  }
#endif
}

TEST_P(CudaTransformerTest, HiddenStatesMatchTheCpuPath) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const CpuTransformer cpu(ref::RandomInit(c.config, seed, kInitStd, c.arch));
    const CudaTransformer gpu(cpu);
    const int B = 2, T = 9, D = c.config.hidden_size;
    const std::vector<int> tokens = RandomTokens(seed, 3, B * T, c.config.vocab_size);
    const ParamSlot& embed = cpu.slot("model.embed_tokens.weight");
    std::vector<float> x0;
    for (int t : tokens)
      x0.insert(x0.end(), cpu.params().begin() + embed.offset + size_t(t) * D,
                cpu.params().begin() + embed.offset + size_t(t + 1) * D);
    const std::vector<float> want = cpu.ForwardEmbedded(x0, B, T);
    const std::vector<double> want64(want.begin(), want.end());
    EXPECT_TRUE(cb::testing::AllClose(gpu.ForwardHiddenBatch(tokens, B, T), want64, kLogitAtol, kLogitRtol));
  }
#endif
}

TEST_P(CudaTransformerTest, LossAndEveryGradientMatchTheFp64Reference) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const ref::Transformer reference = ref::RandomInit(c.config, seed, kInitStd, c.arch);
    const CpuTransformer cpu(reference);
    const CudaTransformer model(cpu);
    const int B = 2, T = 13;
    std::vector<ref::Targets> per_seq;
    const Batch b = RandomBatch(seed, B, T, c.config.vocab_size, &per_seq);
    // The batch loss is sum_s W_s loss_s / W, its gradient sum_s (W_s / W) grad_s.
    double w_total = 0, want_loss = 0;
    ref::NamedTensors want;
    for (int s = 0; s < B; ++s) {
      double w_s = 0;
      for (double w : per_seq[s].weight) w_s += w;
      w_total += w_s;
    }
    for (int s = 0; s < B; ++s) {
      const std::vector<int> seq(b.tokens.begin() + s * T, b.tokens.begin() + (s + 1) * T);
      double w_s = 0;
      for (double w : per_seq[s].weight) w_s += w;
      const ref::LossAndGrad lg = reference.Backward(seq, per_seq[s]);
      want_loss += w_s / w_total * lg.loss;
      for (const auto& [name, g] : lg.grads) {
        ref::Tensor& acc = want[name];
        if (acc.data.empty()) acc = ref::Tensor{g.shape, std::vector<double>(g.data.size(), 0.0)};
        for (size_t i = 0; i < g.data.size(); ++i) acc.data[i] += w_s / w_total * g.data[i];
      }
    }
    std::vector<float> grad(model.num_params(), std::nanf(""));  // poisoned
    const double loss = model.LossAndGrad(b, grad);
    EXPECT_NEAR(loss, want_loss, kLossRtol * std::abs(want_loss));
    EXPECT_NEAR(model.Loss(b), loss, kLossRtol * std::abs(loss)) << "Loss() and LossAndGrad() differ";
    const ref::NamedTensors got = cpu.Named(grad);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, g] : want) {
      const double err = InfRelError(got.at(name).data, g.data);
      EXPECT_LE(err, kGradRelTol) << name;
    }
  }
#endif
}

TEST_P(CudaTransformerTest, LossAndGradientAreBitwiseReproducible) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  const Case c = Cases()[0];
  const CudaTransformer model{CpuTransformer(ref::RandomInit(c.config, seed, kInitStd))};
  std::vector<ref::Targets> per_seq;
  const Batch b = RandomBatch(seed, 3, 17, c.config.vocab_size, &per_seq);
  std::vector<float> g1(model.num_params()), g2(model.num_params(), std::nanf(""));
  const double l1 = model.LossAndGrad(b, g1);
  model.Forward(b.tokens);  // other work in between reshapes the workspace
  const double l2 = model.LossAndGrad(b, g2);
  EXPECT_EQ(l1, l2);
  EXPECT_EQ(g1, g2);
#endif
}

TEST_P(CudaTransformerTest, KvCacheDecodeEqualsFullForwardOnTheDevice) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    if (!c.arch.causal) continue;
    SCOPED_TRACE(c.name);
    const ref::Transformer reference = ref::RandomInit(c.config, seed, kInitStd);
    const CudaTransformer model{CpuTransformer(reference)};
    const int V = c.config.vocab_size, prompt = 7, steps = 6;
    const std::vector<int> tokens = RandomTokens(seed, 3, prompt + steps, V);
    CudaKvCache cache;
    const std::vector<int> head(tokens.begin(), tokens.begin() + prompt);
    const std::vector<float> prefill = model.Prefill(head, cache);
    EXPECT_EQ(cache.length(), prompt);
    EXPECT_TRUE(cb::testing::AllClose(prefill, Widen(model.Forward(head)), kDecodeAtol, kDecodeRtol));
    std::vector<float> first_step;
    for (int s = 0; s < steps; ++s) {
      const int n = prompt + s + 1;
      const std::vector<float> step = model.DecodeStep(tokens[n - 1], cache);
      ASSERT_EQ(step.size(), size_t(V));
      EXPECT_EQ(cache.length(), n);
      const std::vector<int> prefix(tokens.begin(), tokens.begin() + n);
      EXPECT_TRUE(cb::testing::AllClose(step, Row(Widen(model.Forward(prefix)), n - 1, V),
                                        kDecodeAtol, kDecodeRtol))
          << "step " << s;
      EXPECT_TRUE(cb::testing::AllClose(step, Row(reference.Forward(prefix).data, n - 1, V),
                                        kLogitAtol, kLogitRtol))
          << "step " << s << " against the reference";
      if (s == 0) first_step = step;
    }
    // Rewinding to the prompt and decoding the same token again is the same
    // computation on the same cache rows: bitwise the same logits.
    cache.Truncate(prompt);
    EXPECT_EQ(cache.length(), prompt);
    EXPECT_EQ(model.DecodeStep(tokens[prompt], cache), first_step);
  }
#endif
}

// Extend (a block in one batched forward) and Truncated (a device fork) on
// the device: every block row equals the device's full forward and, within
// the logit tolerance, the fp64 reference.
TEST_P(CudaTransformerTest, ExtendAppendsABlockAndTruncatedForksOnTheDevice) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    if (!c.arch.causal) continue;
    SCOPED_TRACE(c.name);
    const ref::Transformer reference = ref::RandomInit(c.config, seed, kInitStd);
    const CudaTransformer model{CpuTransformer(reference)};
    const int V = c.config.vocab_size, prompt = 5, T = 14;
    const std::vector<int> tokens = RandomTokens(seed, 5, T, V);
    const std::vector<double> full = Widen(model.Forward(tokens));  // [T, V]
    const std::vector<double> want = reference.Forward(tokens).data;
    auto rows = [&](const std::vector<double>& all, int from, int n) {
      return std::vector<double>(all.begin() + size_t(from) * V, all.begin() + size_t(from + n) * V);
    };
    CudaKvCache cache;
    model.Prefill(std::vector<int>(tokens.begin(), tokens.begin() + prompt), cache);
    const std::vector<float> block = model.Extend(std::span<const int>(tokens).subspan(prompt, 4), cache);
    EXPECT_EQ(cache.length(), prompt + 4);
    EXPECT_TRUE(cb::testing::AllClose(block, rows(full, prompt, 4), kDecodeAtol, kDecodeRtol));
    EXPECT_TRUE(cb::testing::AllClose(block, rows(want, prompt, 4), kLogitAtol, kLogitRtol));
    CudaKvCache fork = cache.Truncated(prompt + 1);
    EXPECT_EQ(fork.length(), prompt + 1);
    EXPECT_EQ(cache.length(), prompt + 4);  // the original is untouched
    const std::vector<float> again = model.Extend(std::span<const int>(tokens).subspan(prompt + 1, T - prompt - 1), fork);
    EXPECT_TRUE(cb::testing::AllClose(again, rows(full, prompt + 1, T - prompt - 1), kDecodeAtol, kDecodeRtol));
    EXPECT_THROW(cache.Truncated(0), std::invalid_argument);
    EXPECT_THROW(model.Extend(std::vector<int>{}, cache), std::invalid_argument);
  }
#endif
}

TEST_P(CudaTransformerTest, DownloadedCacheEqualsTheCpuCache) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  for (const Case& c : Cases()) {
    if (!c.arch.causal) continue;
    SCOPED_TRACE(c.name);
    const CpuTransformer cpu(ref::RandomInit(c.config, seed, kInitStd));
    const CudaTransformer model(cpu);
    const std::vector<int> tokens = RandomTokens(seed, 4, 12, c.config.vocab_size);
    const std::vector<int> prompt(tokens.begin(), tokens.begin() + 9);
    CpuKvCache want;
    CudaKvCache cache;
    cpu.Prefill(prompt, want);
    model.Prefill(prompt, cache);
    for (size_t t = prompt.size(); t < tokens.size(); ++t) {
      cpu.DecodeStep(tokens[t], want);
      model.DecodeStep(tokens[t], cache);
    }
    const CpuKvCache got = cache.Download();
    EXPECT_EQ(got.length, want.length);
    ASSERT_EQ(got.keys.size(), size_t(c.config.num_hidden_layers));
    ASSERT_EQ(got.values.size(), got.keys.size());
    const size_t kvd = size_t(c.config.num_key_value_heads) * c.config.HeadDim();
    for (size_t l = 0; l < got.keys.size(); ++l) {
      ASSERT_EQ(got.keys[l].size(), size_t(want.length) * kvd) << "layer " << l;
      EXPECT_TRUE(cb::testing::AllClose(got.keys[l], Widen(want.keys[l]), kCacheAtol, kCacheRtol))
          << "keys of layer " << l;
      EXPECT_TRUE(cb::testing::AllClose(got.values[l], Widen(want.values[l]), kCacheAtol, kCacheRtol))
          << "values of layer " << l;
    }
    EXPECT_EQ(cache.Keys(0), got.keys[0]);
  }
#endif
}

TEST_P(CudaTransformerTest, BadInputIsRejectedBeforeAnyLaunch) {
#if CB_HAVE_CUDA
  CB_FRESH_SEED(seed);
  const Case c = Cases()[0];
  const CpuTransformer cpu(ref::RandomInit(c.config, seed, kInitStd));
  CudaTransformer model(cpu);
  const int V = c.config.vocab_size, P = c.config.max_position_embeddings;
  ExpectInvalid([&] { model.Forward({}); }, "empty token sequence");
  ExpectInvalid([&] { model.Forward(std::vector<int>{1, V, 2}); },
                "token id " + std::to_string(V) + " at position 1 outside [0, " + std::to_string(V) + ")");
  ExpectInvalid([&] { model.Forward(std::vector<int>{-1}); }, "token id -1 at position 0");
  ExpectInvalid([&] { model.Forward(std::vector<int>(P + 1, 0)); },
                "position " + std::to_string(P) + " past max_position_embeddings");
  ExpectInvalid([&] { model.ForwardBatch(std::vector<int>(5, 0), 2, 3); }, "5 tokens for a batch of 2 x 3");
  ExpectInvalid([&] { model.ForwardBatch(std::vector<int>(5, 0), 0, 3); }, "empty batch");

  std::vector<ref::Targets> per_seq;
  const Batch good = RandomBatch(seed, 2, 5, V, &per_seq);
  std::vector<float> grad(model.num_params());
  Batch b = good;
  b.targets.pop_back();
  ExpectInvalid([&] { model.Loss(b); }, "batch x seq = 10 entries");
  b = good;
  b.targets[4] = V;
  b.weights[4] = 1;
  ExpectInvalid([&] { model.LossAndGrad(b, grad); }, "target " + std::to_string(V) + " at position 4");
  b = good;
  b.weights[3] = -1;
  ExpectInvalid([&] { model.LossAndGrad(b, grad); }, "weight 3 is negative");
  b = good;
  std::fill(b.weights.begin(), b.weights.end(), 0.0f);
  ExpectInvalid([&] { model.Loss(b); }, "all weights are zero");
  std::vector<float> short_grad(model.num_params() - 1);
  ExpectInvalid([&] { model.LossAndGrad(good, short_grad); }, "gradient buffer of");
  ExpectInvalid([&] { model.Upload(short_grad); }, "parameters");

  CudaKvCache cache;
  ExpectInvalid([&] { model.DecodeStep(0, cache); }, "DecodeStep before Prefill");
  model.Prefill(std::vector<int>{1, 2, 3}, cache);
  ExpectInvalid([&] { model.DecodeStep(V, cache); }, "token id " + std::to_string(V));
  EXPECT_EQ(cache.length(), 3) << "a rejected step must leave the cache alone";
  ExpectInvalid([&] { cache.Truncate(4); }, "cannot truncate 3 positions to 4");
  ExpectInvalid([&] { cache.Keys(c.config.num_hidden_layers); }, "no layer");
  // A full cache: the next position is past max_position_embeddings.
  model.Prefill(std::vector<int>(P, 1), cache);
  ExpectInvalid([&] { model.DecodeStep(1, cache); }, "past max_position_embeddings");
  // A cache from a model of another shape.
  const CudaTransformer other{CpuTransformer(ref::RandomInit(Cases()[1].config, seed, kInitStd))};
  ExpectInvalid([&] { other.DecodeStep(1, cache); }, "KV cache of another model shape");
  // Same layers and KV width, more positions: the cache is too short for it.
  ref::TransformerConfig longer = c.config;
  longer.max_position_embeddings = P + 8;
  const CudaTransformer more_positions{CpuTransformer(ref::RandomInit(longer, seed, kInitStd))};
  model.Prefill(std::vector<int>{1, 2}, cache);
  ExpectInvalid([&] { more_positions.DecodeStep(1, cache); }, "KV cache of another model shape");
  ExpectInvalid([&] { more_positions.Extend(std::vector<int>{1, 2}, cache); }, "KV cache of another model shape");
  // An encoder has no KV cache.
  const Case enc = Cases()[2];
  const CudaTransformer encoder{CpuTransformer(ref::RandomInit(enc.config, seed, kInitStd, enc.arch))};
  ExpectInvalid([&] { encoder.Prefill(std::vector<int>{1}, cache); }, "needs a causal model");
#endif
}

INSTANTIATE_TEST_SUITE_P(Backends, CudaTransformerTest, ::testing::Values(h::Backend::kCuda),
                         cb::testing::BackendParamName);

}  // namespace
}  // namespace cb::lm_suite

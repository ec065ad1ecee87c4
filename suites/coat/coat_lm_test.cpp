// File: suites/coat/coat_lm_test.cpp
// -----------------------------------------------------------------------------
// COAT on the substrate's transformer (coat_lm.h): the saved-activation hook
// sees every tensor the backward reads and changes nothing when it does
// nothing; the backward really reads what the hook leaves; the compressor's
// values are the reference quantizers' bit for bit (per-tensor for linear
// inputs, 1x16 per row for non-linear ones, the rest untouched) with the
// stated byte counts; the moment store is per-tensor DRE bit for bit with
// measured bytes; a COAT step updates with the unquantized moments; a tiny
// model learns with both FP8 parts on.
#include "suites/coat/coat_lm.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/coat/quant.h"
#include "reference/lm/transformer.h"

namespace cb::coat {
namespace {

namespace lm = cb::lm_suite;
namespace rc = cb::ref::coat;
namespace ref = cb::ref::lm;
using ref::TransformerConfig;

// Intermediate 24: rows that are not whole 1x16 groups.
TransformerConfig Tiny() {
  TransformerConfig c;
  c.vocab_size = 16;
  c.hidden_size = 16;
  c.intermediate_size = 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.max_position_embeddings = 64;
  c.rms_norm_eps = 1e-5;
  return c;
}

struct OneThread {  // bit-identical comparisons need a fixed OpenBLAS thread count
  OneThread() { openblas_set_num_threads(1); }
  ~OneThread() { openblas_set_num_threads(0); }
};

lm::Batch RandomBatch(uint64_t seed, int vocab, int B, int T) {
  harness::Rng rng(seed, 3);
  lm::Batch b{.batch = B, .seq = T};
  for (int i = 0; i < B * T; ++i) {
    b.tokens.push_back(static_cast<int>(rng.UniformInt(0, vocab - 1)));
    b.targets.push_back(static_cast<int>(rng.UniformInt(0, vocab - 1)));
  }
  b.weights.assign(size_t(B) * T, 1.0f);
  return b;
}

std::vector<float> RandomValues(uint64_t seed, size_t n, float scale) {
  harness::Rng rng(seed, 5);
  std::vector<float> x(n);
  for (float& v : x) v = scale * static_cast<float>(rng.Normal());
  return x;
}

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return false;
  return true;
}

TEST(CoatLmHook, SeesEverySavedTensorAndAnIdleHookChangesNothing) {
  CB_FRESH_SEED(seed);
  const OneThread one;
  const TransformerConfig c = Tiny();
  lm::CpuTransformer model(ref::RandomInit(c, seed, 0.05));
  const int B = 2, T = 8, M = B * T, D = c.hidden_size, I = c.intermediate_size, H = c.num_attention_heads;
  const lm::Batch b = RandomBatch(seed, c.vocab_size, B, T);
  std::vector<float> plain(model.num_params()), hooked(model.num_params());
  const double loss_plain = model.LossAndGrad(b, plain);

  std::map<std::string, std::tuple<lm::SavedRole, size_t, int>> seen;  // "layer/name" -> role, size, cols
  model.set_activation_hook([&](const lm::SavedTensor& what, std::span<float> v) {
    const std::string key = std::to_string(what.layer) + "/" + what.name;
    EXPECT_EQ(seen.count(key), 0u) << key << " passed twice";
    seen[key] = {what.role, v.size(), what.cols};
    EXPECT_EQ(v.size() % what.cols, 0u) << key;
  });
  EXPECT_EQ(model.LossAndGrad(b, hooked), loss_plain);
  EXPECT_TRUE(BitEqual(plain, hooked));
  EXPECT_EQ(seen.size(), size_t(c.num_hidden_layers) * 14 + 3);
  using R = lm::SavedRole;
  const std::map<std::string, std::tuple<R, size_t, int>> want = {
      {"x", {R::kNonLinearInput, M * D, D}}, {"n", {R::kLinearInput, M * D, D}},
      {"att", {R::kLinearInput, M * D, D}},  {"h", {R::kNonLinearInput, M * D, D}},
      {"m", {R::kLinearInput, M * D, D}},    {"gate", {R::kNonLinearInput, M * I, I}},
      {"up", {R::kNonLinearInput, M * I, I}}, {"a", {R::kLinearInput, M * I, I}},
      {"p", {R::kAttentionCore, size_t(B) * H * T * T, T}}, {"r1", {R::kStatistic, M, 1}}};
  for (int l = 0; l < c.num_hidden_layers; ++l)
    for (const auto& [name, w] : want) EXPECT_EQ(seen.at(std::to_string(l) + "/" + name), w) << l << " " << name;
  EXPECT_EQ(seen.at("-1/xL"), std::make_tuple(R::kNonLinearInput, size_t(M * D), D));
  EXPECT_EQ(seen.at("-1/xf"), std::make_tuple(R::kHeadInput, size_t(M * D), D));
  // Loss and Forward save nothing: no calls.
  seen.clear();
  model.Loss(b);
  model.Forward(b.tokens);
  EXPECT_TRUE(seen.empty());
}

TEST(CoatLmHook, TheBackwardReadsWhatTheHookLeaves) {
  // Zeroing the saved down-proj input "a" of layer 0 must zero that layer's
  // down-proj weight gradient (dW = dx^T a) and nothing else wholesale.
  CB_FRESH_SEED(seed);
  const OneThread one;
  const TransformerConfig c = Tiny();
  lm::CpuTransformer model(ref::RandomInit(c, seed, 0.05));
  const lm::Batch b = RandomBatch(seed, c.vocab_size, 2, 8);
  model.set_activation_hook([](const lm::SavedTensor& what, std::span<float> v) {
    if (what.layer == 0 && std::string(what.name) == "a") std::fill(v.begin(), v.end(), 0.0f);
  });
  std::vector<float> g(model.num_params());
  model.LossAndGrad(b, g);
  const lm::ParamSlot& down0 = model.slot("model.layers.0.mlp.down_proj.weight");
  const lm::ParamSlot& down1 = model.slot("model.layers.1.mlp.down_proj.weight");
  double s0 = 0, s1 = 0;
  for (size_t i = 0; i < down0.size; ++i) s0 += std::fabs(g[down0.offset + i]);
  for (size_t i = 0; i < down1.size; ++i) s1 += std::fabs(g[down1.offset + i]);
  EXPECT_EQ(s0, 0.0);
  EXPECT_GT(s1, 0.0);
}

TEST(CoatLmActivations, CompressedValuesAreTheReferenceQuantizersBitForBit) {
  CB_FRESH_SEED(seed);
  using R = lm::SavedRole;
  const int rows = 37;
  for (const int cols : {16, 24, 64, 176}) {
    const std::vector<float> x = RandomValues(seed + cols, size_t(rows) * cols, 3.0f);
    CoatActivationCompressor comp;
    // Linear input: per-tensor scaling over the whole tensor.
    std::vector<float> lin = x;
    comp.Apply({R::kLinearInput, "n", 0, cols}, lin);
    EXPECT_TRUE(BitEqual(lin, rc::Dequantize(rc::QuantizePerTensor(x, cb::ref::fp8::Format::kE4M3)))) << cols;
    EXPECT_FALSE(BitEqual(lin, x));
    // Non-linear input: 1x16 groups along each row (reference, row by row).
    std::vector<float> nl = x, want;
    comp.Apply({R::kNonLinearInput, "gate", 0, cols}, nl);
    for (int r = 0; r < rows; ++r) {
      const std::span<const float> row(x.data() + size_t(r) * cols, cols);
      const std::vector<float> back = rc::Dequantize(rc::QuantizePerGroup16(row, cb::ref::fp8::Format::kE4M3));
      want.insert(want.end(), back.begin(), back.end());
    }
    EXPECT_TRUE(BitEqual(nl, want)) << cols;
    EXPECT_FALSE(BitEqual(nl, x));
    // 1x16 groups err less than one scale per tensor on the same values.
    EXPECT_LT(rc::Mse(nl, x), rc::Mse(lin, x)) << cols;
    // Kept roles: untouched.
    for (const R role : {R::kAttentionCore, R::kHeadInput, R::kStatistic}) {
      std::vector<float> kept = x;
      comp.Apply({role, "q", 0, cols}, kept);
      EXPECT_TRUE(BitEqual(kept, x));
    }
    const int64_t n = int64_t(rows) * cols, groups = rows * ((cols + 15) / 16);
    const SavedBytes& k = comp.counts();
    EXPECT_EQ(k.coat_bytes[int(R::kLinearInput)], n + 4);
    EXPECT_EQ(k.coat_bytes[int(R::kNonLinearInput)], n + 2 * groups);
    EXPECT_EQ(k.coat_bytes[int(R::kAttentionCore)], 2 * n);
    EXPECT_EQ(k.coat_bytes[int(R::kStatistic)], 4 * n);
    EXPECT_EQ(k.Elements(), 5 * n);
    EXPECT_EQ(k.Bf16Bytes(), 2 * 4 * n + 4 * n);
  }
  CoatActivationCompressor comp;
  std::vector<float> bad(30);
  EXPECT_THROW(comp.Apply({R::kLinearInput, "n", 0, 16}, bad), std::invalid_argument);
}

TEST(CoatLmActivations, CountOnlyModeLeavesValuesAndCountsTheSame) {
  CB_FRESH_SEED(seed);
  const std::vector<float> x = RandomValues(seed, 64 * 24, 1.0f);
  CoatActivationCompressor count_only(false), compress(true);
  std::vector<float> a = x, b = x;
  count_only.Apply({lm::SavedRole::kNonLinearInput, "up", 0, 24}, a);
  compress.Apply({lm::SavedRole::kNonLinearInput, "up", 0, 24}, b);
  EXPECT_TRUE(BitEqual(a, x));
  EXPECT_FALSE(BitEqual(b, x));
  EXPECT_EQ(count_only.counts().CoatBytes(), compress.counts().CoatBytes());
}

TEST(CoatLmActivations, ForwardUnchangedGradientCloseToFp32) {
  CB_FRESH_SEED(seed);
  const OneThread one;
  const TransformerConfig c = Tiny();
  lm::CpuTransformer model(ref::RandomInit(c, seed, 0.05));
  const lm::Batch b = RandomBatch(seed, c.vocab_size, 4, 16);
  std::vector<float> g32(model.num_params()), g8(model.num_params());
  const double loss32 = model.LossAndGrad(b, g32);
  CoatActivationCompressor comp;
  model.set_activation_hook(comp.Hook());
  EXPECT_EQ(model.LossAndGrad(b, g8), loss32);  // the forward reads fp32 values
  double diff = 0, norm = 0;
  for (size_t i = 0; i < g32.size(); ++i) {
    diff += std::pow(double(g8[i]) - g32[i], 2);
    norm += double(g32[i]) * g32[i];
  }
  // E4M3 keeps 3 mantissa bits (relative step 1/8 to 1/16 per value): the
  // gradient moves, but far less than its own size (a wrong scale would move
  // it by about its size).
  EXPECT_GT(diff, 0.0);
  EXPECT_LT(std::sqrt(diff / norm), 0.05);  // ~0.015 seen
  EXPECT_GT(comp.counts().Elements(), 0);
}

TEST(CoatMomentStore, IsPerTensorDreBitForBitWithMeasuredBytes) {
  CB_FRESH_SEED(seed);
  lm::CpuTransformer model(ref::RandomInit(Tiny(), seed, 0.05));
  const size_t n = model.num_params();
  std::vector<float> m = RandomValues(seed, n, 1e-3f), v = RandomValues(seed + 1, n, 1e-6f);
  for (float& x : v) x = x * x;
  const std::vector<float> m0 = m, v0 = v;
  CoatMomentStore store(model.slots());
  EXPECT_EQ(store.StateBytes(), 0);
  store.Store(m, v);
  int64_t groups = 0;
  for (const lm::ParamSlot& s : model.slots()) {
    groups += int64_t((s.size + 127) / 128);
    for (const auto& [got, orig] : {std::pair{&m, &m0}, std::pair{&v, &v0}}) {
      const std::vector<float> want =
          rc::DreDequantize(rc::DreQuantize(std::span<const float>(orig->data() + s.offset, s.size)));
      const std::vector<float> have(got->begin() + s.offset, got->begin() + s.offset + s.size);
      EXPECT_TRUE(BitEqual(have, want)) << s.name;
    }
  }
  EXPECT_FALSE(BitEqual(m, m0));
  // Codes (1 B) and (s, k, c) in fp32 per group, both moments: measured from the store.
  EXPECT_EQ(store.StateBytes(), 2 * (int64_t(n) + 12 * groups));
  std::vector<float> short_m(n - 1);
  EXPECT_THROW(store.Store(short_m, v), std::invalid_argument);
  std::vector<lm::ParamSlot> overlapping = model.slots();
  overlapping[1].offset -= 1;
  EXPECT_THROW(CoatMomentStore{overlapping}, std::invalid_argument);
}

TEST(CoatLmTraining, ACoatStepUpdatesWithTheUnquantizedMoments) {
  CB_FRESH_SEED(seed);
  const OneThread one;
  const TransformerConfig c = Tiny();
  const ref::Transformer init = ref::RandomInit(c, seed, 0.05);
  lm::CpuTransformer fp32(init), coat(init);
  harness::Rng rng(seed, 7);
  std::vector<int> stream(400);
  for (int& t : stream) t = static_cast<int>(rng.UniformInt(0, c.vocab_size - 1));
  lm::TrainOptions o;
  o.steps = 2, o.warmup = 1, o.batch = 2, o.seq = 16, o.seed = seed;
  lm::Trainer t32(fp32, stream, o), t8(coat, stream, o);
  CoatMomentStore store(coat.slots());
  t8.set_moment_hook(store.Hook());
  t32.Step();
  t8.Step();
  // Step 1 starts from zero moments: the same update, then FP8 storage.
  EXPECT_TRUE(BitEqual(fp32.params(), coat.params()));
  std::vector<float> m = t32.state().m, v = t32.state().v;
  store.Store(m, v);  // what the COAT trainer holds is the DRE round trip of fp32's
  EXPECT_TRUE(BitEqual(m, t8.state().m));
  EXPECT_TRUE(BitEqual(v, t8.state().v));
  t32.Step();
  t8.Step();
  EXPECT_FALSE(BitEqual(fp32.params(), coat.params()));  // step 2 read the FP8 moments
}

TEST(CoatLmTraining, LearnsWithBothFp8PartsOn) {
  CB_FRESH_SEED(seed);
  const OneThread one;
  // A fixed random cycle of 7 tokens with 10% noise (entropy ~0.6 nats).
  harness::Rng rng(seed, 9);
  std::vector<int> cycle(7), stream;
  for (int& t : cycle) t = static_cast<int>(rng.UniformInt(0, 15));
  for (int i = 0; i < 2000; ++i)
    stream.push_back(rng.Uniform() < 0.1 ? static_cast<int>(rng.UniformInt(0, 15)) : cycle[i % 7]);
  LmRun run;
  run.config = Tiny();
  run.options.steps = 120, run.options.warmup = 10, run.options.batch = 4, run.options.seq = 24;
  run.options.lr = 1e-2, run.options.seed = seed;
  run.init_seed = seed;
  run.eval_batches = 4;
  run.capture_steps = {1, 120};
  const LmRunResult fp32 = TrainLm(run, stream, stream);
  run.fp8_optimizer = run.fp8_activations = true;
  const LmRunResult coat = TrainLm(run, stream, stream);
  EXPECT_LT(fp32.heldout_loss, 1.2);
  EXPECT_LT(coat.heldout_loss, 1.2);
  EXPECT_NEAR(coat.heldout_loss, fp32.heldout_loss, 0.1 * fp32.heldout_loss);
  ASSERT_EQ(coat.captures.size(), 2u);
  EXPECT_EQ(coat.captures[1].step, 120);
  int64_t groups = 0;
  for (const lm::ParamSlot& s : coat.slots) groups += int64_t((s.size + 127) / 128);
  EXPECT_EQ(coat.state_bytes, 2 * (coat.params + 12 * groups));
  EXPECT_EQ(fp32.state_bytes, 8 * fp32.params);
  EXPECT_GT(coat.saved_per_step.Elements(), 0);
}

}  // namespace
}  // namespace cb::coat

// File: suites/radar/radar_lm_test.cpp
// -----------------------------------------------------------------------------
// Radar and StreamingLLM inside the transformer's decode step (radar_lm.h) on
// fresh random weights: the hook is exact when nothing is skipped (equals the
// model's own dense decode), StreamingLLM's outputs equal fp64 attention over
// its spans (reference StreamingDecode), and a built Radar structure attends
// within its budget and rebuilds as the context grows. Per backend (CUDA
// skips without a device). Tolerances: fp32 logits of a 2-layer D = 32 model
// vs the dense fp32 path, atol = rtol = 1e-4 (attention by a different
// summation order: split-K online softmax vs sgemv + exp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/expect_invalid.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "reference/radar.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/radar/radar_lm.h"

namespace cb::radar {
namespace {

namespace lm = cb::ref::lm;
using lm_suite::CpuKvCache;
using lm_suite::CpuTransformer;

lm::TransformerConfig Small() {
  lm::TransformerConfig c;
  c.vocab_size = 41;
  c.hidden_size = 32;
  c.intermediate_size = 48;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 8;
  c.max_position_embeddings = 512;
  c.rope_theta = 10000.0;
  return c;
}

std::vector<int> Tokens(uint64_t seed, int n, int vocab) {
  cb::harness::Rng rng(seed, 7);
  std::vector<int> t(n);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, vocab - 1));
  return t;
}

class RadarLmTest : public cb::testing::BackendTest {};

// Budget >= the store: Radar attends everything, so the model decodes as dense.
TEST_P(RadarLmTest, ExactWhenNothingIsSkipped) {
  CB_FRESH_SEED(seed);
  const lm::Transformer r = lm::RandomInit(Small(), seed, 0.3);
  CpuTransformer dense(r), radar_model(r);
  LmAttention radar(radar_model.config(),
                    {.method = LmMethod::kRadar,
                     .radar = {.window = 4, .aspect = 2, .budget = 1000, .seed = seed},
                     .backend = backend()});
  radar_model.set_decode_attention_hook(radar.Hook());
  const std::vector<int> tok = Tokens(seed, 60, 41);
  CpuKvCache a, b;
  dense.Prefill(std::span<const int>(tok).first(3), a);
  radar_model.Prefill(std::span<const int>(tok).first(3), b);
  for (size_t i = 3; i < tok.size(); ++i) {
    const std::vector<float> want = dense.DecodeStep(tok[i], a);
    const std::vector<float> got = radar_model.DecodeStep(tok[i], b);
    ASSERT_TRUE(cb::testing::AllClose(std::span<const float>(got),
                                      cb::testing::AsDoubles(std::span<const float>(want)), 1e-4, 1e-4))
        << "position " << i;
  }
  EXPECT_EQ(radar.last_attended(), int64_t{2} * 4 * 60);  // every token, every layer and head
}

// A built structure: every head attends within sink + B + c + w + 1, the
// store is rebuilt as it doubles, and the logits stay finite. The selection
// itself is checked against the reference in radar_test.cpp.
TEST_P(RadarLmTest, BuiltStructureStaysWithinBudget) {
  CB_FRESH_SEED(seed);
  const lm::Transformer r = lm::RandomInit(Small(), seed, 0.3);
  CpuTransformer model(r);
  const ref::radar::Config cfg{.window = 8, .aspect = 2, .budget = 16, .seed = seed};
  LmAttention radar(model.config(), {.method = LmMethod::kRadar, .radar = cfg, .backend = backend()});
  model.set_decode_attention_hook(radar.Hook());
  const std::vector<int> tok = Tokens(seed, 400, 41);
  CpuKvCache kv;
  model.Prefill(std::span<const int>(tok).first(100), kv);
  for (size_t i = 100; i < tok.size(); ++i) {
    const std::vector<float> logits = model.DecodeStep(tok[i], kv);
    for (float x : logits) ASSERT_TRUE(std::isfinite(x));
    const int64_t t = static_cast<int64_t>(i) + 1, n = t - 1 - 8 - 1;
    const int64_t c = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(double(n)) / 2));
    // k c_built <= B and the remainder < c_built <= c (c only grows at rebuilds).
    const int64_t per_head = 1 + 16 + c + 8 + 1;
    EXPECT_LE(radar.last_attended(), int64_t{2} * 4 * per_head) << "t = " << t;
    EXPECT_LT(radar.last_attended(), int64_t{2} * 4 * t);
  }
  EXPECT_GE(radar.rebuilds(), uint64_t{2} * 2 * 2);  // each (layer, KV head): the first build and >= 1 rebuild
}

INSTANTIATE_TEST_SUITE_P(Backends, RadarLmTest, ::testing::ValuesIn(::cb::harness::AllBackends()),
                         ::cb::testing::BackendParamName);

// StreamingLLM's per-head outputs equal fp64 attention over sink + the last
// w + 1 + B tokens of the same cache rows.
TEST(RadarLm, StreamingEqualsReferenceStreaming) {
  CB_FRESH_SEED(seed);
  const lm::Transformer r = lm::RandomInit(Small(), seed, 0.3);
  CpuTransformer model(r);
  LmAttention stream(model.config(), {.method = LmMethod::kStreaming,
                                      .radar = {.sink = 2, .window = 5, .budget = 6}});
  int checked = 0;
  model.set_decode_attention_hook([&](const lm_suite::DecodeAttention& a) {
    stream(a);
    const int d = a.head_dim, KVd = a.kv_heads * d;
    for (int h = 0; h < a.heads; ++h) {
      const int g = h / (a.heads / a.kv_heads);
      std::vector<double> k(size_t(a.t) * d), v(k.size()), q(a.q + h * d, a.q + (h + 1) * d), want(d);
      for (int i = 0; i < a.t; ++i)
        for (int j = 0; j < d; ++j) {
          k[size_t(i) * d + j] = a.keys[size_t(i) * KVd + g * d + j];
          v[size_t(i) * d + j] = a.values[size_t(i) * KVd + g * d + j];
        }
      ref::radar::StreamingDecode(q.data(), k.data(), v.data(), a.t, d, 2, 5 + 1 + 6, want.data());
      EXPECT_TRUE(cb::testing::AllClose(std::span<const float>(a.out + h * d, d), want, 1e-5, 1e-4));
      ++checked;
    }
  });
  const std::vector<int> tok = Tokens(seed, 40, 41);
  CpuKvCache kv;
  model.Prefill(std::span<const int>(tok).first(2), kv);
  for (size_t i = 2; i < tok.size(); ++i) model.DecodeStep(tok[i], kv);
  EXPECT_EQ(checked, 38 * 2 * 4);
}

TEST(RadarLm, ShrunkCacheIsRejected) {
  CB_FRESH_SEED(seed);
  const lm::Transformer r = lm::RandomInit(Small(), seed, 0.3);
  CpuTransformer model(r);
  LmAttention radar(model.config(), {.radar = {.window = 4, .budget = 8}});
  model.set_decode_attention_hook(radar.Hook());
  CpuKvCache kv;
  model.Prefill(std::vector<int>{1, 2, 3, 4, 5}, kv);
  model.DecodeStep(6, kv);
  model.Prefill(std::vector<int>{1, 2}, kv);  // a new prompt without Reset()
  EXPECT_THROW(model.DecodeStep(3, kv), std::invalid_argument);
  radar.Reset();
  EXPECT_NO_THROW(model.DecodeStep(3, kv));
}

// A NaN in the second KV head's new key row is refused before the first
// head's cache takes the rows: the same step given clean rows afterwards
// gives what a hook that never saw the bad one gives.
TEST(RadarLm, NonFiniteRowsAreRefusedBeforeAnyHeadChanges) {
  const lm::TransformerConfig c = Small();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, d = c.head_dim, t = 40;
  const LmAttentionConfig config{.radar = {.window = 4, .budget = 8}};
  LmAttention radar(c, config), fresh(c, config);
  cb::harness::Rng rng(3, 0);
  std::vector<float> keys(size_t(t) * KV * d), values(keys.size()), q(size_t(H) * d);
  for (auto* x : {&keys, &values, &q})
    for (float& v : *x) v = static_cast<float>(rng.Normal());
  std::vector<float> bad = keys;
  bad[size_t(t - 1) * KV * d + d + 3] = NAN;  // KV head 1, the last row
  std::vector<float> got(q.size()), want(q.size());
  lm_suite::DecodeAttention a{0, t, H, KV, d, q.data(), bad.data(), values.data(), got.data()};
  cb::testing::ExpectInvalid([&] { radar(a); }, "radar: key entry 635 is NaN");
  a.keys = keys.data();
  radar(a);
  fresh({0, t, H, KV, d, q.data(), keys.data(), values.data(), want.data()});
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace cb::radar

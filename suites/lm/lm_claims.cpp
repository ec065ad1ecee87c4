// File: suites/lm/lm_claims.cpp
// -----------------------------------------------------------------------------
// The transformer substrate's own claims (issue 18), checked on the fp64
// reference (reference/lm/transformer.h) like any paper's suite, so that every
// ledger run shows whether the oracle the lm-based suites rest on is sound:
//   L1  the hand-derived backward equals five-point finite differences in
//       fp64 (infinity-norm relative error <= 1e-6 in every parameter
//       tensor; definition in reference/lm/grad_check.h), for the decoder
//       (untied GQA, tied, MHA), the masked-LM encoder and the tiny ViT;
//   L3  KV-cache prefill + one-token decode equals full recomputation
//       (max |logit difference| <= 1e-12 at every position).
// Both are prerequisites (checks of our own code), not a paper's claims.
// README: suites/lm/README.md. Thresholds were fixed before the first run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "reference/lm/grad_check.h"
#include "reference/lm/transformer.h"

namespace cb::lm_suite {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::lm;

CB_CLAIM_DEFAULTS({.paper = "claimbench transformer substrate (issue 18)",
                   .section = "reference/lm",
                   .paper_setting = "by construction (fp64 reference)"});

// Weights ~ N(0, 0.3^2): gradients well above the fd rounding floor.
constexpr double kStd = 0.3;

// smoke: vocab 11, hidden 8, 2 layers, 4 heads of dim 4, 2 KV heads,
// intermediate 12; quick/full: vocab 32, hidden 16, 2 layers, 4 heads of
// dim 4, 2 KV heads, intermediate 24.
ref::TransformerConfig Config(const h::ClaimContext& ctx) {
  ref::TransformerConfig c;
  const bool small = ctx.ByProfile(true, false, false);
  c.vocab_size = small ? 11 : 32;
  c.hidden_size = small ? 8 : 16;
  c.intermediate_size = small ? 12 : 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 4;
  c.max_position_embeddings = 256;
  c.rope_theta = 100.0;
  return c;
}

std::vector<int> Tokens(uint64_t seed, uint64_t stream, int T, int V) {
  h::Rng rng(seed, stream);
  std::vector<int> t(T);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, V - 1));
  return t;
}

// T distinct ids (REQUIRES T <= V), for L1: when every scored position holds
// the same token, attention's output does not depend on q and k, their
// gradient is exactly 0, and the relative error would measure fd rounding
// against the 1e-8 floor (a false NOT_REPRODUCED for some seeds).
std::vector<int> DistinctTokens(uint64_t seed, uint64_t stream, int T, int V) {
  h::Rng rng(seed, stream);
  std::vector<int> ids(V);
  for (int v = 0; v < V; ++v) ids[v] = v;
  rng.Shuffle(std::span<int>(ids));
  return {ids.begin(), ids.begin() + T};
}

std::string Describe(const ref::TransformerConfig& c, int T) {
  return "V=" + std::to_string(c.vocab_size) + " D=" + std::to_string(c.hidden_size) +
         " L=" + std::to_string(c.num_hidden_layers) + " H=" + std::to_string(c.num_attention_heads) +
         " KV=" + std::to_string(c.num_key_value_heads) + " d=" + std::to_string(c.HeadDim()) +
         " I=" + std::to_string(c.intermediate_size) + " T=" + std::to_string(T);
}

// ---------------------------------------------------------------------------
// L1: gradients against finite differences.

h::Outcome GradientsMatchFiniteDifferences(h::ClaimContext& ctx) {
  const ref::TransformerConfig base = Config(ctx);
  const int T = ctx.ByProfile(5, 8, 8);
  const uint64_t seed = ctx.seed();
  double worst = 0;
  int64_t tensors = 0;
  auto record = [&](const std::string& variant, const ref::GradCheckReport& r) {
    ctx.RecordExact({.case_name = "grad_vs_fd", .backend = "cpu",
                     .params = {{"variant", variant}, {"T", T}, {"hidden", base.hidden_size},
                                {"vocab", base.vocab_size}, {"step", 1e-4}},
                     .metric = "max_rel_error", .unit = "1", .direction = "lower",
                     .value = r.max_rel_error, .n = static_cast<int64_t>(r.tensors.size())});
    worst = std::max(worst, std::isnan(r.max_rel_error) ? INFINITY : r.max_rel_error);
    tensors += static_cast<int64_t>(r.tensors.size());
  };
  // Decoders: next-token cross-entropy.
  struct Dec { const char* name; int kv; bool tied; };
  for (const Dec& v : {Dec{"decoder_untied_gqa", 2, false}, Dec{"decoder_tied_gqa", 2, true},
                       Dec{"decoder_mha", 4, false}}) {
    ref::TransformerConfig c = base;
    c.num_key_value_heads = v.kv;
    c.tie_word_embeddings = v.tied;
    const ref::Transformer m = ref::RandomInit(c, seed, kStd);
    const std::vector<int> tok = DistinctTokens(seed, 1, T, c.vocab_size);
    const ref::Targets tg = ref::NextTokenTargets(tok);
    record(v.name, ref::CheckGradients(m, m.Backward(tok, tg).grads,
                                       [&](const ref::Transformer& x) { return x.Loss(tok, tg); }));
  }
  // Encoder: masked LM at two positions (the last vocabulary id is the mask).
  {
    const ref::Transformer m = ref::RandomInit(base, seed, kStd, ref::Architecture{.causal = false});
    const std::vector<int> orig = DistinctTokens(seed, 2, T, base.vocab_size);
    std::vector<int> in = orig;
    in[1] = in[T - 1] = base.vocab_size - 1;
    const ref::Targets tg = ref::MaskedTargets(orig, std::vector<int>{1, T - 1});
    record("encoder_mlm", ref::CheckGradients(m, m.Backward(in, tg).grads,
                                              [&](const ref::Transformer& x) { return x.Loss(in, tg); }));
  }
  // ViT: 2 channels, 4 x 6 image, 2 x 2 patches, 3 classes.
  {
    const ref::Architecture a{.causal = false, .patch_size = 2, .num_channels = 2,
                              .image_height = 4, .image_width = 6, .num_labels = 3};
    const ref::Transformer m = ref::RandomInit(base, seed, kStd, a);
    h::Rng rng(seed, 3);
    ref::Tensor img{{2, 4, 6}, std::vector<double>(48)};
    for (double& x : img.data) x = rng.Normal();
    const int label = static_cast<int>(seed % 3);
    record("vit", ref::CheckGradients(m, m.ImageBackward(img, label).grads,
                                      [&](const ref::Transformer& x) { return x.ImageLoss(img, label); }));
  }
  return ctx.Judge({h::Estimate::Exact(worst)},
                   Describe(base, T) + ", 5 variants, " + std::to_string(tensors) +
                       " tensors, five-point fd step 1e-4, seed " + std::to_string(seed));
}

// ---------------------------------------------------------------------------
// L3: KV-cache decode against recomputation.

h::Outcome DecodeEqualsRecomputation(h::ClaimContext& ctx) {
  const ref::TransformerConfig c = Config(ctx);
  const int T = ctx.ByProfile(8, 32, 128);
  const int prompt = 3;
  const ref::Transformer m = ref::RandomInit(c, ctx.seed(), kStd);
  const std::vector<int> tok = Tokens(ctx.seed(), 4, T, c.vocab_size);
  ref::KvCache cache;
  std::vector<double> decoded = m.Prefill(std::span<const int>(tok).first(prompt), cache).data;
  for (int t = prompt; t < T; ++t) {
    const ref::Tensor step = m.DecodeStep(tok[t], cache);
    decoded.insert(decoded.end(), step.data.begin(), step.data.end());
  }
  // Recompute every position from scratch: row t of Forward(tok[0..t]).
  double worst = 0;
  std::vector<double> recomputed;
  for (int t = 0; t < T; ++t) {
    const ref::Tensor full = m.Forward(std::span<const int>(tok).first(t + 1));
    recomputed.insert(recomputed.end(), full.data.end() - c.vocab_size, full.data.end());
  }
  for (size_t i = 0; i < decoded.size(); ++i) {
    const double diff = std::abs(decoded[i] - recomputed[i]);
    worst = std::max(worst, std::isnan(diff) ? INFINITY : diff);
  }
  ctx.RecordExact({.case_name = "kv_decode", .backend = "cpu",
                   .params = {{"T", T}, {"prompt", prompt}, {"hidden", c.hidden_size},
                              {"vocab", c.vocab_size}},
                   .metric = "max_abs_logit_diff", .unit = "1", .direction = "lower",
                   .value = worst, .n = static_cast<int64_t>(decoded.size()),
                   .output_hash = h::HashDoubles(decoded).Hex()});
  return ctx.Judge({h::Estimate::Exact(worst)},
                   Describe(c, T) + ", prompt " + std::to_string(prompt) + ", " +
                       std::to_string(T - prompt) + " decode steps, seed " +
                       std::to_string(ctx.seed()));
}

// Both check the oracle the lm-based suites rest on: prerequisites.
CB_REGISTER_CLAIM(l1, {.id = "lm.L1",
                       .kind = h::ClaimKind::kPrerequisite,
                       .statement = "Gradients equal central finite differences in fp64 (max "
                                    "relative error <= 1e-6 over every parameter tensor)",
                       .paper_value = "<= 1e-6",
                       .metric = "max over tensors of max|g - fd| / max|fd|",
                       .criterion = h::AtMost(1e-6, "max relative error")},
                  GradientsMatchFiniteDifferences);
CB_REGISTER_CLAIM(l3, {.id = "lm.L3",
                       .kind = h::ClaimKind::kPrerequisite,
                       .statement = "KV-cache decode equals recomputation",
                       .paper_value = "<= 1e-12",
                       .metric = "max |decoded logit - recomputed logit|",
                       .criterion = h::AtMost(1e-12, "max abs logit difference")},
                  DecodeEqualsRecomputation);

}  // namespace
}  // namespace cb::lm_suite

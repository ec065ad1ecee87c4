// File: suites/lm/transformer_test.cpp
// -----------------------------------------------------------------------------
// Tests of the fp64 reference transformer (transformer.h): hand-derived
// gradients against five-point finite differences (grad_check.h) for the
// decoder (untied, tied, GQA, MHA, weighted targets), the masked-LM encoder
// and the tiny ViT; KV-cache decode against recomputation; invariants that
// catch layout bugs (causality, bidirectionality, patch permutation, GQA as
// MHA with repeated KV heads, RoPE's rotate_half layout and relativity); a
// second forward pass written in the order of HF's tensor operations; and the
// one-line errors of bad weights and bad inputs.
#include "reference/lm/transformer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/expect_invalid.h"
#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/lm/grad_check.h"
#include "reference/lm/transformer_ops.h"

namespace cb::ref::lm {
namespace {

using cb::testing::ExpectInvalid;

// vocab 11, hidden 8, 2 layers, 4 heads of dim 4 (H*d = 16 != D, so q_proj and
// o_proj are not square), 2 KV heads, intermediate 12.
TransformerConfig Tiny() {
  TransformerConfig c;
  c.vocab_size = 11;
  c.hidden_size = 8;
  c.intermediate_size = 12;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 4;
  c.max_position_embeddings = 16;
  c.rms_norm_eps = 1e-6;
  c.rope_theta = 100.0;  // both RoPE frequencies (1, 0.1) turn visibly over 5 positions
  return c;
}

Architecture TinyVit() {
  Architecture a;
  a.causal = false;
  a.patch_size = 2;
  a.num_channels = 2;
  a.image_height = 4;
  a.image_width = 6;  // 2 x 3 patches, non-square so rows/cols cannot be swapped unnoticed
  a.num_labels = 3;
  return a;
}

// Weights with std 0.3: large enough that every gradient is well above the
// finite-difference rounding floor, small enough that softmaxes do not saturate.
constexpr double kStd = 0.3;

// T distinct ids when T <= V (else drawn with replacement). Distinct, because
// equal inputs at every scored position make attention's output independent
// of q and k, so their gradient is exactly 0 and the check below has nothing
// to compare (a fresh seed drew that once: tokens 0..2 equal, with tok[3] =
// tok[1] forced by a test).
std::vector<int> RandomTokens(uint64_t seed, int T, int V) {
  cb::harness::Rng rng(seed, 1);
  std::vector<int> t(T);
  if (T <= V) {
    std::vector<int> ids(V);
    for (int v = 0; v < V; ++v) ids[v] = v;
    rng.Shuffle(std::span<int>(ids));
    std::copy(ids.begin(), ids.begin() + T, t.begin());
    return t;
  }
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, V - 1));
  return t;
}

Tensor RandomImage(uint64_t seed, const Architecture& a) {
  cb::harness::Rng rng(seed, 2);
  Tensor img{{a.num_channels, a.image_height, a.image_width}, {}};
  img.data.resize(static_cast<size_t>(a.num_channels) * a.image_height * a.image_width);
  for (double& x : img.data) x = rng.Normal();
  return img;
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// The gradient check of one model and loss: every tensor within 1e-6.
void ExpectGradientsMatch(const Transformer& model, const LossAndGrad& lg,
                          const std::function<double(const Transformer&)>& loss) {
  EXPECT_NEAR(lg.loss, loss(model), 1e-14);
  const GradCheckReport r = CheckGradients(model, lg.grads, loss);
  EXPECT_EQ(r.tensors.size(), model.ToNamedTensors().size());
  std::printf("  max relative error %.3g (%s), %lld loss evaluations\n", r.max_rel_error,
              r.worst_tensor.c_str(), static_cast<long long>(r.loss_evaluations));
  for (const TensorGradError& e : r.tensors) {
    EXPECT_LE(e.rel_error, 1e-6) << e.name << ": max |g - fd| " << e.max_abs_diff << " at "
                                 << e.worst_index << ", max |fd| " << e.max_abs_fd;
    // Not vacuous: every tensor has a gradient well above the fd floor.
    EXPECT_GT(e.max_abs_fd, 1e-6) << e.name;
  }
}

// -----------------------------------------------------------------------------
// (a) Gradients against finite differences

TEST(TransformerGrad, DecoderUntiedGqa) {
  CB_FRESH_SEED(seed);
  const Transformer m = RandomInit(Tiny(), seed, kStd);
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  const Targets tg = NextTokenTargets(tok);
  ExpectGradientsMatch(m, m.Backward(tok, tg), [&](const Transformer& x) { return x.Loss(tok, tg); });
}

TEST(TransformerGrad, DecoderTiedWeightedTargets) {
  CB_FRESH_SEED(seed);
  TransformerConfig c = Tiny();
  c.tie_word_embeddings = true;
  const Transformer m = RandomInit(c, seed, kStd);
  // A repeated token, so embedding rows accumulate from several positions and the head.
  std::vector<int> tok = RandomTokens(seed, 5, 11);
  tok[3] = tok[1];
  Targets tg = NextTokenTargets(tok);
  tg.weight = {0.5, 0.0, 2.0, 1.0, 0.0};  // a per-position mask/weight
  ExpectGradientsMatch(m, m.Backward(tok, tg), [&](const Transformer& x) { return x.Loss(tok, tg); });
}

TEST(TransformerGrad, DecoderMha) {
  CB_FRESH_SEED(seed);
  TransformerConfig c = Tiny();
  c.num_key_value_heads = c.num_attention_heads;
  const Transformer m = RandomInit(c, seed, kStd);
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  const Targets tg = NextTokenTargets(tok);
  ExpectGradientsMatch(m, m.Backward(tok, tg), [&](const Transformer& x) { return x.Loss(tok, tg); });
}

TEST(TransformerGrad, DecoderOneKvHead) {  // multi-query attention: all heads share one KV head
  CB_FRESH_SEED(seed);
  TransformerConfig c = Tiny();
  c.num_key_value_heads = 1;
  const Transformer m = RandomInit(c, seed, kStd);
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  const Targets tg = NextTokenTargets(tok);
  ExpectGradientsMatch(m, m.Backward(tok, tg), [&](const Transformer& x) { return x.Loss(tok, tg); });
}

TEST(TransformerGrad, EncoderMaskedLm) {
  CB_FRESH_SEED(seed);
  for (bool tied : {false, true}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    TransformerConfig c = Tiny();
    c.tie_word_embeddings = tied;
    const Transformer m = RandomInit(c, seed, kStd, Architecture{.causal = false});
    const std::vector<int> orig = RandomTokens(seed, 5, 11);
    std::vector<int> in = orig;
    const int kMask = 10;  // the mask token id
    in[1] = kMask;
    in[4] = kMask;
    const Targets tg = MaskedTargets(orig, std::vector<int>{1, 4});
    ExpectGradientsMatch(m, m.Backward(in, tg), [&](const Transformer& x) { return x.Loss(in, tg); });
  }
}

TEST(TransformerGrad, Vit) {
  CB_FRESH_SEED(seed);
  const Architecture a = TinyVit();
  const Transformer m = RandomInit(Tiny(), seed, kStd, a);
  const Tensor img = RandomImage(seed, a);
  const int label = static_cast<int>(seed % 3);
  ExpectGradientsMatch(m, m.ImageBackward(img, label),
                       [&](const Transformer& x) { return x.ImageLoss(img, label); });
}

// The checker itself can fail: one planted error of 1e-4 in one gradient.
TEST(TransformerGrad, CheckerCatchesAPlantedError) {
  CB_FRESH_SEED(seed);
  const Transformer m = RandomInit(Tiny(), seed, kStd);
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  const Targets tg = NextTokenTargets(tok);
  LossAndGrad lg = m.Backward(tok, tg);
  lg.grads["model.layers.1.self_attn.k_proj.weight"].data[5] += 1e-4;
  const GradCheckReport r =
      CheckGradients(m, lg.grads, [&](const Transformer& x) { return x.Loss(tok, tg); });
  EXPECT_EQ(r.worst_tensor, "model.layers.1.self_attn.k_proj.weight");
  EXPECT_GT(r.max_rel_error, 1e-6);
}

// -----------------------------------------------------------------------------
// (b) KV cache against recomputation

TEST(TransformerKvCache, DecodeEqualsRecomputationAtEveryPosition) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = Tiny();
  const Transformer m = RandomInit(c, seed, kStd);
  const std::vector<int> tok = RandomTokens(seed, 7, 11);
  const int d = c.HeadDim();
  for (int prompt = 1; prompt <= 3; ++prompt) {
    SCOPED_TRACE("prompt " + std::to_string(prompt));
    KvCache cache;
    const Tensor pre = m.Prefill(std::span<const int>(tok).first(prompt), cache);
    const Tensor full = m.Forward(std::span<const int>(tok).first(prompt));
    EXPECT_LE(MaxAbsDiff(pre.data, full.data), 1e-12);
    for (int t = prompt; t < static_cast<int>(tok.size()); ++t) {
      const Tensor step = m.DecodeStep(tok[t], cache);
      ASSERT_EQ(step.shape, (std::vector<int64_t>{c.vocab_size}));
      const Tensor ref = m.Forward(std::span<const int>(tok).first(t + 1));  // [t+1, V]
      const std::vector<double> last(ref.data.end() - c.vocab_size, ref.data.end());
      EXPECT_LE(MaxAbsDiff(step.data, last), 1e-12) << "position " << t;
      // The cache holds what one prefill of the whole prefix holds.
      KvCache fresh;
      m.Prefill(std::span<const int>(tok).first(t + 1), fresh);
      ASSERT_EQ(cache.length, t + 1);
      for (int l = 0; l < c.num_hidden_layers; ++l) {
        for (int g = 0; g < c.num_key_value_heads; ++g) {
          EXPECT_EQ(cache.keys[l][g].shape, (std::vector<int64_t>{t + 1, d}));
          EXPECT_LE(MaxAbsDiff(cache.keys[l][g].data, fresh.keys[l][g].data), 1e-12);
          EXPECT_LE(MaxAbsDiff(cache.values[l][g].data, fresh.values[l][g].data), 1e-12);
        }
        for (int h = 0; h < c.num_attention_heads; ++h)
          EXPECT_LE(MaxAbsDiff(cache.last_query[l][h].data, fresh.last_query[l][h].data), 1e-12);
      }
    }
  }
}

TEST(TransformerKvCache, RejectsNonCausalAndOverflow) {
  KvCache cache;
  const Transformer enc = RandomInit(Tiny(), 1, kStd, Architecture{.causal = false});
  const std::vector<int> tok = {1, 2, 3};
  EXPECT_THROW(enc.Prefill(tok, cache), std::invalid_argument);
  const Transformer dec = RandomInit(Tiny(), 1, kStd);
  EXPECT_THROW(dec.DecodeStep(1, cache), std::invalid_argument);  // before Prefill
  std::vector<int> long_prompt(16, 1);
  dec.Prefill(long_prompt, cache);
  EXPECT_THROW(dec.DecodeStep(1, cache), std::invalid_argument);  // position 16 >= max 16
}

// -----------------------------------------------------------------------------
// (c) Invariants that catch layout bugs

TEST(TransformerInvariant, CausalLogitsIgnoreTheFuture) {
  CB_FRESH_SEED(seed);
  const Transformer m = RandomInit(Tiny(), seed, kStd);
  const int V = 11;
  std::vector<int> a = RandomTokens(seed, 6, V);
  const Tensor la = m.Forward(a);
  for (int t = 0; t + 1 < 6; ++t) {
    std::vector<int> b = a;
    for (int u = t + 1; u < 6; ++u) b[u] = (a[u] + 1 + u) % V;
    const Tensor lb = m.Forward(b);
    const std::vector<double> pa(la.data.begin(), la.data.begin() + (t + 1) * V);
    const std::vector<double> pb(lb.data.begin(), lb.data.begin() + (t + 1) * V);
    EXPECT_EQ(MaxAbsDiff(pa, pb), 0.0) << "rows <= " << t;
    // ... and the changed positions do change (the test is not vacuous).
    const std::vector<double> sa(la.data.begin() + (t + 1) * V, la.data.end());
    const std::vector<double> sb(lb.data.begin() + (t + 1) * V, lb.data.end());
    EXPECT_GT(MaxAbsDiff(sa, sb), 1e-6);
  }
}

TEST(TransformerInvariant, EncoderSeesBothSides) {
  CB_FRESH_SEED(seed);
  const Transformer m = RandomInit(Tiny(), seed, kStd, Architecture{.causal = false});
  std::vector<int> a = RandomTokens(seed, 5, 11);
  std::vector<int> b = a;
  b[4] = (a[4] + 1) % 11;
  const Tensor la = m.Forward(a), lb = m.Forward(b);
  // Row 0 depends on the last token in a bidirectional model.
  EXPECT_GT(MaxAbsDiff(std::vector<double>(la.data.begin(), la.data.begin() + 11),
                       std::vector<double>(lb.data.begin(), lb.data.begin() + 11)),
            1e-6);
}

// Without position embeddings a bidirectional transformer cannot tell the
// order of its inputs: permuting the patches leaves the CLS logits unchanged.
// With the learned positions it must see the permutation.
TEST(TransformerInvariant, VitIsPatchPermutationInvariantWithoutPositions) {
  CB_FRESH_SEED(seed);
  const Architecture a = TinyVit();
  const Transformer m = RandomInit(Tiny(), seed, kStd, a);
  NamedTensors w = m.ToNamedTensors();
  std::fill(w["model.pos_embed"].data.begin(), w["model.pos_embed"].data.end(), 0.0);
  const Transformer nopos(Tiny(), w, a);
  const Tensor img = RandomImage(seed, a);
  // Swap patch (0, 0) with patch (1, 2), all channels.
  Tensor perm = img;
  const int P = a.patch_size;
  for (int ch = 0; ch < a.num_channels; ++ch)
    for (int y = 0; y < P; ++y)
      for (int x = 0; x < P; ++x) {
        const size_t i0 = (static_cast<size_t>(ch) * a.image_height + y) * a.image_width + x;
        const size_t i1 = (static_cast<size_t>(ch) * a.image_height + P + y) * a.image_width + 2 * P + x;
        std::swap(perm.data[i0], perm.data[i1]);
      }
  EXPECT_LE(MaxAbsDiff(nopos.ForwardImage(img).data, nopos.ForwardImage(perm).data), 1e-12);
  EXPECT_GT(MaxAbsDiff(m.ForwardImage(img).data, m.ForwardImage(perm).data), 1e-6);
  // Moving pixels WITHIN a patch is not a permutation of patches: it must show.
  Tensor inner = img;
  std::swap(inner.data[0], inner.data[1]);
  EXPECT_GT(MaxAbsDiff(nopos.ForwardImage(img).data, nopos.ForwardImage(inner).data), 1e-6);
}

// GQA with KV heads g = h / (H/KV) equals MHA whose K/V heads are the GQA
// ones repeated (HF's repeat_kv): this pins the head-to-group mapping.
TEST(TransformerInvariant, GqaEqualsMhaWithRepeatedKvHeads) {
  CB_FRESH_SEED(seed);
  const TransformerConfig gc = Tiny();  // H = 4, KV = 2
  const Transformer gqa = RandomInit(gc, seed, kStd);
  TransformerConfig mc = gc;
  mc.num_key_value_heads = mc.num_attention_heads;
  NamedTensors w = gqa.ToNamedTensors();
  const int d = gc.HeadDim(), D = gc.hidden_size, rep = gc.num_attention_heads / gc.num_key_value_heads;
  for (int l = 0; l < gc.num_hidden_layers; ++l)
    for (const char* kind : {"k_proj", "v_proj"}) {
      Tensor& t = w["model.layers." + std::to_string(l) + ".self_attn." + kind + ".weight"];
      std::vector<double> rows;  // [H*d, D]
      for (int h = 0; h < mc.num_attention_heads; ++h) {
        const int g = h / rep;
        rows.insert(rows.end(), t.data.begin() + g * d * D, t.data.begin() + (g + 1) * d * D);
      }
      t = Tensor{{mc.num_attention_heads * d, D}, rows};
    }
  const Transformer mha(mc, w);
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  EXPECT_LE(MaxAbsDiff(gqa.Forward(tok).data, mha.Forward(tok).data), 1e-12);
}

// A second forward pass, written in the order of HF's tensor operations
// (modeling_llama.py: view -> transpose(1, 2), cos/sin = cat(freqs, freqs),
// rotate_half = cat(-x2, x1), repeat_kv, softmax(q k^T * d^-0.5 + mask) v,
// transpose back, reshape, o_proj; LlamaMLP; final norm; lm_head), with its
// own loops and index order, for a 2-layer GQA model: the reference must
// agree to rounding.
std::vector<double> HfOrderForward(const TransformerConfig& c, const NamedTensors& w,
                                   const std::vector<int>& tok) {
  const int T = static_cast<int>(tok.size()), D = c.hidden_size, d = c.HeadDim();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, I = c.intermediate_size;
  using Mat = std::vector<std::vector<double>>;  // [rows][cols]
  auto linear = [](const Mat& x, const Tensor& W) {  // F.linear: x [T, in] W [out, in] -> [T, out]
    const int out = static_cast<int>(W.shape[0]), in = static_cast<int>(W.shape[1]);
    Mat y(x.size(), std::vector<double>(out, 0.0));
    for (size_t t = 0; t < x.size(); ++t)
      for (int o = 0; o < out; ++o)
        for (int i = 0; i < in; ++i) y[t][o] += x[t][i] * W.data[o * in + i];
    return y;
  };
  auto rmsnorm = [&](const Mat& x, const Tensor& wt) {
    Mat y = x;
    for (auto& row : y) {
      double var = 0;
      for (double v : row) var += v * v;
      var /= D;
      for (int i = 0; i < D; ++i) row[i] = wt.data[i] * (row[i] / std::sqrt(var + c.rms_norm_eps));
    }
    return y;
  };
  auto at = [&](const std::string& n) -> const Tensor& { return w.at(n); };
  Mat x(T);
  for (int t = 0; t < T; ++t)
    x[t].assign(at("model.embed_tokens.weight").data.begin() + tok[t] * D,
                at("model.embed_tokens.weight").data.begin() + (tok[t] + 1) * D);
  // cos, sin [T, d]
  Mat cosm(T, std::vector<double>(d)), sinm(T, std::vector<double>(d));
  for (int t = 0; t < T; ++t) {
    std::vector<double> emb;
    for (int rep = 0; rep < 2; ++rep)
      for (int i = 0; i < d; i += 2) emb.push_back(t * (1.0 / std::pow(c.rope_theta, double(i) / d)));
    for (int i = 0; i < d; ++i) {
      cosm[t][i] = std::cos(emb[i]);
      sinm[t][i] = std::sin(emb[i]);
    }
  }
  auto heads = [&](const Mat& y, int nh) {  // [T, nh*d] -> view [T, nh, d] -> transpose [nh][T][d]
    std::vector<Mat> hs(nh, Mat(T, std::vector<double>(d)));
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < nh; ++h)
        for (int i = 0; i < d; ++i) hs[h][t][i] = y[t][h * d + i];
    return hs;
  };
  auto rope = [&](std::vector<Mat>& hs) {
    for (auto& m : hs)
      for (int t = 0; t < T; ++t) {
        std::vector<double> rot(d);  // cat(-x2, x1)
        for (int i = 0; i < d / 2; ++i) rot[i] = -m[t][d / 2 + i];
        for (int i = 0; i < d / 2; ++i) rot[d / 2 + i] = m[t][i];
        for (int i = 0; i < d; ++i) m[t][i] = m[t][i] * cosm[t][i] + rot[i] * sinm[t][i];
      }
  };
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const std::string pre = "model.layers." + std::to_string(l) + ".";
    const Mat n = rmsnorm(x, at(pre + "input_layernorm.weight"));
    std::vector<Mat> q = heads(linear(n, at(pre + "self_attn.q_proj.weight")), H);
    std::vector<Mat> k = heads(linear(n, at(pre + "self_attn.k_proj.weight")), KV);
    std::vector<Mat> v = heads(linear(n, at(pre + "self_attn.v_proj.weight")), KV);
    rope(q);
    rope(k);
    // repeat_kv: expand [KV, rep, T, d] -> reshape [KV*rep, T, d]
    std::vector<Mat> kr, vr;
    for (int g = 0; g < KV; ++g)
      for (int r = 0; r < H / KV; ++r) {
        kr.push_back(k[g]);
        vr.push_back(v[g]);
      }
    Mat attn_out(T, std::vector<double>(H * d, 0.0));  // transpose(1, 2) + reshape [T, H*d]
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t) {
        std::vector<double> wts(T);
        for (int u = 0; u < T; ++u) {
          double s = 0;
          for (int i = 0; i < d; ++i) s += q[h][t][i] * kr[h][u][i];
          wts[u] = s * std::pow(d, -0.5) + (u > t ? -1e300 : 0.0);  // causal mask
        }
        const double mx = *std::max_element(wts.begin(), wts.end());
        double z = 0;
        for (double& a : wts) z += (a = std::exp(a - mx));
        for (int u = 0; u < T; ++u)
          for (int i = 0; i < d; ++i) attn_out[t][h * d + i] += wts[u] / z * vr[h][u][i];
      }
    const Mat o = linear(attn_out, at(pre + "self_attn.o_proj.weight"));
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < D; ++i) x[t][i] += o[t][i];
    const Mat m = rmsnorm(x, at(pre + "post_attention_layernorm.weight"));
    Mat g = linear(m, at(pre + "mlp.gate_proj.weight"));
    const Mat u = linear(m, at(pre + "mlp.up_proj.weight"));
    for (int t = 0; t < T; ++t)
      for (int j = 0; j < I; ++j) g[t][j] = g[t][j] / (1.0 + std::exp(-g[t][j])) * u[t][j];
    const Mat down = linear(g, at(pre + "mlp.down_proj.weight"));
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < D; ++i) x[t][i] += down[t][i];
  }
  const Mat logits = linear(rmsnorm(x, at("model.norm.weight")),
                            at(c.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight"));
  std::vector<double> flat;
  for (const auto& row : logits) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

TEST(TransformerInvariant, MatchesAForwardInHfTensorOrder) {
  CB_FRESH_SEED(seed);
  for (bool tied : {false, true}) {
    TransformerConfig c = Tiny();
    c.tie_word_embeddings = tied;
    const Transformer m = RandomInit(c, seed, kStd);
    const std::vector<int> tok = RandomTokens(seed, 6, 11);
    EXPECT_LE(MaxAbsDiff(m.Forward(tok).data, HfOrderForward(c, m.ToNamedTensors(), tok)), 1e-12)
        << (tied ? "tied" : "untied");
  }
}

// RoPE equals HF's q*cos + rotate_half(q)*sin written out literally here,
// and the rotated dot product depends on positions only through m - n.
TEST(TransformerInvariant, RopeIsHfRotateHalfAndRelative) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 3);
  const int d = 6;
  const double theta = 10000.0;
  std::vector<double> q(d), k(d);
  for (double& x : q) x = rng.Normal();
  for (double& x : k) x = rng.Normal();
  for (int pos : {0, 1, 5, 37}) {
    std::vector<double> cosv(d), sinv(d), rot(d), want(d);
    for (int i = 0; i < d; ++i) {
      const double inv_freq = 1.0 / std::pow(theta, static_cast<double>(2 * (i % (d / 2))) / d);
      cosv[i] = std::cos(pos * inv_freq);
      sinv[i] = std::sin(pos * inv_freq);
      rot[i] = i < d / 2 ? -q[i + d / 2] : q[i - d / 2];  // cat(-x2, x1)
    }
    for (int i = 0; i < d; ++i) want[i] = q[i] * cosv[i] + rot[i] * sinv[i];
    std::vector<double> got = q;
    ops::Rope(got.data(), d, pos, theta, +1);
    EXPECT_LE(MaxAbsDiff(got, want), 1e-14) << "pos " << pos;
    ops::Rope(got.data(), d, pos, theta, -1);  // the transpose undoes it
    EXPECT_LE(MaxAbsDiff(got, q), 1e-14);
  }
  auto dot_at = [&](int m, int n) {
    std::vector<double> a = q, b = k;
    ops::Rope(a.data(), d, m, theta, +1);
    ops::Rope(b.data(), d, n, theta, +1);
    double s = 0;
    for (int i = 0; i < d; ++i) s += a[i] * b[i];
    return s;
  };
  EXPECT_NEAR(dot_at(7, 3), dot_at(4, 0), 1e-12);
  EXPECT_NEAR(dot_at(9, 9), dot_at(0, 0), 1e-12);
  EXPECT_GT(std::abs(dot_at(7, 3) - dot_at(3, 7)), 1e-6);
}

TEST(TransformerInvariant, NamedRoundTripAndDeterministicInit) {
  CB_FRESH_SEED(seed);
  const Transformer m = RandomInit(Tiny(), seed, kStd);
  const Transformer again = RandomInit(Tiny(), seed, kStd);
  const Transformer other = RandomInit(Tiny(), seed + 1, kStd);
  const Transformer copy(Tiny(), m.ToNamedTensors());
  const std::vector<int> tok = RandomTokens(seed, 5, 11);
  EXPECT_EQ(m.Forward(tok).data, again.Forward(tok).data);
  EXPECT_EQ(m.Forward(tok).data, copy.Forward(tok).data);
  EXPECT_GT(MaxAbsDiff(m.Forward(tok).data, other.Forward(tok).data), 1e-6);
  const NamedTensors w = m.ToNamedTensors();
  EXPECT_EQ(w.size(), 1u + 2u * 9u + 1u + 1u);  // embed, 9 per layer, norm, lm_head
  EXPECT_EQ(w.at("model.layers.1.self_attn.o_proj.weight").shape, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(w.at("model.layers.0.self_attn.k_proj.weight").shape, (std::vector<int64_t>{8, 8}));
}

// -----------------------------------------------------------------------------
// (d) One-line errors

TEST(TransformerErrors, ConstructorNamesTheBadTensor) {
  const TransformerConfig c = Tiny();
  const NamedTensors good = RandomInit(c, 1, kStd).ToNamedTensors();
  {
    NamedTensors w = good;
    w.erase("model.layers.1.mlp.up_proj.weight");
    ExpectInvalid([&] { Transformer(c, w); }, "missing tensor model.layers.1.mlp.up_proj.weight");
  }
  {
    NamedTensors w = good;
    w["model.layers.0.self_attn.k_proj.weight"].shape = {16, 8};  // H*d rows instead of KV*d
    w["model.layers.0.self_attn.k_proj.weight"].data.resize(128);
    ExpectInvalid([&] { Transformer(c, w); }, "model.layers.0.self_attn.k_proj.weight has shape [16, 8]");
  }
  {
    NamedTensors w = good;
    w["model.norm.weight"].data.pop_back();  // shape right, values short
    ExpectInvalid([&] { Transformer(c, w); }, "model.norm.weight has 7 values");
  }
  {
    TransformerConfig tied = c;
    tied.tie_word_embeddings = true;
    ExpectInvalid([&] { Transformer(tied, good); }, "unexpected tensor lm_head.weight");
  }
  {
    TransformerConfig bad = c;
    bad.num_key_value_heads = 3;
    ExpectInvalid([&] { Transformer(bad, good); }, "num_key_value_heads (3)");
  }
}

TEST(TransformerErrors, ParamsConstructorChecksSizes) {
  const Architecture a = TinyVit();
  const Transformer m = RandomInit(Tiny(), 2, kStd, a);
  const Transformer same(Tiny(), m.params(), a);
  const Tensor img = RandomImage(2, a);
  EXPECT_EQ(m.ForwardImage(img).data, same.ForwardImage(img).data);
  Params p = m.params();
  p.layers[0].w_up.pop_back();
  ExpectInvalid([&] { Transformer(Tiny(), p, a); }, "model.layers.0.mlp.up_proj.weight has 95 values");
  p = m.params();
  p.layers.pop_back();
  ExpectInvalid([&] { Transformer(Tiny(), p, a); }, "1 layers, config says 2");
}

TEST(TransformerErrors, BadInputs) {
  const Transformer m = RandomInit(Tiny(), 1, kStd);
  ExpectInvalid([&] { m.Forward(std::vector<int>{1, 11, 2}); }, "token id 11 at position 1");
  ExpectInvalid([&] { m.Forward(std::vector<int>{1, -1}); }, "token id -1");
  ExpectInvalid([&] { m.Forward(std::vector<int>(17, 0)); }, "past max_position_embeddings 16");
  ExpectInvalid([&] { m.Forward(std::vector<int>{}); }, "empty token sequence");
  const std::vector<int> tok = {1, 2, 3};
  ExpectInvalid([&] { m.Loss(tok, Targets{{1, 2}, {1, 1}}); }, "for 3 positions");
  ExpectInvalid([&] { m.Loss(tok, Targets{{1, 12, 0}, {1, 1, 0}}); }, "target 12 at position 1");
  const Architecture a = TinyVit();
  const Transformer vit = RandomInit(Tiny(), 1, kStd, a);
  ExpectInvalid([&] { vit.ForwardImage(Tensor{{2, 6, 4}, std::vector<double>(48)}); },
                     "image has shape [2, 6, 4], expected [2, 4, 6]");
  ExpectInvalid([&] { vit.Forward(tok); }, "token input to a patch-mode model");
  ExpectInvalid([&] { vit.ImageLoss(RandomImage(1, a), 3); }, "target 3 at position 0");
}

}  // namespace
}  // namespace cb::ref::lm

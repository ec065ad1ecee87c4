// File: reference/lm/transformer.cpp
// -----------------------------------------------------------------------------
// The forward pass of the fp64 reference transformer (transformer.h): weights
// by name and their validation, embeddings (token and patch), the Llama
// blocks with RoPE and grouped-query attention, the heads, the KV cache, and
// the cross-entropy. The backward pass is in transformer_backward.cpp.
#include "reference/lm/transformer.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/random.h"
#include "reference/lm/transformer_ops.h"

namespace cb::ref::lm {

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void ValidateConfig(const TransformerConfig& c, const Architecture& a) {
  auto bad = [](const std::string& what) {
    throw std::invalid_argument("transformer config: " + what);
  };
  if (c.hidden_size <= 0) bad("hidden_size must be > 0");
  if (c.intermediate_size <= 0) bad("intermediate_size must be > 0");
  if (c.num_hidden_layers < 0) bad("num_hidden_layers must be >= 0");
  if (c.num_attention_heads <= 0) bad("num_attention_heads must be > 0");
  if (c.num_key_value_heads <= 0 || c.num_attention_heads % c.num_key_value_heads != 0)
    bad("num_key_value_heads (" + std::to_string(c.num_key_value_heads) +
        ") must divide num_attention_heads (" + std::to_string(c.num_attention_heads) + ")");
  if (c.HeadDim() <= 0) bad("head_dim must be > 0");
  if (!a.Patches() && c.HeadDim() % 2 != 0)
    bad("head_dim (" + std::to_string(c.HeadDim()) + ") must be even for RoPE");
  if (c.max_position_embeddings <= 0) bad("max_position_embeddings must be > 0");
  if (!(c.rms_norm_eps > 0)) bad("rms_norm_eps must be > 0");
  if (!(c.rope_theta > 0)) bad("rope_theta must be > 0");
  if (c.hidden_act != "silu") bad("hidden_act '" + c.hidden_act + "' unsupported (only silu)");
  if (a.Patches()) {
    if (a.num_channels <= 0 || a.num_labels <= 0 || a.image_height <= 0 || a.image_width <= 0 ||
        a.image_height % a.patch_size != 0 || a.image_width % a.patch_size != 0)
      bad("patch mode needs num_channels, num_labels > 0 and image sides that are multiples of "
          "patch_size");
  } else if (c.vocab_size <= 0) {
    bad("vocab_size must be > 0");
  }
}

// Visits every tensor of the architecture: fn(name, shape, data) with `data`
// a (const) reference into `p`. The one list of names and shapes, shared by
// the constructor, ToNamedTensors and the gradients.
template <class ParamsT, class Fn>
void Visit(const TransformerConfig& c, const Architecture& a, ParamsT& p, Fn fn) {
  const int64_t D = c.hidden_size, I = c.intermediate_size, V = c.vocab_size, d = c.HeadDim();
  const int64_t H = c.num_attention_heads, KV = c.num_key_value_heads;
  if (a.Patches()) {
    const int64_t P = a.patch_size, N = a.NumPatches();
    fn("model.patch_embed.weight", {D, a.num_channels, P, P}, p.patch_w);
    fn("model.patch_embed.bias", {D}, p.patch_b);
    fn("model.cls_token", {D}, p.cls);
    fn("model.pos_embed", {N + 1, D}, p.pos_embed);
  } else {
    fn("model.embed_tokens.weight", {V, D}, p.embed);
  }
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const std::string pre = "model.layers." + std::to_string(l) + ".";
    auto& L = p.layers[l];
    fn(pre + "input_layernorm.weight", {D}, L.input_norm);
    fn(pre + "self_attn.q_proj.weight", {H * d, D}, L.wq);
    fn(pre + "self_attn.k_proj.weight", {KV * d, D}, L.wk);
    fn(pre + "self_attn.v_proj.weight", {KV * d, D}, L.wv);
    fn(pre + "self_attn.o_proj.weight", {D, H * d}, L.wo);
    fn(pre + "post_attention_layernorm.weight", {D}, L.post_norm);
    fn(pre + "mlp.gate_proj.weight", {I, D}, L.w_gate);
    fn(pre + "mlp.up_proj.weight", {I, D}, L.w_up);
    fn(pre + "mlp.down_proj.weight", {D, I}, L.w_down);
  }
  fn("model.norm.weight", {D}, p.final_norm);
  if (a.Patches()) {
    fn("classifier.weight", {a.num_labels, D}, p.cls_w);
    fn("classifier.bias", {a.num_labels}, p.cls_b);
  } else if (!c.tie_word_embeddings) {
    fn("lm_head.weight", {V, D}, p.lm_head);
  }
}

// Empty Params with the layer list sized, every tensor zero-filled.
Params ZeroParams(const TransformerConfig& c, const Architecture& a) {
  Params p;
  p.layers.resize(c.num_hidden_layers);
  Visit(c, a, p, [](const std::string&, const std::vector<int64_t>& shape,
                    std::vector<double>& data) { data.assign(Numel(shape), 0.0); });
  return p;
}

}  // namespace

// -----------------------------------------------------------------------------
// Construction and names

Transformer::Transformer(const TransformerConfig& config, const NamedTensors& weights,
                         const Architecture& arch)
    : config_(config), arch_(arch) {
  ValidateConfig(config_, arch_);
  params_.layers.resize(config_.num_hidden_layers);
  size_t used = 0;
  Visit(config_, arch_, params_, [&](const std::string& name, const std::vector<int64_t>& shape,
                                     std::vector<double>& data) {
    auto it = weights.find(name);
    if (it == weights.end()) throw std::invalid_argument("transformer weights: missing tensor " + name);
    const Tensor& t = it->second;
    if (t.shape != shape)
      throw std::invalid_argument("transformer weights: tensor " + name + " has shape " +
                                  ShapeString(t.shape) + ", config implies " + ShapeString(shape));
    if (static_cast<int64_t>(t.data.size()) != Numel(shape))
      throw std::invalid_argument("transformer weights: tensor " + name + " has " +
                                  std::to_string(t.data.size()) + " values for shape " +
                                  ShapeString(shape));
    data = t.data;
    ++used;
  });
  if (used != weights.size()) {
    NamedTensors known = ToNamedTensors();
    for (const auto& [name, t] : weights)
      if (!known.count(name))
        throw std::invalid_argument("transformer weights: unexpected tensor " + name +
                                    (name == "lm_head.weight" ? " (tie_word_embeddings is true)" : ""));
  }
}

Transformer::Transformer(const TransformerConfig& config, Params params, const Architecture& arch)
    : Transformer(config, [&] {
        // Route through the named constructor so that the shapes are checked once, in one place.
        TransformerConfig c = config;
        ValidateConfig(c, arch);
        if (static_cast<int>(params.layers.size()) != c.num_hidden_layers)
          throw std::invalid_argument("transformer params: " + std::to_string(params.layers.size()) +
                                      " layers, config says " + std::to_string(c.num_hidden_layers));
        NamedTensors named;
        Visit(c, arch, params, [&](const std::string& name, const std::vector<int64_t>& shape,
                                   std::vector<double>& data) {
          named[name] = Tensor{shape, std::move(data)};
        });
        return named;
      }(), arch) {}

NamedTensors Transformer::Named(const Params& p) const {
  if (p.layers.size() != params_.layers.size())
    throw std::invalid_argument("transformer params: layer count differs from the model's");
  NamedTensors out;
  Visit(config_, arch_, p, [&](const std::string& name, const std::vector<int64_t>& shape,
                               const std::vector<double>& data) {
    if (static_cast<int64_t>(data.size()) != Numel(shape))
      throw std::invalid_argument("transformer params: tensor " + name + " has " +
                                  std::to_string(data.size()) + " values for shape " +
                                  ShapeString(shape));
    out[name] = Tensor{shape, data};
  });
  return out;
}

NamedTensors Transformer::ToNamedTensors() const { return Named(params_); }

Params Transformer::Zeros() const { return ZeroParams(config_, arch_); }

Transformer RandomInit(const TransformerConfig& config, uint64_t seed, double std,
                       const Architecture& arch) {
  ValidateConfig(config, arch);
  const Params zero = ZeroParams(config, arch);
  NamedTensors named;
  Visit(config, arch, zero, [&](const std::string& name, const std::vector<int64_t>& shape,
                                const std::vector<double>& data) {
    named[name] = Tensor{shape, data};
  });
  cb::harness::Rng rng(seed, 0);
  for (auto& [name, t] : named) {  // std::map: sorted by name
    const bool norm = name.find("norm.weight") != std::string::npos;
    for (double& v : t.data) v = (norm ? 1.0 : 0.0) + std * rng.Normal();
  }
  return Transformer(config, named, arch);
}

// -----------------------------------------------------------------------------
// Targets and cross-entropy

Targets NextTokenTargets(std::span<const int> tokens) {
  if (tokens.size() < 2) throw std::invalid_argument("NextTokenTargets: need at least 2 tokens");
  Targets t;
  const size_t T = tokens.size();
  t.target.assign(T, 0);
  t.weight.assign(T, 0.0);
  for (size_t i = 0; i + 1 < T; ++i) {
    t.target[i] = tokens[i + 1];
    t.weight[i] = 1.0;
  }
  return t;
}

Targets MaskedTargets(std::span<const int> original, std::span<const int> masked) {
  Targets t;
  t.target.assign(original.begin(), original.end());
  t.weight.assign(original.size(), 0.0);
  for (int pos : masked) {
    if (pos < 0 || pos >= static_cast<int>(original.size()))
      throw std::invalid_argument("MaskedTargets: masked position " + std::to_string(pos) +
                                  " outside [0, " + std::to_string(original.size()) + ")");
    t.weight[pos] = 1.0;
  }
  return t;
}

namespace {

// Weighted mean cross-entropy of logits [T, C] against targets; when `dlogits`
// is given it receives d loss / d logits [T, C]:
//   dlogits[t][c] = weight[t] / W * (softmax(logits[t])[c] - [c == target[t]]).
double CrossEntropy(const std::vector<double>& logits, int T, int C, const Targets& tg,
                    std::vector<double>* dlogits) {
  if (static_cast<int>(tg.target.size()) != T || static_cast<int>(tg.weight.size()) != T)
    throw std::invalid_argument("cross-entropy: targets/weights have " +
                                std::to_string(tg.target.size()) + "/" +
                                std::to_string(tg.weight.size()) + " entries for " +
                                std::to_string(T) + " positions");
  double wsum = 0;
  for (int t = 0; t < T; ++t) {
    if (!(tg.weight[t] >= 0)) throw std::invalid_argument("cross-entropy: weight " +
                                                          std::to_string(t) + " is negative");
    if (tg.weight[t] > 0 && (tg.target[t] < 0 || tg.target[t] >= C))
      throw std::invalid_argument("cross-entropy: target " + std::to_string(tg.target[t]) +
                                  " at position " + std::to_string(t) + " outside [0, " +
                                  std::to_string(C) + ")");
    wsum += tg.weight[t];
  }
  if (!(wsum > 0)) throw std::invalid_argument("cross-entropy: all weights are zero");
  if (dlogits) dlogits->assign(static_cast<size_t>(T) * C, 0.0);
  double loss = 0;
  for (int t = 0; t < T; ++t) {
    if (tg.weight[t] == 0) continue;
    const double* z = &logits[static_cast<size_t>(t) * C];  // [C]
    double mx = z[0];
    for (int c = 1; c < C; ++c) mx = std::max(mx, z[c]);
    double se = 0;
    for (int c = 0; c < C; ++c) se += std::exp(z[c] - mx);
    const double lse = mx + std::log(se);
    loss += tg.weight[t] * (lse - z[tg.target[t]]);
    if (dlogits) {
      double* dz = &(*dlogits)[static_cast<size_t>(t) * C];
      for (int c = 0; c < C; ++c)
        dz[c] = tg.weight[t] / wsum * (std::exp(z[c] - lse) - (c == tg.target[t] ? 1.0 : 0.0));
    }
  }
  return loss / wsum;
}

}  // namespace

// -----------------------------------------------------------------------------
// Embeddings

std::vector<double> Transformer::EmbedTokens(std::span<const int> tokens, int pos0) const {
  const int T = static_cast<int>(tokens.size()), D = config_.hidden_size;
  if (arch_.Patches()) throw std::invalid_argument("transformer: token input to a patch-mode model");
  if (T == 0) throw std::invalid_argument("transformer: empty token sequence");
  if (static_cast<int64_t>(pos0) + T > config_.max_position_embeddings)
    throw std::invalid_argument("transformer: position " + std::to_string(pos0 + T - 1) +
                                " past max_position_embeddings " +
                                std::to_string(config_.max_position_embeddings));
  std::vector<double> x(static_cast<size_t>(T) * D);  // [T, D]
  for (int t = 0; t < T; ++t) {
    const int id = tokens[t];
    if (id < 0 || id >= config_.vocab_size)
      throw std::invalid_argument("transformer: token id " + std::to_string(id) + " at position " +
                                  std::to_string(t) + " outside [0, " +
                                  std::to_string(config_.vocab_size) + ")");
    for (int i = 0; i < D; ++i) x[t * D + i] = params_.embed[static_cast<size_t>(id) * D + i];
  }
  return x;
}

std::vector<double> Transformer::Patchify(const Tensor& image) const {
  const int C = arch_.num_channels, Hi = arch_.image_height, Wi = arch_.image_width;
  const int P = arch_.patch_size, N = arch_.NumPatches(), F = C * P * P, pw = Wi / P;
  if (image.shape != std::vector<int64_t>{C, Hi, Wi} ||
      static_cast<int64_t>(image.data.size()) != static_cast<int64_t>(C) * Hi * Wi)
    throw std::invalid_argument("transformer: image has shape " + ShapeString(image.shape) +
                                ", expected " + ShapeString({C, Hi, Wi}));
  std::vector<double> patches(static_cast<size_t>(N) * F);  // [N, C*P*P]
  for (int n = 0; n < N; ++n) {
    const int py = n / pw, px = n % pw;  // row-major patch grid
    for (int c = 0; c < C; ++c)
      for (int y = 0; y < P; ++y)
        for (int x = 0; x < P; ++x)
          patches[static_cast<size_t>(n) * F + (c * P + y) * P + x] =
              image.data[(static_cast<size_t>(c) * Hi + py * P + y) * Wi + px * P + x];
  }
  return patches;
}

std::vector<double> Transformer::EmbedImage(const Tensor& image) const {
  if (!arch_.Patches()) throw std::invalid_argument("transformer: image input to a token model");
  const int D = config_.hidden_size, N = arch_.NumPatches();
  const int F = arch_.num_channels * arch_.patch_size * arch_.patch_size;
  const std::vector<double> patches = Patchify(image);  // [N, F]
  std::vector<double> x(static_cast<size_t>(N + 1) * D);  // [N+1, D]
  for (int i = 0; i < D; ++i) x[i] = params_.cls[i] + params_.pos_embed[i];
  // x[1+n] = W_patch patch_n + b_patch + pos[1+n];  W_patch [D, F]
  ops::Linear(patches.data(), params_.patch_w.data(), N, F, D, &x[D]);
  for (int n = 0; n < N; ++n)
    for (int i = 0; i < D; ++i)
      x[(1 + n) * D + i] += params_.patch_b[i] + params_.pos_embed[(1 + n) * D + i];
  return x;
}

// -----------------------------------------------------------------------------
// The blocks

void Transformer::RunBlocks(Acts& acts, KvCache* cache) const {
  const TransformerConfig& c = config_;
  const int T = acts.T, D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV;
  const int pos0 = cache ? cache->length : 0;  // absolute position of row 0
  const int S = pos0 + T;                      // keys visible to the last row
  const bool rope = !arch_.Patches();
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));

  std::vector<double> x = acts.x0;  // [T, D] residual stream
  acts.layers.assign(c.num_hidden_layers, {});
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const LayerParams& W = params_.layers[l];
    LayerActs& A = acts.layers[l];
    A.x = x;
    // n = RMSNorm(x) [T, D]
    ops::RmsNorm(x.data(), W.input_norm.data(), T, D, c.rms_norm_eps, &A.n, &A.r1);
    // q [T, H*d], k, v [T, KV*d]
    A.q.assign(static_cast<size_t>(T) * H * d, 0.0);
    A.k.assign(static_cast<size_t>(T) * KV * d, 0.0);
    A.v.assign(static_cast<size_t>(T) * KV * d, 0.0);
    ops::Linear(A.n.data(), W.wq.data(), T, D, H * d, A.q.data());
    ops::Linear(A.n.data(), W.wk.data(), T, D, KV * d, A.k.data());
    ops::Linear(A.n.data(), W.wv.data(), T, D, KV * d, A.v.data());
    if (rope) {
      for (int t = 0; t < T; ++t) {
        for (int h = 0; h < H; ++h) ops::Rope(&A.q[(t * H + h) * d], d, pos0 + t, c.rope_theta, +1);
        for (int g = 0; g < KV; ++g) ops::Rope(&A.k[(t * KV + g) * d], d, pos0 + t, c.rope_theta, +1);
      }
    }
    // Keys/values of every visible position: the cache's, then this chunk's.
    // kall, vall [KV][S, d]
    std::vector<std::vector<double>> kall(KV), vall(KV);
    for (int g = 0; g < KV; ++g) {
      if (cache) {
        kall[g] = cache->keys[l][g].data;
        vall[g] = cache->values[l][g].data;
      }
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < d; ++i) {
          kall[g].push_back(A.k[(t * KV + g) * d + i]);
          vall[g].push_back(A.v[(t * KV + g) * d + i]);
        }
    }
    // p [H, T, S], att [T, H*d]
    A.p.assign(static_cast<size_t>(H) * T * S, 0.0);
    A.att.assign(static_cast<size_t>(T) * H * d, 0.0);
    for (int h = 0; h < H; ++h) {
      const int g = h / rep;  // repeat_kv: query head h reads KV head h / (H/KV)
      for (int t = 0; t < T; ++t) {
        const double* qt = &A.q[(t * H + h) * d];  // [d]
        const int visible = arch_.causal ? pos0 + t + 1 : S;
        double* pt = &A.p[(static_cast<size_t>(h) * T + t) * S];  // [S]
        double mx = -INFINITY;
        for (int u = 0; u < visible; ++u) {
          double s = 0;
          for (int i = 0; i < d; ++i) s += qt[i] * kall[g][u * d + i];
          pt[u] = s * scale;
          mx = std::max(mx, pt[u]);
        }
        double z = 0;
        for (int u = 0; u < visible; ++u) z += (pt[u] = std::exp(pt[u] - mx));
        for (int u = 0; u < visible; ++u) pt[u] /= z;
        double* ot = &A.att[(t * H + h) * d];  // [d]
        for (int u = 0; u < visible; ++u)
          for (int i = 0; i < d; ++i) ot[i] += pt[u] * vall[g][u * d + i];
      }
    }
    // h = x + o_proj(att) [T, D]
    A.h = x;
    ops::Linear(A.att.data(), W.wo.data(), T, H * d, D, A.h.data());
    // m = RMSNorm(h); a = silu(gate(m)) * up(m) [T, I]; x = h + down(a)
    ops::RmsNorm(A.h.data(), W.post_norm.data(), T, D, c.rms_norm_eps, &A.m, &A.r2);
    A.gate.assign(static_cast<size_t>(T) * I, 0.0);
    A.up.assign(static_cast<size_t>(T) * I, 0.0);
    ops::Linear(A.m.data(), W.w_gate.data(), T, D, I, A.gate.data());
    ops::Linear(A.m.data(), W.w_up.data(), T, D, I, A.up.data());
    A.a.resize(static_cast<size_t>(T) * I);
    for (size_t j = 0; j < A.a.size(); ++j) A.a[j] = ops::Silu(A.gate[j]) * A.up[j];
    x = A.h;
    ops::Linear(A.a.data(), W.w_down.data(), T, I, D, x.data());

    if (cache) {
      for (int g = 0; g < KV; ++g) {
        cache->keys[l][g] = Tensor{{S, d}, std::move(kall[g])};
        cache->values[l][g] = Tensor{{S, d}, std::move(vall[g])};
      }
      for (int h = 0; h < H; ++h) {
        const double* q_last = &A.q[((T - 1) * H + h) * d];
        cache->last_query[l][h] = Tensor{{d}, std::vector<double>(q_last, q_last + d)};
      }
    }
  }
  if (cache) cache->length = S;
  acts.xL = x;
  ops::RmsNorm(x.data(), params_.final_norm.data(), T, D, c.rms_norm_eps, &acts.xf, &acts.rf);
  if (arch_.Patches()) {
    // class logits [num_labels] = W_cls xf[0] + b_cls
    acts.logits = params_.cls_b;
    ops::Linear(acts.xf.data(), params_.cls_w.data(), 1, D, arch_.num_labels, acts.logits.data());
  } else {
    const std::vector<double>& head = c.tie_word_embeddings ? params_.embed : params_.lm_head;  // [V, D]
    acts.logits.assign(static_cast<size_t>(T) * c.vocab_size, 0.0);
    ops::Linear(acts.xf.data(), head.data(), T, D, c.vocab_size, acts.logits.data());
  }
}

// -----------------------------------------------------------------------------
// Entry points

Tensor Transformer::Forward(std::span<const int> tokens) const {
  Acts acts;
  acts.T = static_cast<int>(tokens.size());
  acts.x0 = EmbedTokens(tokens, 0);
  RunBlocks(acts, nullptr);
  return Tensor{{acts.T, config_.vocab_size}, std::move(acts.logits)};
}

Tensor Transformer::ForwardImage(const Tensor& image) const {
  Acts acts;
  acts.x0 = EmbedImage(image);
  acts.T = arch_.NumPatches() + 1;
  RunBlocks(acts, nullptr);
  return Tensor{{arch_.num_labels}, std::move(acts.logits)};
}

Tensor Transformer::Prefill(std::span<const int> tokens, KvCache& cache) const {
  if (!arch_.causal || arch_.Patches())
    throw std::invalid_argument("transformer: a KV cache needs a causal token model");
  const int L = config_.num_hidden_layers;
  cache = KvCache{};
  cache.keys.assign(L, std::vector<Tensor>(config_.num_key_value_heads,
                                           Tensor{{0, config_.HeadDim()}, {}}));
  cache.values = cache.keys;
  cache.last_query.assign(L, std::vector<Tensor>(config_.num_attention_heads));
  Acts acts;
  acts.T = static_cast<int>(tokens.size());
  acts.x0 = EmbedTokens(tokens, 0);
  RunBlocks(acts, &cache);
  return Tensor{{acts.T, config_.vocab_size}, std::move(acts.logits)};
}

Tensor Transformer::DecodeStep(int token, KvCache& cache) const {
  if (!arch_.causal || arch_.Patches())
    throw std::invalid_argument("transformer: a KV cache needs a causal token model");
  if (cache.length == 0 || static_cast<int>(cache.keys.size()) != config_.num_hidden_layers)
    throw std::invalid_argument("transformer: DecodeStep before Prefill");
  Acts acts;
  acts.T = 1;
  const int tok[1] = {token};
  acts.x0 = EmbedTokens(tok, cache.length);
  RunBlocks(acts, &cache);
  return Tensor{{config_.vocab_size}, std::move(acts.logits)};
}

double Transformer::Loss(std::span<const int> tokens, const Targets& targets) const {
  const Tensor logits = Forward(tokens);
  return CrossEntropy(logits.data, static_cast<int>(tokens.size()), config_.vocab_size, targets,
                      nullptr);
}

double Transformer::ImageLoss(const Tensor& image, int label) const {
  const Tensor logits = ForwardImage(image);
  return CrossEntropy(logits.data, 1, arch_.num_labels, Targets{{label}, {1.0}}, nullptr);
}

LossAndGrad Transformer::Backward(std::span<const int> tokens, const Targets& targets) const {
  Acts acts;
  acts.T = static_cast<int>(tokens.size());
  acts.x0 = EmbedTokens(tokens, 0);
  RunBlocks(acts, nullptr);
  std::vector<double> dlogits;  // [T, V]
  LossAndGrad out;
  out.loss = CrossEntropy(acts.logits, acts.T, config_.vocab_size, targets, &dlogits);
  out.grads = Named(BackwardFrom(acts, dlogits, tokens, nullptr));
  return out;
}

LossAndGrad Transformer::ImageBackward(const Tensor& image, int label) const {
  Acts acts;
  acts.x0 = EmbedImage(image);
  acts.T = arch_.NumPatches() + 1;
  RunBlocks(acts, nullptr);
  std::vector<double> dlogits;  // [num_labels]
  LossAndGrad out;
  out.loss = CrossEntropy(acts.logits, 1, arch_.num_labels, Targets{{label}, {1.0}}, &dlogits);
  out.grads = Named(BackwardFrom(acts, dlogits, {}, &image));
  return out;
}

}  // namespace cb::ref::lm

// File: reference/lm/transformer.h
// -----------------------------------------------------------------------------
// The fp64 reference transformer of claimbench (issue 18): the spec that the
// fast CPU and CUDA paths of suites/lm are checked against. Plain loops, fp64
// throughout, a shape comment on every tensor, a hand-derived backward pass.
//
// Decoder: exactly Hugging Face's LlamaForCausalLM (eager attention, no bias,
// no RoPE scaling), as in transformers' src/transformers/models/llama/
// modeling_llama.py at commit 5dd4a63548857797727ae73eeb6a6e886ea02a3e
// (LlamaRMSNorm, LlamaRotaryEmbedding, rotate_half, apply_rotary_pos_emb,
// LlamaMLP, repeat_kv, eager_attention_forward, LlamaAttention with
// head_dim = config.head_dim and o_proj [D, H*d], LlamaDecoderLayer); the
// older commit 002272831fba584eb30dca9729c1be456836960a agrees wherever
// head_dim = D / H (it has no head_dim key). With x [T, D] the residual
// stream:
//   x_0        = embed_tokens[tokens]
//   per layer  n = RMSNorm(x; input_layernorm)
//              h = x + o_proj(Attn(n))
//              m = RMSNorm(h; post_attention_layernorm)
//              x = h + down_proj(silu(gate_proj(m)) * up_proj(m))
//   logits     = lm_head(RMSNorm(x; norm))   (embed_tokens when tied)
//   RMSNorm    y_i = w_i * x_i / sqrt(mean_j(x_j^2) + eps). HF upcasts to
//              fp32 for this; we are fp64 everywhere, so a bf16/fp32 HF run
//              differs from us by its own rounding, not by the formula.
//   RoPE       inv_freq_i = theta^(-2i/d), i < d/2; freqs = pos * inv_freq,
//              cos/sin of cat(freqs, freqs) (length d); q' = q cos +
//              rotate_half(q) sin, rotate_half(x) = cat(-x[d/2:], x[:d/2]);
//              the same for k. Positions count from 0. (HF forms inv_freq and
//              the angles in fp32; we form them in fp64.)
//   Attn       per query head h, KV head g = h / (H / KV) (repeat_kv):
//              s_tu = q'_h(t) . k'_g(u) / sqrt(d), causal mask u <= t,
//              p = softmax_u(s), out_h(t) = sum_u p_tu v_g(u); the heads are
//              concatenated head-major (q_proj row h*d + i is head h, dim i).
//
// Encoder variant (same code): bidirectional attention (no causal mask),
// loss at chosen positions only (masked LM: the caller replaces the inputs
// at masked positions by its mask token and puts weight on those positions);
// the MLM head is the decoder's head (final norm + lm_head, tied or not).
//
// Patch (ViT-style) input, RoPE off: an image [C, Hi, Wi] is cut into P x P
// patches in row-major patch order, each flattened in (c, y, x) order (the
// layout of a torch Conv2d weight [D, C, P, P] with stride P, as HF's
// ViTPatchEmbeddings uses) and projected to D; a learned CLS vector is
// prepended and learned absolute position embeddings [N + 1, D] are added:
//   x_0[0] = cls + pos[0],  x_0[1 + p] = W_patch patch_p + b_patch + pos[1 + p].
// The blocks are the Llama blocks above (RMSNorm, SwiGLU; not ViT's LayerNorm
// and GELU), then the final norm, then a classification head on CLS:
//   class_logits = classifier.weight * xf[0] + classifier.bias.
// Extra tensors of this mode (claimbench's names; no HF model has this mix):
//   model.patch_embed.weight  [D, C, P, P]      model.patch_embed.bias [D]
//   model.cls_token           [D]               model.pos_embed        [N+1, D]
//   classifier.weight         [num_labels, D]   classifier.bias        [num_labels]
// and model.embed_tokens / lm_head are absent.
//
// Usage:
//   TransformerConfig cfg{.vocab_size = 11, .hidden_size = 8, ...};
//   Transformer model = RandomInit(cfg, /*seed=*/7);      // or Transformer(cfg, named)
//   Tensor logits = model.Forward(tokens);                // [T, V]
//   KvCache cache; model.Prefill(prompt, cache); model.DecodeStep(tok, cache);  // [V]
//   LossAndGrad lg = model.Backward(tokens, NextTokenTargets(tokens));
//   lg.grads["model.layers.0.mlp.up_proj.weight"]        // same names and shapes
//
// Thread safety: a Transformer is immutable after construction; its const
// methods may run concurrently (a KvCache belongs to one caller).
//
// Errors: a missing or misshapen tensor, a bad config, a token id outside
// [0, V), a position past max_position_embeddings or a wrongly sized image or
// target vector throws std::invalid_argument with one line naming it.
#ifndef CB_REFERENCE_LM_TRANSFORMER_H_
#define CB_REFERENCE_LM_TRANSFORMER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/lm/transformer_config.h"

namespace cb::ref::lm {

// What the config.json does not say: the encoder and patch-input variants.
// The default is the decoder (LlamaForCausalLM).
struct Architecture {
  bool causal = true;     // false: bidirectional attention (encoder)
  int patch_size = 0;     // > 0: patch (ViT) input, RoPE off, classifier on CLS
  int num_channels = 0;   // C   (patch mode)
  int image_height = 0;   // Hi  (patch mode; a multiple of patch_size)
  int image_width = 0;    // Wi  (patch mode; a multiple of patch_size)
  int num_labels = 0;     // classes of the CLS head (patch mode)

  bool Patches() const { return patch_size > 0; }
  int NumPatches() const {
    return Patches() ? (image_height / patch_size) * (image_width / patch_size) : 0;
  }
};

// One decoder layer's weights. A Linear weight is [out, in], row-major.
struct LayerParams {
  std::vector<double> input_norm;  // [D]
  std::vector<double> wq;          // [H*d, D]
  std::vector<double> wk;          // [KV*d, D]
  std::vector<double> wv;          // [KV*d, D]
  std::vector<double> wo;          // [D, H*d]
  std::vector<double> post_norm;   // [D]
  std::vector<double> w_gate;      // [I, D]
  std::vector<double> w_up;        // [I, D]
  std::vector<double> w_down;      // [D, I]
};

// All weights (or, from Backward, all gradients: same layout). Tensors that
// the architecture lacks are empty.
struct Params {
  std::vector<double> embed;        // [V, D]   token mode
  std::vector<LayerParams> layers;  // [L]
  std::vector<double> final_norm;   // [D]
  std::vector<double> lm_head;      // [V, D]   token mode, untied
  std::vector<double> patch_w;      // [D, C*P*P] patch mode
  std::vector<double> patch_b;      // [D]
  std::vector<double> cls;          // [D]
  std::vector<double> pos_embed;    // [N+1, D]
  std::vector<double> cls_w;        // [num_labels, D]
  std::vector<double> cls_b;        // [num_labels]
};

// The key/value cache of a causal token model: per layer, per KV head, the
// rotated keys and the values of every position so far, each [t, d]; and the
// rotated queries of the last step, per layer and query head, each [d] (what
// Radar and MTAD read).
struct KvCache {
  int length = 0;                                   // t, positions cached
  std::vector<std::vector<Tensor>> keys;            // [L][KV] -> [t, d] (after RoPE)
  std::vector<std::vector<Tensor>> values;          // [L][KV] -> [t, d]
  std::vector<std::vector<Tensor>> last_query;      // [L][H]  -> [d]    (after RoPE)
};

// Per-position targets of a cross-entropy: target[t] is the class predicted at
// position t, weight[t] >= 0 its weight (0: not scored).
//   loss = sum_t weight[t] * -log softmax(logits[t])[target[t]] / sum_t weight[t]
struct Targets {
  std::vector<int> target;     // [T]
  std::vector<double> weight;  // [T]
};

// Next-token targets of a causal LM (HF's shifted labels): target[t] =
// tokens[t+1] with weight 1 for t < T-1; the last position has weight 0.
// REQUIRES: tokens.size() >= 2.
Targets NextTokenTargets(std::span<const int> tokens);

// Masked-LM targets: weight 1 exactly at the positions listed in `masked`,
// target = original[t] there (the caller feeds the masked inputs).
Targets MaskedTargets(std::span<const int> original, std::span<const int> masked);

struct LossAndGrad {
  double loss = 0;
  NamedTensors grads;  // d loss / d weight, same names and shapes as the weights
};

class Transformer {
 public:
  // Validates the config and takes the weights by name: every required name
  // must be present with the shape the config implies; names that do not
  // belong to the architecture are rejected too (a typo is not ignored).
  Transformer(const TransformerConfig& config, const NamedTensors& weights,
              const Architecture& arch = {});
  // The same, from an already laid out Params (RandomInit uses it).
  Transformer(const TransformerConfig& config, Params params, const Architecture& arch);

  const TransformerConfig& config() const { return config_; }
  const Architecture& arch() const { return arch_; }
  const Params& params() const { return params_; }

  // The weights by HF name (the inverse of the constructor).
  NamedTensors ToNamedTensors() const;
  // Any Params of this shape (e.g. gradients) by name.
  NamedTensors Named(const Params& p) const;

  // Logits [T, V] of a token sequence (token mode), causal or bidirectional.
  Tensor Forward(std::span<const int> tokens) const;
  // Class logits [num_labels] of an image [C, Hi, Wi] (patch mode).
  Tensor ForwardImage(const Tensor& image) const;

  // Causal token mode only. Prefill clears `cache`, runs `tokens` at
  // positions 0..T-1 and returns their logits [T, V]; DecodeStep runs one token
  // at position cache.length and returns its logits [V].
  Tensor Prefill(std::span<const int> tokens, KvCache& cache) const;
  Tensor DecodeStep(int token, KvCache& cache) const;

  // Weighted cross-entropy of Forward(tokens) against `targets`.
  double Loss(std::span<const int> tokens, const Targets& targets) const;
  // The same loss and its gradient for every weight (hand-derived backward,
  // transformer_backward.cpp).
  LossAndGrad Backward(std::span<const int> tokens, const Targets& targets) const;
  // Patch mode: cross-entropy of the CLS head against class `label`.
  double ImageLoss(const Tensor& image, int label) const;
  LossAndGrad ImageBackward(const Tensor& image, int label) const;

  // What a forward pass keeps for the backward pass, per layer (T rows: the
  // positions of this call).
  struct LayerActs {
    std::vector<double> x;       // [T, D]   layer input (residual stream)
    std::vector<double> r1;      // [T]      1/sqrt(mean(x^2)+eps)
    std::vector<double> n;       // [T, D]   RMSNorm(x)
    std::vector<double> q;       // [T, H*d] after RoPE
    std::vector<double> k;       // [T, KV*d] after RoPE
    std::vector<double> v;       // [T, KV*d]
    std::vector<double> p;       // [H, T, S] attention probabilities (0 where masked);
                                 //   S = keys visible: T, or cache length + T with a cache
    std::vector<double> att;     // [T, H*d] attention output, heads concatenated
    std::vector<double> h;       // [T, D]   after the attention residual
    std::vector<double> r2;      // [T]
    std::vector<double> m;       // [T, D]   RMSNorm(h)
    std::vector<double> gate;    // [T, I]
    std::vector<double> up;      // [T, I]
    std::vector<double> a;       // [T, I]   silu(gate) * up
  };
  struct Acts {
    int T = 0;
    std::vector<double> x0;      // [T, D]  embeddings (input of layer 0)
    std::vector<LayerActs> layers;
    std::vector<double> xL;      // [T, D]  output of the last layer
    std::vector<double> rf;      // [T]
    std::vector<double> xf;      // [T, D]  final norm
    std::vector<double> logits;  // [T, V] (token mode) or [num_labels] (patch mode)
  };

 private:
  // x0 [T, D] -> logits, through the blocks; positions start at cache.length
  // when a cache is given (its keys/values are extended), else at 0.
  void RunBlocks(Acts& acts, KvCache* cache) const;
  std::vector<double> EmbedTokens(std::span<const int> tokens, int pos0) const;  // [T, D]
  std::vector<double> EmbedImage(const Tensor& image) const;                     // [N+1, D]
  // Backward from d loss / d logits to the parameter gradients.
  Params BackwardFrom(const Acts& acts, const std::vector<double>& dlogits,
                      std::span<const int> tokens, const Tensor* image) const;
  std::vector<double> Patchify(const Tensor& image) const;  // [N, C*P*P]
  Params Zeros() const;  // every tensor of the architecture, zero-filled

  TransformerConfig config_;
  Architecture arch_;
  Params params_;
};

// Random weights, deterministic in (config, arch, seed): every tensor
// ~ N(0, std^2) (HF's initializer_range is 0.02; biases too, so that they are
// exercised), except norm weights, which are 1 + std * N(0, 1): HF starts them
// at 1, but a jitter makes a misplaced norm weight visible in tests. Normals
// from Philox (harness/random.h, Rng(seed, 0).Normal()), tensor by tensor in
// the order ToNamedTensors() lists them, each row-major.
Transformer RandomInit(const TransformerConfig& config, uint64_t seed, double std = 0.02,
                       const Architecture& arch = {});

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_TRANSFORMER_H_

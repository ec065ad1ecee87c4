// File: suites/lm/cpu_transformer.h
// -----------------------------------------------------------------------------
// The fast CPU path of the transformer substrate (issue 18): the same Llama
// decoder (and bidirectional encoder) as the fp64 reference
// (reference/lm/transformer.h, the spec), in fp32 with every matrix product an
// OpenBLAS sgemm over all cores: batched forward, hand-derived backward, and a
// KV-cache prefill + decode step; and the reference's patch (ViT) input: P x P
// patches projected to D, a CLS token, learned positions, no RoPE,
// bidirectional blocks, a classifier on CLS.
//
// Weights live in ONE flat fp32 buffer, tensor after tensor in the order of
// their Hugging Face names (std::map order, as the reference lists them), so an
// optimizer updates params() and grads in one loop and a checkpoint is a view.
//
// Attention is per (sequence, query head) on strided views of the projected
// rows, never copied: scores = Q_h K_g^T / sqrt(d) [T, S], masked softmax,
// out = P V_g, with g = h / (H / KV) (repeat_kv). The backward is the
// reference's (transformer_backward.cpp) in matrix form:
//   dV_g += P^T dOut, dP = dOut V_g^T, dS = P * (dP - rowsum(dP * P)),
//   dQ_h = dS K_g / sqrt(d), dK_g += dS^T Q_h / sqrt(d), then RoPE transposed.
//
// Agreement with the fp64 reference (suites/lm/cpu_transformer_test.cpp):
// logits, loss and every gradient tensor within kFp32Tolerance-style
// AllClose/relative bounds named there, on fresh random weights and inputs;
// the KV-cache decode equals a full forward pass to fp32 rounding.
//
// Usage:
//   CpuTransformer model(ref_model);                    // or (config, named, arch)
//   std::vector<float> logits = model.Forward(tokens);  // [T, V]
//   Batch b{.tokens = ..., .targets = ..., .weights = ..., .batch = B, .seq = T};
//   std::vector<float> grad(model.num_params());
//   double loss = model.LossAndGrad(b, grad);            // grad overwritten
//   CpuKvCache cache; model.Prefill(prompt, cache); model.DecodeStep(tok, cache);
//
// Threads: the GEMMs use OpenBLAS's thread count (openblas_set_num_threads);
// with a fixed count the results are identical run to run. A CpuTransformer's
// const methods may run concurrently only if OpenBLAS is single-threaded
// (OpenBLAS's own thread pool is not re-entrant across callers).
//
// Errors: as the reference: std::invalid_argument with one line.
#ifndef CB_SUITES_LM_CPU_TRANSFORMER_H_
#define CB_SUITES_LM_CPU_TRANSFORMER_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "reference/lm/transformer.h"

namespace cb::lm_suite {

// Where one named tensor lives in the flat buffer.
struct ParamSlot {
  std::string name;
  std::vector<int64_t> shape;
  size_t offset = 0;
  size_t size = 0;
};

// A training batch: `batch` sequences of `seq` tokens, row-major [batch, seq];
// targets/weights per position, as ref::lm::Targets (weight 0: not scored).
// The loss is sum(weight * nll) / sum(weight) over the whole batch.
struct Batch {
  std::vector<int> tokens;      // [B, T]
  std::vector<int> targets;     // [B, T]
  std::vector<float> weights;   // [B, T]
  int batch = 0;                // B
  int seq = 0;                  // T
};

// A causal model's fp32 KV cache: per layer the rotated keys and the values of
// every position so far, rows of all KV heads side by side, [t, KV*d] (the
// layout the projections produce, so attention reads them in place).
struct CpuKvCache {
  int length = 0;
  std::vector<std::vector<float>> keys;    // [L] -> [t, KV*d]
  std::vector<std::vector<float>> values;  // [L] -> [t, KV*d]

  // A copy of the first `length` positions (a fork at a shorter prefix).
  // REQUIRES: 0 < length <= this->length.
  CpuKvCache Truncated(int length) const;
};

// What a tensor saved for the backward pass feeds there, for an activation
// hook that compresses saved activations (COAT's mixed granularity, Xi et
// al. ICLR 2025 §5: per-tensor FP8 for linear-layer inputs, 1x16 groups for
// what non-linear layers save; the attention core stays high precision).
enum class SavedRole {
  kLinearInput,     // n (q/k/v-proj input), att (o-proj), m (gate/up-proj), a (down-proj)
  kNonLinearInput,  // x, h, xL (RMSNorm inputs), gate (SiLU input), up (multiply input)
  kAttentionCore,   // q, k (after RoPE), v, p (softmax probabilities)
  kHeadInput,       // xf (the LM head's or classifier's input)
  kStatistic,       // r1, r2, rf (RMSNorm reciprocal rms), [rows]
};
struct SavedTensor {
  SavedRole role;
  const char* name;  // the LayerActs / Acts member: "x", "n", ..., "xf"
  int layer;         // -1 for the final norm and the head
  int cols;          // row length (the tensor is [size / cols, cols])
};
// Called once per saved tensor after the forward pass has used it and before
// the backward pass reads it; may overwrite `values` in place (what it leaves
// there is what the backward pass reads). Only LossAndGrad and
// ImageLossAndGrad save tensors; Forward, Loss and the KV-cache paths never
// call it. A hook with state (counters, buffers) makes concurrent
// LossAndGrad calls unsafe unless it guards that state itself.
using ActivationHook = std::function<void(const SavedTensor& what, std::span<float> values)>;

// One layer's attention in a KV-cache decode step, for a hook that computes it
// instead of the dense softmax (sparse decoding: Radar, Hao et al. ICLR 2025;
// StreamingLLM). The cache already holds the current token's key and value
// (row t - 1); the hook writes every query head's output.
struct DecodeAttention {
  int layer;
  int t;          // keys in the cache, the current one included (its position is t - 1)
  int heads;      // H query heads; head h reads KV head h / (H / kv_heads)
  int kv_heads;   // KV
  int head_dim;   // d
  const float* q;       // [H*d], after RoPE
  const float* keys;    // [t, KV*d], rotated keys (the layer's CpuKvCache row-major)
  const float* values;  // [t, KV*d]
  float* out;           // [H*d]: softmax(q_h K_g^T / sqrt d) V_g or the hook's approximation
};
// Called by DecodeStep once per layer in place of its attention; Prefill and
// the batched paths never call it (prefill stays dense, as in Radar). A hook
// with state makes concurrent DecodeStep calls unsafe unless it guards it.
using DecodeAttentionHook = std::function<void(const DecodeAttention& a)>;

class CpuTransformer {
 public:
  // Token or patch (ViT) models; validates like the reference.
  CpuTransformer(const ref::lm::TransformerConfig& config, const ref::lm::NamedTensors& weights,
                 const ref::lm::Architecture& arch = {});
  explicit CpuTransformer(const ref::lm::Transformer& reference);

  const ref::lm::TransformerConfig& config() const { return config_; }
  const ref::lm::Architecture& arch() const { return arch_; }
  size_t num_params() const { return params_.size(); }
  std::vector<float>& params() { return params_; }
  const std::vector<float>& params() const { return params_; }
  const std::vector<ParamSlot>& slots() const { return slots_; }
  const ParamSlot& slot(const std::string& name) const;

  // The weights (or any buffer of this layout, e.g. gradients) by HF name, in fp64.
  ref::lm::NamedTensors Named(std::span<const float> flat) const;
  ref::lm::NamedTensors ToNamedTensors() const { return Named(params_); }

  // Logits [T, V] of one sequence.
  std::vector<float> Forward(std::span<const int> tokens) const;
  // Logits [B*T, V] of a batch (positions 0..T-1 in every sequence).
  std::vector<float> ForwardBatch(std::span<const int> tokens, int batch, int seq) const;
  // The batch's weighted mean cross-entropy; `grad` [num_params] receives its
  // gradient (overwritten).
  double LossAndGrad(const Batch& batch, std::span<float> grad) const;
  // The loss alone (no activations kept).
  double Loss(const Batch& batch) const;
  // A loss of the logits that the caller computes (e.g. an evidential head on
  // the last position): `loss` gets the logits [B*T, V] and writes d loss /
  // d logits into `dlogits` [B*T, V] (zero on entry), returning the loss;
  // `grad` [num_params] receives the parameter gradient (overwritten).
  using LogitLoss = std::function<double(std::span<const float> logits, std::span<float> dlogits)>;
  double LogitLossAndGrad(std::span<const int> tokens, int batch, int seq, const LogitLoss& loss,
                          std::span<float> grad) const;
  // A loss of the final hidden states xf = RMSNorm(x_L) [B*T, D] instead of
  // the logits, for a head of the caller's own (a concept bottleneck): `loss`
  // writes d loss / d xf into `dxf` (zero on entry); `grad` receives every
  // parameter gradient (overwritten): the LM head's stays 0 (tied: the
  // embedding gets its input rows' share only). With an activation hook set,
  // `loss` reads xf as the hook left it. Token models only.
  using HiddenLoss = std::function<double(std::span<const float> xf, std::span<float> dxf)>;
  double HiddenLossAndGrad(std::span<const int> tokens, int batch, int seq, const HiddenLoss& loss,
                           std::span<float> grad) const;
  // The blocks on the caller's input embeddings x0 [B*T, D] (e.g. embedding
  // rows with some dimensions overwritten, or a gradient wanted per position):
  // ForwardEmbedded returns xf [B*T, D]; EmbeddedLossAndGrad runs `loss` on
  // xf as HiddenLossAndGrad does, writes every block and final-norm gradient
  // into `grad` (overwritten; the embedding and LM head stay 0: the caller
  // owns x0) and d loss / d x0 into `dx0` [B*T, D] (overwritten). Token
  // models only.
  std::vector<float> ForwardEmbedded(std::span<const float> x0, int batch, int seq) const;
  double EmbeddedLossAndGrad(std::span<const float> x0, int batch, int seq, const HiddenLoss& loss,
                             std::span<float> grad, std::span<float> dx0) const;

  // Patch mode: class logits [B, num_labels] of `batch` images, each
  // [C, Hi, Wi] row-major, side by side in `images`; the mean cross-entropy
  // against `labels` [B], with its gradient (overwritten) or alone.
  std::vector<float> ForwardImages(std::span<const float> images, int batch) const;
  double ImageLossAndGrad(std::span<const float> images, std::span<const int> labels,
                          std::span<float> grad) const;
  double ImageLoss(std::span<const float> images, std::span<const int> labels) const;

  // Patch mode: a loss of the final hidden states xf [B, T, D] (T = patches
  // + 1, CLS first) for a per-patch head of the caller's own (a masked-patch
  // reconstruction, a segmentation head): `loss` writes d loss / d xf into
  // `dxf` (zero on entry); every parameter's gradient is overwritten into
  // `grad` (the classifier's stays 0).
  double ImageHiddenLossAndGrad(std::span<const float> images, int batch, const HiddenLoss& loss,
                                std::span<float> grad) const;

  // Patch mode: a loss on one layer's pre-softmax attention scores s = q k^T
  // d^(-1/2), [B, H, T, T] (T = patches + 1, CLS first; q, k as the
  // activation hook left them). `loss` reads s and writes d loss / d s into
  // `dscores` (zero on entry); the gradient of every parameter is
  // overwritten into `grad` (zero for the classifier and for what lies
  // above the layer's q and k). An attention-distillation target (UNIP).
  // REQUIRES: 0 <= layer < num_hidden_layers; else std::invalid_argument.
  using ScoreLoss = std::function<double(std::span<const float> scores, std::span<float> dscores)>;
  double ImageScoreLossAndGrad(std::span<const float> images, int batch, int layer, const ScoreLoss& loss,
                               std::span<float> grad) const;

  // Causal token models. Prefill clears `cache`, runs `tokens` at positions 0..T-1
  // and returns their logits [T, V]; DecodeStep runs one token at position
  // cache.length and returns its logits [V]; Extend runs T >= 1 tokens at
  // positions cache.length .. cache.length+T-1 in one batched forward (a
  // speculative or MTAD verification: the block's keys see the whole cache and
  // each other causally) and returns their logits [T, V]. Extend and
  // DecodeStep need a filled cache (Prefill first). Only DecodeStep calls the
  // decode attention hook.
  std::vector<float> Prefill(std::span<const int> tokens, CpuKvCache& cache) const;
  std::vector<float> DecodeStep(int token, CpuKvCache& cache) const;
  std::vector<float> Extend(std::span<const int> tokens, CpuKvCache& cache) const;
  // B independent decode steps, token b appended to *caches[b] (distinct
  // filled caches, any lengths): logits [B, V], row b = what DecodeStep(
  // tokens[b], *caches[b]) returns (up to GEMM vs GEMV rounding), with the
  // weights read once for all rows. Never calls the decode attention hook.
  std::vector<float> DecodeBatch(std::span<const int> tokens, std::span<CpuKvCache* const> caches) const;

  // The saved-activation hook (ActivationHook above); empty (the default):
  // the backward pass reads the fp32 activations unchanged.
  void set_activation_hook(ActivationHook hook) { activation_hook_ = std::move(hook); }
  // The decode-step attention hook (DecodeAttentionHook above); empty (the
  // default): DecodeStep runs dense attention over the whole cache.
  void set_decode_attention_hook(DecodeAttentionHook hook) { decode_attention_hook_ = std::move(hook); }

  // Per layer, the fp32 tensors a forward pass keeps for the backward pass.
  struct LayerActs;
  struct Acts;

 private:
  struct LayerView;  // pointers to one layer's weights in a flat buffer
  LayerView Layer(int l, const float* base) const;
  void CheckTokens(std::span<const int> tokens, int pos_end) const;  // ids, positions < pos_end
  void CheckGradBuffer(std::span<float> grad) const;
  // Embeds `tokens` [B*T] and runs the blocks; logits [B*T, V].
  std::vector<float> Run(std::span<const int> tokens, int batch, int seq, Acts* acts,
                         CpuKvCache* cache) const;
  // The blocks and the final norm on the embedded x [B*T, D]: returns xf
  // [B*T, D]. With `acts` every layer's activations are kept; with `cache`
  // (B = 1) positions start at cache->length and the cache is extended.
  std::vector<float> RunBlocks(std::vector<float> x, int batch, int seq, Acts* acts,
                               CpuKvCache* cache) const;
  // From d loss / d xf [B*T, D] to every block and norm gradient (added into
  // G, the flat gradient); returns d loss / d x0 [B*T, D]. With `dscores`,
  // d loss / d (attention scores) [B, H, T, T] of layer `score_layer` is added
  // to what flows there from above.
  std::vector<float> BackwardBlocks(const Acts& acts, const std::vector<float>& dxf, int batch,
                                    int seq, float* G, int score_layer = -1,
                                    const float* dscores = nullptr) const;
  // From d loss / d logits [B*T, V] to every parameter gradient (`grad` overwritten).
  void BackwardFromLogits(const Acts& acts, std::span<const int> tokens, int batch, int seq,
                          const std::vector<float>& dlogits, std::span<float> grad) const;
  // From d loss / d xf [B*T, D] through the blocks into the embedding rows of
  // `tokens`, added into G.
  void BackwardFromHidden(const Acts& acts, std::span<const int> tokens, int batch, int seq,
                          const std::vector<float>& dxf, float* G) const;
  // Patch mode: images -> patches [B*N, C*P*P]; class logits [B, L].
  std::vector<float> Patchify(std::span<const float> images, int batch) const;
  std::vector<float> RunImages(std::span<const float> images, int batch, Acts* acts,
                               std::vector<float>* patches) const;
  // Patch mode: from d loss / d x0 [B, N+1, D] into the CLS, position and
  // patch-embedding gradients, added into G.
  void BackwardPatchInput(const std::vector<float>& dx, const std::vector<float>& patches, int batch,
                          float* G) const;

  // Passes layer l's saved tensors (or the final ones, l = -1) to the hook.
  void HookLayer(LayerActs& A, int l, int D, int I) const;
  void HookFinal(Acts& acts, int D) const;

  ref::lm::TransformerConfig config_;
  ref::lm::Architecture arch_;
  ActivationHook activation_hook_;
  DecodeAttentionHook decode_attention_hook_;
  std::vector<ParamSlot> slots_;
  std::vector<float> params_;
  std::vector<std::vector<size_t>> layer_offsets_;  // [L][9]: LayerView's tensors
  size_t embed_ = 0, final_norm_ = 0, head_ = 0;   // offsets (head_ = embed_ when tied)
  size_t patch_w_ = 0, patch_b_ = 0, cls_ = 0, pos_ = 0, cls_w_ = 0, cls_b_ = 0;  // patch mode
};

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_CPU_TRANSFORMER_H_

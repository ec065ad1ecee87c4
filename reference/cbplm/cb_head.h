// File: reference/cbplm/cb_head.h
// -----------------------------------------------------------------------------
// The concept_mse-bottleneck head of CB-pLM (Ismail et al., ICLR 2025, §3; code:
// prescient-design/lobster@0ac6932, src/lobster/model/lm_base/_lm_base.py:
// LMBaseClassificationHead, CBM, LMBaseMLP, LMBaseLinearLMHead,
// LMBaseEncoderWithConcepts.forward; src/lobster/model/_cbmlm.py:
// _compute_loss, orthogonality_loss). fp64, plain loops, the spec of the
// suite's CB masked LM (suites/cbplm/cb_mlm.h), which runs it on the fp32
// encoder's final hidden states.
//
// Shapes: B sequences of T positions (position 0 is the CLS token), hidden
// D, C concepts, concept_mse embedding width E (lobster's config.concept_emb = 2),
// vocabulary V. Per sequence b, with xf [T, D] the encoder's final hidden
// states and c_in [C] the concept_mse values the decoder reads:
//   concept_mse classifier (on the CLS row only, lobster's features[:, 0, :]):
//     z    = tanh(Wd xf[0] + bd)               [D]      (cls_dense)
//     pred = Wo z + bo                         [C]      (cls_out): the concept_mse neurons
//   unknown (residual) path, per position t (LMBaseMLP, ESM's erf gelu):
//     u    = Wu xf[t] + bu                     [D]      (unk_dense)
//     g    = gelu(u) = u (1 + erf(u / sqrt 2)) / 2
//     n    = LayerNorm(g) * gamma + beta       [D]      (eps 1e-12: lobster's layer_norm_eps)
//     xunk = Wk n + bk                         [C*E]    (unk_decoder)
//   concept_mse path (CBM): xcbm[c*E + e] = c_in[c] * emb[c, e]   [C*E], every t
//   logits[t] = Wl [xcbm ; xunk] + bl           [V]      (lm_decoder [V, 2CE], lm_bias)
// c_in is the true concepts in training and pred at inference, where an
// intervention overwrites one entry (lobster: concepts * (1 - mask) +
// value * mask).
//
// Loss (lobster's _compute_loss, concept_hp = orthogonality_hp = 0.1):
//   mlm     = Σ_{b,t} w[b,t] (-log softmax(logits[b,t])[target[b,t]]) / Σ w
//   concept_mse = C * mean_{b,c} (pred[b,c] - true[b,c])^2
//   orth    = mean_{b,t} |cos(xcbm[b], xunk[b,t])|   (cos eps 1e-6, as torch:
//             x.y / max(|x| |y|, eps))
//   total   = mlm + concept_weight * concept_mse + orth_weight * orth
// The MLM term reaches the classifier only through c_in, which is the true
// concepts in training: the classifier learns from the concept_mse term alone.
//
// The concept_mse-to-token map is linear: d logits[t] / d c_in[c] = the column
// block of Wl times emb[c], the same for every t (ConceptTokenMap).
//
// Errors: mismatched sizes throw std::invalid_argument with one line.
#ifndef CB_REFERENCE_CBPLM_CB_HEAD_H_
#define CB_REFERENCE_CBPLM_CB_HEAD_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cb::ref::cbplm {

struct CbHeadConfig {
  int hidden = 32;       // D
  int concepts = 6;      // C
  int concept_emb = 2;   // E
  int vocab = 22;        // V
  double ln_eps = 1e-12;
  double cos_eps = 1e-6;
};

// One tensor of the flat parameter buffer.
struct HeadSlot {
  const char* name;
  int rows, cols;  // [rows, cols] (cols = 1 for a vector)
  size_t offset;
  size_t size() const { return size_t(rows) * cols; }
};

struct LossWeights {
  double concept_mse = 0.1;  // lobster's concept_hp
  double orth = 0.1;     // lobster's orthogonality_hp
};

// What LossAndGrad returns.
struct HeadLoss {
  double mlm = 0, concept_mse = 0, orth = 0, total = 0;
};

class CbHead {
 public:
  // Random weights, deterministic in (config, seed): Linear weights N(0, 0.02^2)
  // (lobster's initializer_range), biases 0, LayerNorm 1 and 0, the concept_mse
  // embeddings N(0, 1/E) truncated to [-2, 2] (CBM's trunc_normal_).
  CbHead(const CbHeadConfig& config, uint64_t seed);

  const CbHeadConfig& config() const { return config_; }
  const std::vector<HeadSlot>& slots() const { return slots_; }
  const HeadSlot& slot(const std::string& name) const;
  std::vector<double>& params() { return params_; }
  const std::vector<double>& params() const { return params_; }

  // The concept_mse neurons pred [B, C] from xf [B*T, D].
  std::vector<double> Concepts(std::span<const double> xf, int batch, int seq) const;
  // Logits [B*T, V] with the decoder reading c_in [B, C].
  std::vector<double> Logits(std::span<const double> xf, int batch, int seq,
                             std::span<const double> c_in) const;
  // The training loss (file comment) with c_in the decoder's input and
  // true_concepts [B, C] the MSE's target (lobster feeds the same array to
  // both), targets/weights [B*T]. Writes d total / d xf into dxf [B*T, D]
  // (overwritten) and d total / d params into grad [num params] (overwritten).
  HeadLoss LossAndGrad(std::span<const double> xf, int batch, int seq, std::span<const double> c_in,
                       std::span<const double> true_concepts, std::span<const int> targets,
                       std::span<const double> weights, const LossWeights& lw,
                       std::span<double> dxf, std::span<double> grad) const;
  // d Σ_b pred[b, concept_mse] / d xf into dxf [B*T, D] (overwritten): the
  // attribution's upstream gradient (only the CLS rows are non-zero).
  void ConceptGradient(std::span<const double> xf, int batch, int seq, int concept_index,
                       std::span<double> dxf) const;
  // M [C, V]: M[c, v] = Σ_e Wl[v, c E + e] emb[c, e], so that logits(c_in + δ
  // e_c) - logits(c_in) = δ M[c] at every position.
  std::vector<double> ConceptTokenMap() const;

 private:
  void CheckShapes(size_t xf, int batch, int seq) const;
  CbHeadConfig config_;
  std::vector<HeadSlot> slots_;
  std::vector<double> params_;
};

}  // namespace cb::ref::cbplm

#endif  // CB_REFERENCE_CBPLM_CB_HEAD_H_

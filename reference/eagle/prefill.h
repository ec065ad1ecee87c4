// File: reference/eagle/prefill.h
// -----------------------------------------------------------------------------
// The token count and LLM-prefill cost of EAGLE's fusion (brief §7(a), (c);
// NVlabs/EAGLE fef95f103b5e9899acbbe2c237e5b99147ab7e8e,
// eagle/model/multimodal_encoder/multi_backbone_channel_concatenation_encoder.py):
// every expert's feature grid is resized to 32 x 32 (grid_size = 32,
// num_tokens = grid_size ** 2) and the grids are concatenated along channels
// (torch.cat(features, dim=-1)), so the LLM sees 1024 visual tokens of width
// sum(c_i) whatever the number of experts E. The alternative, appending each
// expert's 1024 tokens along the sequence, gives 1024 * E tokens.
//
// Cost model (multiply-adds x 2 = FLOPs; one sequence, prefill of n tokens):
//   per decoder layer
//     attention projections  Q, K, V, O:     8 n d^2     (n_kv_heads = n_heads)
//     attention scores + AV, dense kernel:   4 n^2 d     (QK^T and PV as full GEMMs)
//     attention scores + AV, causal exact:   2 n (n+1) d (only j <= i)
//     MLP (SwiGLU: gate, up, down):          6 n d f
//   times L layers; the LM head for the last position only, 2 d V.
//   Projector (2-layer MLP, GELU): 2 * 1024 * (c_in d + d d); channel
//   concatenation has one projector with c_in = sum(c_i), sequence
//   concatenation one per expert with c_in = c_i.
// The vision encoders cost the same both ways and are left out.
// Default LLM shape: Vicuna-7B v1.5 / Llama-2-7B (d 4096, L 32, f 11008,
// V 32000), the LLM of Eagle-X5-7B. Expert widths in EAGLE's X5 order:
// CLIP-L/14 1024, ConvNeXt-XXL 3072 (timm convnext_xxlarge last stage),
// SAM-L 1024 (256 x pixel_unshuffle(2)), Pix2Struct-L 1536 (hard-coded
// hidden_size), EVA-02-L 1024.
#ifndef CB_REFERENCE_EAGLE_PREFILL_H_
#define CB_REFERENCE_EAGLE_PREFILL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::ref::eagle {

struct LlmShape {
  std::string name = "vicuna-7b-v1.5";
  int64_t d = 4096, layers = 32, ffn = 11008, vocab = 32000;
};

struct Expert {
  std::string name;
  int64_t channels;
};
// The X5 mixture in the code's order; E experts = the first E.
const std::vector<Expert>& X5Experts();

constexpr int64_t kGrid = 32, kTokensPerExpert = kGrid * kGrid;

struct PrefillFlops {
  double projections = 0, attention_dense = 0, attention_causal = 0, mlp = 0, lm_head = 0, projector = 0;
  double TotalDense() const { return projections + attention_dense + mlp + lm_head + projector; }
  double TotalCausal() const { return projections + attention_causal + mlp + lm_head + projector; }
};

// The LLM's prefill FLOPs for n tokens (projector 0).
PrefillFlops LlmPrefill(const LlmShape& s, int64_t n);

struct Fusion {
  int64_t visual_tokens = 0, token_width = 0;  // what reaches the projector
  PrefillFlops flops;
};
// Channel concatenation of `experts` followed by `text_tokens` prompt tokens.
Fusion ChannelConcat(const LlmShape& s, const std::vector<Expert>& experts, int64_t text_tokens);
// Sequence concatenation: 1024 tokens per expert, each through its own projector.
Fusion SequenceConcat(const LlmShape& s, const std::vector<Expert>& experts, int64_t text_tokens);

}  // namespace cb::ref::eagle

#endif  // CB_REFERENCE_EAGLE_PREFILL_H_

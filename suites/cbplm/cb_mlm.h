// File: suites/cbplm/cb_mlm.h
// -----------------------------------------------------------------------------
// A tiny concept-bottleneck masked protein LM (CB-pLM, Ismail et al., ICLR
// 2025, §3) and its two comparisons, on the transformer substrate's fp32
// bidirectional encoder (suites/lm/cpu_transformer.h, Architecture{.causal =
// false}):
//   kCbm        encoder -> the fp64 concept-bottleneck head
//               (reference/cbplm/cb_head.h, run on the fp32 hidden states):
//               concept neurons from the CLS row, the decoder reads
//               [c_in * concept_emb ; unknown(xf[t])]; true concepts as c_in in
//               training, predicted ones at inference (lobster@0ac6932,
//               LMBaseEncoderWithConcepts.forward);
//   kPreEncoder the conditional baseline (lobster's conditioning_type
//               "pre_encoder"): the last C dimensions of every input embedding
//               are overwritten by the concept values
//               (hidden_states[:, :, -n_concepts_size:] = concepts), an MLM head
//               on top; true concepts in training and at inference;
//   kNone       the unconstrained masked LM of the same encoder.
// kPreEncoder and kNone use the substrate's MLM head: final norm, then the
// tied embedding (logits = xf E^T).
//
// Tokens: the 20 residues in kStandardResidues order (0..19), CLS = 20 at
// position 0 of every sequence, MASK = 21 (lobster's mask embedding is the
// last row of word_embeddings). Masking as lobster's _mask_inputs: each
// residue position independently with probability mask_rate, replaced by
// MASK (no 80/10/10), never the CLS; loss on the masked positions only.
//
// Concepts: kCbConcepts, lobster-normalised (reference/protparam
// LobsterNormalize), the decoder's / encoder's input.
//
// Training: AdamW-free Adam (no weight decay), linear warm-up over 5% of the
// steps then cosine to 10%, global-norm clipping at 1, over the encoder's
// fp32 weights and the head's fp64 weights together. (suites/lm/trainer.h
// trains a token stream with next-token or fixed targets; its batches have
// no concepts, so this suite has its own small loop.)
//
// Intervention (lobster's CBMLM.intervene_on_sequences, _cbmlm.py): for a
// concept j and k edits,
//   attribution[t] = Σ_d (d pred_j / d x0[t, d]) (x0[t, d] - mask_emb[d])
//   over residue positions t >= 1; raising: mask the k lowest, lowering: the
//   k highest (torch.sort ascending / descending, first k); the masked
//   sequence's forward gives pred', c_in = pred' with entry j set to 1
//   (raise) or 0 (lower); each masked position takes the argmax residue (over
//   the 20 residues: lobster decodes and drops non-residue tokens, which
//   would shorten the sequence; here they cannot be chosen).
// The baseline at the same budget: k positions drawn uniformly without
// replacement (it has no concept neuron to attribute), its concept input
// = the true concepts with entry j set to 1 / 0, argmax fill.
//
// Thread safety: const methods may run concurrently only with OpenBLAS on
// one thread (as CpuTransformer). Errors: std::invalid_argument, one line.
#ifndef CB_SUITES_CBPLM_CB_MLM_H_
#define CB_SUITES_CBPLM_CB_MLM_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/cbplm/cb_head.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::cbplm {

inline constexpr int kNumCbConcepts = 6;
// The concepts of the tiny model: the five with an exact edit optimum
// (reference/protparam/edit_optimum.h) and the isoelectric point.
inline constexpr std::array<std::string_view, kNumCbConcepts> kCbConcepts = {
    "gravy", "avg_hydrophilicity", "avg_surface_accessibility", "aromaticity",
    "molar_extinction_coefficient_reduced", "isoelectric_point"};
inline constexpr int kClsToken = 20, kMaskToken = 21, kCbVocab = 22;

enum class Conditioning { kCbm, kPreEncoder, kNone };
const char* ConditioningName(Conditioning c);  // "cbm", "pre_encoder", "none"

// CLS + residue ids. REQUIRES: the 20 standard residues only.
std::vector<int> EncodeProtein(std::string_view residues);
// The lobster-normalised kCbConcepts of `residues` (Biopython 1.84 values).
std::array<double, kNumCbConcepts> NormalizedCbConcepts(std::string_view residues);

struct CbShape {
  int hidden = 32, layers = 2, heads = 4, intermediate = 64;
  int seq = 49;  // T: CLS + the residues (every sequence the same length)
};

struct CbTrainOptions {
  int steps = 300;
  int batch = 16;
  double lr = 3e-3;
  double mask_rate = 0.15;
  double clip = 1.0;
  uint64_t seed = 1;  // initial weights (Rng(seed, ...)) and batches / masks
};

// One training example: its tokens [T] and normalised concepts.
struct CbExample {
  std::string residues;
  std::vector<int> tokens;
  std::array<double, kNumCbConcepts> concepts{};
};
CbExample MakeExample(std::string residues);

// What an intervention did.
struct Intervention {
  std::string edited;            // the residues after the edit
  std::vector<int> positions;    // residue indices (0-based, CLS excluded) masked
  std::vector<double> attribution;  // [L] (CB only; empty for the baseline)
};

class CbMlm {
 public:
  CbMlm(Conditioning conditioning, const CbShape& shape, uint64_t seed);

  Conditioning conditioning() const { return conditioning_; }
  const CbShape& shape() const { return shape_; }
  size_t num_params() const;  // encoder + head (the tied embedding once)
  const lm_suite::CpuTransformer& encoder() const { return encoder_; }
  const ref::cbplm::CbHead* head() const { return head_ ? &*head_ : nullptr; }

  // Trains on `data` (each example's tokens of length shape().seq); returns
  // the training loss of every step.
  std::vector<double> Train(std::span<const CbExample> data, const CbTrainOptions& options);

  // Final hidden states xf [B*T, D] of `tokens` [B*T] (concepts [B, C]: the
  // pre-encoder input; ignored otherwise).
  std::vector<float> Hidden(std::span<const int> tokens, int batch, std::span<const double> concepts) const;
  // Concept neurons [B, C] (kCbm only).
  std::vector<double> PredictConcepts(std::span<const int> tokens, int batch) const;
  // Logits [B*T, V]. kCbm: the decoder reads c_in [B, C] (predicted ones when
  // empty); kPreEncoder: c_in is the encoder's concept input; kNone: ignored.
  std::vector<double> Logits(std::span<const int> tokens, int batch, std::span<const double> c_in) const;

  // The attribution of concept j at every residue position [L] (kCbm only).
  std::vector<double> Attribution(std::span<const int> tokens, int concept_index) const;
  // kCbm: lobster's intervene_on_sequences; kPreEncoder / kNone: k random
  // positions (Rng(seed, 0)), concept input = `concepts` with j set to 1 / 0
  // (kNone: no concept input, an unguided refill).
  Intervention Intervene(const CbExample& example, int concept_index, bool raise, int k, uint64_t seed) const;

 private:
  // x0 [B*T, D]: embedding rows, the pre-encoder concept dimensions overwritten.
  std::vector<float> Embed(std::span<const int> tokens, int batch, std::span<const double> concepts) const;
  std::vector<double> TiedLogits(std::span<const float> xf) const;  // [M, V]

  Conditioning conditioning_;
  CbShape shape_;
  lm_suite::CpuTransformer encoder_;
  std::optional<ref::cbplm::CbHead> head_;
};

}  // namespace cb::cbplm

#endif  // CB_SUITES_CBPLM_CB_MLM_H_

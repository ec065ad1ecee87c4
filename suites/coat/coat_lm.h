// File: suites/coat/coat_lm.h
// -----------------------------------------------------------------------------
// COAT (Xi et al., ICLR 2025) applied to the substrate's real transformer
// (suites/lm/cpu_transformer.h, trained by suites/lm/trainer.h), emulated on
// the CPU with the suite's bit-exact FP8 E4M3 quantizers:
//
//   CoatMomentStore       the FP8 optimizer state of §4: after every AdamW
//                         update, m and v of each parameter tensor are stored
//                         as E4M3 codes with Dynamic Range Expansion per 1x128
//                         group of that tensor (the authors' kernel:
//                         ref::coat::DreQuantize, groups never span two
//                         tensors) plus fp32 (s, k, c) per group; the next
//                         step reads the dequantized values. This is
//                         CoatAdamW's dataflow (dequantize, update with the
//                         unquantized new m, v, requantize) inside the
//                         trainer's torch-semantics AdamW, so an fp32 run and
//                         a COAT run differ only in how the moments are kept.
//   CoatActivationCompressor
//                         the mixed-granularity activations of §5: every
//                         tensor the forward pass saves for the backward pass
//                         is replaced by its FP8 E4M3 quantize-dequantize
//                         (what the backward then reads):
//                           linear-layer inputs (n, att, m, a): per-tensor
//                             scale (max|x| + 1e-10)/448, ref QuantizePerTensor;
//                           non-linear inputs (RMSNorm inputs x, h, xL; SiLU
//                             input gate; multiply input up): 1x16 groups along
//                             each row, bf16 scales, QuantizePerGroup16;
//                           attention core (q, k, v, p), the LM head's input
//                             and the RMSNorm statistics: kept (COAT leaves
//                             attention to BF16 FlashAttention and the head
//                             unquantized).
//                         The forward pass itself stays fp32 (its GEMMs read
//                         fp32 inputs): what is emulated is the compression
//                         of saved activations, not FP8 forward compute or
//                         E5M2 gradients.
//
// Both are measured as they run: the bytes the compressed state holds (codes
// + 12 B per group) and the bytes each saved tensor would occupy (FP8 codes +
// scales for the compressed roles, bf16 for the rest; fp32 for the baseline).
#ifndef CB_SUITES_COAT_COAT_LM_H_
#define CB_SUITES_COAT_COAT_LM_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/coat/quant.h"
#include "reference/lm/transformer_config.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/trainer.h"

namespace cb::coat {

// The FP8 E4M3 + DRE store of AdamW's moments, one DreTensor per parameter
// tensor and moment.
class CoatMomentStore {
 public:
  // One segment per tensor of `slots` (offset, size into the flat buffer).
  // REQUIRES: the slots tile [0, total) without overlap (else
  // std::invalid_argument).
  explicit CoatMomentStore(const std::vector<lm_suite::ParamSlot>& slots,
                           ref::coat::DreOptions options = {});

  // Quantizes m and v segment by segment and writes their dequantized values
  // back in place. REQUIRES: m.size() == v.size() == the slots' total.
  void Store(std::span<float> m, std::span<float> v);
  // A MomentHook (trainer.h) that calls Store; `this` must outlive it.
  lm_suite::MomentHook Hook();

  // Bytes the compressed state holds now: codes + (s, k, c) per group, both
  // moments (0 before the first Store).
  int64_t StateBytes() const;
  int64_t NumValues() const { return total_; }
  const std::vector<ref::coat::DreTensor>& m() const { return m_; }
  const std::vector<ref::coat::DreTensor>& v() const { return v_; }

 private:
  std::vector<std::pair<size_t, size_t>> segments_;  // (offset, size)
  int64_t total_ = 0;
  ref::coat::DreOptions options_;
  std::vector<ref::coat::DreTensor> m_, v_;
};

// Per role (lm_suite::SavedRole), elements the forward pass saved and the
// bytes they take in each storage scheme, summed over the hook's calls.
struct SavedBytes {
  static constexpr int kRoles = 5;
  std::array<int64_t, kRoles> elements{};
  std::array<int64_t, kRoles> coat_bytes{};  // FP8 codes + scales, or bf16 where kept
  int64_t attention_probs = 0;               // elements of p (within kAttentionCore)
  int64_t Elements() const;
  // with_attention_probs = false leaves p out of both: FlashAttention (the
  // paper's attention) recomputes it in the backward instead of saving it.
  int64_t CoatBytes(bool with_attention_probs = true) const;
  // Every saved value in bf16 (the paper's BF16 baseline), statistics in fp32.
  int64_t Bf16Bytes(bool with_attention_probs = true) const;
  int64_t Fp32Bytes() const;  // what our fp32 path holds
};

class CoatActivationCompressor {
 public:
  // compress = false: count only (the backward reads fp32 values).
  explicit CoatActivationCompressor(bool compress = true) : compress_(compress) {}

  // Compresses one saved tensor as the file comment says (or only counts it).
  // REQUIRES: values.size() % what.cols == 0 (else std::invalid_argument).
  void Apply(const lm_suite::SavedTensor& what, std::span<float> values);
  // An ActivationHook (cpu_transformer.h) that calls Apply; `this` must
  // outlive it.
  lm_suite::ActivationHook Hook();

  // The counts since construction or the last ResetCounts().
  const SavedBytes& counts() const { return counts_; }
  void ResetCounts() { counts_ = {}; }

 private:
  bool compress_;
  SavedBytes counts_;
};

// One training run of the substrate's transformer from random weights, fp32
// or with either COAT part on; held-out loss by the trainer's Evaluate (an
// fp32 forward pass of the trained weights).
struct LmRun {
  ref::lm::TransformerConfig config;
  lm_suite::TrainOptions options;
  uint64_t init_seed = 1;
  bool fp8_optimizer = false;    // CoatMomentStore on the moments
  bool fp8_activations = false;  // CoatActivationCompressor on the saved tensors
  std::vector<int> capture_steps;  // copy m, v after these steps' updates
  int eval_batches = 16;
  uint64_t eval_seed = 0xE7A1;
};
struct MomentCapture {
  int step = 0;               // 1-based step count
  std::vector<float> m, v;    // the fp32 values AdamW wrote (before any FP8 store)
};
struct LmRunResult {
  double heldout_loss = 0;
  double last_train_loss = 0;  // the last step's batch loss
  int64_t params = 0;
  int64_t state_bytes = 0;     // CoatMomentStore::StateBytes (fp8_optimizer), else 8 B/param
  SavedBytes saved_per_step;   // the last step's saved tensors (counted in every run)
  std::vector<MomentCapture> captures;
  std::vector<lm_suite::ParamSlot> slots;
  double seconds = 0;          // wall time of the training loop
};
LmRunResult TrainLm(const LmRun& run, std::span<const int> train_stream,
                    std::span<const int> heldout_stream);

}  // namespace cb::coat

#endif  // CB_SUITES_COAT_COAT_LM_H_

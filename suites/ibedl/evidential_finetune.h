// File: suites/ibedl/evidential_finetune.h
// -----------------------------------------------------------------------------
// LoRA fine-tuning of a substrate transformer (suites/lm) on a multiple-choice
// split with MAP, EDL or IB-EDL (reference/ibedl/evidential.h), and inference.
//
// Recipe (the authors' configs/_base_/edl_schedule.yaml and model yamls) and
// what we do:
//   LoRA r = 8, alpha = 16 on q_proj, v_proj and lm_head (lm_head only on an
//   untied model: the smoke model ties its head, so it gets q, v); AdamW
//   (betas 0.9/0.999, eps 1e-8, weight decay 1e-3 on every adapter value),
//   global-norm clipping at 20, linear warm-up then cosine to 0: the same.
//   Not the same: lr (ours `lr`, default 1e-3, for a few hundred steps, vs
//   5e-5 for 10,080 steps), batch (ours `batch`), fp32 (theirs bf16), no LoRA
//   dropout.
//   Batches: `batch` items per step from a per-epoch shuffle of the train
//   split (Rng(seed, 1000 + epoch)); prompts right-padded with token 0 to the
//   longest in the batch (causal attention: padding after a prompt does not
//   change its positions) and read at each prompt's last token.
//   MAP: cross-entropy of the K answer logits. EDL: ss + RegWeight(epoch,
//   epochs, 0.1, 1) * Dirichlet KL. IB-EDL: ss + beta * Gaussian KL with J
//   draws, eps [B, J, K] from Rng(seed, 2^32 + step).
//   Epochs: ceil(steps * batch / N) for the annealing (the callback's
//   num_train_epochs under max_steps).
//
// Inference: the model's last-position logits of each prompt, the evidential
// head's prediction (IB-EDL: J fresh draws per item from Rng(eval_seed, i):
// predictions are stochastic, as in the authors' code) or MAP's softmax.
//
// Deterministic given (model, data, options) on a fixed OpenBLAS thread count.
// Errors: options out of range or prompts longer than the context throw
// std::invalid_argument.
#ifndef CB_SUITES_IBEDL_EVIDENTIAL_FINETUNE_H_
#define CB_SUITES_IBEDL_EVIDENTIAL_FINETUNE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reference/ibedl/evidential.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::ibedl {

enum class Method { kMap, kEdl, kIbEdl };
const char* MethodName(Method m);  // "map" | "edl" | "ib_edl"

// A split's prompts as token ids, with the answer tokens.
struct TokenizedSplit {
  int k = 0;
  std::vector<int> target_ids;          // [K] last token of " A", " B", ...
  std::vector<std::vector<int>> prompts;
  std::vector<int> labels;              // training labels (possibly flipped)
  std::vector<int> clean_labels;
};

struct FineTuneOptions {
  Method method = Method::kIbEdl;
  int rank = 8;
  double lora_alpha = 16;
  int steps = 100;
  int batch = 8;
  double lr = 1e-3;
  int warmup = 10;
  double weight_decay = 1e-3;
  double clip = 20;
  int draws = 20;         // J
  double beta = 1e-5;     // IB-EDL's beta (clean OBQA/Llama3 yaml; 6e-5 noisy)
  uint64_t seed = 1;      // LoRA init, batch order, eps
};

struct FineTuneReport {
  int steps = 0;
  double first_loss = 0, last_loss = 0;
  size_t lora_params = 0;
  std::vector<std::string> targets;
};

// Returns base + merged adapters; `base` is unchanged.
cb::lm_suite::CpuTransformer FineTune(const cb::lm_suite::CpuTransformer& base, const TokenizedSplit& train,
                                      const FineTuneOptions& options, FineTuneReport* report = nullptr);

// Per item: the prediction of `method` (evidential head or MAP).
std::vector<cb::ref::ibedl::Prediction> Predict(const cb::lm_suite::CpuTransformer& model,
                                                const TokenizedSplit& split, Method method, int draws,
                                                uint64_t eval_seed, int batch = 16);

// The last-position logits (fp64) of every prompt: [N][V].
std::vector<std::vector<double>> LastLogits(const cb::lm_suite::CpuTransformer& model,
                                            const std::vector<std::vector<int>>& prompts, int batch = 16);

}  // namespace cb::ibedl

#endif  // CB_SUITES_IBEDL_EVIDENTIAL_FINETUNE_H_

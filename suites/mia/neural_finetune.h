// File: suites/mia/neural_finetune.h
// -----------------------------------------------------------------------------
// FSD's fine-tuning step (Zhang et al., ICLR 2025, §4; ml-stat-Sustech/
// Fine-tuned-Score-Deviation sft.py) on a substrate transformer: LoRA adapters
// (suites/lm/lora.h) trained with the substrate's AdamW trainer
// (suites/lm/trainer.h) on a few texts, the base weights frozen, then merged
// into a copy of the model that scores the texts again (FSD_S = S(θ') - S(θ)).
//
// FSD's recipe (brief §2 step 2) and what we do:
//   LoRA r = 16, alpha = 32, on PEFT's default targets for Llama (q_proj,
//   v_proj); lr 1e-3, cosine, warm-up 10 steps, 3 epochs, batch 8, weight
//   decay 5e-4, AdamW betas (0.9, 0.999) (transformers' defaults): the same.
//   Not the same: no LoRA dropout (0.05 in FSD; the substrate's forward has
//   no dropout); fp32 throughout (FSD trains an 8-bit base, evaluates fp16);
//   batches are `batch` random windows of `seq` tokens of the texts
//   concatenated (each text + its separator), the substrate trainer's
//   sampling, instead of one padded text per row; an epoch is
//   ceil(stream tokens / (batch * seq)) steps.
//
// Deterministic: a pure function of (model, texts, options, seed) on one
// OpenBLAS thread.
//
// Errors: options out of range, or texts too short for one window, throw
// std::invalid_argument with one line.
#ifndef CB_SUITES_MIA_NEURAL_FINETUNE_H_
#define CB_SUITES_MIA_NEURAL_FINETUNE_H_

#include <cstdint>
#include <vector>

#include "suites/lm/cpu_transformer.h"
#include "suites/lm/lora.h"
#include "suites/lm/trainer.h"

namespace cb::mia {

struct FsdFineTuneOptions {
  cb::lm_suite::LoraSpec lora{.rank = 16, .alpha = 32, .targets = {"q_proj", "v_proj"}};
  double lr = 1e-3;
  double epochs = 3;
  int batch = 8;
  int seq = 64;  // tokens per window; clipped to the stream and the model's context
  int warmup = 10;
  double weight_decay = 5e-4;
  uint64_t seed = 1;  // LoRA A's init and the batch order
};

struct FsdFineTuneReport {
  int steps = 0;
  double first_loss = 0, last_loss = 0;  // training loss of the first and last batch
  // Mean loss on the same 8 fixed batches of the fine-tuning stream before
  // and after fine-tuning (Trainer::Evaluate, seed 12345): did it learn them?
  double loss_before = 0, loss_after = 0;
  int64_t stream_tokens = 0;
  size_t lora_params = 0;
};

// `texts` are token ids, each already ending in its separator if it has one.
// Returns the fine-tuned model (base + merged adapters); `base` is unchanged.
cb::lm_suite::CpuTransformer FineTuneLora(const cb::lm_suite::CpuTransformer& base,
                                          const std::vector<std::vector<int>>& texts,
                                          const FsdFineTuneOptions& options,
                                          FsdFineTuneReport* report = nullptr);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_NEURAL_FINETUNE_H_

// File: suites/lm/trainer.h
// -----------------------------------------------------------------------------
// Training of the fp32 CPU transformer (cpu_transformer.h), or of any
// TrainableModel (the neural-ODE transformer of suites/odeformer): AdamW with
// decoupled weight decay, a cosine schedule with linear warm-up, global-norm
// gradient clipping, fp32 master weights, random windows of a token stream as
// batches; optionally LoRA adapters (lora.h) instead of the full weights.
//
//   lr(s)   = lr * (s + 1) / warmup                          for s < warmup
//           = lr * (r + (1 - r) (1 + cos(pi p)) / 2)         p = (s - warmup) / (steps - warmup)
//             with r = min_lr_ratio (step s counts from 0)
//   clip    g <- g * min(1, clip / ||g||_2)    (||g|| summed in fp64, in buffer order)
//   AdamW   (PyTorch's torch.optim.AdamW, maximize=False, amsgrad=False)
//           w <- w - lr * wd * w                 only on tensors of rank >= 2 (no norm weights)
//           m <- b1 m + (1 - b1) g,  v <- b2 v + (1 - b2) g^2
//           w <- w - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),  t = s + 1
//   batch s = `batch` windows of seq + 1 tokens of the stream, window i
//             starting at Rng(seed, s).UniformInt(0, n - seq - 1) drawn in
//             order; tokens = window[0, seq), targets = window[1, seq], weight 1.
//
// Determinism: a step is a pure function of (weights, optimizer state, stream,
// options, step, and the model's and trainer's hooks when set); with OpenBLAS on one thread two runs are bit-identical, and
// a run resumed from a checkpoint equals one that never stopped
// (trainer_test.cpp checks both).
//
// Errors: bad options or a stream shorter than seq + 2 tokens throw
// std::invalid_argument with one line.
#ifndef CB_SUITES_LM_TRAINER_H_
#define CB_SUITES_LM_TRAINER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suites/lm/cpu_transformer.h"
#include "suites/lm/lora.h"

namespace cb::lm_suite {

struct TrainOptions {
  int steps = 1000;
  int batch = 8;       // sequences per step
  int seq = 256;       // tokens per sequence
  int warmup = 50;
  double lr = 3e-3;
  double min_lr_ratio = 0.1;
  double weight_decay = 0.1;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double clip = 1.0;   // <= 0: no clipping
  uint64_t seed = 1;   // batch sampling

  nlohmann::json ToJson() const;
  static TrainOptions FromJson(const nlohmann::json& j);  // missing keys keep defaults
  void Validate() const;
};

// The learning rate of step s (0-based).
double ScheduledLr(const TrainOptions& o, int step);

// The batch of step s from `stream` (see the file comment).
Batch SampleBatch(std::span<const int> stream, int batch, int seq, uint64_t seed, int step);

// The trainable state besides the weights.
struct OptimizerState {
  int step = 0;               // steps done
  std::vector<float> m, v;    // AdamW moments, one per trainable value
};

// What one step reports.
struct StepReport {
  int step = 0;          // the step just done (1-based count)
  double loss = 0;       // training loss of its batch, before the update
  double lr = 0;
  double grad_norm = 0;  // before clipping
};

// Called after every step's update with the new step count and the moments
// AdamW just wrote; may overwrite them in place (what it leaves there is what
// the next step reads). COAT's FP8 optimizer states (suites/coat/coat_lm.h)
// store them quantized this way. Empty (the default): fp32 moments.
using MomentHook = std::function<void(int step, std::span<float> m, std::span<float> v)>;

// What the trainer can train besides CpuTransformer (e.g. the neural-ODE
// transformer of suites/odeformer): a flat fp32 parameter buffer, its tensors
// (weight decay applies to those of rank >= 2) and the batch loss with its
// gradient [params().size()], as CpuTransformer's members of the same names.
class TrainableModel {
 public:
  virtual ~TrainableModel() = default;
  virtual std::vector<float>& params() = 0;
  virtual const std::vector<ParamSlot>& slots() const = 0;
  virtual double LossAndGrad(const Batch& batch, std::span<float> grad) const = 0;
  virtual double Loss(const Batch& batch) const = 0;
};

class Trainer {
 public:
  // Any TrainableModel, all its values trained (no LoRA); it must outlive the
  // trainer.
  Trainer(TrainableModel& model, std::vector<int> stream, TrainOptions options,
          OptimizerState state = {});
  // Trains all of `model`'s weights, or only `lora`'s adapters when given (the
  // model then holds base + adapters after every step). Both must outlive the
  // trainer. `state` may come from a checkpoint (its step is where to resume).
  Trainer(CpuTransformer& model, std::vector<int> stream, TrainOptions options,
          OptimizerState state = {}, LoraAdapters* lora = nullptr);

  // Runs steps until state().step == options.steps or `stop()` returns true
  // (checked before each step); on_step after each. Returns steps run.
  int Run(const std::function<void(const StepReport&)>& on_step,
          const std::function<bool()>& stop = [] { return false; });
  StepReport Step();
  void set_moment_hook(MomentHook hook) { moment_hook_ = std::move(hook); }

  const OptimizerState& state() const { return state_; }
  const TrainOptions& options() const { return options_; }
  // Mean loss over `batches` held-out batches of `stream` (fixed seed).
  double Evaluate(std::span<const int> stream, int batches, uint64_t seed) const;

 private:
  void Init();  // validates the options and sizes the optimizer state

  std::unique_ptr<TrainableModel> owned_;  // the CpuTransformer adapter
  TrainableModel* model_;
  CpuTransformer* cpu_ = nullptr;  // for LoRA
  std::vector<int> stream_;
  TrainOptions options_;
  OptimizerState state_;
  LoraAdapters* lora_;
  std::vector<uint8_t> decay_;  // per trainable value: 1 if weight decay applies
  std::vector<float> grad_, lora_grad_;
  MomentHook moment_hook_;
};

// A training checkpoint: the model as a Hugging Face folder (config.json +
// model.safetensors, F32) plus optimizer.safetensors (m and v per tensor, F32)
// and trainer.json (options, step, data hash, LoRA spec). Written atomically
// (a temporary folder renamed over `dir`; an existing `dir` is replaced only
// after the new one is complete).
void SaveTrainingCheckpoint(const std::string& dir, const CpuTransformer& model,
                            const OptimizerState& state, const nlohmann::json& trainer_json,
                            const LoraAdapters* lora = nullptr);
struct TrainingCheckpoint {
  ref::lm::TransformerConfig config;
  ref::lm::NamedTensors weights;
  OptimizerState state;
  nlohmann::json trainer_json;
};
// Throws std::runtime_error with one line naming the file on a bad checkpoint.
TrainingCheckpoint LoadTrainingCheckpoint(const std::string& dir, size_t trainable_values);

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_TRAINER_H_

// File: reference/coat/mlp.h
// -----------------------------------------------------------------------------
// A small MLP trained with Fp32AdamW or CoatAdamW: the model on which COAT's
// optimizer claims are checked (C1 captures its AdamW moments, C4 compares the
// two optimizers' final losses, C5 measures their state bytes).
//
//   x (B, in) -> Linear W1 (hidden, in) + b1 -> ReLU
//             -> Linear W2 (hidden, hidden) + b2 -> ReLU
//             -> Linear W3 (out, hidden) + b3 -> softmax cross-entropy
//
// Parameters live in one flat fp32 vector (layout: W1, b1, W2, b2, W3, b3,
// row-major), so an optimizer sees them the way the authors' kernel sees a
// flattened parameter. Forward/backward accumulate dot products in fp64.
// Batches are deterministic: step t uses training rows (t*B + i) mod n_train.
#ifndef CB_REFERENCE_COAT_MLP_H_
#define CB_REFERENCE_COAT_MLP_H_

#include <cstdint>
#include <span>
#include <vector>

#include "reference/coat/dataset.h"
#include "reference/coat/adamw.h"

namespace cb::ref::coat {

struct MlpShape {
  int64_t in = 32, hidden = 128, out = 8;
  int64_t NumParams() const { return hidden * in + hidden + hidden * hidden + hidden + out * hidden + out; }
};

// He-normal weights (std sqrt(2 / fan_in)), zero biases, from Rng(seed, 7).
std::vector<float> InitMlp(const MlpShape& s, uint64_t seed);

// Mean cross-entropy over rows [row0, row0 + B) (indices mod task.n) of task;
// when grads is non-null it receives d loss / d params (NumParams(),).
double MlpLossAndGrad(const MlpShape& s, std::span<const float> params,
                      const LabelledData& task, std::span<const int64_t> rows,
                      std::vector<float>* grads);

enum class OptimizerKind { kFp32AdamW, kCoatAdamW };
const char* OptimizerName(OptimizerKind k);  // "fp32_adamw" | "coat_adamw"

struct TrainConfig {
  int steps = 500;
  int64_t batch = 64;
  uint64_t init_seed = 1;
  AdamWConfig adamw;
  DreOptions dre;
};

struct TrainResult {
  std::vector<double> train_loss;   // (steps,) loss of each step's batch, before its update
  double eval_loss = 0.0;           // mean CE on the held-out set after the last step
  std::vector<float> params;        // final parameters
  std::vector<float> m, v;          // final moments (dequantized for CoatAdamW)
  int64_t state_bytes = 0;          // optimizer.StateBytes()
  int64_t state_peak_bytes = 0;     // peak CountingAllocator bytes during training
};

// Trains on `train` and evaluates on `eval`.
TrainResult TrainMlp(const MlpShape& s, const LabelledData& train,
                     const LabelledData& eval, OptimizerKind kind, const TrainConfig& cfg);

}  // namespace cb::ref::coat

#endif  // CB_REFERENCE_COAT_MLP_H_

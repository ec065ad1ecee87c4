// File: suites/ibedl/experiment.h
// -----------------------------------------------------------------------------
// IB-EDL's experiment on a substrate transformer (issue 21): LoRA fine-tunes
// of fixtures/lm's model with MAP, EDL and IB-EDL on the synthetic
// multiple-choice task (generators/ibedl_mc.h), on clean and noisy training
// labels, over seeds; each run is scored on the clean ID test split (ACC, ECE,
// NLL, Brier, mean evidence S) and, for clean-label runs, on two OOD splits:
// another teacher with the same K and with K + 1 options (the K_ID != K_OOD
// pitfall), by max probability and by uncertainty mass (tools/ood.py).
//
// Seeds: run s uses FineTuneOptions::seed = base_seed + s (LoRA init, batch
// order, eps) and the same data (the data seed is fixed: what varies over
// seeds is the fine-tune, as in the paper's repeated runs).
//
// Errors: a model folder that does not load throws std::runtime_error naming it.
#ifndef CB_SUITES_IBEDL_EXPERIMENT_H_
#define CB_SUITES_IBEDL_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/ibedl/metrics.h"
#include "suites/ibedl/evidential_finetune.h"

namespace cb::ibedl {

struct ExperimentParams {
  std::string model_dir;           // a fixtures/lm model (config, weights, tokenizer)
  int k = 4;
  int n_train = 160, n_test = 100, n_ood = 100;
  int words = 12;
  int seeds = 3;
  uint64_t data_seed = 1, base_seed = 1;
  std::vector<double> noises = {0.0, 0.3};
  double beta_clean = 1e-5, beta_noisy = 6e-5;  // the OBQA/Llama3 yamls
  std::vector<double> beta_sweep;  // extra IB-EDL runs (clean, seed 0) at these betas
  FineTuneOptions ft;              // method, seed and beta are set per run
};

struct SplitMetrics {
  double acc = 0, ece = 0, nll = 0, brier = 0, mean_s = 0, mean_u = 0;
};

struct RunResult {
  Method method = Method::kMap;
  double noise = 0, beta = 0;
  int seed_index = 0;
  SplitMetrics test;
  bool has_ood = false;
  cb::ref::ibedl::OodScores ood, ood_k;  // same K; K + 1
  double seconds = 0;
  double first_loss = 0, last_loss = 0;
};

struct ExperimentResult {
  std::vector<RunResult> runs;
  std::vector<RunResult> sweep;  // beta_sweep runs
  std::string data_hash;         // of the four splits
  std::string model_hash;        // XXH3-128 of the base weights
  int64_t parameters = 0;
  size_t lora_params = 0;
  std::vector<std::string> lora_targets;
  std::vector<int> target_ids;
  double seconds = 0;
  // Per method, the runs at `noise` in seed order.
  std::vector<const RunResult*> Runs(Method m, double noise) const;
};

// `progress` is called after each fine-tune with its result.
ExperimentResult RunExperiment(const ExperimentParams& params,
                               const std::function<void(int done, int total, const RunResult& run)>& progress = {});

SplitMetrics ScoreSplit(const std::vector<cb::ref::ibedl::Prediction>& preds, const std::vector<int>& labels,
                        int k, bool evidential);

}  // namespace cb::ibedl

#endif  // CB_SUITES_IBEDL_EXPERIMENT_H_

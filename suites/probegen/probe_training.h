// File: suites/probegen/probe_training.h
// -----------------------------------------------------------------------------
// Training and evaluating a zoo-accuracy predictor with three kinds of probes,
// as the authors' main.py@4872aa7 does for the CNN zoos (regression of each
// model's test accuracy, MSE loss, Kendall tau-b on held-out models):
//
//   kProbeGen  probes = tanh(deep linear generator(z)), z and the generator
//              trained with the predictor
//   kVanilla   probes = tanh(P), the raw probes P trained (the authors'
//              deep_linear_0: "vanilla probing")
//   kRandom    probes U(-1, 1), fixed; only the predictor is trained
//
// Per step: a batch of training models; each runs on all n probes (fp64
// reference forward, one model per thread); the logits, concatenated, go
// through the predictor; MSE against the models' accuracies; gradients flow
// back through the predictor, through every model to the probes (summed over
// the batch in model order, so the result does not depend on the thread
// count), and through tanh and the generator. Adam with cosine decay per
// step (reference/probegen/adam.h). The model of the last step is evaluated:
// no checkpoint is chosen on the test split (the authors' loop evaluates the
// test split during training; we never look at it before the end).
#ifndef CB_SUITES_PROBEGEN_PROBE_TRAINING_H_
#define CB_SUITES_PROBEGEN_PROBE_TRAINING_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/probegen/zoo_model.h"

namespace cb::probegen {

enum class ProbeMethod { kProbeGen, kVanilla, kRandom };
const char* ProbeMethodName(ProbeMethod m);  // "probegen" | "vanilla" | "random"

struct ProbeTrainOptions {
  ProbeMethod method = ProbeMethod::kProbeGen;
  std::string generator = "deep_linear_5";  // kProbeGen only
  int probes = 64;                          // n
  int epochs = 30;
  int batch = 32;
  double lr = 3e-4;
  int hidden = 256;   // predictor width
  int n_layers = 6;   // predictor linear layers
  uint64_t seed = 1;  // init of probes, generator and predictor, batch order
  int threads = 0;    // 0: all cores
};

// The models and their measured accuracies, and which of them train.
struct ZooTask {
  std::vector<const ref::probegen::ZooModel*> models;
  std::vector<double> accuracy;
  std::vector<int> train, test;  // indices into models
};

// A deterministic split: `test_fraction` of the models (at least 2) held out,
// chosen by a shuffle from Rng(seed, 31). REQUIRES: n >= 4.
void SplitZoo(ZooTask* task, double test_fraction, uint64_t seed);

struct ProbeRunResult {
  std::vector<double> predicted;  // test models, in task.test order
  std::vector<double> actual;
  double kendall_tau = 0.0;
  // The held-out models split at their median accuracy; a model counts as
  // right when it lands on the same side of the median of the predictions.
  // Chance is 0.5.
  double above_median_accuracy = 0.0;
  double first_loss = 0.0, last_loss = 0.0;  // mean training MSE of the first / last epoch
  int64_t steps = 0;
};

// progress(step, total_steps) after each step.
ProbeRunResult TrainAndEvaluate(const ZooTask& task, const ProbeTrainOptions& o,
                                const std::function<void(int64_t, int64_t)>& progress = {});

// The held-out side-of-median accuracy defined above.
double AboveMedianAccuracy(const std::vector<double>& predicted, const std::vector<double>& actual);

}  // namespace cb::probegen

#endif  // CB_SUITES_PROBEGEN_PROBE_TRAINING_H_

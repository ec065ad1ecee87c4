// File: suites/probegen/probe_training.cpp
#include "suites/probegen/probe_training.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>

#include "harness/parallel.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "reference/probegen/adam.h"
#include "reference/probegen/generator.h"
#include "reference/probegen/kendall.h"
#include "reference/probegen/predictor.h"

namespace cb::probegen {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;

const char* ProbeMethodName(ProbeMethod m) {
  switch (m) {
    case ProbeMethod::kProbeGen: return "probegen";
    case ProbeMethod::kVanilla: return "vanilla";
    case ProbeMethod::kRandom: return "random";
  }
  return "?";
}

void SplitZoo(ZooTask* task, double test_fraction, uint64_t seed) {
  const int n = int(task->models.size());
  if (n < 4 || task->accuracy.size() != size_t(n))
    throw std::invalid_argument("SplitZoo: need >= 4 models, each with an accuracy");
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  h::Rng rng(seed, 31);
  rng.Shuffle(std::span<int>(order));
  const int n_test = std::clamp(int(std::lround(test_fraction * n)), 2, n - 2);
  task->test.assign(order.begin(), order.begin() + n_test);
  task->train.assign(order.begin() + n_test, order.end());
  std::sort(task->test.begin(), task->test.end());
  std::sort(task->train.begin(), task->train.end());
}

double AboveMedianAccuracy(const std::vector<double>& predicted, const std::vector<double>& actual) {
  const double mp = h::Median(predicted), ma = h::Median(actual);
  int right = 0;
  for (size_t i = 0; i < actual.size(); ++i) right += (predicted[i] > mp) == (actual[i] > ma);
  return actual.empty() ? 0.0 : double(right) / double(actual.size());
}

namespace {

// Everything that is trained, with one Adam slot per tensor.
struct Trainables {
  rp::GeneratorSpec spec;
  rp::GeneratorParams gen;        // kProbeGen and kVanilla
  std::vector<double> fixed;      // kRandom: the probes
  rp::Mlp predictor;
};

// Logits of `models` (indices into task.models) on the probes, concatenated
// per model: features (models.size(), n * classes). Keeps each model's trace
// when `traces` is non-null.
void Features(const ZooTask& task, const std::vector<int>& models, int n, const std::vector<double>& probes,
              int threads, std::vector<double>* features, std::vector<rp::ZooTrace>* traces) {
  const int classes = task.models[0]->arch.classes;
  const size_t width = size_t(n) * classes;
  features->assign(models.size() * width, 0.0);
  if (traces) traces->assign(models.size(), {});
  h::ParallelFor(int64_t(models.size()), threads, [&](int, int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      rp::ZooForward(*task.models[models[j]], n, probes.data(), features->data() + j * width,
                     traces ? &(*traces)[j] : nullptr);
    }
  });
}

}  // namespace

ProbeRunResult TrainAndEvaluate(const ZooTask& task, const ProbeTrainOptions& o,
                                const std::function<void(int64_t, int64_t)>& progress) {
  if (task.train.empty() || task.test.size() < 2)
    throw std::invalid_argument("TrainAndEvaluate: need training models and >= 2 held-out ones");
  if (o.probes < 1 || o.epochs < 1 || o.batch < 1)
    throw std::invalid_argument("TrainAndEvaluate: probes, epochs and batch must be >= 1");
  const rp::ZooArch& arch = task.models[0]->arch;
  const int n = o.probes, classes = arch.classes;
  const int threads = o.threads > 0 ? o.threads : h::HardwareThreads();
  const size_t width = size_t(n) * classes;
  const int64_t probe_elems = int64_t(arch.channels) * arch.size * arch.size;

  Trainables t;
  const bool learned_probes = o.method != ProbeMethod::kRandom;
  if (learned_probes) {
    t.spec = rp::MakeGenerator(o.method == ProbeMethod::kProbeGen ? o.generator : "vanilla", arch.channels);
    if (t.spec.ProbeElems() != probe_elems)
      throw std::invalid_argument("TrainAndEvaluate: the generator makes " + std::to_string(t.spec.size) +
                                  "-pixel probes, the zoo reads " + std::to_string(arch.size));
    t.gen = rp::InitGenerator(t.spec, n, o.seed);
  } else {
    h::Rng rng(o.seed, 32);
    t.fixed.resize(size_t(n) * probe_elems);
    for (double& v : t.fixed) v = 2.0 * rng.Uniform() - 1.0;  // torch.rand * 2 - 1
  }
  t.predictor = rp::MakePredictor(int(width), o.hidden, 1, o.n_layers, o.seed);

  const int n_train = int(task.train.size());
  const int64_t per_epoch = (n_train + o.batch - 1) / o.batch;
  const int64_t total = per_epoch * o.epochs;
  rp::Adam adam;
  h::Rng order_rng(o.seed, 33);
  std::vector<int> order = task.train;
  std::vector<double> probes(size_t(n) * probe_elems), features, dfeat, y, dy, dprobes;
  std::vector<rp::ZooTrace> traces;
  rp::GeneratorTrace gtrace;
  rp::Mlp pgrad;
  rp::MlpTrace mtrace;
  rp::GeneratorParams ggrad;
  ProbeRunResult r;
  int64_t step = 0;
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    order_rng.Shuffle(std::span<int>(order));  // DataLoader(shuffle=True)
    double epoch_loss = 0.0;
    for (int b0 = 0; b0 < n_train; b0 += o.batch, ++step) {
      const std::vector<int> batch(order.begin() + b0, order.begin() + std::min(n_train, b0 + o.batch));
      const int B = int(batch.size());
      if (learned_probes) rp::GeneratorForward(t.spec, t.gen, probes.data(), nullptr, &gtrace);
      else probes = t.fixed;
      Features(task, batch, n, probes, threads, &features, learned_probes ? &traces : nullptr);
      y.resize(B);
      rp::MlpForward(t.predictor, B, features.data(), y.data(), &mtrace);
      dy.resize(B);
      double loss = 0.0;
      for (int j = 0; j < B; ++j) {
        const double e = y[j] - task.accuracy[batch[j]];
        loss += e * e / B;
        dy[j] = 2.0 * e / B;  // nn.MSELoss(reduction="mean")
      }
      epoch_loss += loss;
      dfeat.assign(features.size(), 0.0);
      rp::MlpBackward(t.predictor, B, mtrace, dy.data(), &pgrad, learned_probes ? dfeat.data() : nullptr);
      const double lr = rp::CosineLr(o.lr, step, total);
      int slot = 0;
      for (int l = 0; l < t.predictor.Layers(); ++l) {
        adam.Update(slot++, t.predictor.w[l], pgrad.w[l], lr, step);
        adam.Update(slot++, t.predictor.b[l], pgrad.b[l], lr, step);
      }
      if (learned_probes) {
        // Each model's gradient with respect to the probes, then their sum in
        // batch order (not in thread order).
        std::vector<std::vector<double>> per_model(B, std::vector<double>(probes.size()));
        h::ParallelFor(B, threads, [&](int, int64_t begin, int64_t end) {
          for (int64_t j = begin; j < end; ++j)
            rp::ZooBackward(*task.models[batch[j]], n, traces[j], dfeat.data() + j * width, nullptr,
                            per_model[j].data());
        });
        dprobes.assign(probes.size(), 0.0);
        for (int j = 0; j < B; ++j)
          for (size_t e = 0; e < probes.size(); ++e) dprobes[e] += per_model[j][e];
        rp::GeneratorBackward(t.spec, t.gen, gtrace, probes.data(), dprobes.data(), &ggrad);
        adam.Update(slot++, t.gen.input, ggrad.input, lr, step);
        for (size_t l = 0; l < t.gen.weight.size(); ++l) {
          adam.Update(slot++, t.gen.weight[l], ggrad.weight[l], lr, step);
          adam.Update(slot++, t.gen.bias[l], ggrad.bias[l], lr, step);
        }
      }
      if (progress) progress(step + 1, total);
    }
    epoch_loss /= double(per_epoch);
    if (epoch == 0) r.first_loss = epoch_loss;
    r.last_loss = epoch_loss;
  }
  r.steps = step;

  // The model after the last step, on the held-out models.
  if (learned_probes) rp::GeneratorForward(t.spec, t.gen, probes.data(), nullptr, nullptr);
  else probes = t.fixed;
  Features(task, task.test, n, probes, threads, &features, nullptr);
  r.predicted.resize(task.test.size());
  rp::MlpForward(t.predictor, int(task.test.size()), features.data(), r.predicted.data(), nullptr);
  for (int i : task.test) r.actual.push_back(task.accuracy[i]);
  r.kendall_tau = rp::KendallTauB(r.predicted, r.actual);
  r.above_median_accuracy = AboveMedianAccuracy(r.predicted, r.actual);
  return r;
}

}  // namespace cb::probegen

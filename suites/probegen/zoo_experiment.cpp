// File: suites/probegen/zoo_experiment.cpp
#include "suites/probegen/zoo_experiment.h"

#include <map>
#include <memory>
#include <mutex>

#include "harness/parallel.h"

namespace cb::probegen {

namespace {

std::mutex& CacheMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

const gen::ModelZoo& SharedZoo(const gen::ZooParams& params) {
  static std::map<std::string, std::unique_ptr<gen::ModelZoo>> zoos;
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto& slot = zoos[params.Canonical()];
  if (!slot) slot = std::make_unique<gen::ModelZoo>(gen::TrainModelZoo(params, cb::harness::HardwareThreads()));
  return *slot;
}

ZooTask TaskOf(const gen::ModelZoo& zoo) {
  ZooTask task;
  for (const gen::ZooMember& m : zoo.members) {
    task.models.push_back(&m.model);
    task.accuracy.push_back(m.test_accuracy);
  }
  return task;
}

std::string ComparisonSetting::Describe() const {
  return "zoo " + zoo.Canonical() + "; " + std::to_string(train.probes) + " probes, " + train.generator + ", " +
         std::to_string(train.epochs) + " epochs, batch " + std::to_string(train.batch) + ", Adam " +
         std::to_string(train.lr) + " cosine; " + std::to_string(seeds) + " seeds, " +
         std::to_string(int(test_fraction * 100 + 0.5)) + "% of the models held out";
}

const std::vector<SeedRuns>& SharedComparison(const ComparisonSetting& s,
                                              const std::function<void(double)>& progress) {
  static std::map<std::string, std::unique_ptr<std::vector<SeedRuns>>> done;
  const std::string key = s.Describe() + ";seed=" + std::to_string(s.seed);
  {
    std::lock_guard<std::mutex> lock(CacheMutex());
    if (auto it = done.find(key); it != done.end()) return *it->second;
  }
  const gen::ModelZoo& zoo = SharedZoo(s.zoo);
  auto runs = std::make_unique<std::vector<SeedRuns>>();
  const int total = 3 * s.seeds;
  int finished = 0;
  for (int k = 0; k < s.seeds; ++k) {
    SeedRuns r;
    r.split_seed = s.seed + k;
    ZooTask task = TaskOf(zoo);
    SplitZoo(&task, s.test_fraction, r.split_seed);
    for (ProbeMethod m : {ProbeMethod::kProbeGen, ProbeMethod::kVanilla, ProbeMethod::kRandom}) {
      ProbeTrainOptions o = s.train;
      o.method = m;
      o.seed = s.seed + 1000 + k;
      ProbeRunResult result = TrainAndEvaluate(task, o, [&](int64_t step, int64_t steps) {
        if (progress) progress((finished + double(step) / double(steps)) / total);
      });
      (m == ProbeMethod::kProbeGen ? r.probegen : m == ProbeMethod::kVanilla ? r.vanilla : r.random) =
          std::move(result);
      ++finished;
    }
    runs->push_back(std::move(r));
  }
  std::lock_guard<std::mutex> lock(CacheMutex());
  auto& slot = done[key];
  if (!slot) slot = std::move(runs);
  return *slot;
}

}  // namespace cb::probegen

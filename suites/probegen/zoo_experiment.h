// File: suites/probegen/zoo_experiment.h
// -----------------------------------------------------------------------------
// The zoo and the seeded method comparison the claims share, each computed
// once per process and setting (a `claimbench run` asks for them from two
// claims): TrainModelZoo is minutes at the quick profile, and one comparison
// trains three predictors per seed.
#ifndef CB_SUITES_PROBEGEN_ZOO_EXPERIMENT_H_
#define CB_SUITES_PROBEGEN_ZOO_EXPERIMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "generators/modelzoo.h"
#include "suites/probegen/probe_training.h"

namespace cb::probegen {

// TrainModelZoo(params) on all cores, trained on first use.
const gen::ModelZoo& SharedZoo(const gen::ZooParams& params);

// Every model of the zoo with its accuracy (no split yet).
ZooTask TaskOf(const gen::ModelZoo& zoo);

struct ComparisonSetting {
  gen::ZooParams zoo;
  ProbeTrainOptions train;  // method and seed are set per run
  int seeds = 3;
  double test_fraction = 0.2;
  uint64_t seed = 1;  // seed s uses split seed + s and training seed + 1000 + s
  std::string Describe() const;
};

// One seed's three runs, each on the same split.
struct SeedRuns {
  uint64_t split_seed = 0;
  ProbeRunResult probegen, vanilla, random;
};

// progress(fraction) while training.
const std::vector<SeedRuns>& SharedComparison(const ComparisonSetting& s,
                                              const std::function<void(double)>& progress);

}  // namespace cb::probegen

#endif  // CB_SUITES_PROBEGEN_ZOO_EXPERIMENT_H_

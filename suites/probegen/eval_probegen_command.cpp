// File: suites/probegen/eval_probegen_command.cpp
// `claimbench eval probegen --zoo DIR`: ProbeGen, vanilla probing and random
// probes trained on a user's zoo (one safetensors file per model, the layout
// of reference/probegen/zoo_io.h and suites/probegen/README.md) to predict
// each model's test accuracy; reports Kendall tau-b and the above-median
// accuracy on the held-out models, per method and seed, and records them.
//   --probes N (64), --epochs N (30), --generator deep_linear_5|deep_linear_6,
//   --methods probegen,vanilla,random, --seeds K (1), --test-fraction F (0.2),
//   --seed S, --threads T, --ledger, --json
// Every model file is read and checked, and every option, before training;
// the ledger run is begun only when the scores exist, so bad input and an
// interrupted training (SIGINT: exit 3, harness/interrupt.h) record nothing.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/interrupt.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "ledger/cli/common.h"
#include "ledger/ledger.h"
#include "ledger/run_guard.h"
#include "reference/probegen/generator.h"
#include "reference/probegen/zoo_io.h"
#include "suites/probegen/probe_training.h"

namespace cb::cli {
namespace {

namespace h = cb::harness;
namespace pg = cb::probegen;
namespace rp = cb::ref::probegen;

struct EvalProbegenOptions {
  std::string zoo, ledger, generator = "deep_linear_5", methods = "probegen,vanilla,random";
  int probes = 64, epochs = 30, seeds = 1, threads = 0;
  double test_fraction = 0.2;
  uint64_t seed = 1;
  bool json = false;
};

std::vector<pg::ProbeMethod> ParseMethods(const std::string& text) {
  std::vector<pg::ProbeMethod> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item == "probegen") out.push_back(pg::ProbeMethod::kProbeGen);
    else if (item == "vanilla") out.push_back(pg::ProbeMethod::kVanilla);
    else if (item == "random") out.push_back(pg::ProbeMethod::kRandom);
    else throw UsageError("--methods '" + item + "': expected probegen, vanilla or random");
  }
  if (out.empty()) throw UsageError("--methods: name at least one of probegen, vanilla, random");
  return out;
}

struct Scored {
  pg::ProbeMethod method;
  uint64_t split_seed;
  pg::ProbeRunResult result;
};

int RunEvalProbegen(const EvalProbegenOptions& o, const CommandLine& cmdline) {
  if (o.zoo.empty()) throw UsageError("give --zoo DIR (one .safetensors file per model)");
  const std::vector<pg::ProbeMethod> methods = ParseMethods(o.methods);
  if (o.probes < 1 || o.probes > 4096) throw UsageError("--probes must be in [1, 4096]");
  if (o.epochs < 1 || o.epochs > 100000) throw UsageError("--epochs must be in [1, 100000]");
  if (o.seeds < 1 || o.seeds > 1000) throw UsageError("--seeds must be in [1, 1000]");
  if (!(o.test_fraction > 0 && o.test_fraction < 1)) throw UsageError("--test-fraction must be in (0, 1)");
  try {
    rp::MakeGenerator(o.generator, 1);
  } catch (const std::invalid_argument&) {
    throw UsageError("--generator '" + o.generator + "': expected deep_linear_5 or deep_linear_6");
  }
  std::vector<rp::StoredZooModel> stored;
  try {
    stored = rp::ReadZooDir(o.zoo);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (stored.size() < 6) throw UsageError("--zoo " + o.zoo + ": " + std::to_string(stored.size()) +
                                          " models; need at least 6 (some to train on, some held out)");
  const rp::ZooArch& arch = stored[0].model.arch;
  const rp::GeneratorSpec spec = rp::MakeGenerator(o.generator, arch.channels);
  for (pg::ProbeMethod m : methods)
    if (m != pg::ProbeMethod::kRandom && arch.size != spec.size)
      throw UsageError("--zoo " + o.zoo + ": the models read " + std::to_string(arch.size) + "x" +
                       std::to_string(arch.size) + " images; learned probes are " + std::to_string(spec.size) +
                       "x" + std::to_string(spec.size) + " (use --methods random)");

  pg::ZooTask base;
  h::Hasher input;
  for (const rp::StoredZooModel& s : stored) {
    base.models.push_back(&s.model);
    base.accuracy.push_back(s.test_accuracy);
    for (const auto& w : s.model.w) input.Update(h::HashDoubles(w).Hex());
    for (const auto& b : s.model.b) input.Update(h::HashDoubles(b).Hex());
    input.Update(std::to_string(s.test_accuracy));
  }
  const std::string input_hash = input.Digest().Hex();

  const int total_runs = o.seeds * int(methods.size());
  h::ProgressBar bar(total_runs);
  std::vector<Scored> scored;
  for (int k = 0; k < o.seeds; ++k) {
    pg::ZooTask task = base;
    pg::SplitZoo(&task, o.test_fraction, o.seed + k);
    for (pg::ProbeMethod m : methods) {
      const pg::ProbeTrainOptions t{.method = m, .generator = o.generator, .probes = o.probes,
                                    .epochs = o.epochs, .seed = o.seed + 1000 + k, .threads = o.threads};
      const int done = int(scored.size());
      // The check point, per training step (harness/interrupt.h): nothing is
      // recorded before every training has finished.
      pg::ProbeRunResult r = pg::TrainAndEvaluate(task, t, [&](int64_t step, int64_t steps) {
        h::ThrowIfInterrupted("after " + std::to_string(done) + " of " + std::to_string(total_runs) + " trainings");
        bar.Update(done, double(step) / double(steps), pg::ProbeMethodName(m));
      });
      scored.push_back({m, o.seed + k, std::move(r)});
    }
  }
  bar.Clear();

  std::vector<h::Result> rows;
  nlohmann::json runs = nlohmann::json::array();
  for (const Scored& s : scored) {
    const nlohmann::json params = {{"source", std::filesystem::path(o.zoo).filename().string()},
                                   {"models", stored.size()}, {"method", pg::ProbeMethodName(s.method)},
                                   {"split_seed", s.split_seed}, {"probes", o.probes}, {"epochs", o.epochs},
                                   {"generator", o.generator}, {"held_out", s.result.actual.size()}};
    const std::string out = h::HashDoubles(s.result.predicted).Hex();
    for (const auto& [metric, value] : {std::pair{"kendall_tau", s.result.kendall_tau},
                                        std::pair{"above_median_accuracy", s.result.above_median_accuracy}}) {
      h::Result r;
      r.suite = "probegen";
      r.case_name = "eval_zoo";
      r.backend = "cpu";
      r.params = params;
      r.metric = metric;
      r.unit = "1";
      r.direction = "higher";
      r.value = value;
      r.n = int64_t(s.result.actual.size());
      r.input_hash = input_hash;
      r.output_hash = out;
      rows.push_back(r);
    }
    runs.push_back({{"method", pg::ProbeMethodName(s.method)}, {"split_seed", s.split_seed},
                    {"kendall_tau", s.result.kendall_tau},
                    {"above_median_accuracy", s.result.above_median_accuracy},
                    {"final_train_mse", s.result.last_loss}});
  }

  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  cb::ledger::RunGuard run(ledger, ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed)));
  ledger.AddResults(run.run_id(), rows);
  run.Finish(cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run.run_id());
  if (o.json) {
    std::cout << nlohmann::json({{"run_id", run.run_id()}, {"run_hash", summary.run_hash}, {"runs", runs}}).dump(2)
              << "\n";
    return kExitOk;
  }
  std::printf("%zu models from %s (%dx%d, %d classes), %d probes, %d epochs, %.0f%% held out\n", stored.size(),
              o.zoo.c_str(), arch.size, arch.size, arch.classes, o.probes, o.epochs, o.test_fraction * 100);
  std::printf("%-9s %-6s %-10s %-13s %s\n", "method", "seed", "kendall_tau", "above_median", "final_train_mse");
  for (const Scored& s : scored)
    std::printf("%-9s %-6llu %-11.4f %-13.4f %.5f\n", pg::ProbeMethodName(s.method),
                static_cast<unsigned long long>(s.split_seed), s.result.kendall_tau, s.result.above_median_accuracy,
                s.result.last_loss);
  std::printf("\nrun %lld complete, run_hash %s\n", static_cast<long long>(run.run_id()), summary.run_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddEvalProbegenCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalProbegenOptions>();
  CLI::App* c = eval->add_subcommand("probegen", "ProbeGen: predict zoo models' accuracy from learned probes "
                                                 "(against vanilla and random probes)");
  c->add_option("--zoo", o->zoo, "Folder of zoo models, one .safetensors each (suites/probegen/README.md)");
  c->add_option("--probes", o->probes, "Probes per model")->capture_default_str();
  c->add_option("--epochs", o->epochs, "Training epochs of each predictor")->capture_default_str();
  c->add_option("--generator", o->generator, "deep_linear_5 or deep_linear_6")->capture_default_str();
  c->add_option("--methods", o->methods, "Comma-separated: probegen, vanilla, random")->capture_default_str();
  c->add_option("--seeds", o->seeds, "Splits / training seeds")->capture_default_str();
  c->add_option("--test-fraction", o->test_fraction, "Share of the models held out")->capture_default_str();
  c->add_option("--seed", o->seed, "First split seed (training seeds follow from it)")->capture_default_str();
  c->add_option("--threads", o->threads, "Threads (0: all cores)")->capture_default_str();
  c->add_flag("--json", o->json, "Print the run as JSON");
  AddLedgerOption(c, &o->ledger);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalProbegen(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_probegen, AddEvalProbegenCommand);

}  // namespace cb::cli

// File: suites/probegen/gen_modelzoo_command.cpp
// `claimbench gen modelzoo --out DIR [--models N] [--train-images N]
// [--test-images N] [--max-epochs N] [--seed S] [--threads T]`: trains the
// procedural model zoo (generators/modelzoo.h) and writes one safetensors
// file per model plus manifest.json (the layout `eval probegen --zoo` reads,
// suites/probegen/README.md). Every argument is checked before training; an
// existing DIR is refused, so a zoo is never half overwritten; SIGINT stops
// after the model in training, before anything is written.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "generators/modelzoo.h"
#include "harness/interrupt.h"
#include "harness/cli/commands.h"
#include "harness/parallel.h"
#include "harness/progress.h"

namespace cb::cli {
namespace {

struct GenModelZooOptions {
  std::string out;
  cb::gen::ZooParams params;
  int threads = 0;
};

void CheckRange(const char* flag, int v, int lo, int hi) {
  if (v < lo || v > hi)
    throw UsageError(std::string(flag) + " " + std::to_string(v) + ": must be in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
}

int RunGenModelZoo(const GenModelZooOptions& o) {
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  CheckRange("--models", o.params.models, 1, 100000);
  CheckRange("--train-images", o.params.train_images, 1, 1000000);
  CheckRange("--test-images", o.params.test_images, 1, 1000000);
  CheckRange("--max-epochs", o.params.max_epochs, 1, 1000);
  CheckRange("--threads", o.threads, 0, 4096);
  cb::harness::ProgressBar bar(o.params.models);
  const int threads = o.threads > 0 ? o.threads : cb::harness::HardwareThreads();
  // The check point runs per trained model (harness/interrupt.h); Main prints
  // the line, and nothing has been written by then.
  const cb::gen::ModelZoo zoo = cb::gen::TrainModelZoo(o.params, threads, [&](int done, int total) {
    cb::harness::ThrowIfInterrupted("after " + std::to_string(done) + " of " + std::to_string(total) + " models");
    bar.Update(done, 0, "training models");
  });
  bar.Clear();
  cb::gen::WriteModelZoo(zoo, o.out);
  double lo = 1, hi = 0;
  for (const auto& m : zoo.members) lo = std::min(lo, m.test_accuracy), hi = std::max(hi, m.test_accuracy);
  std::printf("%zu models -> %s, test accuracy %.3f..%.3f, content hash %s\n", zoo.members.size(), o.out.c_str(), lo,
              hi, zoo.hash.Hex().c_str());
  return kExitOk;
}

}  // namespace

void AddGenModelZooCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenModelZooOptions>();
  CLI::App* c = gen->add_subcommand("modelzoo", "A zoo of small CNN / MLP classifiers on procedural shapes "
                                                "(ProbeGen's input), one safetensors file per model");
  c->add_option("--out", o->out, "Folder to create (must not exist)")->required();
  c->add_option("--models", o->params.models, "Number of models")->capture_default_str();
  c->add_option("--train-images", o->params.train_images, "Training images per model")->capture_default_str();
  c->add_option("--test-images", o->params.test_images, "Images that measure each model's accuracy")
      ->capture_default_str();
  c->add_option("--max-epochs", o->params.max_epochs, "Most epochs a model trains (drawn per model)")
      ->capture_default_str();
  c->add_option("--seed", o->params.seed, "Generator seed")->capture_default_str();
  c->add_option("--threads", o->threads, "Training threads (0: all cores)")->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunGenModelZoo(*o); });
}

CB_REGISTER_COMMAND(gen_modelzoo, AddGenModelZooCommand);

}  // namespace cb::cli

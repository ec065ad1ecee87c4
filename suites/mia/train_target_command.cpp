// File: suites/mia/train_target_command.cpp
// `claimbench mia train-target --split mimir|wikimia --out DIR [--preset
//  draft|smoke|target] [--repeats N] [--steps N] [--threads N]`: trains a
// membership-inference target transformer on one split's training set
// (MakeMiaCorpus with the split's defaults, seed 1: background + each member
// --repeats times, one rendered document per line), as `claimbench train`
// (suites/lm/train_command.cpp) trains the substrate's models on the default
// WikiMIA-like corpus: the same presets, schedules and trainer, a byte-level
// BPE of the preset's vocabulary trained on the same text. DIR gets
// config.json, model.safetensors (F32), merges.txt, vocab.json and
// trainer.json (preset, options, corpus params and content hash, tokenizer
// hash, threads, OpenBLAS core, losses, wall time, weights hash), which
// neural_experiment.h checks against the corpus it evaluates.
//
// fixtures/lm/mia-mimir is `claimbench mia train-target --split mimir --out
// fixtures/lm/mia-mimir --threads 1` (fixtures/PROVENANCE.md). With
// --threads 1 the result is a pure function of the options and the code on a
// machine whose OpenBLAS picks the same kernels.
//
// No checkpoints or --resume (a draft-sized run takes minutes): DIR is built
// as DIR.tmp and renamed when training has finished; an existing DIR is
// refused.
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/corpora.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/progress.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/transformer.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/model_presets.h"
#include "suites/lm/trainer.h"

namespace cb::mia {
namespace {

namespace fs = std::filesystem;
namespace ls = cb::lm_suite;
using cb::cli::UsageError;

struct TrainTargetOptions {
  std::string split = "mimir";
  std::string preset = "draft";
  std::string out;
  int repeats = 1;
  int steps = 0;
  int threads = 0;
};

// The presets' recipes of `claimbench train` (suites/lm/train_command.cpp).
ls::TrainOptions Recipe(const std::string& preset, int* vocab) {
  ls::TrainOptions o;
  o.batch = 8;
  o.seq = 256;
  o.weight_decay = 0.1;
  o.clip = 1.0;
  o.seed = 1;
  *vocab = ls::kSubstrateVocab;
  if (preset == "target") {
    o.steps = 600, o.warmup = 30, o.lr = 2e-3;
  } else if (preset == "draft") {
    o.steps = 400, o.warmup = 20, o.lr = 4e-3;
  } else if (preset == "smoke") {
    *vocab = 384;
    o.steps = 30, o.warmup = 3, o.batch = 4, o.seq = 64, o.lr = 5e-3;
  } else {
    throw UsageError("mia train-target --preset '" + preset + "': expected target, draft or smoke");
  }
  return o;
}

int RunTrainTarget(const TrainTargetOptions& o) {
  if (o.split != "mimir" && o.split != "wikimia")
    throw UsageError("mia train-target --split '" + o.split + "': expected mimir or wikimia");
  if (o.repeats < 1 || o.repeats > 8) throw UsageError("mia train-target --repeats must be in [1, 8]");
  if (o.steps < 0 || o.threads < 0) throw UsageError("mia train-target --steps and --threads must be >= 0");
  int vocab = 0;
  ls::TrainOptions options = Recipe(o.preset, &vocab);
  if (o.steps > 0) options.steps = o.steps, options.warmup = std::min(options.warmup, o.steps - 1);
  const fs::path out(o.out);
  if (fs::exists(out)) throw UsageError("mia train-target --out " + o.out + ": already exists");
  if (!out.parent_path().empty() && !fs::is_directory(out.parent_path()))
    throw UsageError("mia train-target --out " + o.out + ": parent folder does not exist");
  if (o.threads > 0) openblas_set_num_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();

  cb::gen::CorpusParams cp;
  cp.kind = o.split == "mimir" ? cb::gen::SplitKind::kMimir : cb::gen::SplitKind::kWikiMia;
  cp.member_repeats = o.repeats;
  const cb::gen::MiaCorpus corpus = cb::gen::MakeMiaCorpus(cp);
  std::vector<std::string> texts;
  for (const auto& d : corpus.TrainingSet()) texts.push_back(corpus.lexicon.Render(d) + "\n");
  const auto tokenizer = cb::ref::lm::BpeTokenizer::Train(texts, vocab);
  std::vector<int> stream;
  for (const auto& t : texts) {
    const auto ids = tokenizer.Encode(t);
    stream.insert(stream.end(), ids.begin(), ids.end());
  }
  const uint64_t init_seed = 1;
  ls::CpuTransformer model(cb::ref::lm::RandomInit(ls::PresetConfig(o.preset, vocab), init_seed));
  ls::Trainer trainer(model, stream, options);
  cb::harness::ProgressBar bar(options.steps);
  double last_loss = 0;
  trainer.Run([&](const ls::StepReport& r) {
    last_loss = r.loss;
    char label[96];
    std::snprintf(label, sizeof label, "step %d loss %.3f lr %.2e", r.step, r.loss, r.lr);
    bar.Update(r.step, 0, label);
    if (!bar.enabled() && r.step % 50 == 0) std::fprintf(stderr, "mia train-target: %s\n", label);
  }, [] { return cb::harness::InterruptRequested(); });
  bar.Clear();
  // The check point: a run without --resume keeps nothing, so --out is not made.
  cb::harness::ThrowIfInterrupted("at step " + std::to_string(trainer.state().step) + " of " +
                                  std::to_string(options.steps));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& p = model.params();
  const std::string weights =
      cb::harness::Xxh3_128(std::string_view(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float)))
          .Hex();
  const char* core = openblas_get_corename();
  const nlohmann::json meta = {
      {"preset", o.preset},
      {"command", "claimbench mia train-target --split " + o.split + " --preset " + o.preset + " --repeats " +
                      std::to_string(o.repeats) + (o.steps > 0 ? " --steps " + std::to_string(o.steps) : "")},
      {"options", options.ToJson()},
      {"init_seed", init_seed},
      {"parameters", model.num_params()},
      {"corpus", {{"params", cb::gen::CanonicalParams(cp)}, {"content_hash", corpus.content_hash}}},
      {"tokenizer_hash", tokenizer.ContentHash()},
      {"train_tokens", stream.size()},
      {"threads", openblas_get_num_threads()},
      {"openblas_core", core ? core : ""},
      {"final_train_loss", last_loss},
      {"wall_seconds_this_invocation", seconds},
      {"weights_xxh3_128", weights},
  };
  const fs::path tmp = out.string() + ".tmp";
  fs::remove_all(tmp);
  ls::SaveTrainingCheckpoint(tmp.string(), model, trainer.state(), meta);
  fs::remove(tmp / "optimizer.safetensors");  // a finished run is not resumed
  tokenizer.Save(tmp.string());
  fs::rename(tmp, out);
  std::printf("trained %s on %s: %zu parameters, %d steps, %zu training tokens, train loss %.4f, %.1f s, "
              "weights %s -> %s\n",
              o.preset.c_str(), corpus.SplitName().c_str(), model.num_params(), trainer.state().step,
              stream.size(), last_loss, seconds, weights.c_str(), o.out.c_str());
  return cb::cli::kExitOk;
}

void AddTrainTargetCommand(CLI::App& app, const cb::cli::CommandLine&, int* exit_code) {
  auto o = std::make_shared<TrainTargetOptions>();
  CLI::App* group = cb::cli::CommandGroup(app, "mia", "Membership inference on the transformer substrate");
  CLI::App* train = group->add_subcommand(
      "train-target", "Train a target transformer on a synthetic split's training set (members seen --repeats times)");
  train->add_option("--split", o->split, "mimir (iid non-members) or wikimia (shifted)")->capture_default_str();
  train->add_option("--preset", o->preset, "draft (0.63M), smoke or target (5.3M)")->capture_default_str();
  train->add_option("--out", o->out, "The model folder to create (Hugging Face layout)")->required();
  train->add_option("--repeats", o->repeats, "Times each member appears in the training set")->capture_default_str();
  train->add_option("--steps", o->steps, "Optimizer steps (default: the preset's)");
  train->add_option("--threads", o->threads, "OpenBLAS threads (default: all; 1 for a reproducible run)");
  train->callback([o, exit_code] { *exit_code = RunTrainTarget(*o); });
}

}  // namespace

CB_REGISTER_COMMAND(mia_train_target, AddTrainTargetCommand);

}  // namespace cb::mia

// File: suites/lm/train_command.cpp
// -----------------------------------------------------------------------------
// `claimbench train --preset target|draft|smoke --out DIR [--steps N]
//  [--threads N] [--checkpoint-every N] [--resume]`: trains one of the
// substrate's models (model_presets.h) on the substrate data
// (substrate_data.h) with the CPU trainer (trainer.h) and writes DIR, a
// Hugging Face folder (config.json, model.safetensors F32) with the tokenizer
// (merges.txt, vocab.json) and trainer.json (options, data and tokenizer
// hashes, thread count, OpenBLAS core, losses, wall time, weights hash); no
// optimizer state (a finished run is not resumed).
//
// Crash and interrupt safety: every --checkpoint-every steps (and on SIGINT
// or SIGTERM) the full training state goes to DIR.partial/step-NNNNNN, and
// DIR.partial/latest (written atomically, after the checkpoint is complete)
// names it; --resume continues from there bit-identically. --for-steps N
// stops after N steps the same way (time-boxed training on a shared machine). DIR itself appears
// only when training has finished (built as DIR.tmp, then renamed), and the
// partial folder is removed then.
//
// Determinism: on one thread (--threads 1) the result is a pure function of
// the preset, the step count and the code; `claimbench train --preset draft
// --threads 1` reproduces fixtures/lm/draft bit for bit on a machine whose
// OpenBLAS picks the same kernels (trainer.json records the core name).
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/claim.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/model_presets.h"
#include "suites/lm/substrate_data.h"
#include "suites/lm/trainer.h"

namespace cb::lm_suite {
namespace {

namespace fs = std::filesystem;
namespace h = cb::harness;
using cb::cli::UsageError;

struct TrainCommandOptions {
  std::string preset;
  std::string out;
  int steps = 0;  // 0: the preset's
  int threads = 0;  // 0: OpenBLAS's default (all cores)
  int checkpoint_every = 50;
  int for_steps = 0;  // > 0: stop after this many steps of this invocation (resumable)
  bool resume = false;
};

// The preset's vocabulary and schedule.
struct Recipe {
  int vocab = kSubstrateVocab;
  TrainOptions options;
  uint64_t init_seed = 1;
};

Recipe PresetRecipe(const std::string& preset) {
  Recipe r;
  TrainOptions& o = r.options;
  o.batch = 8;
  o.seq = 256;
  o.weight_decay = 0.1;
  o.clip = 1.0;
  o.seed = 1;
  if (preset == "target") {
    o.steps = 600;
    o.warmup = 30;
    o.lr = 2e-3;
  } else if (preset == "draft") {
    o.steps = 400;
    o.warmup = 20;
    o.lr = 4e-3;
  } else if (preset == "smoke") {
    r.vocab = 384;
    o.steps = 30;
    o.warmup = 3;
    o.batch = 4;
    o.seq = 64;
    o.lr = 5e-3;
  } else {
    throw UsageError("train --preset '" + preset + "': expected target, draft or smoke");
  }
  return r;
}

std::string WeightsHash(const CpuTransformer& m) {
  const auto& p = m.params();
  return h::Xxh3_128(std::string_view(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float)))
      .Hex();
}

std::string CoreName() {
  const char* name = openblas_get_corename();
  return name ? name : "";
}

int RunTrain(const TrainCommandOptions& o) {
  const Recipe recipe = PresetRecipe(o.preset);
  TrainOptions options = recipe.options;
  if (o.steps > 0) {
    options.steps = o.steps;
    options.warmup = std::min(options.warmup, o.steps - 1);
  }
  if (o.checkpoint_every < 1) throw UsageError("train --checkpoint-every must be >= 1");
  if (o.threads < 0) throw UsageError("train --threads must be >= 0");
  if (o.for_steps < 0) throw UsageError("train --for-steps must be >= 0");
  const fs::path out(o.out);
  const fs::path partial = out.string() + ".partial";
  if (fs::exists(out)) throw UsageError("train --out " + o.out + ": already exists");
  if (!out.parent_path().empty() && !fs::is_directory(out.parent_path()))
    throw UsageError("train --out " + o.out + ": parent folder does not exist");
  if (fs::exists(partial) && !o.resume)
    throw UsageError("train: " + partial.string() +
                     " holds an unfinished run; pass --resume to continue it or delete it");
  if (o.resume && !fs::exists(partial / "latest"))
    throw UsageError("train --resume: no checkpoint in " + partial.string());
  if (o.threads > 0) openblas_set_num_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();

  // Data: the tokenizer of a resumed run is the one it saved.
  std::optional<ref::lm::BpeTokenizer> saved_tokenizer;
  if (o.resume) saved_tokenizer = ref::lm::BpeTokenizer::Load((partial / "tokenizer").string());
  std::fprintf(stderr, "train %s: building the corpus and the tokenizer...\n", o.preset.c_str());
  const SubstrateData data = MakeSubstrateData(recipe.vocab, saved_tokenizer);
  if (!o.resume) {
    fs::create_directories(partial);
    fs::create_directories(partial / "tokenizer");
    data.tokenizer.Save((partial / "tokenizer").string());
  }

  // Model and optimizer: fresh, or from the latest checkpoint.
  const ref::lm::TransformerConfig config = PresetConfig(o.preset, recipe.vocab);
  std::unique_ptr<CpuTransformer> model;
  OptimizerState state;
  if (o.resume) {
    std::ifstream in(partial / "latest");
    std::string name;
    std::getline(in, name);
    const fs::path ck_dir = partial / name;
    std::string saved_preset;
    if (std::ifstream meta_in(ck_dir / "trainer.json"); meta_in)
      saved_preset = nlohmann::json::parse(meta_in, nullptr, false).value("preset", "");
    if (saved_preset != o.preset)
      throw UsageError("train --resume --preset " + o.preset + ": the run in " + partial.string() +
                       " trains preset '" + saved_preset + "'");
    size_t trainable = 0;  // the preset's parameter count, from its tensor shapes
    for (const auto& [name, shape] : ref::lm::ExpectedTensorShapes(config)) {
      size_t n = 1;
      for (int64_t dim : shape) n *= static_cast<size_t>(dim);
      trainable += n;
    }
    TrainingCheckpoint ck = LoadTrainingCheckpoint(ck_dir.string(), trainable);
    // The schedule depends on the step count: a resumed run keeps its options.
    const TrainOptions saved = TrainOptions::FromJson(ck.trainer_json.at("options"));
    if (o.steps > 0 && o.steps != saved.steps)
      throw UsageError("train --resume --steps " + std::to_string(o.steps) + ": the run in " +
                       partial.string() + " was started with --steps " + std::to_string(saved.steps));
    options = saved;
    model = std::make_unique<CpuTransformer>(ck.config, ck.weights);
    state = std::move(ck.state);
    std::fprintf(stderr, "train %s: resuming at step %d from %s\n", o.preset.c_str(), state.step,
                 ck_dir.string().c_str());
  } else {
    model = std::make_unique<CpuTransformer>(ref::lm::RandomInit(config, recipe.init_seed));
  }
  Trainer trainer(*model, data.train_stream, options, state);

  nlohmann::json meta = {
      {"preset", o.preset},
      {"options", options.ToJson()},
      {"init_seed", recipe.init_seed},
      {"parameters", model->num_params()},
      {"corpus", {{"params", gen::CanonicalParams(data.corpus.params)},
                  {"content_hash", data.corpus.content_hash}}},
      {"tokenizer_hash", data.tokenizer.ContentHash()},
      {"train_tokens", data.train_stream.size()},
      {"heldout_tokens", data.heldout_stream.size()},
      {"threads", openblas_get_num_threads()},
      {"openblas_core", CoreName()},
  };
  auto save_checkpoint = [&] {
    char name[32];
    std::snprintf(name, sizeof name, "step-%06d", trainer.state().step);
    const fs::path dir = partial / name;
    if (fs::exists(dir)) return;
    SaveTrainingCheckpoint(dir.string(), *model, trainer.state(), meta);
    std::string previous;
    if (std::ifstream in(partial / "latest"); in) std::getline(in, previous);
    h::WriteFileAtomically((partial / "latest").string(), std::string(name) + "\n");
    if (!previous.empty() && previous != name) fs::remove_all(partial / previous);
  };

  h::ProgressBar bar(options.steps);
  double last_loss = 0;
  const int stop_at = o.for_steps > 0 ? trainer.state().step + o.for_steps : options.steps;
  trainer.Run(
      [&](const StepReport& r) {
        last_loss = r.loss;
        char label[96];
        std::snprintf(label, sizeof label, "step %d loss %.3f lr %.2e", r.step, r.loss, r.lr);
        bar.Update(r.step, 0, label);
        if (!bar.enabled() && r.step % o.checkpoint_every == 0)  // a log, not a terminal
          std::fprintf(stderr, "train %s: %s\n", o.preset.c_str(), label);
        if (r.step % o.checkpoint_every == 0 && r.step < options.steps) save_checkpoint();
      },
      [&] { return h::InterruptRequested() || trainer.state().step >= stop_at; });
  bar.Clear();
  if (h::InterruptRequested()) {
    save_checkpoint();
    std::fprintf(stderr, "train %s: interrupted at step %d; checkpoint saved, rerun with --resume\n",
                 o.preset.c_str(), trainer.state().step);
    return cb::cli::kExitError;
  }
  if (trainer.state().step < options.steps) {
    save_checkpoint();
    std::fprintf(stderr, "train %s: paused at step %d of %d (--for-steps); rerun with --resume\n",
                 o.preset.c_str(), trainer.state().step, options.steps);
    return cb::cli::kExitOk;
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double heldout = trainer.Evaluate(data.heldout_stream, 8, 12345);
  meta["final_train_loss"] = last_loss;
  meta["heldout_loss_8_batches"] = heldout;
  meta["wall_seconds_this_invocation"] = seconds;
  meta["weights_xxh3_128"] = WeightsHash(*model);
  const fs::path tmp = out.string() + ".tmp";
  fs::remove_all(tmp);
  SaveTrainingCheckpoint(tmp.string(), *model, trainer.state(), meta);
  fs::remove(tmp / "optimizer.safetensors");  // a finished run is not resumed: keep DIR small
  data.tokenizer.Save(tmp.string());
  fs::rename(tmp, out);
  fs::remove_all(partial);
  std::printf("trained %s: %zu parameters, %d steps, train loss %.4f, held-out loss %.4f nats/token, "
              "%.1f s, weights %s -> %s\n",
              o.preset.c_str(), model->num_params(), trainer.state().step, last_loss, heldout,
              seconds, meta["weights_xxh3_128"].get<std::string>().c_str(), o.out.c_str());
  return cb::cli::kExitOk;
}

void AddTrainCommand(CLI::App& app, const cb::cli::CommandLine&, int* exit_code) {
  auto o = std::make_shared<TrainCommandOptions>();
  CLI::App* train = app.add_subcommand(
      "train", "Train one of the transformer substrate's models (target, draft, smoke) on the corpus");
  train->add_option("--preset", o->preset, "target (5.2M), draft (0.62M) or smoke (seconds)")
      ->required();
  train->add_option("--out", o->out, "The model folder to create (Hugging Face layout)")->required();
  train->add_option("--steps", o->steps, "Optimizer steps (default: the preset's)");
  train->add_option("--threads", o->threads,
                    "OpenBLAS threads (default: all cores; 1 for a bit-reproducible run)");
  train->add_option("--checkpoint-every", o->checkpoint_every, "Steps between checkpoints")
      ->capture_default_str();
  train->add_option("--for-steps", o->for_steps,
                    "Run at most this many steps now, then checkpoint and stop (continue with --resume)");
  train->add_flag("--resume", o->resume, "Continue the unfinished run in OUT.partial");
  train->callback([o, exit_code] { *exit_code = RunTrain(*o); });
}

}  // namespace

CB_REGISTER_COMMAND(train, AddTrainCommand);

}  // namespace cb::lm_suite

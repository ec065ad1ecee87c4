// File: suites/lm/lm_score_command.cpp
// -----------------------------------------------------------------------------
// `claimbench lm score --checkpoint DIR --ids FILE.jsonl [--stats] [--out F]`:
// per-token log-probabilities of token-id sequences under a Hugging Face
// Llama-family checkpoint (ours or a user's: reference/lm/hf_checkpoint.h),
// computed by the fp32 CPU path (--backend cpu, suites/lm/cpu_transformer.h)
// or the fp64 reference forward pass (--backend reference,
// reference/lm/transformer.h). Either way the log-softmax and the moments are
// formed in fp64 from the logits.
//
// Output: JSON Lines, one object per input sequence, in input order:
//   {"line": 3, "ids": [...], "logprobs": [...]}
// logprobs[t-1] = log p(ids[t] | ids[<t]) for t = 1..T-1 (the first token has
// no prediction). With --stats also, per predicted position, the moments of
// log p over the whole vocabulary that Min-K%++ normalises by:
//   "mu":    sum_v p(v) log p(v)
//   "sigma": sqrt(sum_v p(v) log^2 p(v) - mu^2)
// Every input is read and checked (the checkpoint, every id < vocab_size,
// every length <= max_position_embeddings) before anything is computed; --out
// is written atomically, so an interrupted or failed run leaves no partial
// file. Exit 3 with one line on bad input.
//
// --format mia writes instead the statistics file of `claimbench eval mia`
// (suites/mia/README.md): {"label", "ll", "mu", "sigma"} per line, plus
// "text" when the input line has one; every input line must carry "label"
// (0 or 1). So a user's checkpoint goes straight into Min-K%++ and friends.
//
// --backend cuda runs the CUDA path (cuda_transformer.h); where CUDA is not
// available it is refused with the reason (a silent fallback to the CPU would
// mislabel timings).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/interrupt.h"
#include "harness/cli/commands.h"
#include "harness/progress.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/lm/token_ids.h"
#include "reference/lm/transformer.h"
#include "harness/backend.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/cuda_transformer.h"
#include "suites/lm/lm_generate.h"

namespace cb::lm_suite {
namespace {

namespace ref = cb::ref::lm;
using cb::cli::UsageError;

struct ScoreOptions {
  std::string checkpoint;
  std::string ids;
  std::string backend = "cpu";
  std::string out;
  std::string format = "scores";
  bool stats = false;
};

// One sequence's output object from its logits [T, V].
nlohmann::json ScoreSequence(const std::vector<double>& logits, int V, const std::vector<int>& ids,
                             int line, bool stats) {
  nlohmann::json logprobs = nlohmann::json::array(), mu = nlohmann::json::array(),
                 sigma = nlohmann::json::array();
  for (size_t t = 0; t + 1 < ids.size(); ++t) {
    const double* row = logits.data() + t * V;  // [V]
    const double m = *std::max_element(row, row + V);
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(row[v] - m);
    const double log_z = m + std::log(z);
    logprobs.push_back(row[ids[t + 1]] - log_z);
    if (stats) {
      double e1 = 0, e2 = 0;  // E[log p], E[log^2 p]
      for (int v = 0; v < V; ++v) {
        const double lp = row[v] - log_z;
        const double p = std::exp(lp);
        e1 += p * lp;
        e2 += p * lp * lp;
      }
      mu.push_back(e1);
      sigma.push_back(std::sqrt(std::max(e2 - e1 * e1, 0.0)));
    }
  }
  nlohmann::json j = {{"line", line}, {"ids", ids}, {"logprobs", logprobs}};
  if (stats) {
    j["mu"] = mu;
    j["sigma"] = sigma;
  }
  return j;
}

int RunScore(const ScoreOptions& o) {
  if (o.backend != "cpu" && o.backend != "cuda" && o.backend != "reference")
    throw UsageError("lm score --backend " + o.backend + ": expected cpu, cuda or reference");
  if (o.backend == "cuda") {
    const cb::harness::BackendStatus st = cb::harness::Availability(cb::harness::Backend::kCuda);
    if (!st.ok) throw UsageError("lm score --backend cuda: " + st.reason);
  }
  ref::HfCheckpoint ck;
  try {
    ck = ref::LoadCheckpoint(o.checkpoint);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::vector<std::vector<int>> seqs;
  try {
    seqs = ref::ReadTokenIds(o.ids, ck.config.vocab_size);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (o.format != "scores" && o.format != "mia")
    throw UsageError("lm score --format " + o.format + ": expected scores or mia");
  // Line numbers of the non-blank lines, for messages and the output; with
  // --format mia also each line's label (and text, when given).
  std::vector<int> lines;
  std::vector<nlohmann::json> mia_fields;
  {
    std::ifstream in(o.ids);
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      lines.push_back(n);
      if (o.format != "mia") continue;
      const nlohmann::json j = nlohmann::json::parse(text);  // ReadTokenIds parsed it already
      const auto label = j.find("label");
      if (label == j.end() || !label->is_number_integer() || (*label != 0 && *label != 1))
        throw UsageError(o.ids + ":" + std::to_string(n) +
                         ": --format mia needs \"label\": 0 or 1 on every line");
      nlohmann::json f = {{"label", *label}};
      if (j.contains("text")) f["text"] = j["text"];
      mia_fields.push_back(std::move(f));
    }
  }
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (static_cast<int>(seqs[i].size()) > ck.config.max_position_embeddings) {
      throw UsageError(o.ids + ":" + std::to_string(lines.at(i)) + ": " +
                       std::to_string(seqs[i].size()) + " ids, more than the checkpoint's " +
                       "max_position_embeddings " + std::to_string(ck.config.max_position_embeddings));
    }
  }
  const ref::Transformer reference(ck.config, ck.tensors);
  std::optional<CpuTransformer> fast;
  if (o.backend != "reference") fast.emplace(reference);
#if CB_HAVE_CUDA
  std::optional<CudaTransformer> gpu;
  if (o.backend == "cuda") gpu.emplace(*fast);
#endif
  const int V = ck.config.vocab_size;

  std::ostringstream out;
  cb::harness::ProgressBar bar(static_cast<int>(seqs.size()));
  for (size_t i = 0; i < seqs.size(); ++i) {
    // The check point: nothing is printed or written before the last sequence.
    cb::harness::ThrowIfInterrupted("after " + std::to_string(i) + " of " + std::to_string(seqs.size()) +
                                    " sequences");
    bar.Update(static_cast<int>(i), 0, "sequence " + std::to_string(i + 1));
    std::vector<double> logits;  // [T, V]
    if (fast) {
#if CB_HAVE_CUDA
      const std::vector<float> f = gpu ? gpu->Forward(seqs[i]) : fast->Forward(seqs[i]);
#else
      const std::vector<float> f = fast->Forward(seqs[i]);
#endif
      logits.assign(f.begin(), f.end());
    } else {
      logits = reference.Forward(seqs[i]).data;
    }
    nlohmann::json scored = ScoreSequence(logits, V, seqs[i], lines.at(i), o.stats || o.format == "mia");
    if (o.format == "mia") {  // the statistics file of `claimbench eval mia`
      nlohmann::json row = mia_fields[i];
      row["ll"] = std::move(scored["logprobs"]);
      row["mu"] = std::move(scored["mu"]);
      row["sigma"] = std::move(scored["sigma"]);
      scored = std::move(row);
    }
    out << scored.dump() << "\n";
  }
  bar.Clear();
  if (o.out.empty()) {
    std::cout << out.str();
  } else {
    cb::harness::WriteFileAtomically(o.out, out.str());
  }
  return cb::cli::kExitOk;
}

void AddLmCommand(CLI::App& app, const cb::cli::CommandLine&, int* exit_code) {
  auto o = std::make_shared<ScoreOptions>();
  CLI::App* lm = app.add_subcommand("lm", "The transformer substrate: score token ids or generate with a checkpoint");
  lm->require_subcommand(1);
  CLI::App* score = lm->add_subcommand(
      "score", "Per-token log-probabilities (JSON Lines) of token-id sequences under a Llama checkpoint");
  score->add_option("--checkpoint", o->checkpoint,
                    "Hugging Face folder: config.json + model.safetensors (or an index and shards)")
      ->required();
  score->add_option("--ids", o->ids, "JSON Lines, one {\"ids\": [...]} per sequence")->required();
  score->add_flag("--stats", o->stats, "Also the full-vocabulary mu and sigma of log p (Min-K%++)");
  score->add_option("--backend", o->backend, "cpu (fp32, OpenBLAS), cuda (fp32, cuBLAS) or reference (fp64)")
      ->capture_default_str();
  score->add_option("--out", o->out, "Write here (atomically) instead of stdout");
  score->add_option("--format", o->format,
                    "scores, or mia: {label, ll, mu, sigma[, text]} per line for `claimbench eval mia` "
                    "(each input line needs \"label\")")
      ->capture_default_str();
  score->callback([o, exit_code] { *exit_code = RunScore(*o); });
  AddGenerateSubcommand(lm, exit_code);
}

}  // namespace

CB_REGISTER_COMMAND(lm, AddLmCommand);

}  // namespace cb::lm_suite

// File: suites/radar/eval_radar_command.cpp
// -----------------------------------------------------------------------------
// `claimbench eval radar --checkpoint DIR --ids FILE.jsonl [--budget B]...
// [--window W] [--aspect A] [--length T]`: the PPL-lm comparison
// (radar_lm_claims.cpp) on a user's Llama-family checkpoint in Hugging Face
// layout: every sequence ({"ids": [...]} per line, at least 2 ids in
// [0, vocab), cut to --length when given) decoded token by token with dense
// attention, Radar at each budget and StreamingLLM at the same budgets
// (radar_lm_experiment.h), perplexity per context-length bucket and the gap to
// dense with its bootstrap CI, recorded in one ledger run (suite "radar", case
// "eval_perplexity"). Input and options are validated and every pass runs
// before the ledger is opened, so a bad input records nothing. Defaults: the
// paper's residual 1024, aspect 4, budgets 1024 / 2048 scaled to a 256-token
// training context (x 1/32): w 32, a 4, B 32 and 64.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/jsonl.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "ledger/cli/common.h"
#include "ledger/run_guard.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/radar/radar_lm_experiment.h"

namespace cb::cli {
namespace {

namespace h = cb::harness;
namespace rl = cb::radar;

struct EvalRadarOptions {
  std::string checkpoint;
  std::string ids;
  std::vector<int> budgets{32, 64};
  int window = 32;
  double aspect = 4;
  int length = 0;
  std::string ledger;
  uint64_t seed = 20250101;
  bool json = false;
};

std::vector<std::vector<int>> ReadIds(const std::string& path, int vocab, int length) {
  std::ifstream in(path);
  if (!in) throw UsageError("eval radar: cannot read --ids " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<std::vector<int>> seqs;
  h::ForEachJsonlObject(ss.str(), path, [&](const nlohmann::json& o, const std::string& where) {
    if (!o.contains("ids") || !o["ids"].is_array()) throw UsageError(where + "expected {\"ids\": [...]}");
    std::vector<int> s;
    for (const auto& x : o["ids"]) {
      if (!x.is_number_integer()) throw UsageError(where + "ids must be integers");
      const int64_t v = x.get<int64_t>();
      if (v < 0 || v >= vocab)
        throw UsageError(where + "id " + std::to_string(v) + " outside [0, " + std::to_string(vocab) + ")");
      s.push_back(static_cast<int>(v));
    }
    if (length > 0 && static_cast<int>(s.size()) > length) s.resize(length);
    if (s.size() < 2) throw UsageError(where + "a sequence needs at least 2 ids");
    seqs.push_back(std::move(s));
  });
  if (seqs.empty()) throw UsageError("eval radar: " + path + " has no sequences");
  return seqs;
}

int RunEvalRadar(const EvalRadarOptions& o, const CommandLine& cmdline) {
  if (o.checkpoint.empty() || o.ids.empty()) throw UsageError("eval radar needs --checkpoint DIR and --ids FILE.jsonl");
  if (o.budgets.empty()) throw UsageError("eval radar: give at least one --budget");
  for (int b : o.budgets)
    if (b < 1) throw UsageError("eval radar --budget must be >= 1");
  if (o.window < 0) throw UsageError("eval radar --window must be >= 0");
  if (!(o.aspect > 0)) throw UsageError("eval radar --aspect must be > 0");
  if (o.length < 0 || o.length == 1) throw UsageError("eval radar --length must be 0 (whole sequences) or >= 2");
  cb::ref::lm::HfCheckpoint ck;
  try {
    ck = cb::ref::lm::LoadCheckpoint(o.checkpoint);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::vector<std::vector<int>> seqs;
  try {
    seqs = ReadIds(o.ids, ck.config.vocab_size, o.length);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  int T = 0;
  std::vector<double> all;
  for (const auto& s : seqs) {
    T = std::max<int>(T, static_cast<int>(s.size()));
    all.insert(all.end(), s.begin(), s.end());
  }
  const std::string input_hash = h::HashDoubles(all).Hex();
  // RoPE: positions past the checkpoint's max_position_embeddings run (and
  // are reported as such) rather than being refused.
  const int trained_positions = ck.config.max_position_embeddings;
  ck.config.max_position_embeddings = std::max(ck.config.max_position_embeddings, T);
  cb::lm_suite::CpuTransformer model(ck.config, ck.tensors);
  std::vector<rl::LmMethodSpec> methods{{.name = "dense"}};
  for (auto m : {rl::LmMethod::kRadar, rl::LmMethod::kStreaming})
    for (int b : o.budgets)
      methods.push_back({.name = h::StrFormat("%s_B%d", rl::LmMethodName(m), b), .dense = false,
                         .attention = {.method = m, .radar = {.window = o.window, .aspect = o.aspect, .budget = b,
                                                              .seed = o.seed}}});
  const rl::PerplexityRun run = rl::RunPerplexity(model, methods, seqs, {});
  const auto buckets = rl::LengthBuckets(T);

  std::vector<h::Result> rows;
  nlohmann::json out = {{"checkpoint", o.checkpoint}, {"sequences", seqs.size()}, {"max_length", T},
                        {"max_position_embeddings", trained_positions}, {"input_hash", input_hash},
                        {"buckets", nlohmann::json::array()}};
  for (const auto& [lo, hi] : buckets) {
    nlohmann::json b = {{"from", lo}, {"to", hi}, {"methods", nlohmann::json::array()}};
    for (size_t m = 0; m < methods.size(); ++m) {
      const auto nll = rl::BucketValues(run, m, lo, hi, false);
      if (nll.empty()) continue;
      const double ppl = std::exp(h::Mean(nll));
      h::Result r{.suite = "radar", .case_name = "eval_perplexity", .backend = "cpu",
                  .params = {{"method", methods[m].name}, {"from", lo}, {"to", hi}, {"window", o.window},
                             {"aspect", o.aspect}, {"checkpoint", std::filesystem::path(o.checkpoint).filename().string()}},
                  .metric = "perplexity", .unit = "perplexity", .direction = "lower", .value = ppl,
                  .n = static_cast<int64_t>(nll.size()), .input_hash = input_hash,
                  .kind = h::ResultKind::kEstimate};
      nlohmann::json row = {{"method", methods[m].name}, {"perplexity", ppl}};
      if (m > 0) {
        const auto diff = rl::BucketValues(run, m, lo, hi, true);
        const auto ci = h::MeanBootstrapCi(diff, o.seed);
        h::Result g = r;
        g.case_name = "eval_nll_gap_to_dense";
        g.metric = "mean_nll_minus_dense";
        g.unit = "nats/token";
        g.value = h::Mean(diff);
        g.ci_low = ci.low;
        g.ci_high = ci.high;
        rows.push_back(g);
        row["nll_gap"] = h::Mean(diff);
        row["nll_gap_ci"] = {ci.low, ci.high};
      }
      rows.push_back(r);
      b["methods"].push_back(row);
    }
    out["buckets"].push_back(b);
  }
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const auto meta = CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed);
  const int64_t run_id = ledger.BeginRun(meta);
  cb::ledger::RunGuard guard(ledger, run_id);
  ledger.AddResults(run_id, rows);
  guard.Finish(cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);
  out["run_id"] = run_id;
  out["run_hash"] = summary.run_hash;
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%s: %zu sequence(s), up to %d tokens (max_position_embeddings %d%s), input %s\n",
              o.checkpoint.c_str(), seqs.size(), T, trained_positions,
              T > trained_positions ? ": longer contexts are out of its range" : "", input_hash.c_str());
  std::printf("perplexity per context bucket; gap = mean nll - dense's [95%% CI], nats/token\n");
  std::string head = Fit("bucket", 14);
  for (const auto& m : methods) head += " " + Fit(m.name, 14);
  std::printf("%s\n", head.c_str());
  for (const auto& [lo, hi] : buckets) {
    std::string line = Fit(h::StrFormat("[%d, %d)", lo, hi), 14);
    for (size_t m = 0; m < methods.size(); ++m)
      line += " " + Fit(h::StrFormat("%.3f", std::exp(h::Mean(rl::BucketValues(run, m, lo, hi, false)))), 14);
    std::printf("%s\n", line.c_str());
  }
  const auto [lo, hi] = buckets.back();
  for (size_t m = 1; m < methods.size(); ++m) {
    const auto diff = rl::BucketValues(run, m, lo, hi, true);
    const auto ci = h::MeanBootstrapCi(diff, o.seed);
    std::printf("gap %s at [%d, %d): %+.4f [%+.4f, %+.4f]\n", methods[m].name.c_str(), lo, hi, h::Mean(diff), ci.low,
                ci.high);
  }
  std::printf("\nrun %lld complete, run_hash %s\n", static_cast<long long>(run_id), summary.run_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddEvalRadarCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto options = std::make_shared<EvalRadarOptions>();
  CLI::App* radar = eval->add_subcommand(
      "radar", "Perplexity vs context length: dense, Radar and StreamingLLM decoding on a checkpoint");
  radar->add_option("--checkpoint", options->checkpoint, "Llama-family checkpoint folder (HF layout)");
  radar->add_option("--ids", options->ids, "JSONL of token-id sequences ({\"ids\": [...]} per line)");
  radar->add_option("--budget", options->budgets, "Radar budget(s) B (StreamingLLM gets w + 1 + B)")
      ->capture_default_str();
  radar->add_option("--window", options->window, "Window w (residual tokens)")->capture_default_str();
  radar->add_option("--aspect", options->aspect, "Aspect ratio a (c = sqrt(n) / a)")->capture_default_str();
  radar->add_option("--length", options->length, "Cut every sequence to this many ids (0: whole)")
      ->capture_default_str();
  radar->add_option("--seed", options->seed, "Seed of Omega and of the bootstrap")->capture_default_str();
  AddLedgerOption(radar, &options->ledger);
  radar->add_flag("--json", options->json, "Print the results as JSON on stdout");
  radar->callback([options, cmdline, exit_code] { *exit_code = RunEvalRadar(*options, cmdline); });
}

CB_REGISTER_COMMAND(eval_radar, AddEvalRadarCommand);

}  // namespace cb::cli

// File: suites/regenesis/eval_regenesis_command.cpp
// `claimbench eval regenesis --predictions BEFORE.jsonl AFTER.jsonl`: per-task
// accuracy before and after fine-tuning, per-task deltas and the in-domain
// and OOD mean deltas, under each extraction rule (README "Prediction
// files"). Both files are read and checked whole before the ledger opens.
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "suites/regenesis/regenesis_eval.h"

namespace cb::cli {
namespace {

namespace rg = cb::regenesis;
namespace rr = cb::ref::regenesis;

struct EvalRegenesisOptions {
  std::vector<std::string> predictions;
  std::string in_domain, ood;
  EvalRunOptions run;
};

std::vector<std::string> TaskList(const std::string& csv, const std::vector<std::string>& fallback) {
  if (csv.empty()) return fallback;
  std::vector<std::string> out;
  std::stringstream ss(csv);
  for (std::string t; std::getline(ss, t, ',');)
    if (!t.empty()) out.push_back(rr::CanonicalTask(t));
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

int RunEvalRegenesis(const EvalRegenesisOptions& o, const CommandLine& cmdline) {
  if (o.predictions.size() != 2) throw UsageError("--predictions takes two files: BEFORE.jsonl AFTER.jsonl");
  const std::string before_text = ReadPredictionsFile(o.predictions[0]), after_text = ReadPredictionsFile(o.predictions[1]);
  const auto in_domain = TaskList(o.in_domain, rr::DefaultInDomainTasks()), ood = TaskList(o.ood, rr::DefaultOodTasks());
  rg::DeltaReport rep;
  size_t rows = 0;
  try {
    const auto before = rg::ParsePredictions(before_text, o.predictions[0]);
    const auto after = rg::ParsePredictions(after_text, o.predictions[1]);
    if (before.empty()) throw std::runtime_error(o.predictions[0] + ": no predictions");
    if (after.empty()) throw std::runtime_error(o.predictions[1] + ": no predictions");
    rep = rg::Compare(before, after, in_domain, ood);
    rows = before.size() + after.size();
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  // The run's input is both files (their hash covers both, in order).
  return RecordPredictionRun(o.run, cmdline, o.predictions[0], before_text + "\x1e" + after_text, rows,
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               nlohmann::json p = params;
                               p["source_after"] = std::filesystem::path(o.predictions[1]).filename().string();
                               p["in_domain_tasks"] = Join(in_domain);
                               p["ood_tasks"] = Join(ood);
                               const nlohmann::json j = rg::ReportJson(rep);
                               return EvalScores{rg::ReportRows(rep, p, input_hash), j, j, [rep] { rg::PrintReport(rep); }};
                             });
}

}  // namespace

void AddEvalRegenesisCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalRegenesisOptions>();
  CLI::App* c = eval->add_subcommand(
      "regenesis", "ReGenesis: in-domain and OOD accuracy deltas from before/after prediction files (CPU only)");
  c->add_option("--predictions", o->predictions,
                "BEFORE.jsonl AFTER.jsonl (JSONL: task, gold, and prediction, samples or answer; optional family, id)")
      ->expected(2)
      ->required();
  c->add_option("--in-domain", o->in_domain, "In-domain tasks (comma-separated; default gsm8k,numglue,arc_c,reclor,strategyqa)");
  c->add_option("--ood", o->ood, "OOD tasks (comma-separated; default asdiv,svamp,aqua,openbookqa,bbh,anli)");
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalRegenesis(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_regenesis, AddEvalRegenesisCommand);

}  // namespace cb::cli

// File: suites/ibedl/eval_ibedl_command.cpp
// `claimbench eval ibedl`: scores IB-EDL predictions and records them.
//   --predictions FILE   JSONL (eval_predictions.h: label, logits or alphas,
//                        optional K, uncertainty, split id|ood) or the
//                        authors' .npz (logits, labels, uncertainties) of the
//                        ID split; read and validated whole before the ledger
//                        is opened
//   --ood FILE           optional: the OOD split's .npz or JSONL (every row
//                        taken as OOD)
// Rows: ACC, ECE (15 bins), NLL, Brier of the ID split (and of the OOD rows
// with their own labels); OOD AUROC and AUPR by max probability and, when
// every row has an uncertainty, by 1/max(u, 1e-8); each in both modes
// (strict, paper-compatible). K of each split is in the rows' params: a
// K_ID != K_OOD pair is flagged, since the UM scores then shift.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "suites/ibedl/eval_predictions.h"

namespace cb::cli {
namespace {

namespace ib = cb::ibedl;
namespace h = cb::harness;

struct EvalIbedlOptions {
  std::string predictions, ood;
  EvalRunOptions run{.seed = 0};
};

bool IsZip(const std::string& text) { return text.size() >= 4 && text.compare(0, 4, "PK\x03\x04") == 0; }

ib::PredictionFile Load(const EvalIbedlOptions& o, std::string* all_text) {
  ib::PredictionFile f;
  const std::string text = ReadPredictionsFile(o.predictions);
  *all_text = text;
  if (IsZip(text)) {
    f.id = ib::ReadPredictionsNpz(o.predictions);
  } else {
    f = ib::ParsePredictionsJsonl(text, o.predictions);
  }
  if (!o.ood.empty()) {
    if (f.ood.size() > 0) throw UsageError(o.predictions + ": has \"ood\" rows already; drop --ood or those rows");
    const std::string ood_text = ReadPredictionsFile(o.ood);
    *all_text += ood_text;
    if (IsZip(ood_text)) {
      f.ood = ib::ReadPredictionsNpz(o.ood);
    } else {
      ib::PredictionFile g = ib::ParsePredictionsJsonl(ood_text, o.ood);
      f.ood = g.id;  // every row of the --ood file is OOD
      if (g.ood.size() > 0) throw UsageError(o.ood + ": give its rows as split \"id\" (or none): the file is OOD");
    }
  }
  // UM scores need an uncertainty on every row of both splits.
  if (f.ood.size() > 0 && (f.id.uncertainty.size() != f.id.size() || f.ood.uncertainty.size() != f.ood.size()))
    f.id.uncertainty.clear(), f.ood.uncertainty.clear();
  return f;
}

nlohmann::json ScoresJson(const ib::ModeScoresIbedl& s) {
  auto split = [](const ib::SplitScores& x) {
    return nlohmann::json{{"n", x.n}, {"K", x.k}, {"acc", x.acc}, {"ece", x.ece}, {"nll", x.nll}, {"brier", x.brier}};
  };
  nlohmann::json j = {{"id", split(s.id)}};
  if (s.ood_split) j["ood_rows"] = split(*s.ood_split);
  if (s.ood) {
    j["ood"] = {{"auroc_mp", s.ood->auroc_mp}, {"aupr_mp", s.ood->aupr_mp}, {"K_id", s.id.k}, {"K_ood", s.k_ood}};
    if (s.ood->has_um) j["ood"]["auroc_um"] = s.ood->auroc_um, j["ood"]["aupr_um"] = s.ood->aupr_um;
  }
  return j;
}

std::vector<h::Result> Rows(const ib::ModeScoresIbedl& s, const char* mode, const nlohmann::json& params,
                            const std::string& input_hash) {
  std::vector<h::Result> rows;
  auto row = [&](const std::string& case_name, const std::string& metric, const std::string& direction, double value,
                 int64_t n, const nlohmann::json& extra) {
    h::Result r;
    r.suite = "ibedl";
    r.case_name = case_name;
    r.params = params;
    r.params["scorer_mode"] = mode;
    for (auto it = extra.begin(); it != extra.end(); ++it) r.params[it.key()] = it.value();
    r.metric = metric;
    r.unit = "1";
    r.direction = direction;
    r.value = value;
    r.n = n;
    r.input_hash = input_hash;
    r.output_hash = h::Xxh3_128(nlohmann::json(value).dump()).Hex();
    rows.push_back(r);
  };
  auto split = [&](const ib::SplitScores& x, const char* name) {
    const nlohmann::json e = {{"split", name}, {"K", x.k}};
    row("ibedl_eval", "acc", "higher", x.acc, x.n, e);
    row("ibedl_eval", "ece", "lower", x.ece, x.n, e);
    row("ibedl_eval", "nll", "lower", x.nll, x.n, e);
    row("ibedl_eval", "brier", "lower", x.brier, x.n, e);
  };
  split(s.id, "id");
  if (s.ood_split) split(*s.ood_split, "ood");
  if (s.ood) {
    const nlohmann::json e = {{"K_id", s.id.k}, {"K_ood", s.k_ood}};
    const int64_t n = s.id.n + (s.ood_split ? s.ood_split->n : 0);
    row("ibedl_ood", "auroc_mp", "higher", s.ood->auroc_mp, n, e);
    row("ibedl_ood", "aupr_mp", "higher", s.ood->aupr_mp, n, e);
    if (s.ood->has_um) {
      row("ibedl_ood", "auroc_um", "higher", s.ood->auroc_um, n, e);
      row("ibedl_ood", "aupr_um", "higher", s.ood->aupr_um, n, e);
    }
  }
  return rows;
}

void Print(const ib::ModeScoresIbedl& strict, const ib::ModeScoresIbedl& paper) {
  auto split = [](const char* name, const ib::SplitScores& a, const ib::SplitScores& b) {
    std::printf("%-4s n %-6d K %-2d  ACC %.4f  ECE %.4f / %.4f  NLL %.4f  Brier %.4f\n", name, a.n, a.k, a.acc, a.ece,
                b.ece, a.nll, a.brier);
  };
  std::printf("split (ECE strict / paper-compatible)\n");
  split("id", strict.id, paper.id);
  if (strict.ood_split) split("ood", *strict.ood_split, *paper.ood_split);
  if (paper.ood) {
    std::printf("OOD  max-prob AUROC %.4f AUPR %.4f", paper.ood->auroc_mp, paper.ood->aupr_mp);
    if (paper.ood->has_um) std::printf("   uncertainty-mass AUROC %.4f AUPR %.4f", paper.ood->auroc_um, paper.ood->aupr_um);
    else std::printf("   (no uncertainty-mass scores: some row has no uncertainty)");
    std::printf("\n");
    if (paper.id.k != paper.k_ood)
      std::printf("note: K_ID = %d != K_OOD = %d: the uncertainty-mass scores u = K/S are not on one scale\n",
                  paper.id.k, paper.k_ood);
  }
}

int RunEvalIbedl(const EvalIbedlOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty()) throw UsageError("give --predictions FILE (.jsonl or .npz)");
  std::string text;
  ib::PredictionFile f;
  try {
    f = Load(o, &text);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  ib::ModeScoresIbedl strict, paper;
  try {
    strict = ib::ScorePredictions(f, false);
    paper = ib::ScorePredictions(f, true);
  } catch (const std::invalid_argument& e) {
    throw UsageError(o.predictions + ": " + e.what());
  }
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, f.id.size() + f.ood.size(),
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               EvalScores out{Rows(strict, "strict", params, input_hash), ScoresJson(strict),
                                              ScoresJson(paper), [&] { Print(strict, paper); }};
                               const auto more = Rows(paper, "paper_compatible", params, input_hash);
                               out.rows.insert(out.rows.end(), more.begin(), more.end());
                               return out;
                             });
}

}  // namespace

void AddEvalIbedlCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalIbedlOptions>();
  CLI::App* c = eval->add_subcommand("ibedl", "IB-EDL: score calibration and OOD detection of predictions");
  c->add_option("--predictions", o->predictions,
                "JSONL rows {label, logits|alphas, K?, uncertainty?, split?: id|ood}, or the authors' .npz "
                "(logits, labels, uncertainties) of the ID split");
  c->add_option("--ood", o->ood, "The OOD split: the authors' .npz, or JSONL (every row OOD)");
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalIbedl(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_ibedl, AddEvalIbedlCommand);

}  // namespace cb::cli

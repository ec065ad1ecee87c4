// File: suites/mia/eval_mia_command.cpp
// `claimbench eval mia --stats FILE.jsonl`: every membership-inference method
// and metric on per-token statistics dumped from a real model (format:
// suites/mia/stats_file.h; dump script: suites/mia/dump_stats.py), recorded
// in one ledger run. The whole file is read, validated and evaluated before
// the ledger is opened, so a bad line records nothing.
//
// `claimbench eval mia --checkpoint DIR --dataset FILE.jsonl [--finetune-on
// FILE.jsonl] [--backend cpu|cuda]`: the same, with the statistics computed
// here from a Llama-family checkpoint in Hugging Face layout (token ids, or
// text with the checkpoint's claimbench tokenizer; neural_dataset.h), and
// with --finetune-on FSD's LoRA fine-tune on that set first (FSD methods).
// In this form --dataset is the input file (the recorded label is its name).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/run_guard.h"
#include "harness/backend.h"
#include "suites/mia/neural_dataset.h"
#include "suites/mia/stats_file.h"

namespace cb::cli {
namespace {

struct EvalMiaOptions {
  std::string stats;
  std::string dataset;
  std::string checkpoint;
  std::string finetune_on;
  std::string backend = "cpu";
  double ft_lr = 1e-3;
  double ft_epochs = 3;
  std::string ledger;
  int resamples = 1000;
  uint64_t seed = 20250101;
  bool json = false;
};

int RunEvalMia(const EvalMiaOptions& o, const CommandLine& cmdline) {
  if (o.resamples < 2) throw UsageError("--resamples must be >= 2");
  const bool from_checkpoint = !o.checkpoint.empty();
  if (from_checkpoint == !o.stats.empty())
    throw UsageError("eval mia: give --stats FILE, or --checkpoint DIR with --dataset FILE (not both)");
  if (!from_checkpoint && !o.finetune_on.empty())
    throw UsageError("eval mia --finetune-on needs --checkpoint (a stats file carries ll_ft itself)");
  if (from_checkpoint && o.dataset.empty()) throw UsageError("eval mia --checkpoint needs --dataset FILE.jsonl");
  if (o.backend != "cpu" && o.backend != "cuda") throw UsageError("eval mia --backend " + o.backend + ": expected cpu or cuda");
  if (!(o.ft_lr > 0) || !(o.ft_epochs > 0)) throw UsageError("eval mia --ft-lr and --ft-epochs must be > 0");
  const auto backend = o.backend == "cuda" ? cb::harness::Backend::kCuda : cb::harness::Backend::kCpu;
  if (from_checkpoint && backend == cb::harness::Backend::kCuda) {
    const auto st = cb::harness::Availability(backend);
    if (!st.ok) throw UsageError("eval mia --backend cuda: " + st.reason);
  }
  cb::mia::StatsFile file;
  cb::mia::CheckpointEvalReport report;
  try {
    if (from_checkpoint) {
      cb::mia::FsdFineTuneOptions ft;
      ft.lr = o.ft_lr;
      ft.epochs = o.ft_epochs;
      file = cb::mia::StatsFromCheckpoint(o.checkpoint, o.dataset, o.finetune_on, backend, ft, &report);
    } else {
      file = cb::mia::ReadStatsFile(o.stats);
    }
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const std::string dataset = from_checkpoint ? std::filesystem::path(o.dataset).filename().string()
                              : o.dataset.empty() ? std::filesystem::path(o.stats).filename().string()
                                                  : o.dataset;
  const auto metrics = cb::mia::EvaluateStats(file, o.resamples, o.seed);
  const auto rows = cb::mia::EvaluationResults(file, dataset, metrics, o.resamples);

  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const auto meta = CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed);
  const int64_t run_id = ledger.BeginRun(meta);
  cb::ledger::RunGuard run(ledger, run_id);
  ledger.AddResults(run_id, rows);
  run.Finish(cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);

  if (o.json) {
    nlohmann::json out = {{"run_id", run_id}, {"run_hash", summary.run_hash}, {"dataset", dataset},
                          {"texts", file.texts.size()}, {"input_hash", file.content_hash},
                          {"methods", nlohmann::json::array()}};
    if (from_checkpoint) {
      out["checkpoint"] = {{"dir", o.checkpoint}, {"parameters", report.parameters},
                           {"positions", report.positions}, {"backend", o.backend}};
      if (report.finetuned)
        out["finetune"] = {{"file", o.finetune_on}, {"steps", report.finetune.steps},
                           {"tokens", report.finetune.stream_tokens},
                           {"loss_before", report.finetune.loss_before},
                           {"loss_after", report.finetune.loss_after}};
    }
    for (const auto& m : metrics) {
      out["methods"].push_back({{"method", m.method}, {"auroc", m.auroc},
                                {"auroc_ci", {m.auroc_ci_low, m.auroc_ci_high}},
                                {"tpr_at_fpr_le_0.05", m.tpr_at_5_fpr_le},
                                {"tpr_at_fpr_lt_0.05", m.tpr_at_5_fpr_lt},
                                {"fpr_at_tpr_0.95", m.fpr_at_95_tpr},
                                {"tpr_at_fpr_le_0.05_all_points", m.tpr_at_5_fpr_le_all_points},
                                {"tpr_at_fpr_lt_0.05_all_points", m.tpr_at_5_fpr_lt_all_points},
                                {"fpr_at_tpr_0.95_all_points", m.fpr_at_95_tpr_all_points}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  int members = 0;
  for (const auto& t : file.texts) members += t.label;
  std::printf("%s: %zu texts (%d members), input %s\n", dataset.c_str(), file.texts.size(), members,
              file.content_hash.c_str());
  if (from_checkpoint) {
    std::printf("scored under %s (%lld parameters, %s): %lld positions, %.1f s\n", o.checkpoint.c_str(),
                static_cast<long long>(report.parameters), o.backend.c_str(),
                static_cast<long long>(report.positions), report.seconds);
    if (report.finetuned)
      std::printf("FSD LoRA fine-tune on %s: r=%d alpha=%g, %d steps, %lld tokens, loss on it %.4f -> %.4f\n",
                  o.finetune_on.c_str(), cb::mia::FsdFineTuneOptions{}.lora.rank,
                  cb::mia::FsdFineTuneOptions{}.lora.alpha, report.finetune.steps,
                  static_cast<long long>(report.finetune.stream_tokens), report.finetune.loss_before,
                  report.finetune.loss_after);
  }
  std::printf("\n");
  std::printf("%s %s %s %s %s\n", Fit("method", 16).c_str(), Fit("AUROC [95% CI]", 26).c_str(),
              Fit("TPR@5%FPR (<=)", 15).c_str(), Fit("TPR@5%FPR (<)", 15).c_str(), "FPR@95%TPR");
  for (const auto& m : metrics) {
    char auc[64], le[16], lt[16];
    std::snprintf(auc, sizeof auc, "%.4f [%.4f, %.4f]", m.auroc, m.auroc_ci_low, m.auroc_ci_high);
    std::snprintf(le, sizeof le, "%.4f", m.tpr_at_5_fpr_le);
    std::snprintf(lt, sizeof lt, "%.4f", m.tpr_at_5_fpr_lt);
    std::printf("%s %s %s %s %.4f\n", Fit(m.method, 16).c_str(), Fit(auc, 26).c_str(), Fit(le, 15).c_str(),
                Fit(lt, 15).c_str(), m.fpr_at_95_tpr);
  }
  std::printf("\nTPR/FPR read off sklearn's roc_curve with its defaults (drop_intermediate), as the authors'\n"
              "code does; the full-curve values are in --json and the ledger (*_all_points).\n");
  std::printf("\nrun %lld complete, run_hash %s\n", static_cast<long long>(run_id), summary.run_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddEvalMiaCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto options = std::make_shared<EvalMiaOptions>();
  CLI::App* mia = eval->add_subcommand(
      "mia", "Membership inference (Loss, Zlib, Lowercase, Min-K%, Min-K%++, Ref, FSD) on per-token stats");
  mia->add_option("--stats", options->stats, "JSONL of per-token statistics (suites/mia/README.md)");
  mia->add_option("--checkpoint", options->checkpoint,
                  "Llama-family checkpoint folder (HF layout) that computes the statistics itself");
  mia->add_option("--dataset", options->dataset,
                  "With --stats: the label recorded (default: file name); with --checkpoint: the JSONL of "
                  "texts ({label, ids|text} per line)");
  mia->add_option("--finetune-on", options->finetune_on,
                  "With --checkpoint: FSD's LoRA fine-tune on this JSONL ({ids|text} per line) first");
  mia->add_option("--backend", options->backend, "With --checkpoint: cpu or cuda")->capture_default_str();
  mia->add_option("--ft-lr", options->ft_lr, "FSD fine-tune learning rate")->capture_default_str();
  mia->add_option("--ft-epochs", options->ft_epochs, "FSD fine-tune epochs")->capture_default_str();
  mia->add_option("--resamples", options->resamples, "Bootstrap resamples of each AUROC CI")->capture_default_str();
  mia->add_option("--seed", options->seed, "Seed of the bootstrap")->capture_default_str();
  AddLedgerOption(mia, &options->ledger);
  mia->add_flag("--json", options->json, "Print the metrics as JSON on stdout");
  mia->callback([options, cmdline, exit_code] { *exit_code = RunEvalMia(*options, cmdline); });
}

CB_REGISTER_COMMAND(eval_mia, AddEvalMiaCommand);

}  // namespace cb::cli

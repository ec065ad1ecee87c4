// File: ledger/cli/history_command.cpp
// `claimbench history --suite S --case C --metric M`: the per-run series with
// change points, each named by the first run after it; `history --claim ID`:
// a claim's verdicts per run and where its criterion changed
// (ledger/analysis/history.h).
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/analysis/history.h"

namespace cb::cli {
namespace {

namespace lg = cb::ledger;

struct HistoryCliOptions {
  std::string ledger, suite, case_name, metric, backend, platform, claim;
  std::vector<std::string> params;  // --param KEY=VALUE filters
  double min_step = 0.05;
  double penalty = 3.0;
  bool json = false;
};

int History(const HistoryCliOptions& o) {
  const bool by_metric = !o.suite.empty() || !o.case_name.empty() || !o.metric.empty();
  if (o.claim.empty() == !by_metric || (by_metric && (o.suite.empty() || o.case_name.empty() || o.metric.empty()))) {
    throw UsageError("history takes either --claim ID or all of --suite, --case and --metric");
  }
  if (!(o.min_step >= 0)) throw UsageError("--min-step must be >= 0");
  if (!(o.penalty >= 0)) throw UsageError("--penalty must be >= 0");
  const std::string path = ResolveLedgerPath(o.ledger);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(path);
  if (!o.claim.empty()) {
    const auto points = lg::ClaimHistory(ledger, o.claim, o.platform);
    std::cout << (o.json ? lg::ClaimHistoryJson(o.claim, points).dump(2) + "\n"
                         : lg::ClaimHistoryTable(o.claim, points));
    return kExitOk;
  }
  lg::HistoryOptions opt;
  for (const auto& p : o.params) {
    try {
      opt.params.push_back(lg::ParseParamFilter(p));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  opt.backend = o.backend;
  opt.platform = o.platform;
  opt.change.min_relative_step = o.min_step;
  opt.change.penalty_factor = o.penalty;
  const auto series = lg::History(ledger, o.suite, o.case_name, o.metric, opt);
  if (o.json) {
    std::cout << lg::HistoryJson(series).dump(2) << "\n";
  } else {
    std::cout << lg::HistoryTable(series);
  }
  return kExitOk;
}

}  // namespace

void AddHistoryCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  auto o = std::make_shared<HistoryCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "One metric over the ledger's runs, with change points and the first run after each; or one claim's verdicts");
  AddLedgerOption(cmd, &o->ledger);
  cmd->add_option("--suite", o->suite, "Suite");
  cmd->add_option("--case", o->case_name, "Case");
  cmd->add_option("--metric", o->metric, "Metric");
  cmd->add_option("--claim", o->claim,
                  "Instead of a metric: one claim's verdicts per run, marking where its criterion changed");
  cmd->add_option("--backend", o->backend, "Only this backend (default: one series per backend)");
  cmd->add_option("--platform", o->platform, "Only runs whose platform hash starts with this");
  cmd->add_option("--param", o->params,
                  "KEY=VALUE: only rows whose params have it (repeatable; numbers match numbers, "
                  "e.g. a benchmark axis rows=1000)");
  cmd->add_option("--min-step", o->min_step, "Smallest step reported, as a fraction of the median")
      ->capture_default_str();
  cmd->add_option("--penalty", o->penalty,
                  "Penalty factor k in k * sigma^2 * ln(n) (3 = modified BIC; see harness/changepoint.h)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o, exit_code] { *exit_code = History(*o); });
}

CB_REGISTER_COMMAND(history, AddHistoryCommand);

}  // namespace cb::cli

// File: ledger/cli/gate_command.cpp
// `claimbench gate`: a run against a baseline, with a verdict per row, every
// verdict stored in the ledger's `decisions` table, and exit code 0 (no
// regression), 1 (regression), 2 (only ambiguous) or 3 (error). The rules are
// in ledger/analysis/gate.h.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/analysis/gate.h"
#include "ledger/analysis/gate_format.h"
#include "ledger/analysis/run_data.h"

namespace cb::cli {
namespace {

namespace lg = cb::ledger;

struct GateOptions {
  std::string ledger;
  std::string baseline;
  std::string run = "latest";
  std::string policy;
  std::string format = "table";
  std::string junit;
  bool cross_platform = false;
  bool json = false;
  bool all = false;
  bool no_store = false;
  std::string expect_head;  // a chain hash that must still be in the ledger's chain
};

int Gate(const GateOptions& o) {
  // Arguments first: bad input opens no ledger and writes nothing.
  if (o.format != "table" && o.format != "md") {
    throw UsageError("--format '" + o.format + "': expected table or md");
  }
  if (o.json && o.format != "table") throw UsageError("--json and --format md are exclusive");
  CheckExpectHead(o.expect_head);
  const lg::GatePolicy policy = o.policy.empty() ? lg::GatePolicy{} : lg::LoadPolicy(o.policy);
  const std::string path = ResolveLedgerPath(o.ledger);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");

  lg::Ledger ledger = lg::Ledger::Open(path);
  // The anchor first: a ledger whose newest runs vanished is not gated, and
  // no decision is stored in it.
  if (!o.expect_head.empty() && !VerifyOrSay(ledger, o.expect_head).ok) return kExitRegression;
  const int64_t run_id = ledger.ResolveRun(o.run);
  const lg::RunData candidate = lg::LoadRun(ledger, run_id);
  if (candidate.run.run_hash.empty()) {
    throw UsageError("run " + std::to_string(run_id) + " is not sealed; gate a finished run");
  }
  const lg::RunData baseline = lg::LoadBaseline(o.baseline, ledger);
  if (baseline.run.run_hash == candidate.run.run_hash) {
    throw UsageError("the baseline and the candidate are the same run (" +
                     candidate.run.run_hash.substr(0, 12) + ")");
  }
  const lg::GateReport report = lg::Gate(baseline, candidate, policy, o.cross_platform);
  if (!o.junit.empty()) cb::harness::WriteFileAtomically(o.junit, lg::GateJunit(report));
  if (!o.no_store) lg::StoreDecisions(ledger, report);

  if (o.json) {
    std::cout << lg::GateJson(report).dump(2) << "\n";
  } else if (o.format == "md") {
    std::cout << lg::GateMarkdown(report, o.all);
  } else {
    std::cout << lg::GateTable(report, o.all);
  }
  return report.exit_code;
}

}  // namespace

void AddGateCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gate", "Gate a run against a baseline: exit 0 pass, 1 regression, 2 only ambiguous, 3 error");
  cmd->add_option("--baseline", o->baseline,
                  "Baseline: a ledger file (its newest complete run), an export file, or a run "
                  "(id, hash or uuid prefix) of --ledger")
      ->required();
  cmd->add_option("--run", o->run, "The candidate run (id, 'latest', hash or uuid prefix)")
      ->capture_default_str();
  cmd->add_option("--policy", o->policy, "Gate policy JSON (thresholds, tolerances; see ledger/README.md)");
  cmd->add_flag("--cross-platform", o->cross_platform,
                "Compare although the platform hashes differ (output-hash changes then only reported)");
  cmd->add_option("--format", o->format, "table or md (a pull-request comment)")->capture_default_str();
  cmd->add_option("--junit", o->junit, "Also write JUnit XML (one testcase per row) to this file");
  cmd->add_flag("--json", o->json, "Print the report as JSON");
  cmd->add_flag("--all", o->all, "List SAME/MATCH rows too");
  cmd->add_flag("--no-store", o->no_store, "Do not record the verdicts in the decisions table");
  AddExpectHeadOption(cmd, &o->expect_head);
  AddLedgerOption(cmd, &o->ledger);
  cmd->callback([o, exit_code] { *exit_code = Gate(*o); });
}

CB_REGISTER_COMMAND(gate, AddGateCommand);

}  // namespace cb::cli

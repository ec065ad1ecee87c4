// File: ledger/cli/report_command.cpp
// `claimbench report --html out.html | --format md [--paper NAME]`: a
// self-contained HTML report (Chart.js inlined) or a Markdown summary
// (ledger/analysis/report.h); with --paper, one paper's page alone.
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/analysis/report.h"
#include "ledger/analysis/run_data.h"

namespace cb::cli {
namespace {

namespace lg = cb::ledger;

struct ReportCliOptions {
  std::string ledger, run, html, format, paper, chartjs = CB_CHARTJS_DEFAULT;
  int max_charts = 12;
};

// The default run: the newest complete sealed run with claims (a `bench` run
// recorded after it has none and would leave the report empty), else the
// newest sealed run.
int64_t DefaultRun(lg::Ledger& ledger) {
  for (const auto& r : ledger.Log(1 << 30)) {
    if (!r.run_hash.empty() && r.status == "complete" && r.claims > 0) return r.id;
  }
  return lg::NewestSealedRun(ledger);
}

int Report(const ReportCliOptions& o) {
  if (o.html.empty() == o.format.empty()) throw UsageError("give exactly one of --html FILE or --format md");
  if (!o.format.empty() && o.format != "md") throw UsageError("--format '" + o.format + "': expected md");
  if (o.max_charts < 0) throw UsageError("--max-charts must be >= 0");
  if (!o.html.empty() && !std::filesystem::exists(o.chartjs)) {
    throw UsageError("Chart.js '" + o.chartjs + "': no such file (install Debian's libjs-chart.js, or pass --chartjs)");
  }
  const std::string path = ResolveLedgerPath(o.ledger);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(path);
  lg::ReportOptions opt;
  opt.run_id = o.run.empty() ? DefaultRun(ledger) : ledger.ResolveRun(o.run);
  opt.max_history_charts = o.max_charts;
  opt.chartjs_path = o.chartjs;
  opt.paper = o.paper;
  try {
    if (!o.format.empty()) {
      std::cout << lg::MarkdownReport(ledger, opt);
      return kExitOk;
    }
    lg::ReportStats stats;
    const std::string page = lg::HtmlReport(ledger, opt, &stats);
    cb::harness::WriteFileAtomically(o.html, page);
    std::cerr << "claimbench report: wrote " << o.html << " (" << stats.charts << " charts, " << stats.forest_bars
              << " forest bars, " << stats.runs << " runs)\n";
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // --paper naming no paper of the run
  }
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  auto o = std::make_shared<ReportCliOptions>();
  CLI::App* cmd = app.add_subcommand("report", "A self-contained HTML report (--html) or a Markdown summary");
  AddLedgerOption(cmd, &o->ledger);
  cmd->add_option("--run", o->run, "The run whose claims are tabled (default: the newest complete sealed run with claims)");
  cmd->add_option("--html", o->html, "Write the HTML report to this file");
  cmd->add_option("--format", o->format, "md: print a Markdown summary instead");
  cmd->add_option("--paper", o->paper,
                  "Write one paper's page alone (its name or its suite, any case)");
  cmd->add_option("--max-charts", o->max_charts, "Most history charts (change points first)")->capture_default_str();
  cmd->add_option("--chartjs", o->chartjs, "Chart.js UMD file to inline")->capture_default_str();
  cmd->callback([o, exit_code] { *exit_code = Report(*o); });
}

CB_REGISTER_COMMAND(report, AddReportCommand);

}  // namespace cb::cli

// File: ledger/analysis/report.h
// -----------------------------------------------------------------------------
// `claimbench report` (issue 4 "Reports"): one self-contained HTML file, or a
// Markdown summary, of a ledger:
//   - one LOGICAL run (report_runs.h): a run made of shards (`run --shard`,
//     merged by `ledger merge`) is shown whole, with the shards it holds and
//     a warning naming any missing one;
//   - per suite a claim forest plot (report_forest.h; a text bar in Markdown);
//   - the claims table (paper, claim, paper value, measured [CI], setting,
//     verdict);
//   - per paper a section with anchor id "paper-<slug>" (paper value and
//     setting beside ours, scale, verdict, the suite README's path, and the
//     suite's benchmark rows as fractions of this platform's ceilings from
//     its newest bench run, report_fractions.h);
//   - history charts with change points (ledger/analysis/history.h) for the
//     run's timed rows (raw samples), at most max_history_charts of them,
//     those with change points first;
//   - CPU-vs-CUDA speedup bars (compare.h on the run's cpu and cuda rows) and
//     platform speedup bars (this run against the newest sealed run of
//     another platform, of the same profile when there is one), with their
//     CIs (report_speedup.h), each replaced by a note saying why when there
//     is nothing to compare;
//   - complexity figures (report_complexity.h) of rows differing only in n,
//     with the slope's bootstrap CI band;
//   - the run's heatmap-shaped rows (ledger/analysis/heatmap.h) as shaded
//     tables (HTML) or tables of numbers (Markdown), after the claims;
//   - each run's provenance (git commit and dirty flag, platform, build).
// Chart.js is inlined from the file `chartjs_path` (Debian's libjs-chart.js),
// so the page needs no network. The page counts the charts it rendered and
// the script errors it saw in <div id="cb-status" data-charts data-errors>,
// which the browser test reads.
#ifndef CB_LEDGER_ANALYSIS_REPORT_H_
#define CB_LEDGER_ANALYSIS_REPORT_H_

#include <cstdint>
#include <string>

#include "ledger/ledger.h"

namespace cb::ledger {

struct ReportOptions {
  int64_t run_id = 0;            // the run whose claims are tabled
  int max_history_charts = 12;
  int max_provenance_runs = 1000;
  std::string chartjs_path;      // Chart.js UMD build (HTML only)
  // When set: that paper's page alone (its claims, forest plot and heatmaps;
  // no history, comparisons or provenance). Matched case-insensitively on
  // the paper's name or its suite.
  std::string paper;
};

struct ReportStats {
  int charts = 0;        // <canvas> elements written
  int forest_bars = 0;   // forest-plot bars (claims with a measured value)
  int speedup_bars = 0;  // CPU-vs-CUDA and platform speedup bars
  int runs = 0;
};

// Throws std::runtime_error when chartjs_path cannot be read, and
// std::invalid_argument (naming the papers there are) when `paper` matches
// no claim of the run.
std::string HtmlReport(Ledger& ledger, const ReportOptions& options, ReportStats* stats = nullptr);
std::string MarkdownReport(Ledger& ledger, const ReportOptions& options);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_H_

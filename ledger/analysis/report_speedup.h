// File: ledger/analysis/report_speedup.h
// -----------------------------------------------------------------------------
// Speedup bars for the report (issue 29, "CPU vs CUDA and platform-vs-platform
// speedup bars with CIs"): one row per compared case of a CompareReport
// (compare.h), a bar from 1x to the paired median speedup of B over A on a
// log axis shared by every row, its bootstrap CI as a whisker, green where B
// is faster, red where slower, grey where a side failed or skipped its
// correctness check (not counted in the geometric mean, as in `compare`).
//
// HTML: inline SVG, no script; every bar is one <rect class="cb-speedup-bar">
// and every CI one <line class="cb-speedup-ci">, so a test can count them.
// Markdown: a table with the same numbers and a text bar on the same axis.
#ifndef CB_LEDGER_ANALYSIS_REPORT_SPEEDUP_H_
#define CB_LEDGER_ANALYSIS_REPORT_SPEEDUP_H_

#include <string>

#include "ledger/analysis/compare.h"

namespace cb::ledger {

// At most `max_rows` rows, in the report's order; a line under the figure
// says how many more `claimbench compare` lists. `bars`, when given, is set
// to the number of <rect class="cb-speedup-bar"> written. Rows whose speedup
// is not a positive finite number are listed under the figure instead.
std::string SpeedupSvg(const CompareReport& report, size_t max_rows = 200, int* bars = nullptr);
std::string SpeedupMarkdown(const CompareReport& report, size_t max_rows = 200);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_SPEEDUP_H_

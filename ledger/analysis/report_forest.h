// File: ledger/analysis/report_forest.h
// -----------------------------------------------------------------------------
// The claim forest plot of the report (issue 29): per suite, one row per claim
// with a measured value: its CI as a horizontal bar (a thin bar at the value
// when it has no CI), coloured by verdict, against its criterion's bound (a
// line at the threshold, the side that satisfies it shaded), the paper's own
// value marked where it is a bare number. Claims have unrelated units, so
// every row has its own axis spanning its numbers (labelled at both ends).
// Claims with no measured value (UNMEASURABLE, yes/no checks) are listed with
// their verdict and reason instead.
//
// HTML: inline SVG generated here (no script needed); every bar is one
// <rect class="cb-bar">, so a test can count one bar per measured claim.
// Markdown: the same as a fixed-width text bar per claim.
#ifndef CB_LEDGER_ANALYSIS_REPORT_FOREST_H_
#define CB_LEDGER_ANALYSIS_REPORT_FOREST_H_

#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

// The headline bound of a stored criterion text: the first leaf (text before
// the first "; ") rendered by harness/criterion.h as ">= a", "<= a",
// "within [a, b]" or "== a". nullopt for a yes/no leaf or an unknown shape.
struct Bound {
  std::optional<double> low, high;  // == a: both a
};
std::optional<Bound> HeadlineBound(const std::string& criterion);

// The paper's value when the text is one bare number ("0.306", "-2e-3").
std::optional<double> PaperNumber(const std::string& paper_value);

// `claims` of one suite (any order kept). `bars`, when given, is set to the
// number of <rect class="cb-bar"> written (the measured claims).
std::string ForestSvg(const std::vector<ClaimRow>& claims, int* bars = nullptr);
std::string ForestMarkdown(const std::vector<ClaimRow>& claims);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_FOREST_H_

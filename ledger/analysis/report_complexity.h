// File: ledger/analysis/report_complexity.h
// -----------------------------------------------------------------------------
// Complexity figures for the report (issue 29, "method-specific figures"):
// every series of a run's rows that differ only in a numeric size parameter
// "n" (same suite, case, backend, metric and other params; >= 3 distinct
// positive n, positive values) drawn as log-log points with the
// least-squares line of log(value) on log(n) and its slope. The line is for
// the eye: the claims' own exponents and CIs (harness/complexity.h) are in
// the claims table and forest plot. No CI band is drawn (not done: it needs
// a Student t quantile that the harness does not have yet).
#ifndef CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_
#define CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_

#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct ComplexitySeries {
  std::string title;                 // "suite/case [backend] metric {other params}"
  std::vector<double> n, value;      // by ascending n (median value per n)
  double slope = 0, intercept = 0;   // log(value) = intercept + slope * log(n)
};

// At most `max_series`, in the order the rows first appear.
std::vector<ComplexitySeries> CollectComplexity(const std::vector<Result>& rows, size_t max_series = 12);

// One <svg class="cb-fit"> with a <circle class="cb-fit-point"> per point and
// one <line class="cb-fit-line">.
std::string ComplexitySvg(const ComplexitySeries& s);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_

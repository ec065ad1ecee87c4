// File: ledger/analysis/report_complexity.h
// -----------------------------------------------------------------------------
// Complexity figures for the report (issue 29, "method-specific figures"):
// every series of a run's rows that differ only in a numeric size parameter
// "n" (same suite, case, backend, metric and other params; >= 3 distinct
// positive n, positive values) drawn as log-log points with the
// least-squares line of log(value) on log(n), its slope with the
// pairs-bootstrap 95% CI of harness/complexity.h FitPowerLaw (the fit the
// claims use; seeded, so the same ledger gives the same page), and a band of
// the lines through the fit's centroid whose slopes lie in that CI. The
// claims' own exponents and verdicts are in the claims table and forest plot.
#ifndef CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_
#define CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_

#include <string>
#include <vector>

#include "harness/stats.h"
#include "ledger/ledger.h"

namespace cb::ledger {

struct ComplexitySeries {
  std::string title;                 // "suite/case [backend] metric {other params}"
  std::vector<double> n, value;      // by ascending n (median value per n)
  double slope = 0, intercept = 0;   // log(value) = intercept + slope * log(n)
  cb::harness::Interval slope_ci;    // 95% pairs-bootstrap CI of the slope
};

// At most `max_series`, in the order the rows first appear.
std::vector<ComplexitySeries> CollectComplexity(const std::vector<Result>& rows, size_t max_series = 12);

// One <svg class="cb-fit"> with a <circle class="cb-fit-point"> per point and
// one <line class="cb-fit-line"> over one <path class="cb-fit-band">.
std::string ComplexitySvg(const ComplexitySeries& s);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_COMPLEXITY_H_

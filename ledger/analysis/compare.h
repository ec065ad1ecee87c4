// File: ledger/analysis/compare.h
// -----------------------------------------------------------------------------
// Platforms side by side (issue 4 "compare"; harness-anchors §3.7.3-4): two
// sides (two runs from two ledgers or two platforms, or the cpu and cuda rows of
// one run), per-case speedups with bootstrap CIs, geometric means per suite and
// overall, and each side's correctness status.
//
// speedup of B over A = median(A) / median(B) for lower-is-better metrics
// (times), median(B) / median(A) for higher-is-better ones (rates); its 95% CI
// is the percentile bootstrap of the ratio of medians (harness/stats_tests.h).
// Rows without raw samples (>= 2 on each side) get the ratio of values, no CI.
// Rows with direction "none" and no samples (counts, errors) are not speeds
// and are left out.
//
// Correctness status of a side, per (suite, case, backend): a row of that case
// with metric "correct" (1 = passed, 0 = failed) decides when the suite records
// one; otherwise the run's claims of that suite do: "failed" if any is
// NOT_REPRODUCED or the run did not complete, "passed" if there are claims and
// none failed, "unchecked" when the suite has no claim in that run. A speedup
// counts towards the geometric means only when both sides "passed" (DESIGN §5).
#ifndef CB_LEDGER_ANALYSIS_COMPARE_H_
#define CB_LEDGER_ANALYSIS_COMPARE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/analysis/run_data.h"

namespace cb::ledger {

struct CompareSide {
  std::string label;          // e.g. "a.db run 3 (platform 1a2b...)" or "cpu"
  std::string backend;        // only rows of this backend ("" = all)
  const RunData* run = nullptr;
};

struct CompareRow {
  std::string suite, case_name, params, metric, backend_a, backend_b, unit;
  double a = 0, b = 0;  // medians
  double speedup = 0;
  std::optional<double> ci_low, ci_high;
  std::string status_a, status_b;  // passed | failed | unchecked
  bool counted = false;
};

struct CompareReport {
  std::string label_a, label_b;
  std::vector<CompareRow> rows;
  std::map<std::string, std::pair<double, int>> suite_geomean;  // suite -> (geomean, rows counted)
  std::optional<double> overall_geomean;
  int counted = 0;
};

// Compare()
//
// Rows of A and B match on RowKey() without the backend when the two sides
// select different backends, with it otherwise. Only rows whose params match
// every filter (MatchesParams, run_data.h) are compared.
CompareReport Compare(const CompareSide& a, const CompareSide& b, int resamples = 2000,
                      const std::vector<ParamFilter>& params = {});

std::string CompareTable(const CompareReport& report);
nlohmann::json CompareJson(const CompareReport& report);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_COMPARE_H_

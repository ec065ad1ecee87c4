// File: ledger/analysis/history.h
// -----------------------------------------------------------------------------
// The history of one (suite, case, metric) over the ledger's runs, with change
// points (issue 4 "History"; harness-anchors §3.3): one point per run (the
// median of its raw samples, else its value), binary segmentation with the
// modified-BIC penalty of harness/changepoint.h and a minimum relative step,
// and for each step the first run after it (asv names "first bad commit" the
// same way).
#ifndef CB_LEDGER_ANALYSIS_HISTORY_H_
#define CB_LEDGER_ANALYSIS_HISTORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/changepoint.h"
#include "ledger/analysis/run_data.h"
#include "ledger/ledger.h"

namespace cb::ledger {

struct HistoryPoint {
  int64_t run_id = 0;
  std::string run_uuid, started_at, platform_hash;
  double value = 0;  // per-run median
  std::optional<double> ci_low, ci_high;
  int64_t n = 0;
};

struct HistoryStep {
  size_t index = 0;   // into points: the first point after the step
  int64_t first_run_id = 0;
  std::string first_run_uuid;
  double before = 0, after = 0;  // segment means
  double relative = 0;           // after / before - 1
};

struct HistorySeries {
  std::string suite, case_name, metric, backend, params;  // one series per (backend, params)
  std::vector<HistoryPoint> points;
  std::vector<HistoryStep> steps;
};

struct HistoryOptions {
  std::string backend;   // "" = every backend, one series each
  std::string platform;  // "" = every platform (prefix of the platform hash otherwise)
  std::vector<ParamFilter> params;  // only rows whose params match all (run_data.h)
  cb::harness::ChangePointOptions change;  // default: min_relative_step 0.05
  HistoryOptions() { change.min_relative_step = 0.05; }
};

// History()
//
// Series of (suite, case, metric), one per (backend, canonical params), over
// sealed runs in run order. Empty when nothing matches.
std::vector<HistorySeries> History(Ledger& ledger, const std::string& suite,
                                   const std::string& case_name, const std::string& metric,
                                   const HistoryOptions& options = {});

nlohmann::json HistoryJson(const std::vector<HistorySeries>& series);
std::string HistoryTable(const std::vector<HistorySeries>& series);

// One claim's verdicts over the ledger's sealed runs, in run order, and
// where its pre-registered criterion changed (claims.criterion_hash, ledger
// schema 7): a verdict after such a change answers another question.
struct ClaimHistoryPoint {
  int64_t run_id = 0;
  std::string run_uuid, started_at, profile;
  std::string verdict, criterion, scale;
  std::optional<double> value, ci_low, ci_high;
  std::optional<std::string> criterion_hash;  // nullopt before schema 7
  // The criterion hash differs from the previous point that had one.
  bool criterion_changed = false;
};

// ClaimHistory()
//
// Empty when the claim is in no sealed run. `platform`: "" = every platform,
// else a prefix of the platform hash.
std::vector<ClaimHistoryPoint> ClaimHistory(Ledger& ledger, const std::string& claim_id,
                                            const std::string& platform = "");
nlohmann::json ClaimHistoryJson(const std::string& claim_id, const std::vector<ClaimHistoryPoint>& points);
std::string ClaimHistoryTable(const std::string& claim_id, const std::vector<ClaimHistoryPoint>& points);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_HISTORY_H_

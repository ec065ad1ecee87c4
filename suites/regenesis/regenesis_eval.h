// File: suites/regenesis/regenesis_eval.h
// -----------------------------------------------------------------------------
// ReGenesis prediction files (README "Prediction files"): one JSON object per
// line, {"task", "gold", and one of "prediction" (raw output, a string),
// "samples" (several raw outputs: self-consistency), "answer" (already
// extracted); optional "family", "id"}. Two files, before and after
// fine-tuning, give per-task accuracy under every extraction rule
// (reference/regenesis/extract.h), per-task deltas, and the in-domain and
// OOD deltas (reference/regenesis/scores.h). Shared by `claimbench eval
// regenesis` and the claims.
#ifndef CB_SUITES_REGENESIS_REGENESIS_EVAL_H_
#define CB_SUITES_REGENESIS_REGENESIS_EVAL_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/result.h"
#include "reference/regenesis/scores.h"

namespace cb::regenesis {

namespace rr = cb::ref::regenesis;

// Throws std::runtime_error "SOURCE:LINE: what" for the first bad row (bad
// JSON, a missing or mistyped field, an unknown family, a gold label with no
// normal form in its family, a repeated (task, id)).
std::vector<rr::Prediction> ParsePredictions(std::string_view text, const std::string& source);

struct RuleReport {
  rr::Rule rule;
  std::map<std::string, rr::TaskAccuracy> before, after;
  rr::Deltas deltas;
};

struct DeltaReport {
  std::vector<RuleReport> rules;  // kStandard first, then kStrict, kFirst
  std::vector<std::string> in_domain, ood;
  std::map<std::string, std::string> family;  // task -> family name
  size_t rows_before = 0, rows_after = 0;
};

// Scores both files under every rule. Throws std::runtime_error when the two
// files share no task.
DeltaReport Compare(const std::vector<rr::Prediction>& before, const std::vector<rr::Prediction>& after,
                    const std::vector<std::string>& in_domain, const std::vector<std::string>& ood);

std::vector<cb::harness::Result> ReportRows(const DeltaReport& r, const nlohmann::json& params,
                                            const std::string& input_hash);
nlohmann::json ReportJson(const DeltaReport& r);
void PrintReport(const DeltaReport& r);

}  // namespace cb::regenesis

#endif  // CB_SUITES_REGENESIS_REGENESIS_EVAL_H_

// File: ledger/analysis/gate.h
// -----------------------------------------------------------------------------
// The regression gate (issue 4; harness-anchors §3.2, §3.7.5-6, §3.7.9): a
// candidate run against a baseline run, row by row, with a verdict per row and
// an exit code for CI.
//
// Rows match on RowKey() (suite, case, backend, canonical params, metric);
// a key that occurs several times in a run pairs its i-th occurrence in the
// candidate with its i-th in the baseline, in recording order.
// How a pair of rows is compared is decided by the kind each row declares
// (harness ResultKind, stored in results.kind since ledger schema 4), never
// by the metric's name, its unit, its samples or its params:
//   timing rows (kTiming: read off a clock or meter), when both sides carry
//     >= policy.min_samples raw samples: two-sided Mann-Whitney U on the
//     samples AND the percentile-bootstrap 95% CI of the relative change of
//     medians, expressed as a slowdown (positive = worse, using the row's
//     direction; "none" counts as lower-is-better, as samples are times).
//     p-values are Benjamini-Hochberg adjusted across the run's speed rows;
//     significant = q <= policy.fdr_q.
//       SLOWER   significant and CI wholly above +threshold
//       FASTER   significant and CI wholly below -threshold
//       SAME     CI wholly within [-threshold, +threshold]
//       AMBIGUOUS otherwise
//     Gated only when the policy says "gate_speed": true. The default does
//     not gate speed: two runs of the same build on one machine differ by
//     whatever else the machine was doing, and a gate that fails on that is
//     not evidence about the code (a dedicated, quiet machine may opt in).
//     A timing with fewer samples on a side: VALUE, reported, never gated.
//   exact and estimate rows (kExact, kEstimate: deterministic functions of
//   seed, params and build; an input-hash mismatch is detected when both
//   sides have one):
//       INPUT_CHANGED  the input hashes differ: not comparable, reported
//       CHANGED        same input, value outside |c - b| <= atol + rtol |b|
//       OUTPUT_CHANGED same input, value within tolerance, output hash differs
//                      (a regression on one platform; reported only with
//                      --cross-platform, where bits may legitimately differ)
//       MATCH          otherwise
//   KIND_CHANGED: the two sides declare different kinds; reported.
//   A row recorded before ledger schema 4 has no kind: when the other side
//     declares one, the pair is compared as that kind but reported, not
//     gated (the note says so); when neither does, VALUE, reported.
//   claims: WORSE when the baseline verdict was REPRODUCED and the candidate's
//     is anything else; IMPROVED the other way; MATCH / CHANGED otherwise;
//     CRITERION_CHANGED when both sides recorded a criterion hash (schema 7)
//     and they differ: the verdicts answer different questions, so they are
//     reported side by side and never gated.
//     A claim whose verdict rests on a clock or meter (ClaimSpec::
//     depends_on_clock, stored since schema 4; the candidate's declaration
//     wins) is reported, not gated; so is one neither side declared.
//   NEW: in the candidate only (e.g. a suite that landed after the baseline);
//   MISSING: in the baseline only. Both reported, never regressions.
//
// Exit code: 1 if any gated row regressed (SLOWER when speed is gated,
// CHANGED, OUTPUT_CHANGED on one platform, WORSE), else 2 if any gated speed
// row is AMBIGUOUS, else 0.
#ifndef CB_LEDGER_ANALYSIS_GATE_H_
#define CB_LEDGER_ANALYSIS_GATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/analysis/run_data.h"
#include "ledger/ledger.h"

namespace cb::ledger {

struct Tolerance {
  double rtol = 1e-9;
  double atol = 0.0;
};

// A gate policy (JSON file, all keys optional):
//   {"version": "2026-11-30", "threshold": 0.05, "fdr_q": 0.05,
//    "min_samples": 3, "resamples": 1000, "gate_speed": false,
//    "suites": {"harness": {"threshold": 0.10}},
//    "tolerance": {"rtol": 1e-9, "atol": 0},
//    "metrics": {"nmse": {"rtol": 0, "atol": 1e-12}},
//    "comment": "why (ignored)"}
// "ignore_claims" is refused: claims declare depends_on_clock instead.
// policy_version = "<version>+<first 12 hex of XXH3-128 of the canonical JSON>",
// so any edit to the file changes the version recorded with each decision.
struct GatePolicy {
  std::string version = "default";
  double threshold = 0.05;
  double fdr_q = 0.05;
  int min_samples = 3;
  int resamples = 1000;
  bool gate_speed = false;  // see the file comment: speed is opt-in
  std::map<std::string, double> suite_threshold;
  Tolerance tolerance;
  std::map<std::string, Tolerance> metric_tolerance;
  std::string policy_version = "default";

  double ThresholdFor(const std::string& suite) const;
  Tolerance ToleranceFor(const std::string& metric) const;
};

// ParsePolicy()
//
// Throws std::runtime_error naming `source` and the bad key.
GatePolicy ParsePolicy(const nlohmann::json& j, const std::string& source);
GatePolicy LoadPolicy(const std::string& path);

enum class RowKind { kSpeed, kDeterministic, kValue, kClaim };
const char* RowKindName(RowKind k);

struct GateRow {
  RowKind kind = RowKind::kValue;
  std::string suite, case_name, backend, metric;  // claim rows: case_name = claim id
  std::string params;                             // canonical JSON
  std::string result_kind;  // "exact" | "estimate" | "timing" | "unknown" ("" for claims)
  std::string verdict;                            // see the file comment
  bool gated = false;       // counts towards the exit code
  bool regression = false;  // gated and worse
  std::string test;         // "mann-whitney-u exact + bootstrap", "tolerance", "claim verdict", ...
  std::optional<double> baseline_value, candidate_value;
  int64_t n_baseline = 0, n_candidate = 0;
  std::optional<double> p, q;           // speed rows
  std::optional<double> effect;         // slowdown (speed), relative change (value rows)
  std::optional<double> ci_low, ci_high;  // slowdown CI (speed rows)
  std::optional<double> threshold;
  std::string baseline_verdict, candidate_verdict;  // claims
  std::string baseline_input_hash, candidate_input_hash;
  std::string baseline_output_hash, candidate_output_hash;
  std::string note;  // one line of why
};

struct GateReport {
  std::string baseline_label, candidate_label;
  int64_t candidate_run_id = 0;
  std::string baseline_ref;  // run_hash of the baseline run
  bool cross_platform = false;
  std::string policy_version;
  std::vector<GateRow> rows;  // regressions first, then ambiguous, then the rest
  std::map<std::string, int64_t> counts;  // verdict -> rows
  int exit_code = 0;
};

// Gate()
//
// REQUIRES: the two runs' platform hashes are equal, or cross_platform
// (std::runtime_error otherwise, naming both hashes).
GateReport Gate(const RunData& baseline, const RunData& candidate, const GatePolicy& policy,
                bool cross_platform);

// StoreDecisions()
//
// One `decisions` row per gate row (in one transaction), with its test, n, p,
// effect, CI, threshold and policy version; the rest (kind, backend, params,
// q, values, hashes, note) in detail.
void StoreDecisions(Ledger& ledger, const GateReport& report);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_GATE_H_

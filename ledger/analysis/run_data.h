// File: ledger/analysis/run_data.h
// -----------------------------------------------------------------------------
// One sealed run loaded whole (its summary, result rows and claim rows), the
// unit that gate and compare work on, and the three ways to name a baseline:
// a ledger file (its newest complete sealed run), an export file (`ledger
// export`, JSON Lines: its last run, every hash re-verified on the way in), or
// a run reference (id, hash or uuid prefix) in the candidate's own ledger.
#ifndef CB_LEDGER_ANALYSIS_RUN_DATA_H_
#define CB_LEDGER_ANALYSIS_RUN_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct RunData {
  RunSummary run;
  std::string label;  // where it came from, e.g. "ci/baselines/smoke.jsonl run 1f2e..."
  std::vector<Result> results;
  // kinds[i]: the kind results[i] was recorded with, or nullopt for a row
  // recorded before schema version 4 (no kind stored; results[i].kind then
  // means nothing). Empty when the rows were built in memory: then every
  // row's Result::kind is its kind.
  std::vector<std::optional<cb::harness::ResultKind>> kinds;
  std::vector<ClaimRow> claims;

  std::optional<cb::harness::ResultKind> KindOf(size_t i) const {
    if (kinds.empty()) return results[i].kind;
    return kinds[i];
  }
};

// RowKey()
//
// The identity rows are matched on: suite, case, backend, canonical params
// (sorted keys, no spaces) and metric, joined by U+001F.
std::string RowKey(const Result& r);

// ParamFilter, ParseParamFilter(), MatchesParams()
//
// `--param KEY=VALUE` (compare, history): a row is kept when its params have
// KEY with that value. VALUE is read as JSON when it is a JSON number, true,
// false or null (so "rows=1000" matches the number 1000, as the benchmark
// reporter stores named axes), else as text; a text param also matches its
// text exactly. Every filter must match.
struct ParamFilter {
  std::string key, text;
  nlohmann::json value;
};
// Throws std::invalid_argument naming `arg` when it has no '=' or no key.
ParamFilter ParseParamFilter(const std::string& arg);
bool MatchesParams(const nlohmann::json& params, const std::vector<ParamFilter>& filters);

// LoadRun()
//
// REQUIRES: run_id exists in `ledger` (LedgerError otherwise).
RunData LoadRun(Ledger& ledger, int64_t run_id);

// LoadBaseline()
//
// `spec` names a SQLite ledger file, an export file, or (when no such file
// exists) a run of `candidate_ledger`. Throws LedgerError / std::runtime_error
// with one line naming `spec` when it names nothing usable.
RunData LoadBaseline(const std::string& spec, Ledger& candidate_ledger);

// IsSqliteFile()
//
// Whether `path` starts with the SQLite 3 file header.
bool IsSqliteFile(const std::string& path);

// NewestSealedRun()
//
// The newest sealed run with status "complete", else the newest sealed run.
// Throws LedgerError naming the file when there is none.
int64_t NewestSealedRun(Ledger& ledger);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_RUN_DATA_H_

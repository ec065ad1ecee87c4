// File: ledger/resume.h
// -----------------------------------------------------------------------------
// What `claimbench run --resume RUN` keeps of an unfinished run: each claim it
// recorded, in order, with the result rows that claim produced. The rows a
// claim had recorded when the run was cut off (no claim row yet) are not
// kept: that claim runs again from its start.
//
// A claim's results are known from claims.own_results (schema version 6,
// claim/4): the `own_results` rows after the previous claims' rows. Claims
// recorded before that version cannot be split this way and are refused.
//
// The caller verifies the ledger first (Ledger::Verify): copying rows into a
// new run gives them hashes again, which would hide an edit.
#ifndef CB_LEDGER_RESUME_H_
#define CB_LEDGER_RESUME_H_

#include <cstdint>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct ResumePlan {
  struct Kept {
    ClaimRow claim;
    std::vector<Result> results;  // in the order they were recorded
  };
  std::vector<Kept> kept;     // the recorded claims, in seq order
  int64_t results_kept = 0;
  int64_t results_dropped = 0;  // rows of the claim that was cut off
};

// `results` and `claims` are one run's rows in seq order (GetResults,
// GetClaims). Throws LedgerError, one line naming `run_name`, when a claim
// has no own_results, or the counts are negative or add up past the rows.
ResumePlan PlanResume(const std::string& run_name, std::vector<Result> results,
                      std::vector<ClaimRow> claims);

}  // namespace cb::ledger

#endif  // CB_LEDGER_RESUME_H_

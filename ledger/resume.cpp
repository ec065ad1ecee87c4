// File: ledger/resume.cpp
// -----------------------------------------------------------------------------
// Splitting an unfinished run's rows by claim (see resume.h).
#include "ledger/resume.h"

#include <iterator>
#include <string>
#include <utility>

namespace cb::ledger {

ResumePlan PlanResume(const std::string& run_name, std::vector<Result> results,
                      std::vector<ClaimRow> claims) {
  ResumePlan plan;
  const int64_t total = static_cast<int64_t>(results.size());
  int64_t previous = 0;
  for (size_t k = 0; k < claims.size(); ++k) {
    ClaimRow& claim = claims[k];
    const std::string which = run_name + ": claim " + std::to_string(k + 1) + " (" + claim.claim_id + ")";
    if (!claim.own_results) {
      throw LedgerError(which + " was recorded before ledger schema version 6, which does not say "
                        "which results are a claim's: it cannot be resumed");
    }
    const int64_t own = *claim.own_results;
    if (own < 0 || own > total - previous) {
      throw LedgerError(which + ": own_results " + std::to_string(own) + " is not in [0, " +
                        std::to_string(total - previous) + "] (the run's rows after the previous claims')");
    }
    const int64_t through = previous + own;
    ResumePlan::Kept kept;
    kept.results.assign(std::make_move_iterator(results.begin() + previous),
                        std::make_move_iterator(results.begin() + through));
    kept.claim = std::move(claim);
    plan.kept.push_back(std::move(kept));
    previous = through;
  }
  plan.results_kept = previous;
  plan.results_dropped = total - previous;
  return plan;
}

}  // namespace cb::ledger

// File: ledger/claim_sink.cpp
// -----------------------------------------------------------------------------
// LedgerSink (see claim_sink.h).
#include "ledger/claim_sink.h"

#include <utility>

namespace cb::ledger {

cb::harness::ClaimContext::Sink LedgerSink(Ledger& ledger, int64_t run_id, std::string suite) {
  // The row goes in as recorded, its kind (ctx.RecordExact / RecordEstimate /
  // RecordTiming) included: the ledger stores and hashes it (result/4).
  return [&ledger, run_id, suite = std::move(suite)](const cb::harness::Result& r) {
    if (!r.suite.empty()) return ledger.AddResult(run_id, r);
    cb::harness::Result row = r;  // copied only when the suite must be filled in
    row.suite = suite;
    ledger.AddResult(run_id, row);
  };
}

}  // namespace cb::ledger

// File: ledger/claim_sink.h
// -----------------------------------------------------------------------------
// The one path by which a claim's results reach the ledger: the sink that
// `claimbench run` gives each ClaimContext. Every result is committed as it
// is recorded (its own transaction), so a crash loses nothing recorded.
#ifndef CB_LEDGER_CLAIM_SINK_H_
#define CB_LEDGER_CLAIM_SINK_H_

#include <cstdint>
#include <string>

#include "harness/claim.h"
#include "ledger/ledger.h"

namespace cb::ledger {

// A sink writing into `run_id` of `ledger`, filling Result::suite with
// `suite` when the claim left it empty.
// REQUIRES: `ledger` outlives the sink; `run_id` is an open run.
cb::harness::ClaimContext::Sink LedgerSink(Ledger& ledger, int64_t run_id, std::string suite);

}  // namespace cb::ledger

#endif  // CB_LEDGER_CLAIM_SINK_H_

// File: ledger/run_guard.cpp
#include "ledger/run_guard.h"

#include <stdexcept>

namespace cb::ledger {

RunGuard::~RunGuard() {
  if (finished_) return;
  try {
    ledger_->FinishRun(run_id_, RunStatus::kFailed);
  } catch (...) {
    // Never throw from a destructor: the run stays "running", which
    // `claimbench ledger verify` reports, and the first error propagates.
  }
}

void RunGuard::Finish(RunStatus status) {
  if (finished_) throw std::logic_error("RunGuard: run already finished");
  finished_ = true;  // set first: a FinishRun that throws is not retried as kFailed
  ledger_->FinishRun(run_id_, status);
}

}  // namespace cb::ledger

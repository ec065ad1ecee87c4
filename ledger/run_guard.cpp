// File: ledger/run_guard.cpp
#include "ledger/run_guard.h"

#include <stdexcept>
#include <string>

#include "harness/interrupt.h"

namespace cb::ledger {

RunGuard::~RunGuard() {
  if (finished_) return;
  try {
    if (cb::harness::InterruptRequested()) {
      SealInterrupted();
    } else {
      ledger_->FinishRun(run_id_, RunStatus::kFailed);
    }
  } catch (...) {
    // Never throw from a destructor: the run stays "running", which
    // `claimbench ledger verify` reports, and the first error propagates.
  }
}

void RunGuard::Finish(RunStatus status) {
  if (finished_) throw std::logic_error("RunGuard: run already finished");
  if (status == RunStatus::kComplete && cb::harness::InterruptRequested()) {
    finished_ = true;
    SealInterrupted();
    throw cb::harness::Interrupted{};
  }
  finished_ = true;  // set first: a FinishRun that throws is not retried as kFailed
  ledger_->FinishRun(run_id_, status);
}

void RunGuard::SealInterrupted() {
  ledger_->FinishRun(run_id_, RunStatus::kInterrupted);
  const int64_t results = ledger_->GetRun(run_id_).results;
  cb::harness::NoteInterruptKept("run " + std::to_string(run_id_) + " sealed interrupted with " +
                                 std::to_string(results) + (results == 1 ? " result" : " results"));
}

}  // namespace cb::ledger

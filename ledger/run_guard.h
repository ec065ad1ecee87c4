// File: ledger/run_guard.h
// -----------------------------------------------------------------------------
// RunGuard: a run that cannot be left "running" by an exception.
//
//   const int64_t run_id = ledger.BeginRun(meta);
//   cb::ledger::RunGuard run(ledger, run_id);
//   ... AddResults, anything that may throw ...
//   run.Finish(cb::ledger::RunStatus::kComplete);
//
// Destroyed before Finish() was called (an exception, an early return), the
// guard seals the run kFailed. An error while sealing it there is swallowed,
// so the exception already on its way out is the one the caller sees.
//
// Interrupts (harness/interrupt.h): it is the ledger's check point. Once
// SIGINT/SIGTERM was received, Finish(kComplete) seals the run kInterrupted
// instead and throws harness::Interrupted, and the destructor seals it
// kInterrupted instead of kFailed (a check point threw on the way out);
// either way every row added before stays, and a note "run N sealed
// interrupted with K results" goes into the line `claimbench` prints.
#ifndef CB_LEDGER_RUN_GUARD_H_
#define CB_LEDGER_RUN_GUARD_H_

#include <cstdint>

#include "ledger/ledger.h"

namespace cb::ledger {

class RunGuard {
 public:
  RunGuard(Ledger& ledger, int64_t run_id) : ledger_(&ledger), run_id_(run_id) {}
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
  ~RunGuard();

  // Seals the run with `status` (Ledger::FinishRun); the guard then does
  // nothing more. After SIGINT/SIGTERM, kComplete becomes kInterrupted and
  // Interrupted is thrown once the run is sealed.
  // REQUIRES: status != kRunning; called at most once.
  void Finish(RunStatus status);

  int64_t run_id() const { return run_id_; }
  bool finished() const { return finished_; }

 private:
  Ledger* ledger_;
  int64_t run_id_;
  bool finished_ = false;
  // Seals kInterrupted and notes what the run kept.
  void SealInterrupted();
};

}  // namespace cb::ledger

#endif  // CB_LEDGER_RUN_GUARD_H_

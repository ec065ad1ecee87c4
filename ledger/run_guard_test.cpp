// File: ledger/run_guard_test.cpp
#include "ledger/run_guard.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::SampleMeta;
using testutil::TempDir;

TEST(RunGuard, SealsTheRunFailedWhenAnExceptionLeavesTheScope) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run_id = ledger.BeginRun(SampleMeta());
  EXPECT_THROW(
      {
        RunGuard run(ledger, run_id);
        throw std::runtime_error("boom");
      },
      std::runtime_error);
  EXPECT_EQ(ledger.GetRun(run_id).status, "failed");
}

TEST(RunGuard, FinishSealsWithTheGivenStatusOnce) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run_id = ledger.BeginRun(SampleMeta());
  {
    RunGuard run(ledger, run_id);
    EXPECT_FALSE(run.finished());
    run.Finish(RunStatus::kComplete);
    EXPECT_TRUE(run.finished());
    EXPECT_THROW(run.Finish(RunStatus::kFailed), std::logic_error);
  }
  EXPECT_EQ(ledger.GetRun(run_id).status, "complete");
}

TEST(RunGuard, AnEarlyReturnSealsFailed) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run_id = ledger.BeginRun(SampleMeta());
  { RunGuard run(ledger, run_id); }
  EXPECT_EQ(ledger.GetRun(run_id).status, "failed");
}

TEST(RunGuard, AnErrorWhileSealingDoesNotEscapeTheDestructor) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run_id = ledger.BeginRun(SampleMeta());
  ledger.FinishRun(run_id, RunStatus::kInterrupted);  // sealed behind the guard's back
  EXPECT_NO_THROW({ RunGuard run(ledger, run_id); });
  EXPECT_EQ(ledger.GetRun(run_id).status, "interrupted");
}

}  // namespace
}  // namespace cb::ledger

// File: ledger/run_guard_test.cpp
#include "ledger/run_guard.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <stdexcept>
#include <string>

#include "harness/interrupt.h"
#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::SampleMeta;
using testutil::SampleResult;
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

// The interrupt flag is process-wide and stays set: each case runs `body`
// in a child process after SIGINT (handlers installed, as claimbench's Main
// does) and returns its exit code; the parent then reads the ledger the
// child left.
int AfterSigintInAChild(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    cb::harness::InstallInterruptHandlers();
    std::raise(SIGINT);
    int rc = 90;
    try {
      rc = body();
    } catch (...) {
      rc = 91;
    }
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(RunGuard, AfterSigintFinishCompleteSealsInterruptedKeepsTheRowsAndThrows) {
  TempDir dir;
  const std::string path = dir.File("l.db");
  const int rc = AfterSigintInAChild([&] {
    Ledger ledger = Ledger::Open(path);
    RunGuard run(ledger, ledger.BeginRun(SampleMeta()));
    ledger.AddResult(run.run_id(), SampleResult(0));
    ledger.AddResult(run.run_id(), SampleResult(1));
    try {
      run.Finish(RunStatus::kComplete);
    } catch (const cb::harness::Interrupted&) {
      const auto notes = cb::harness::InterruptKeptNotes();
      return notes == std::vector<std::string>{"run 1 sealed interrupted with 2 results"} ? 0 : 2;
    }
    return 1;  // not thrown
  });
  EXPECT_EQ(rc, 0) << "1: Finish did not throw Interrupted; 2: the note is not 'run 1 sealed interrupted with 2 "
                      "results'";
  Ledger ledger = Ledger::Open(path);
  EXPECT_EQ(ledger.GetRun(1).status, "interrupted");
  EXPECT_EQ(ledger.GetRun(1).results, 2);
  EXPECT_FALSE(ledger.GetRun(1).run_hash.empty());
  EXPECT_TRUE(ledger.Verify().ok) << ledger.Verify().first_error;
}

TEST(RunGuard, AfterSigintACheckPointUnwindingSealsInterruptedNotFailed) {
  TempDir dir;
  const std::string path = dir.File("l.db");
  const int rc = AfterSigintInAChild([&] {
    Ledger ledger = Ledger::Open(path);
    try {
      RunGuard run(ledger, ledger.BeginRun(SampleMeta()));
      ledger.AddResult(run.run_id(), SampleResult(0));
      cb::harness::ThrowIfInterrupted("after 1 of 3 items");
      return 1;
    } catch (const cb::harness::Interrupted& e) {
      return e.where == "after 1 of 3 items" && cb::harness::InterruptKeptNotes().size() == 1 ? 0 : 2;
    }
  });
  EXPECT_EQ(rc, 0);
  Ledger ledger = Ledger::Open(path);
  EXPECT_EQ(ledger.GetRun(1).status, "interrupted");
  EXPECT_EQ(ledger.GetRun(1).results, 1);
  EXPECT_TRUE(ledger.Verify().ok) << ledger.Verify().first_error;
}

TEST(RunGuard, AfterSigintAFailedRunStaysFailed) {
  TempDir dir;
  const std::string path = dir.File("l.db");
  EXPECT_EQ(AfterSigintInAChild([&] {
              Ledger ledger = Ledger::Open(path);
              RunGuard run(ledger, ledger.BeginRun(SampleMeta()));
              run.Finish(RunStatus::kFailed);  // a real failure is not renamed, and does not throw
              return 0;
            }),
            0);
  EXPECT_EQ(Ledger::Open(path).GetRun(1).status, "failed");
}

}  // namespace
}  // namespace cb::ledger

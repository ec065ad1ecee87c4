// File: ledger/concurrency_test.cpp
// -----------------------------------------------------------------------------
// Several processes writing one ledger at once lose nothing and chain
// correctly; a writer killed with SIGKILL leaves a ledger that verifies, its
// committed rows intact and its run shown as incomplete.
//
// Children are fork()ed and leave with _exit(), never returning into
// GoogleTest; each opens its own connection (SQLite connections must not
// cross a fork).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::SampleMeta;
using testutil::SampleResult;
using testutil::TempDir;

constexpr int kWriters = 4;
constexpr int kRowsPerWriter = 200;

// The forked children of one test. Those the test has not reaped when it ends
// (say, after a failed ASSERT) are killed and reaped, so no writer lives on,
// blocked or writing, after its directory is gone.
class Children {
 public:
  Children() = default;
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;
  ~Children() {
    for (pid_t pid : pids_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  void Add(pid_t pid) { pids_.push_back(pid); }
  // Waits for `pid`; returns its raw wait status, or -1 when waitpid failed.
  int Reap(pid_t pid) {
    std::erase(pids_, pid);
    int status = 0;
    return waitpid(pid, &status, 0) == pid ? status : -1;
  }

 private:
  std::vector<pid_t> pids_;
};

// The exit code in a wait status, or -1 when the child did not exit normally.
int ExitCode(int status) { return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

TEST(ConcurrencyTest, FourProcessesWritingAtOnceLoseNothing) {
  TempDir dir;
  const std::string path = dir.File("shared.db");
  // The file is not created in advance: the writers also race to create and
  // migrate it. A pipe holds them at the start line until all are forked.
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  Children children;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      char go;
      if (read(start[0], &go, 1) < 0) _exit(3);
      const char* stage = "open";
      try {
        Ledger ledger = Ledger::Open(path);
        stage = "begin";
        const int64_t run = ledger.BeginRun(SampleMeta("writer " + std::to_string(w)));
        stage = "add";
        for (int i = 0; i < kRowsPerWriter; ++i) ledger.AddResult(run, SampleResult(i));
        stage = "finish";
        ledger.FinishRun(run, RunStatus::kComplete);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d at %s: %s\n", w, stage, e.what());
        _exit(1);
      }
      _exit(0);
    }
    children.Add(pid);
    pids.push_back(pid);
  }
  close(start[0]);
  close(start[1]);  // EOF releases every writer at once
  for (pid_t pid : pids) {
    EXPECT_EQ(ExitCode(children.Reap(pid)), 0) << "a writer failed (see stderr)";
  }

  Ledger ledger = Ledger::Open(path);
  const VerifyReport rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.runs, kWriters);
  EXPECT_EQ(rep.results, kWriters * kRowsPerWriter);
  EXPECT_EQ(rep.unsealed_runs, 0);
  for (const RunSummary& r : ledger.Log()) {
    EXPECT_EQ(r.status, "complete");
    EXPECT_EQ(r.results, kRowsPerWriter);
    EXPECT_FALSE(r.chain_hash.empty());
  }
}

TEST(ConcurrencyTest, KilledWriterLeavesAVerifiableLedger) {
  TempDir dir;
  const std::string path = dir.File("killed.db");
  {
    Ledger ledger = Ledger::Open(path);
    testutil::AddSealedRun(ledger, 3);  // history that must stay intact
  }
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  Children children;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(report[0]);
    try {
      Ledger ledger = Ledger::Open(path);
      const int64_t run = ledger.BeginRun(SampleMeta("to be killed"));
      if (write(report[1], &run, sizeof run) != sizeof run) _exit(2);
      // Commits forever, one row at a time, until the parent kills us.
      for (int i = 0;; ++i) ledger.AddResult(run, SampleResult(i));
    } catch (...) {
      _exit(1);
    }
  }
  children.Add(pid);
  close(report[1]);
  int64_t run = 0;
  ASSERT_EQ(read(report[0], &run, sizeof run), static_cast<ssize_t>(sizeof run));
  close(report[0]);

  // Wait until some rows are committed, then check the run shows as alive.
  Ledger ledger = Ledger::Open(path);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (ledger.GetRun(run).results < 50 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const RunSummary alive = ledger.GetRun(run);
  ASSERT_GE(alive.results, 50) << "the writer made no progress";
  EXPECT_EQ(alive.status, "running");
  EXPECT_TRUE(alive.writer_alive);

  ASSERT_EQ(kill(pid, SIGKILL), 0);
  const int status = children.Reap(pid);
  ASSERT_TRUE(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  const VerifyReport rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.unsealed_runs, 1);
  const RunSummary dead = ledger.Log().front();
  EXPECT_EQ(dead.id, run);
  EXPECT_EQ(dead.status, "incomplete");
  EXPECT_FALSE(dead.writer_alive);
  EXPECT_GE(dead.results, alive.results);
  EXPECT_EQ(rep.results, 3 + dead.results);
  EXPECT_EQ(static_cast<int64_t>(ledger.GetResults(run).size()), dead.results);

  // The dead run can be sealed as interrupted afterwards, by anyone.
  ledger.FinishRun(run, RunStatus::kInterrupted);
  const VerifyReport sealed = ledger.Verify();
  EXPECT_TRUE(sealed.ok) << sealed.first_error;
  EXPECT_EQ(sealed.unsealed_runs, 0);
  EXPECT_EQ(ledger.GetRun(run).status, "interrupted");
}

}  // namespace
}  // namespace cb::ledger

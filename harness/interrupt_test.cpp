// File: harness/interrupt_test.cpp
// The interrupt flag, the check point and the one line `claimbench` prints
// (harness/interrupt.h). The flag is process-wide and stays set, so each case
// runs in a child process and reports through its exit code.
#include "harness/interrupt.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <string>

namespace cb::harness {
namespace {

// Runs `body` in a child; with `sigint`, after the handlers are installed and
// SIGINT raised. Returns the child's exit code (128 + signal if killed).
int InAChild(bool sigint, const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    InstallInterruptHandlers();
    if (sigint) std::raise(SIGINT);
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

TEST(Interrupt, TheCheckPointThrowsOnlyAfterASignal) {
  EXPECT_EQ(InAChild(false, [] {
              ThrowIfInterrupted("never");
              return InterruptRequested() || InterruptSignal() != 0 || !InterruptSignalName().empty() ? 1 : 0;
            }),
            0);
  EXPECT_EQ(InAChild(true, [] {
              if (!InterruptRequested() || InterruptSignal() != SIGINT || InterruptSignalName() != "SIGINT") return 1;
              try {
                ThrowIfInterrupted("after 2 of 5 items");
              } catch (const Interrupted& e) {
                return e.where == "after 2 of 5 items" ? 0 : 2;
              }
              return 3;
            }),
            0);
}

TEST(Interrupt, ASecondSignalKillsAtOnce) {
  EXPECT_EQ(InAChild(true, [] {
              std::raise(SIGINT);  // the default action, restored by the first
              return 0;
            }),
            128 + SIGINT);
}

TEST(Interrupt, TheLineNamesTheCommandTheSignalWhereAndWhatWasKept) {
  EXPECT_EQ(InAChild(true, [] {
              if (InterruptLine("gen sgp", {}) != "gen sgp interrupted by SIGINT; nothing recorded, nothing written")
                return 1;
              NoteInterruptKept("run 4 sealed interrupted with 0 results");
              NoteInterruptKept("3 answers kept");
              return InterruptLine("eval sgp", Interrupted{"after 3 of 12 requests"}) ==
                             "eval sgp interrupted by SIGINT after 3 of 12 requests; run 4 sealed interrupted with "
                             "0 results; 3 answers kept"
                         ? 0
                         : 2;
            }),
            0);
}

}  // namespace
}  // namespace cb::harness

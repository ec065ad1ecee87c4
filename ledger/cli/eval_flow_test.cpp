// File: ledger/cli/eval_flow_test.cpp
// The shared eval flow under SIGINT/SIGTERM (ledger/cli/eval_flow.h), the
// path of every `eval <benchmark> --predictions FILE`: a prediction file is
// scored in well under a second, so rather than racing a signal against a
// child claimbench, the flag is raised in a child process (it is
// process-wide and stays set) before the flow runs, and the parent reads the
// ledger it left. The endpoint path is tested end to end per command
// (suites/<m>/*_cli_test.cpp, "SigintMidEndpointEval...").
#include "ledger/cli/eval_flow.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/interrupt.h"
#include "ledger/ledger.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;

class EvalFlowInterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("cb_eval_flow_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `body` in a child after SIGINT (handlers installed as claimbench's
  // Main does); returns its exit code.
  static int AfterSigintInAChild(const std::function<int()>& body) {
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

  // Two rows, as a scorer's strict and paper-compatible modes give.
  static EvalScores TwoRows(bool* printed) {
    EvalScores s;
    for (const char* mode : {"strict", "paper"}) {
      cb::harness::Result r;
      r.suite = "flow";
      r.case_name = "overall";
      r.params = {{"scorer_mode", mode}};
      r.metric = "accuracy";
      r.unit = "%";
      r.value = 50;
      r.n = 4;
      s.rows.push_back(r);
    }
    s.print_table = [printed] { *printed = true; };
    return s;
  }

  fs::path dir_;
};

TEST_F(EvalFlowInterruptTest, BeforeTheRunStartsNothingIsRecordedAndNoLedgerIsMade) {
  const std::string db = (dir_ / "l.db").string();
  const int rc = AfterSigintInAChild([&] {
    char arg0[] = "claimbench";
    char* argv[] = {arg0, nullptr};
    bool printed = false;
    try {
      RecordPredictionRun({.ledger = db}, {1, argv}, "preds.jsonl", "{}\n", 1,
                          [&](const nlohmann::json&, const std::string&) { return TwoRows(&printed); });
    } catch (const cb::harness::Interrupted& e) {
      return e.where == "before the run started" && !printed ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(rc, 0) << "1: not interrupted; 2: wrong 'where' or the table was printed";
  EXPECT_FALSE(fs::exists(db));
}

TEST_F(EvalFlowInterruptTest, OnceTheRowsAreRecordedTheRunIsSealedInterruptedWithThem) {
  const std::string db = (dir_ / "l.db").string();
  const int rc = AfterSigintInAChild([&] {
    auto ledger = cb::ledger::Ledger::Open(db);
    cb::ledger::RunGuard run(ledger, ledger.BeginRun(CollectRunMeta("claimbench eval flow", "eval", 1)));
    bool printed = false;
    try {
      RecordEvalRun(ledger, run, {{"source", "preds.jsonl"}}, TwoRows(&printed), /*json=*/false, /*failed=*/false);
    } catch (const cb::harness::Interrupted&) {
      const auto notes = cb::harness::InterruptKeptNotes();
      return !printed && notes == std::vector<std::string>{"run 1 sealed interrupted with 2 results"} ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(rc, 0) << "1: not interrupted; 2: the table was printed or the note is wrong";
  auto ledger = cb::ledger::Ledger::Open(db);
  const auto run = ledger.GetRun(1);
  EXPECT_EQ(run.status, "interrupted");
  EXPECT_EQ(run.results, 2);
  EXPECT_FALSE(run.run_hash.empty());
  const auto report = ledger.Verify();
  EXPECT_TRUE(report.ok) << report.first_error;
  EXPECT_EQ(report.unsealed_runs, 0);
}

TEST_F(EvalFlowInterruptTest, WithoutASignalTheRunIsComplete) {
  // The control: the same flow, no signal, seals "complete" and prints.
  const std::string db = (dir_ / "l.db").string();
  {
    auto ledger = cb::ledger::Ledger::Open(db);
    cb::ledger::RunGuard run(ledger, ledger.BeginRun(CollectRunMeta("claimbench eval flow", "eval", 1)));
    bool printed = false;
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(RecordEvalRun(ledger, run, {{"source", "p"}}, TwoRows(&printed), false, false), kExitOk);
    ::testing::internal::GetCapturedStdout();
    EXPECT_TRUE(printed);
  }
  EXPECT_EQ(cb::ledger::Ledger::Open(db).GetRun(1).status, "complete");
}

// An endpoint run records which answers it scored (issue 30 item 1): one
// exact "endpoint_answers" row whose output_hash covers every answer used, so
// the answers are under the run's run_hash. A rerun from the cache records
// the same row; a cached answer changed in between (here through the API, so
// the cache row's own hash is valid) changes it.
TEST_F(EvalFlowInterruptTest, AnEndpointRunRecordsTheAnswersItScored) {
  const std::string db = (dir_ / "l.db").string();
  const std::vector<std::string> keys = {"k0", "k1", "k2"};
  int asked = 0;
  EndpointEval e;
  e.unit = "rows";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>&) {
    for (const auto& k : keys) {
      if (!cache->Get(k)) cache->Put(k, "answer to " + k), ++asked;
    }
    EndpointTally t;
    t.units = 3;
    return t;
  };
  e.params = [] { return nlohmann::json{{"items", 3}}; };
  bool printed = false;
  e.score = [&](const nlohmann::json&, const std::string&) { return TwoRows(&printed); };
  auto answers_row = [&](int64_t run) {
    const auto rows = cb::ledger::Ledger::Open(db).GetResults(run);
    EXPECT_EQ(rows.size(), 3u);
    return rows.back();
  };
  char arg0[] = "claimbench";
  char* argv[] = {arg0, nullptr};
  auto run_once = [&] {
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(RunEndpointEval({.ledger = db}, {1, argv}, "http://127.0.0.1:9", e), kExitOk);
    ::testing::internal::GetCapturedStdout();
  };
  run_once();
  EXPECT_EQ(asked, 3);
  const cb::harness::Result first = answers_row(1);
  EXPECT_EQ(first.suite, "flow");
  EXPECT_EQ(first.case_name, "endpoint_answers");
  EXPECT_EQ(first.metric, "answers_used");
  EXPECT_EQ(first.value, 3);
  EXPECT_EQ(first.output_hash.size(), 32u);

  run_once();  // every answer from the cache
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(answers_row(2).output_hash, first.output_hash);

  cb::ledger::Ledger::Open(db).CachePut("k1", "another answer");
  run_once();
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(answers_row(3).value, 3);
  EXPECT_NE(answers_row(3).output_hash, first.output_hash);
  const auto report = cb::ledger::Ledger::Open(db).Verify();
  EXPECT_TRUE(report.ok) << report.first_error;
}

}  // namespace
}  // namespace cb::cli

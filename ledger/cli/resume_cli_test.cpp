// File: ledger/cli/resume_cli_test.cpp
// `claimbench run --resume RUN`: a run killed (SIGKILL) or interrupted
// (SIGINT) inside its third claim is continued in a new run that copies the
// two recorded claims with their own results (same row hashes), drops the
// cut-off claim's rows, runs that claim again and seals one run hash; the old
// run is sealed interrupted, never edited. What cannot be resumed is refused
// with one line, exit 3, and nothing written.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"
#include "ledger/rows.h"

namespace {

namespace lg = cb::ledger;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;

// Two deterministic claims, then a wall-time sweep that records one row per
// size over about a second: long enough to be cut off inside it.
const std::vector<std::string> kRun = {"run",   "--profile", "quick",        "--claim", "harness.H1",
                                       "--claim", "harness.H3", "--claim", "harness.H5"};

class ResumeCliTest : public ClaimbenchTest {
 protected:
  std::string Db() { return Path("l.db"); }
  std::string Query(const std::string& sql) { return lg::testutil::QueryText(Db(), sql); }
  int64_t Count(const std::string& sql) {
    const std::string v = Query(sql);
    return v.empty() ? 0 : std::stoll(v);
  }
  // True once run 1 has recorded its first two claims and at least one row of
  // the third (the cut-off point the test needs).
  bool InsideThirdClaim() {
    return Count("SELECT count(*) FROM claims WHERE run_id = 1") == 2 &&
           Count("SELECT count(*) FROM results WHERE run_id = 1") >
               Count("SELECT sum(own_results) FROM claims WHERE run_id = 1");
  }
  // Starts kRun and stops it inside its third claim with `signal`. The run
  // is frozen (SIGSTOP) as soon as it is seen there, so it stays there however
  // slow the checks in between are (under ASan a claimbench start takes
  // seconds, longer than the rest of the claim); the signal is taken when it
  // continues.
  void CutOff(int signal) {
    std::vector<std::string> args = kRun;
    args.insert(args.end(), {"--ledger", Db()});
    const pid_t pid = Spawn(args, "first");
    const bool inside = WaitUntil([&] { return Exited(pid) || InsideThirdClaim(); }) && !Exited(pid);
    if (inside) kill(pid, SIGSTOP);
    if (inside && signal == SIGKILL) {
      // A second resume while the writer is alive is refused, and writes nothing.
      const Output busy = Run({"run", "--resume", "1", "--ledger", Db()});
      EXPECT_EQ(busy.exit_code, 3) << busy.err;
      EXPECT_NE(busy.err.find("run 1 is still being written by process " + std::to_string(pid)), std::string::npos)
          << busy.err;
      EXPECT_EQ(Count("SELECT count(*) FROM runs"), 1);
    }
    kill(pid, inside ? signal : SIGKILL);
    kill(pid, SIGCONT);
    const Output o = Wait(pid, "first");
    ASSERT_TRUE(inside) << "run 1 never stopped inside its third claim; stderr: " << o.err;
    EXPECT_EQ(o.exit_code, signal == SIGKILL ? 128 + SIGKILL : 3) << o.err;
  }
  // Resumes run 1 and checks run 2 against it (and, with `reproduce`, that
  // run 2's recorded command line reproduces).
  void ResumeAndCheck(const std::string& old_status_before, bool reproduce) {
    EXPECT_EQ(Query("SELECT status FROM runs WHERE id = 1"), old_status_before);
    const int64_t kept = Count("SELECT sum(own_results) FROM claims WHERE run_id = 1");
    const int64_t dropped = Count("SELECT count(*) FROM results WHERE run_id = 1") - kept;
    ASSERT_GT(kept, 0);
    ASSERT_GT(dropped, 0);
    const std::string run1_hashes = Query("SELECT group_concat(content_hash) FROM (SELECT content_hash FROM "
                                          "results WHERE run_id = 1 AND seq <= " + std::to_string(kept) +
                                          " ORDER BY seq)");
    const std::string run1_claims =
        Query("SELECT group_concat(content_hash) FROM (SELECT content_hash FROM claims WHERE run_id = 1 ORDER BY seq)");

    const Output o = Run({"run", "--resume", "1", "--ledger", Db(), "--json"});
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.err.find("claimbench run 2 resumes run 1"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("2 claims kept with " + std::to_string(kept) + " results; " + std::to_string(dropped) +
                         " results of the claim it was in are measured again"),
              std::string::npos)
        << o.err;
    const auto claims = nlohmann::json::parse(o.out).at("claims");
    ASSERT_EQ(claims.size(), 3u);
    EXPECT_EQ(claims[0].at("id"), "harness.H1");
    EXPECT_EQ(claims[2].at("id"), "harness.H5");

    EXPECT_EQ(Query("SELECT status FROM runs WHERE id = 1"), "interrupted");
    EXPECT_EQ(Query("SELECT status FROM runs WHERE id = 2"), "complete");
    const std::string uuid = Query("SELECT run_uuid FROM runs WHERE id = 1");
    const std::string command = Query("SELECT command FROM runs WHERE id = 2");
    EXPECT_NE(command.find("--claim harness.H5"), std::string::npos) << command;
    EXPECT_NE(command.find("--resume " + uuid), std::string::npos) << command;
    // The copied rows are run 1's, hash for hash; the cut-off claim's rows are not among them.
    EXPECT_EQ(Query("SELECT group_concat(content_hash) FROM (SELECT content_hash FROM results WHERE run_id = 2 "
                    "AND seq <= " + std::to_string(kept) + " ORDER BY seq)"),
              run1_hashes);
    EXPECT_EQ(Query("SELECT group_concat(content_hash) FROM (SELECT content_hash FROM claims WHERE run_id = 2 AND "
                    "seq <= 2 ORDER BY seq)"),
              run1_claims);
    // H5 records a row per size and one summary row, all in run 2 after the copied ones.
    EXPECT_EQ(Count("SELECT sum(own_results) FROM claims WHERE run_id = 2"),
              Count("SELECT count(*) FROM results WHERE run_id = 2"));
    EXPECT_GT(Count("SELECT count(*) FROM results WHERE run_id = 2"), kept + dropped - 1);
    EXPECT_EQ(Run({"ledger", "verify", "--ledger", Db()}).exit_code, 0);

    if (!reproduce) return;
    // The resumed run's recorded command reproduces: the whole selection again.
    const Output again = Run({"reproduce", "2", "--ledger", Db(), "--json"});
    EXPECT_EQ(again.exit_code, 0) << again.err << again.out;
    EXPECT_EQ(Count("SELECT count(*) FROM claims WHERE run_id = 3"), 3);
  }
};

TEST_F(ResumeCliTest, AKilledRunContinuesFromItsLastRecordedClaim) {
  CutOff(SIGKILL);
  ResumeAndCheck("running", /*reproduce=*/true);
}

TEST_F(ResumeCliTest, AnInterruptedRunContinuesFromItsLastRecordedClaim) {
  CutOff(SIGINT);
  ResumeAndCheck("interrupted", /*reproduce=*/false);
  // Resumed once, it is complete: nothing more to resume.
  const Output o = Run({"run", "--resume", "2", "--ledger", Db()});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("run 2 is complete: there is nothing to resume"), std::string::npos) << o.err;
}

TEST_F(ResumeCliTest, WhatCannotBeResumedIsRefusedAndNothingIsWritten) {
  {
    const Output o = Run({"run", "--profile", "smoke", "--claim", "harness.H1", "--ledger", Db()});
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
  // Run 2: a killed run whose claim was recorded before schema 6 (a claim/3
  // row, hashed as such, without own_results); its writer's pid is gone.
  std::string claim3_hash;
  {
    lg::Ledger ledger = lg::Ledger::Open(Db());
    lg::RunMeta meta = ledger.GetRunMeta(1);
    meta.command = "claimbench run --profile smoke --claim harness.H1 --claim harness.H2";
    const int64_t id = ledger.BeginRun(meta);
    const lg::ClaimRow claim = ledger.GetClaims(1).at(0);
    ledger.AddClaim(id, claim);
    const lg::CanonicalClaim canonical(claim, 1);
    lg::ClaimView v3 = canonical.view();
    v3.hash_version = 3;
    v3.own_results.reset();
    v3.kind.reset();
    v3.criterion_hash.reset();
    v3.inputs_json.reset();
    std::string scratch;
    claim3_hash = lg::ClaimHash(v3, &scratch).Hex();
  }
  ASSERT_EQ(lg::testutil::ExecSql(Db(), "UPDATE claims SET own_results = NULL, kind = NULL, criterion_hash = NULL, "
                                            "inputs_json = NULL, hash_version = 3, content_hash = '" +
                                            claim3_hash + "' WHERE run_id = 2; "
                                            "UPDATE runs SET pid = 2147483647 WHERE id = 2"),
            "");
  ASSERT_EQ(Run({"ledger", "verify", "--ledger", Db()}).exit_code, 0);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"run", "--resume", "1", "--ledger", Db()}, "run 1 is complete: there is nothing to resume"},
      {{"run", "--resume", "9", "--ledger", Db()}, "9"},
      {{"run", "--resume", "1", "--ledger", Path("nowhere.db")}, "nowhere.db': no such file"},
      {{"run", "--resume", "2", "--suite", "m3", "--ledger", Db()}, "leave out --suite"},
      {{"run", "--resume", "2", "--profile", "smoke", "--ledger", Db()}, "leave out --profile"},
      {{"run", "--resume", "2", "--ledger", Db()},
       "run 2: claim 1 (harness.H1) was recorded before ledger schema version 6"},
  };
  const std::string before = Query("SELECT group_concat(status) FROM runs");
  for (const Case& c : cases) {
    const Output o = Run(c.args);
    EXPECT_EQ(o.exit_code, 3) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(Count("SELECT count(*) FROM runs"), 2);
    EXPECT_EQ(Query("SELECT group_concat(status) FROM runs"), before);  // run 2 not sealed either
  }
  // Another build's run.
  ASSERT_EQ(lg::testutil::ExecSql(Db(), "UPDATE runs SET source_hash = '0123456789abcdef0123456789abcdef' WHERE id = 2"),
            "");
  const Output o = Run({"run", "--resume", "2", "--ledger", Db()});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("run 2 was built from other sources (source hash 0123456789ab"), std::string::npos) << o.err;
  EXPECT_EQ(Count("SELECT count(*) FROM runs"), 2);
}

}  // namespace

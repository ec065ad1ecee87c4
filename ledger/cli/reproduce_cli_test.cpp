// File: ledger/cli/reproduce_cli_test.cpp
// `claimbench reproduce RUN`: the recorded command line read back (quoted
// arguments included), the same claims re-run into a new run, gated against
// the recorded one (exit 0 when every deterministic row matches, 1 when one
// changed); runs that cannot be reproduced are refused with one line, exit 3,
// and nothing added.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace {

namespace lg = cb::ledger;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;

class ReproduceCliTest : public ClaimbenchTest {
 protected:
  // Two deterministic, sub-second claims, one chosen by a regex that the
  // recorded command line must quote.
  void RecordRun() {
    const Output o = Run({"run", "--profile", "smoke", "--claim", "m3.M1", "--claim", "m3\\.M[2]", "--ledger",
                          Path("l.db")});
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
  int64_t Runs() { return int64_t(lg::Ledger::OpenReadOnly(Path("l.db")).Log(1000).size()); }
  int Lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }
};

TEST_F(ReproduceCliTest, SameBuildSameRowsExitZero) {
  // Ceilings first measured on a busy machine (provisional) are replaced by
  // the reproduction's quiet measurement, which says so: on stderr, never
  // inside the --json document (it once went to stdout).
  setenv("CB_CEILING_LOAD", "busy", 1);
  RecordRun();
  setenv("CB_CEILING_LOAD", "quiet", 1);
  const std::string command = lg::Ledger::OpenReadOnly(Path("l.db")).GetRun(1).command;
  EXPECT_NE(command.find("'m3\\.M[2]'"), std::string::npos) << command;
  const Output o = Run({"reproduce", "1", "--ledger", Path("l.db"), "--json"});
  unsetenv("CB_CEILING_LOAD");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  EXPECT_NE(o.err.find("claimbench: ceiling "), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j.at("recorded_run"), 1);
  EXPECT_EQ(j.at("reproduced_run"), 2);
  EXPECT_EQ(Runs(), 2);
  const lg::RunSummary again = lg::Ledger::OpenReadOnly(Path("l.db")).GetRun(2);
  EXPECT_EQ(again.claims, 2) << again.command;  // the same selection: M1 and M2
  EXPECT_EQ(again.command.rfind("claimbench reproduce 1", 0), 0u) << again.command;
  const Output table = Run({"reproduce", "1", "--ledger", Path("l.db")});
  EXPECT_EQ(table.exit_code, 0) << table.err << table.out;
  EXPECT_NE(table.out.find("run 1 reproduced as run 3"), std::string::npos) << table.out;
  const Output verify = Run({"ledger", "verify", "--ledger", Path("l.db")});
  EXPECT_EQ(verify.exit_code, 0) << verify.err << verify.out;
  unsetenv("CB_CEILING_LOAD");
}

TEST_F(ReproduceCliTest, AChangedRecordedValueExitsOne) {
  RecordRun();
  // Edit one deterministic row of the recorded run, as a wrong result would be.
  ASSERT_EQ(lg::testutil::ExecSql(Path("l.db"), "UPDATE results SET value = value + 1 WHERE run_id = 1 AND "
                                                "metric = 'selected'"),
            "");
  const Output o = Run({"reproduce", "1", "--ledger", Path("l.db")});
  EXPECT_EQ(o.exit_code, 1) << o.err << o.out;
  EXPECT_NE(o.out.find("CHANGED"), std::string::npos) << o.out;
}

TEST_F(ReproduceCliTest, WhatCannotBeReproducedIsRefused) {
  RecordRun();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"reproduce"}, "run"},
      {{"reproduce", "7", "--ledger", Path("l.db")}, "7"},
      {{"reproduce", "1", "--ledger", Path("nowhere.db")}, "nowhere.db"},
      {{"reproduce", "1", "--ledger", Path("l.db"), "--policy", Path("nopolicy.json")}, "nopolicy.json"},
  };
  for (const Case& c : cases) {
    const Output o = Run(c.args);
    EXPECT_EQ(o.exit_code, 3) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(Lines(o.err), 1) << o.err;
  }
  // A run of another command.
  ASSERT_EQ(lg::testutil::ExecSql(Path("l.db"), "UPDATE runs SET command = 'claimbench eval m3 --features f' "
                                                "WHERE id = 1"),
            "");
  Output o = Run({"reproduce", "1", "--ledger", Path("l.db")});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("not `claimbench run`"), std::string::npos) << o.err;
  // Built from other sources: refused unless --any-source.
  ASSERT_EQ(lg::testutil::ExecSql(Path("l.db"), "UPDATE runs SET command = 'claimbench run --profile smoke "
                                                "--claim m3.M1', source_hash = '0123456789abcdef0123456789abcdef' "
                                                "WHERE id = 1"),
            "");
  o = Run({"reproduce", "1", "--ledger", Path("l.db")});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("other sources (source hash 0123456789ab"), std::string::npos) << o.err;
  EXPECT_EQ(Lines(o.err), 1) << o.err;
  EXPECT_EQ(Runs(), 1);
  o = Run({"reproduce", "1", "--ledger", Path("l.db"), "--any-source"});
  EXPECT_NE(o.exit_code, 3) << o.err;
  EXPECT_EQ(Runs(), 2);
  // An interrupted run.
  ASSERT_EQ(lg::testutil::ExecSql(Path("l.db"), "UPDATE runs SET status = 'interrupted' WHERE id = 2"), "");
  o = Run({"reproduce", "2", "--ledger", Path("l.db")});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("run 2 is interrupted"), std::string::npos) << o.err;
  EXPECT_EQ(Runs(), 2);
}

}  // namespace

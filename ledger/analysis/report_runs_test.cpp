// File: ledger/analysis/report_runs_test.cpp
// Logical runs: the shard read from a recorded command line, shards of one
// run gathered (same seed, profile, commit and shard count; others left
// out), the nearest run taken for a repeated shard, missing shards named.
#include "ledger/analysis/report_runs.h"

#include <gtest/gtest.h>

#include <string>

namespace cb::ledger {
namespace {

TEST(ReportRuns, ShardOfCommand) {
  auto t = ShardOfCommand("claimbench run --profile smoke --shard 1/4 --ledger a.db");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->index, 1);
  EXPECT_EQ(t->count, 4);
  t = ShardOfCommand("claimbench run --shard=0/2");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->count, 2);
  EXPECT_FALSE(ShardOfCommand("claimbench run --profile smoke"));
  EXPECT_FALSE(ShardOfCommand("claimbench run --shard 4/4"));
  EXPECT_FALSE(ShardOfCommand("claimbench run --shard 1"));
  EXPECT_FALSE(ShardOfCommand("claimbench run --shard a/b"));
  EXPECT_FALSE(ShardOfCommand("claimbench run --shard"));
}

class ReportRunsLedger : public ::testing::Test {
 protected:
  Ledger ledger_ = Ledger::Open(":memory:");

  int64_t AddRun(const std::string& shard, uint64_t seed = 7, const std::string& commit = "abc",
                 const std::string& profile = "smoke") {
    RunMeta meta;
    meta.command = "claimbench run --profile " + profile + (shard.empty() ? "" : " --shard " + shard);
    meta.profile = profile;
    meta.seed = seed;
    meta.git_commit = commit;
    meta.platform_hash = "pf";
    const int64_t id = ledger_.BeginRun(meta);
    ClaimRow c;
    c.claim_id = "s.run" + std::to_string(id);
    c.suite = "s";
    c.paper = "P";
    c.verdict = "REPRODUCED";
    ledger_.AddClaim(id, c);
    ledger_.FinishRun(id, RunStatus::kComplete);
    return id;
  }
};

TEST_F(ReportRunsLedger, GathersTheShardsOfOneRun) {
  const int64_t unsharded = AddRun("");
  const int64_t s0 = AddRun("0/3");
  AddRun("1/3", /*seed=*/8);                     // another seed
  AddRun("1/3", 7, "def");                       // another commit
  AddRun("1/3", 7, "abc", "quick");              // another profile
  AddRun("1/2");                                 // another shard count
  const int64_t s2_old = AddRun("2/3");
  const int64_t s2 = AddRun("2/3");              // shard 2 again, farther from s0 in id
  (void)s2;
  const LogicalRun a = LoadLogicalRun(ledger_, s0);
  EXPECT_EQ(a.shard_count, 3);
  EXPECT_EQ(a.shards, (std::vector<int>{0, 2}));
  EXPECT_EQ(a.run_ids, (std::vector<int64_t>{s0, s2_old}));
  EXPECT_EQ(a.missing, (std::vector<int>{1}));
  ASSERT_EQ(a.data.claims.size(), 2u);
  EXPECT_EQ(a.data.run.id, s0);
  EXPECT_EQ(DescribeShards(a), "shards 0, 2 of 3 (runs " + std::to_string(s0) + ", " + std::to_string(s2_old) + ")");
  EXPECT_NE(MissingShardsWarning(a).find("shard 1 of 3 is missing"), std::string::npos) << MissingShardsWarning(a);

  const LogicalRun u = LoadLogicalRun(ledger_, unsharded);
  EXPECT_EQ(u.shard_count, 0);
  EXPECT_EQ(u.run_ids, (std::vector<int64_t>{unsharded}));
  EXPECT_EQ(u.data.claims.size(), 1u);
  EXPECT_EQ(DescribeShards(u), "");
  EXPECT_EQ(MissingShardsWarning(u), "");
}

}  // namespace
}  // namespace cb::ledger

// File: harness/cli/shard_cli_test.cpp
// End-to-end test of `claimbench run --shard i/n` + `ledger merge` (issue 4
// "Multi-machine"): the smoke profile as 4 shards in 4 concurrent processes
// into 4 ledgers, merged into one, holds exactly the deterministic content
// hashes of an unsharded run. "Deterministic" is measured, not assumed: the rows
// (results and claims) whose content hash is the same in two independent
// unsharded runs; timing rows differ between any two runs and are left out.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class ShardCliTest : public ClaimbenchTest {
 protected:
  // The exit code of claimbench run with `args`.
  int Code(const std::vector<std::string>& args) { return Run(args).exit_code; }

  // content_hash -> count over every run of `db` ("r:" results, "c:" claims).
  std::map<std::string, int> Hashes(const std::string& db, int* runs, int* claims) {
    EXPECT_EQ(Code({"ledger", "export", "--ledger", db, "--out", db + ".jsonl"}), 0);
    std::ifstream in(dir_ / (db + ".jsonl"));
    std::map<std::string, int> out;
    std::string line;
    *runs = *claims = 0;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line);
      ++*runs;
      for (const auto& r : j.at("results")) ++out["r:" + r.at("content_hash").get<std::string>()];
      for (const auto& c : j.at("claims")) {
        ++out["c:" + c.at("content_hash").get<std::string>()];
        ++*claims;
      }
    }
    return out;
  }
};

TEST_F(ShardCliTest, FourShardsMergedEqualOneUnshardedRun) {
  // Suites whose rows are a function of the seed alone. radar and mtad are
  // left out: their timed claims pick settings from the clock (mtad.M3b's
  // target repeat count, radar.R6's timings), and four shards running at once
  // are slower than one run, so those rows differ by design.
  const std::vector<std::string> smoke = {
      "run",   "--profile", "smoke", "--backend", "cpu",  "--suite", "harness", "--suite", "docs",
      "--suite", "coat",    "--suite", "mia",     "--suite", "pf",  "--suite", "videoniah"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = smoke;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  std::vector<pid_t> pids;
  for (int i = 0; i < 4; ++i) {
    pids.push_back(Spawn(with({"--shard", std::to_string(i) + "/4", "--ledger",
                               "shard" + std::to_string(i) + ".db"}),
                         "shard" + std::to_string(i) + ".log"));
  }
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(Wait(pids[i], "shard" + std::to_string(i) + ".log").exit_code, 0) << "shard " << i;
  ASSERT_EQ(Code(with({"--ledger", "full1.db"})), 0);
  ASSERT_EQ(Code(with({"--ledger", "full2.db"})), 0);
  // One merge takes every shard. A missing source among them is refused
  // before the target exists.
  EXPECT_EQ(Code({"ledger", "merge", "--ledger", "merged.db", "shard0.db", "no-such.db"}), 3);
  EXPECT_FALSE(fs::exists(dir_ / "merged.db"));
  ASSERT_EQ(Code({"ledger", "merge", "--ledger", "merged.db", "shard0.db", "shard1.db", "shard2.db",
                  "shard3.db"}),
            0);
  EXPECT_EQ(Code({"ledger", "verify", "--ledger", "merged.db"}), 0);

  int runs1 = 0, claims1 = 0, runs2 = 0, claims2 = 0, runs_m = 0, claims_m = 0;
  const auto full1 = Hashes("full1.db", &runs1, &claims1);
  const auto full2 = Hashes("full2.db", &runs2, &claims2);
  const auto merged = Hashes("merged.db", &runs_m, &claims_m);
  EXPECT_EQ(runs_m, 4);
  EXPECT_EQ(claims_m, claims1);  // every claim ran in exactly one shard

  std::map<std::string, int> deterministic;
  for (const auto& [hash, count] : full1) {
    const auto it = full2.find(hash);
    if (it != full2.end()) deterministic[hash] = std::min(count, it->second);
  }
  // The smoke profile has 19 deterministic result rows (operation counts,
  // known answers) and several deterministic claims; fewer means the test
  // would prove little.
  ASSERT_GE(deterministic.size(), 15u);
  for (const auto& [hash, count] : deterministic) {
    const auto it = merged.find(hash);
    EXPECT_TRUE(it != merged.end() && it->second == count)
        << hash << " appears " << count << "x unsharded, " << (it == merged.end() ? 0 : it->second)
        << "x in the merged shards";
  }
  // Bad --shard values are refused before any ledger is written.
  for (const char* bad : {"4/4", "1", "a/b"}) {
    EXPECT_EQ(Code(with({"--shard", bad, "--ledger", "bad.db"})), 3) << bad;
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

}  // namespace

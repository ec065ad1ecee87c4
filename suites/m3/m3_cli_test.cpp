// File: suites/m3/m3_cli_test.cpp
// End-to-end: `claimbench eval m3 --features` runs PSC and GMA on a feature
// dump and records the memory and reconstruction figures; bad input is one
// line, exit 3, nothing recorded; SIGINT during the PSC walk records nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "harness/random.h"
#include "harness/safetensors.h"

namespace {

using cb::cli::testing::ClaimbenchTest;
using nlohmann::json;

class M3CliTest : public ClaimbenchTest {
 protected:
  // `clusters` directions, each repeated `copies` times with small noise:
  // (clusters * copies, dim), optionally with queries / projection / targets.
  void WriteDump(const std::string& name, int clusters, int copies, int dim, bool with_queries = false) {
    cb::harness::Rng rng(5);
    std::vector<double> centres(size_t(clusters) * dim), features;
    for (double& x : centres) x = rng.Normal();
    for (int c = 0; c < clusters; ++c)
      for (int k = 0; k < copies; ++k)
        for (int d = 0; d < dim; ++d) features.push_back(centres[size_t(c) * dim + d] + 0.01 * rng.Normal());
    std::vector<std::pair<std::string, cb::harness::SafetensorsWriteTensor>> t = {
        {"features", {"F32", {int64_t(clusters) * copies, dim}, features}}};
    if (with_queries) {
      std::vector<double> q(size_t(8) * 4), w(size_t(4) * dim);
      for (double& x : q) x = rng.Normal();
      for (double& x : w) x = rng.Normal();
      t.push_back({"queries", {"F32", {8, 4}, q}});
      t.push_back({"projection", {"F16", {4, dim}, w}});
      t.push_back({"targets", {"F32", {8, dim}, std::vector<double>(features.begin(), features.begin() + 8 * dim)}});
    }
    cb::harness::WriteSafetensors((dir_ / name).string(), t);
  }
};

TEST_F(M3CliTest, EvalRecordsTheMemoryAndTheReconstruction) {
  WriteDump("f.safetensors", 5, 4, 16, true);
  auto o = Run({"eval", "m3", "--features", "f.safetensors", "--model", "siglip", "--ledger", "l.db", "--json",
                "--write-memory", "mem.safetensors"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json j = json::parse(o.out);
  EXPECT_EQ(j["rows"], 20);
  EXPECT_EQ(j["memory_rows"], 5);  // the 4 noisy copies of each direction collapse at θ 0.85
  EXPECT_EQ(j["unrepresented"], 0);
  EXPECT_DOUBLE_EQ(j["theta"].get<double>(), 0.85);
  EXPECT_LT(j["gma_self"]["cosine_distance_fp64"].get<double>(), 0.01);
  EXPECT_TRUE(j.contains("gma_queries"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "mem.safetensors"));
  auto rows = Run({"ledger", "export", "--ledger", "l.db"});
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_NE(rows.out.find("\"metric\":\"memory_rows\""), std::string::npos) << rows.out.substr(0, 400);
  // The table form, an explicit θ above every noisy pair's cosine: each row is its own memory.
  auto t = Run({"eval", "m3", "--features", "f.safetensors", "--theta", "0.99999", "--ledger", "l.db"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("PSC memory: 20 rows"), std::string::npos) << t.out;
}

TEST_F(M3CliTest, BadInputIsOneLineAndRecordsNothing) {
  WriteDump("f.safetensors", 3, 2, 8);
  cb::harness::WriteSafetensors((dir_ / "zero.safetensors").string(),
                                {{"features", {"F32", {2, 2}, {1, 0, 0, 0}}}});
  cb::harness::WriteSafetensors((dir_ / "onlyq.safetensors").string(),
                                {{"features", {"F32", {2, 2}, {1, 0, 0, 1}}}, {"queries", {"F32", {1, 2}, {1, 1}}}});
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"eval", "m3"}, "--features"},
      {{"eval", "m3", "--features", "nowhere.safetensors", "--model", "clip"}, "nowhere.safetensors"},
      {{"eval", "m3", "--features", "f.safetensors"}, "--model"},
      {{"eval", "m3", "--features", "f.safetensors", "--model", "gpt"}, "gpt"},
      {{"eval", "m3", "--features", "f.safetensors", "--theta", "2"}, "--theta"},
      {{"eval", "m3", "--features", "f.safetensors", "--model", "clip", "--order", "sideways"}, "--order"},
      {{"eval", "m3", "--features", "f.safetensors", "--model", "clip", "--max-rows", "5"}, "--max-rows"},
      {{"eval", "m3", "--features", "zero.safetensors", "--model", "clip"}, "row 1 is zero"},
      {{"eval", "m3", "--features", "onlyq.safetensors", "--model", "clip"}, "come together"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--ledger", "bad.db"});
    auto o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << args.back() << " " << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
}

TEST_F(M3CliTest, EveryMutationOfADumpIsNamed) {
  WriteDump("valid.safetensors", 3, 2, 8, true);
  ExpectMutationsNameTheFile({"eval", "m3", "--features", "f.safetensors", "--model", "clip", "--ledger", "m.db"},
                             "f.safetensors", cb::cli::testing::ReadFile(dir_ / "valid.safetensors"));
}

TEST_F(M3CliTest, SigintDuringThePscWalkRecordsNothing) {
  WriteDump("big.safetensors", 10000, 1, 256);  // random directions: the walk is 10^4 x 10^4 dots
  const pid_t pid = Spawn({"eval", "m3", "--features", "big.safetensors", "--theta", "0.8", "--ledger", "l.db"});
  const auto o = InterruptWhen(pid);
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_NE(o.err.find("interrupted"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "l.db"));
}

}  // namespace

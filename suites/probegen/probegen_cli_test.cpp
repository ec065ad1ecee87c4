// File: suites/probegen/probegen_cli_test.cpp
// End-to-end: `claimbench gen modelzoo` writes a small zoo, `claimbench eval
// probegen --zoo` trains the three predictors on it and records their scores;
// bad input is one line, exit 3, nothing written or recorded; SIGINT during
// training records nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"

namespace {

using cb::cli::testing::ClaimbenchTest;
using nlohmann::json;

// True once process `pid` catches SIGINT (bit 2 of SigCgt in
// /proc/PID/status), polled for up to 60 s.
bool WaitForSigintHandler(pid_t pid) {
  for (int i = 0; i < 600; ++i) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("SigCgt:", 0) == 0 && (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGINT - 1))))
        return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

class ProbegenCliTest : public ClaimbenchTest {
 protected:
  // 16 models, 64 / 64 images, 1 epoch: about a second.
  void MakeZoo(const std::string& dir) {
    auto o = Run({"gen", "modelzoo", "--out", dir, "--models", "16", "--train-images", "64", "--test-images", "64",
                  "--max-epochs", "1", "--seed", "3"});
    ASSERT_EQ(o.exit_code, 0) << o.err;
    ASSERT_NE(o.out.find("16 models -> " + dir), std::string::npos) << o.out;
  }
};

TEST_F(ProbegenCliTest, GenThenEvalRecordsEveryMethodsScores) {
  MakeZoo("zoo");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "zoo" / "manifest.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "zoo" / "model_0015.safetensors"));
  auto o = Run({"eval", "probegen", "--zoo", "zoo", "--probes", "4", "--epochs", "2", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json j = json::parse(o.out);
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const auto& r : j["runs"]) {
    EXPECT_GE(r["kendall_tau"].get<double>(), -1.0);
    EXPECT_LE(r["kendall_tau"].get<double>(), 1.0);
  }
  EXPECT_EQ(j["runs"][0]["method"], "probegen");
  auto rows = Run({"ledger", "export", "--ledger", "l.db"});
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_NE(rows.out.find("\"case_name\":\"eval_zoo\""), std::string::npos) << rows.out.substr(0, 400);
  // The table form, one method.
  auto t = Run({"eval", "probegen", "--zoo", "zoo", "--probes", "4", "--epochs", "1", "--methods", "random",
                "--ledger", "l.db"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("random"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("vanilla"), std::string::npos) << t.out;
}

TEST_F(ProbegenCliTest, BadInputIsOneLineAndRecordsNothing) {
  MakeZoo("zoo");
  std::filesystem::create_directories(dir_ / "empty");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"eval", "probegen"}, "--zoo"},
      {{"eval", "probegen", "--zoo", "empty"}, "empty"},
      {{"eval", "probegen", "--zoo", "nowhere"}, "nowhere"},
      {{"eval", "probegen", "--zoo", "zoo", "--methods", "probegen,magic"}, "magic"},
      {{"eval", "probegen", "--zoo", "zoo", "--generator", "deep_linear_9"}, "deep_linear_9"},
      {{"eval", "probegen", "--zoo", "zoo", "--test-fraction", "1.5"}, "--test-fraction"},
      {{"gen", "modelzoo", "--out", "zoo"}, "already exists"},
      {{"gen", "modelzoo", "--out", "z2", "--models", "0"}, "--models"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--ledger", "bad.db"});
    if (args[0] == "gen") args.resize(args.size() - 2);
    auto o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << args[2] << " " << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "z2"));
  // A corrupt model file is named.
  { std::ofstream(dir_ / "zoo" / "model_0003.safetensors", std::ios::binary | std::ios::trunc) << "not a model"; }
  auto o = Run({"eval", "probegen", "--zoo", "zoo", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("model_0003.safetensors"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
}

TEST_F(ProbegenCliTest, SigintDuringTrainingRecordsNothing) {
  MakeZoo("zoo");
  const pid_t pid = Spawn({"eval", "probegen", "--zoo", "zoo", "--probes", "8", "--epochs", "100000", "--ledger",
                           "l.db"});
  // Signal only once the handler is installed (before that SIGINT would kill
  // the process: a slow start under ASan did, exit 130), then once more
  // after a moment of training.
  ASSERT_TRUE(WaitForSigintHandler(pid)) << "no SIGINT handler within 60 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  const auto o = Wait(pid);
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_NE(o.err.find("interrupted"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "l.db"));
}

}  // namespace

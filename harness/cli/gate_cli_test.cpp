// File: harness/cli/gate_cli_test.cpp
// End-to-end tests of `claimbench gate`: synthetic ledgers with a planted +10%
// slowdown (exit 1) and pure noise (exit 0 or 2), the baseline given as a ledger
// file, an export file and a run id; decisions stored; JUnit written; bad
// arguments exit 3 and store nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/random.h"
#include "ledger/ledger.h"

namespace {

namespace fs = std::filesystem;
namespace lg = cb::ledger;

const char* Claimbench() {
  const char* env = std::getenv("CB_CLAIMBENCH");
  return env != nullptr && *env != '\0' ? env : CB_CLAIMBENCH;
}

struct Output {
  int exit_code = -1;
  std::string out, err;
};

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Adds one sealed run with 6 timing rows (n = 10) scaled by `scale` on row 0,
// one deterministic row and one claim.
int64_t AddRun(const std::string& path, double scale, uint64_t seed, const std::string& verdict) {
  lg::Ledger ledger = lg::Ledger::Open(path);
  lg::RunMeta meta;
  meta.command = "synthetic";
  meta.profile = "smoke";
  meta.platform_hash = "platform-A";
  const int64_t id = ledger.BeginRun(meta);
  cb::harness::Rng rng(seed, 1);
  for (int k = 0; k < 6; ++k) {
    lg::Result r;
    r.suite = "synth";
    r.case_name = "kernel" + std::to_string(k);
    r.backend = "cpu";
    r.metric = "seconds";
    r.unit = "s";
    r.direction = "lower";
    for (int i = 0; i < 10; ++i) {
      r.samples.push_back((k == 0 ? scale : 1.0) * (1 + 0.01 * rng.Normal()));
    }
    r.n = 10;
    r.value = r.samples[0];
    ledger.AddResult(id, r);
  }
  lg::Result acc;
  acc.suite = "synth";
  acc.case_name = "accuracy";
  acc.backend = "cpu";
  acc.metric = "max_abs_error";
  acc.value = 1e-7;
  acc.input_hash = "00112233445566778899aabbccddeeff";
  acc.output_hash = "ffeeddccbbaa99887766554433221100";
  ledger.AddResult(id, acc);
  lg::ClaimRow c;
  c.claim_id = "synth.C1";
  c.suite = "synth";
  c.verdict = verdict;
  ledger.AddClaim(id, c);
  ledger.FinishRun(id, lg::RunStatus::kComplete);
  return id;
}

class GateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cb_gate_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Output Run(const std::vector<std::string>& args) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(127);
      freopen((dir_ / "stdout").c_str(), "w", stdout);
      freopen((dir_ / "stderr").c_str(), "w", stderr);
      std::vector<char*> argv = {const_cast<char*>(Claimbench())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      unsetenv("CLAIMBENCH_LEDGER");
      execv(Claimbench(), argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    Output o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = Slurp(dir_ / "stdout");
    o.err = Slurp(dir_ / "stderr");
    return o;
  }

  std::string P(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(GateCliTest, PlantedSlowdownExitsOneAndIsStored) {
  AddRun(P("base.db"), 1.0, 1, "REPRODUCED");
  const int64_t cand = AddRun(P("cand.db"), 1.10, 2, "REPRODUCED");
  const Output o = Run({"gate", "--ledger", P("cand.db"), "--baseline", P("base.db"), "--junit",
                        P("gate.xml")});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("SLOWER"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("synth/kernel0[cpu] seconds"), std::string::npos) << o.out;
  EXPECT_NE(Slurp(dir_ / "gate.xml").find("<failure type=\"SLOWER\""), std::string::npos);
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(P("cand.db"));
  const auto ds = ledger.GetDecisions(cand);
  ASSERT_EQ(ds.size(), 8u);  // 6 speed rows, 1 deterministic, 1 claim
  EXPECT_EQ(ds[0].verdict, "SLOWER");
  EXPECT_EQ(ds[0].case_name, "kernel0");

  // The same baseline as an export file, and as JSON / Markdown output.
  ASSERT_EQ(Run({"ledger", "export", "--ledger", P("base.db"), "--out", P("base.jsonl")}).exit_code, 0);
  const Output j = Run({"gate", "--ledger", P("cand.db"), "--baseline", P("base.jsonl"), "--json",
                        "--no-store"});
  EXPECT_EQ(j.exit_code, 1) << j.err;
  const auto report = nlohmann::json::parse(j.out);
  EXPECT_EQ(report.at("outcome"), "REGRESSION");
  EXPECT_EQ(report.at("counts").at("SLOWER"), 1);
  EXPECT_EQ(report.at("counts").at("MATCH"), 2);  // the accuracy row and the claim
  const Output md = Run({"gate", "--ledger", P("cand.db"), "--baseline", P("base.jsonl"),
                         "--format", "md", "--no-store"});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("### claimbench gate: REGRESSION"), std::string::npos) << md.out;
}

TEST_F(GateCliTest, NoiseAndRunIdBaseline) {
  const int64_t base = AddRun(P("l.db"), 1.0, 1, "REPRODUCED");
  AddRun(P("l.db"), 1.0, 2, "REPRODUCED");
  const Output o = Run({"gate", "--ledger", P("l.db"), "--baseline", std::to_string(base)});
  EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 2) << o.out << o.err;
  EXPECT_EQ(o.out.find("SLOWER"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("FASTER"), std::string::npos) << o.out;
  // A claim flip alone is a regression.
  AddRun(P("l.db"), 1.0, 3, "NOT_REPRODUCED");
  const Output flip = Run({"gate", "--ledger", P("l.db"), "--baseline", std::to_string(base)});
  EXPECT_EQ(flip.exit_code, 1) << flip.out;
  EXPECT_NE(flip.out.find("REPRODUCED -> NOT_REPRODUCED"), std::string::npos) << flip.out;
}

TEST_F(GateCliTest, BadInputExitsThreeAndStoresNothing) {
  AddRun(P("base.db"), 1.0, 1, "REPRODUCED");
  const int64_t cand = AddRun(P("cand.db"), 1.10, 2, "REPRODUCED");
  std::ofstream(P("bad_policy.json")) << R"({"threshhold": 0.1})";
  const std::vector<std::vector<std::string>> bad = {
      {"gate", "--ledger", P("cand.db"), "--baseline", P("base.db"), "--format", "html"},
      {"gate", "--ledger", P("cand.db"), "--baseline", P("base.db"), "--policy", P("bad_policy.json")},
      {"gate", "--ledger", P("cand.db"), "--baseline", P("nope.db")},
      {"gate", "--ledger", P("missing.db"), "--baseline", P("base.db")},
      {"gate", "--ledger", P("cand.db")},
  };
  for (const auto& args : bad) {
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << args.back() << ": " << o.err;
    EXPECT_NE(o.err.find("claimbench: error: "), std::string::npos) << o.err;
  }
  EXPECT_NE(Run(bad[1]).err.find("unknown key 'threshhold'"), std::string::npos);
  EXPECT_FALSE(fs::exists(P("missing.db")));
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(P("cand.db"));
  EXPECT_TRUE(ledger.GetDecisions(cand).empty());
}

TEST_F(GateCliTest, PlatformMismatchIsRefused) {
  AddRun(P("base.db"), 1.0, 1, "REPRODUCED");
  {
    lg::Ledger ledger = lg::Ledger::Open(P("cand.db"));
    lg::RunMeta meta;
    meta.platform_hash = "platform-B";
    const int64_t id = ledger.BeginRun(meta);
    ledger.FinishRun(id, lg::RunStatus::kComplete);
  }
  const Output o = Run({"gate", "--ledger", P("cand.db"), "--baseline", P("base.db")});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("platform mismatch"), std::string::npos) << o.err;
  const Output x = Run({"gate", "--ledger", P("cand.db"), "--baseline", P("base.db"),
                        "--cross-platform"});
  EXPECT_EQ(x.exit_code, 0) << x.out << x.err;  // everything MISSING: nothing gated
  EXPECT_NE(x.out.find("MISSING"), std::string::npos);
}

}  // namespace

// File: harness/cli/gate_cli_test.cpp
// End-to-end tests of `claimbench gate`: synthetic ledgers with a planted +10%
// slowdown (exit 1 under a policy that gates speed, reported under the
// default) and pure noise (exit 0 or 2), the baseline given as a ledger file,
// an export file and a run id; decisions stored; JUnit written; bad arguments
// (an old policy with ignore_claims among them) exit 3 and store nothing;
// --expect-head refuses (exit 1, nothing stored) a ledger whose newest run
// vanished; and two identical smoke runs, gated with the default policy,
// never regress.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"

#include "harness/random.h"
#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;
namespace lg = cb::ledger;

// Adds one sealed run with 6 timing rows (n = 10) scaled by `scale` on row 0,
// one deterministic row and one claim.
int64_t AddRun(const std::string& path, double scale, uint64_t seed, const std::string& verdict,
               const std::string& criterion_hash = "") {
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
    r.kind = cb::harness::ResultKind::kTiming;
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
  c.criterion_hash = criterion_hash;
  ledger.AddClaim(id, c);
  ledger.FinishRun(id, lg::RunStatus::kComplete);
  return id;
}

class GateCliTest : public ClaimbenchTest {
 protected:
  // A policy file that gates speed (the default only reports it).
  std::string SpeedPolicy() {
    const std::string path = Path("speed_policy.json");
    std::ofstream(path) << R"({"version": "test", "gate_speed": true})";
    return path;
  }
};

TEST_F(GateCliTest, PlantedSlowdownExitsOneAndIsStored) {
  AddRun(Path("base.db"), 1.0, 1, "REPRODUCED");
  const int64_t cand = AddRun(Path("cand.db"), 1.10, 2, "REPRODUCED");
  // The default policy reports the slowdown without gating it.
  const Output d = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"),
                        "--no-store"});
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("SLOWER*"), std::string::npos) << d.out;
  const std::string policy = SpeedPolicy();
  const Output o = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--junit",
                        Path("gate.xml"), "--policy", policy});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("SLOWER"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("synth/kernel0[cpu] seconds"), std::string::npos) << o.out;
  EXPECT_NE(ReadFile(dir_ / "gate.xml").find("<failure type=\"SLOWER\""), std::string::npos);
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(Path("cand.db"));
  const auto ds = ledger.GetDecisions(cand);
  ASSERT_EQ(ds.size(), 8u);  // 6 speed rows, 1 deterministic, 1 claim
  EXPECT_EQ(ds[0].verdict, "SLOWER");
  EXPECT_EQ(ds[0].case_name, "kernel0");

  // The same baseline as an export file, and as JSON / Markdown output.
  ASSERT_EQ(Run({"ledger", "export", "--ledger", Path("base.db"), "--out", Path("base.jsonl")}).exit_code, 0);
  const Output j = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.jsonl"), "--json",
                        "--no-store", "--policy", policy});
  EXPECT_EQ(j.exit_code, 1) << j.err;
  const auto report = nlohmann::json::parse(j.out);
  EXPECT_EQ(report.at("outcome"), "REGRESSION");
  EXPECT_EQ(report.at("counts").at("SLOWER"), 1);
  EXPECT_EQ(report.at("counts").at("MATCH"), 2);  // the accuracy row and the claim
  const Output md = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.jsonl"),
                         "--format", "md", "--no-store", "--policy", policy});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("### claimbench gate: REGRESSION"), std::string::npos) << md.out;
}

// A claim judged by another criterion answers another question: the gate
// reports CRITERION_CHANGED, neither a match nor a regression, even when the
// verdict went from REPRODUCED to NOT_REPRODUCED; the same criterion gates.
TEST_F(GateCliTest, AChangedCriterionIsItsOwnStatusAndNeverGated) {
  const std::string old_hash(32, 'a'), new_hash(32, 'b');
  AddRun(Path("base.db"), 1.0, 1, "REPRODUCED", old_hash);
  AddRun(Path("cand.db"), 1.0, 2, "NOT_REPRODUCED", new_hash);
  const Output o = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--json",
                        "--no-store"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto report = nlohmann::json::parse(o.out);
  EXPECT_EQ(report.at("counts").at("CRITERION_CHANGED"), 1) << o.out;
  EXPECT_FALSE(report.at("counts").contains("WORSE")) << o.out;
  EXPECT_NE(o.out.find("the criterion changed (aaaaaaaaaaaa -> bbbbbbbbbbbb)"), std::string::npos) << o.out;
  // The same criterion: the verdict's fall is a regression.
  AddRun(Path("same.db"), 1.0, 3, "NOT_REPRODUCED", old_hash);
  const Output same = Run({"gate", "--ledger", Path("same.db"), "--baseline", Path("base.db"), "--no-store"});
  EXPECT_EQ(same.exit_code, 1) << same.out << same.err;
  EXPECT_NE(same.out.find("WORSE"), std::string::npos) << same.out;
  // `history --claim` shows where the criterion changed.
  const Output h = Run({"history", "--ledger", Path("base.db"), "--claim", "synth.C1"});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  AddRun(Path("base.db"), 1.0, 4, "NOT_REPRODUCED", new_hash);
  const Output h2 = Run({"history", "--ledger", Path("base.db"), "--claim", "synth.C1", "--json"});
  ASSERT_EQ(h2.exit_code, 0) << h2.err;
  const auto points = nlohmann::json::parse(h2.out).at("points");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].at("criterion_changed").get<bool>());
  EXPECT_TRUE(points[1].at("criterion_changed").get<bool>());
  EXPECT_EQ(Run({"history", "--ledger", Path("base.db"), "--claim", "synth.C1", "--suite", "s"}).exit_code, 3);
}

TEST_F(GateCliTest, NoiseAndRunIdBaseline) {
  const int64_t base = AddRun(Path("l.db"), 1.0, 1, "REPRODUCED");
  AddRun(Path("l.db"), 1.0, 2, "REPRODUCED");
  const Output o = Run({"gate", "--ledger", Path("l.db"), "--baseline", std::to_string(base)});
  EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 2) << o.out << o.err;
  EXPECT_EQ(o.out.find("SLOWER"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("FASTER"), std::string::npos) << o.out;
  // A claim flip alone is a regression.
  AddRun(Path("l.db"), 1.0, 3, "NOT_REPRODUCED");
  const Output flip = Run({"gate", "--ledger", Path("l.db"), "--baseline", std::to_string(base)});
  EXPECT_EQ(flip.exit_code, 1) << flip.out;
  EXPECT_NE(flip.out.find("REPRODUCED -> NOT_REPRODUCED"), std::string::npos) << flip.out;
}

TEST_F(GateCliTest, BadInputExitsThreeAndStoresNothing) {
  AddRun(Path("base.db"), 1.0, 1, "REPRODUCED");
  const int64_t cand = AddRun(Path("cand.db"), 1.10, 2, "REPRODUCED");
  std::ofstream(Path("bad_policy.json")) << R"({"threshhold": 0.1})";
  std::ofstream(Path("old_policy.json")) << R"({"gate_speed": false, "ignore_claims": ["synth.C1"]})";
  const std::vector<std::vector<std::string>> bad = {
      {"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--format", "html"},
      {"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--policy", Path("bad_policy.json")},
      {"gate", "--ledger", Path("cand.db"), "--baseline", Path("nope.db")},
      {"gate", "--ledger", Path("missing.db"), "--baseline", Path("base.db")},
      {"gate", "--ledger", Path("cand.db")},
      {"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--policy", Path("old_policy.json")},
      {"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"), "--expect-head", "head"},
  };
  for (const auto& args : bad) {
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << args.back() << ": " << o.err;
    EXPECT_NE(o.err.find("claimbench: error: "), std::string::npos) << o.err;
  }
  EXPECT_NE(Run(bad[1]).err.find("unknown key 'threshhold'"), std::string::npos);
  const std::string old = Run(bad[5]).err;
  EXPECT_NE(old.find("'ignore_claims' is no longer a policy key: claims declare depends_on_clock"),
            std::string::npos) << old;
  EXPECT_EQ(std::count(old.begin(), old.end(), '\n'), 1) << "one line: " << old;
  EXPECT_FALSE(fs::exists(Path("missing.db")));
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(Path("cand.db"));
  EXPECT_TRUE(ledger.GetDecisions(cand).empty());
}

TEST_F(GateCliTest, ExpectHeadRefusesALedgerWhoseNewestRunVanished) {
  AddRun(Path("base.db"), 1.0, 1, "REPRODUCED");
  const int64_t cand = AddRun(Path("cand.db"), 1.0, 2, "REPRODUCED");
  const int64_t newest = AddRun(Path("cand.db"), 1.0, 3, "REPRODUCED");
  const std::string head = lg::Ledger::OpenReadOnly(Path("cand.db")).GetRun(newest).chain_hash;
  const std::vector<std::string> gate = {"gate", "--ledger", Path("cand.db"), "--baseline",
                                         Path("base.db"), "--run", std::to_string(cand),
                                         "--expect-head", head};
  const Output whole = Run(gate);
  EXPECT_NE(whole.exit_code, 1) << whole.err;
  EXPECT_NE(whole.exit_code, 3) << whole.err;
  EXPECT_FALSE(lg::Ledger::OpenReadOnly(Path("cand.db")).GetDecisions(cand).empty());

  // Unseal the newest run by hand: the rest still verifies, the anchor does not.
  ASSERT_EQ(cb::ledger::testutil::ExecSql(
                Path("cand.db"),
                "DELETE FROM decisions; UPDATE runs SET status = 'running', finished_at = NULL, "
                "run_hash = NULL, chain_hash = NULL, chain_seq = NULL WHERE id = " +
                    std::to_string(newest)),
            "");
  const Output cut = Run(gate);
  EXPECT_EQ(cut.exit_code, 1) << cut.err;
  EXPECT_EQ(std::count(cut.err.begin(), cut.err.end(), '\n'), 1) << cut.err;
  EXPECT_NE(cut.err.find("expected chain head " + head + " is not in the chain"), std::string::npos)
      << cut.err;
  EXPECT_TRUE(lg::Ledger::OpenReadOnly(Path("cand.db")).GetDecisions(cand).empty());
}

TEST_F(GateCliTest, PlatformMismatchIsRefused) {
  AddRun(Path("base.db"), 1.0, 1, "REPRODUCED");
  {
    lg::Ledger ledger = lg::Ledger::Open(Path("cand.db"));
    lg::RunMeta meta;
    meta.platform_hash = "platform-B";
    const int64_t id = ledger.BeginRun(meta);
    ledger.FinishRun(id, lg::RunStatus::kComplete);
  }
  const Output o = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db")});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("platform mismatch"), std::string::npos) << o.err;
  const Output x = Run({"gate", "--ledger", Path("cand.db"), "--baseline", Path("base.db"),
                        "--cross-platform"});
  EXPECT_EQ(x.exit_code, 0) << x.out << x.err;  // everything MISSING: nothing gated
  EXPECT_NE(x.out.find("MISSING"), std::string::npos);
}

// Two runs of one build with one seed on one machine differ only by the clock:
// gated against each other with the default policy they must never regress
// (exit 0, or 2 for rows it cannot decide). The suites with clock-dependent
// claims (harness.H4/H5, mtad.M3b/M3c, radar.R6) and clock-calibrated
// repeat counts keep it short.
TEST_F(GateCliTest, TwoIdenticalSmokeRunsNeverRegress) {
  const std::vector<std::string> run = {"run", "--profile", "smoke", "--backend", "cpu",
                                        "--suite", "harness", "--suite", "mtad",
                                        "--suite", "radar", "--ledger"};
  auto with = [](std::vector<std::string> v, std::vector<std::string> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  const Output first = Run(with(run, {Path("first.db")}));
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const Output second = Run(with(run, {Path("second.db")}));
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  ASSERT_EQ(Run({"ledger", "export", "--ledger", Path("first.db"), "--out", Path("base.jsonl")})
                .exit_code,
            0);
  const Output g = Run({"gate", "--ledger", Path("second.db"), "--baseline", Path("base.jsonl"),
                        "--all"});
  EXPECT_TRUE(g.exit_code == 0 || g.exit_code == 2) << g.exit_code << "\n" << g.out << g.err;
  EXPECT_EQ(g.out.find("NEW"), std::string::npos) << "a row's identity (params) changed:\n" << g.out;
  EXPECT_EQ(g.out.find("MISSING"), std::string::npos) << g.out;
  const Output j = Run({"gate", "--ledger", Path("second.db"), "--baseline", Path("base.jsonl"),
                        "--json", "--no-store"});
  ASSERT_EQ(j.exit_code, g.exit_code) << j.err;
  const auto report = nlohmann::json::parse(j.out);
  for (const auto& row : report.at("rows")) {
    EXPECT_FALSE(row.at("regression").get<bool>()) << row.dump();
    EXPECT_NE(row.at("result_kind"), "unknown") << row.dump();
  }
}

}  // namespace

// File: ledger/analysis/gate_test.cpp
// -----------------------------------------------------------------------------
// The gate on synthetic runs with planted changes (issue 4 "Tests"): +10% with
// n = 10 is SLOWER (exit 1); pure noise is SAME or AMBIGUOUS (exit 0 or 2) and
// never SLOWER/FASTER; a planted accuracy change and an output-hash change on an
// unchanged input; a claim that flips from REPRODUCED; rows new to the run;
// platform mismatch; decisions stored with their statistics.
#include "ledger/analysis/gate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "harness/random.h"
#include "ledger/analysis/gate_format.h"

namespace cb::ledger {
namespace {

Result Speed(const std::string& name, double center, double rel_sd, uint64_t seed, int n = 10) {
  cb::harness::Rng rng(seed, 9);
  Result r;
  r.suite = "synth";
  r.case_name = name;
  r.backend = "cpu";
  r.params = {{"n", 1024}};
  r.metric = "seconds";
  r.unit = "s";
  r.direction = "lower";
  for (int i = 0; i < n; ++i) r.samples.push_back(center * (1 + rel_sd * rng.Normal()));
  r.n = n;
  r.value = r.samples[0];
  return r;
}

Result Accuracy(const std::string& name, double value, const std::string& in, const std::string& out) {
  Result r;
  r.suite = "synth";
  r.case_name = name;
  r.backend = "cpu";
  r.metric = "max_abs_error";
  r.direction = "lower";
  r.value = value;
  r.input_hash = in;
  r.output_hash = out;
  return r;
}

ClaimRow Claim(const std::string& id, const std::string& verdict) {
  ClaimRow c;
  c.claim_id = id;
  c.suite = "synth";
  c.metric = "ratio";
  c.verdict = verdict;
  return c;
}

RunData MakeRun(const std::string& label, const std::string& platform = "p1") {
  RunData d;
  d.label = label;
  d.run.run_hash = label + "-hash";
  d.run.platform_hash = platform;
  return d;
}

const GateRow& Row(const GateReport& r, const std::string& case_name) {
  for (const auto& g : r.rows) {
    if (g.case_name == case_name) return g;
  }
  throw std::runtime_error("no row " + case_name);
}

TEST(Gate, PlantedTenPercentSlowdownIsSlower) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Speed("k", 1.0, 0.01, 1));
  cand.results.push_back(Speed("k", 1.10, 0.01, 2));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  const GateRow& g = Row(rep, "k");
  EXPECT_EQ(g.verdict, "SLOWER") << g.note;
  EXPECT_TRUE(g.regression);
  EXPECT_EQ(rep.exit_code, 1);
  EXPECT_NEAR(*g.effect, 0.10, 0.02);
  EXPECT_GT(*g.ci_low, 0.05);
  EXPECT_LT(*g.p, 0.001);
  // The same change on a higher-is-better metric is an improvement.
  RunData base2 = MakeRun("base"), cand2 = MakeRun("cand");
  base2.results.push_back(Speed("k", 1.0, 0.01, 1));
  cand2.results.push_back(Speed("k", 1.10, 0.01, 2));
  base2.results[0].direction = cand2.results[0].direction = "higher";
  const GateReport rep2 = Gate(base2, cand2, GatePolicy{}, false);
  EXPECT_EQ(Row(rep2, "k").verdict, "FASTER");
  EXPECT_EQ(rep2.exit_code, 0);
}

// Raw samples of an accuracy (e.g. one AUROC per seed) are not a timing:
// only times, rates and benchmark-reporter rows are speed rows.
TEST(Gate, SamplesOfAnAccuracyAreNotASpeedRow) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (RunData* run : {&base, &cand}) {
    run->results.push_back(Speed("auroc_gap", 0.1, 0.01, 1));
    run->results.back().unit = "1";
    run->results.back().metric = "auroc_difference";
    run->results.push_back(Speed("rate", 1e9, 0.01, 1));
    run->results.back().unit = "B/s";
    run->results.push_back(Speed("fraction", 0.5, 0.01, 1));
    run->results.back().unit = "1";
    run->results.back().metric = "flops_fraction_of_cpu_sgemm";
    run->results.back().params["benchmark"] = "x/fraction";
  }
  for (RunData* run : {&base, &cand}) {  // one timed value without samples
    run->results.push_back(Accuracy("cost", run == &base ? 14.0 : 13.5, "", ""));
    run->results.back().metric = "target_over_draft_eval_time_ratio";
  }
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  EXPECT_EQ(Row(rep, "cost").kind, RowKind::kValue);
  EXPECT_EQ(rep.exit_code, 0);
  EXPECT_EQ(Row(rep, "auroc_gap").kind, RowKind::kValue);
  EXPECT_EQ(Row(rep, "rate").kind, RowKind::kSpeed);
  EXPECT_EQ(Row(rep, "fraction").kind, RowKind::kSpeed);
}

TEST(Gate, PureNoiseIsSameOrAmbiguousNeverAChange) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (int i = 0; i < 40; ++i) {
    base.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 100 + i));
    cand.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 200 + i));
  }
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  for (const auto& g : rep.rows) {
    EXPECT_TRUE(g.verdict == "SAME" || g.verdict == "AMBIGUOUS") << g.case_name << " " << g.verdict;
  }
  EXPECT_TRUE(rep.exit_code == 0 || rep.exit_code == 2);
  EXPECT_GT(rep.counts.count("SAME") ? rep.counts.at("SAME") : 0, 30);  // 1% noise, 5% threshold
  // Noisier than the threshold: the CI straddles it -> AMBIGUOUS, exit 2.
  RunData nb = MakeRun("base"), nc = MakeRun("cand");
  nb.results.push_back(Speed("noisy", 1.0, 0.15, 5, 5));
  nc.results.push_back(Speed("noisy", 1.0, 0.15, 6, 5));
  const GateReport noisy = Gate(nb, nc, GatePolicy{}, false);
  EXPECT_EQ(Row(noisy, "noisy").verdict, "AMBIGUOUS");
  EXPECT_EQ(noisy.exit_code, 2);
  // ... unless speed is reported only.
  GatePolicy report_only;
  report_only.gate_speed = false;
  EXPECT_EQ(Gate(nb, nc, report_only, false).exit_code, 0);
}

TEST(Gate, BenjaminiHochbergTamesManyBorderlineRows) {
  // One real +10% change among 200 noisy-but-unchanged rows: only it is SLOWER.
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (int i = 0; i < 200; ++i) {
    base.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 1000 + i));
    cand.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 3000 + i));
  }
  base.results.push_back(Speed("real", 1.0, 0.01, 7));
  cand.results.push_back(Speed("real", 1.10, 0.01, 8));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  EXPECT_EQ(rep.counts.count("SLOWER") ? rep.counts.at("SLOWER") : 0, 1);
  EXPECT_EQ(rep.rows.front().case_name, "real");  // regressions first
}

TEST(Gate, PlantedAccuracyChangeAndOutputHashChange) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Accuracy("acc", 1e-6, "in1", "out1"));
  cand.results.push_back(Accuracy("acc", 2e-6, "in1", "out2"));
  base.results.push_back(Accuracy("bits", 1e-6, "in2", "outA"));
  cand.results.push_back(Accuracy("bits", 1e-6, "in2", "outB"));
  base.results.push_back(Accuracy("same", 3.0, "in3", "o3"));
  cand.results.push_back(Accuracy("same", 3.0, "in3", "o3"));
  base.results.push_back(Accuracy("newinput", 3.0, "in4", "o4"));
  cand.results.push_back(Accuracy("newinput", 5.0, "in5", "o5"));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  EXPECT_EQ(Row(rep, "acc").verdict, "CHANGED");
  EXPECT_TRUE(Row(rep, "acc").regression);
  const GateRow& bits = Row(rep, "bits");
  EXPECT_EQ(bits.verdict, "OUTPUT_CHANGED");
  EXPECT_EQ(bits.baseline_output_hash, "outA");
  EXPECT_EQ(bits.candidate_output_hash, "outB");
  EXPECT_TRUE(bits.regression);
  EXPECT_EQ(Row(rep, "same").verdict, "MATCH");
  EXPECT_EQ(Row(rep, "newinput").verdict, "INPUT_CHANGED");
  EXPECT_FALSE(Row(rep, "newinput").regression);
  EXPECT_EQ(rep.exit_code, 1);
  EXPECT_NE(GateTable(rep, false).find("outA -> outB"), std::string::npos);
  EXPECT_NE(GateMarkdown(rep, false).find("`outA` -> `outB`"), std::string::npos);
  // A tolerance that admits the change; across platforms output bits are only reported.
  GatePolicy loose;
  loose.metric_tolerance["max_abs_error"] = {0.0, 1e-5};
  const GateReport cross = Gate(base, cand, loose, true);
  EXPECT_EQ(Row(cross, "acc").verdict, "OUTPUT_CHANGED");
  EXPECT_FALSE(Row(cross, "acc").regression);
  EXPECT_EQ(cross.exit_code, 0);
}

TEST(Gate, ClaimFlipIsARegressionNewRowsAreNot) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.claims = {Claim("synth.A", "REPRODUCED"), Claim("synth.B", "INCONCLUSIVE"),
                 Claim("synth.C", "REPRODUCED")};
  cand.claims = {Claim("synth.A", "NOT_REPRODUCED"), Claim("synth.B", "REPRODUCED"),
                 Claim("synth.C", "REPRODUCED"), Claim("later.D", "NOT_REPRODUCED")};
  cand.results.push_back(Accuracy("brand_new", 1.0, "i", "o"));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  EXPECT_EQ(Row(rep, "synth.A").verdict, "WORSE");
  EXPECT_TRUE(Row(rep, "synth.A").regression);
  EXPECT_EQ(Row(rep, "synth.B").verdict, "IMPROVED");
  EXPECT_EQ(Row(rep, "synth.C").verdict, "MATCH");
  EXPECT_EQ(Row(rep, "later.D").verdict, "NEW");
  EXPECT_EQ(Row(rep, "brand_new").verdict, "NEW");
  EXPECT_FALSE(Row(rep, "brand_new").regression);
  EXPECT_EQ(rep.exit_code, 1);
  GatePolicy ignore;
  ignore.ignore_claims = {"synth.A"};
  EXPECT_EQ(Gate(base, cand, ignore, false).exit_code, 0);
  // Only new things: exit 0.
  RunData empty_base = MakeRun("base");
  EXPECT_EQ(Gate(empty_base, cand, GatePolicy{}, false).exit_code, 0);
}

TEST(Gate, PlatformMismatchIsRefusedUnlessCrossPlatform) {
  RunData base = MakeRun("base", "p1"), cand = MakeRun("cand", "p2");
  EXPECT_THROW(Gate(base, cand, GatePolicy{}, false), std::runtime_error);
  EXPECT_NO_THROW(Gate(base, cand, GatePolicy{}, true));
}

TEST(Gate, PolicyParsingAndVersion) {
  const auto p = ParsePolicy(nlohmann::json::parse(
      R"({"version": "v7", "threshold": 0.02, "suites": {"synth": {"threshold": 0.2}},
          "metrics": {"nmse": {"atol": 1e-12}}, "gate_speed": false})"), "p.json");
  EXPECT_EQ(p.ThresholdFor("synth"), 0.2);
  EXPECT_EQ(p.ThresholdFor("other"), 0.02);
  EXPECT_EQ(p.ToleranceFor("nmse").atol, 1e-12);
  EXPECT_FALSE(p.gate_speed);
  EXPECT_EQ(p.policy_version.substr(0, 3), "v7+");
  const auto q = ParsePolicy(nlohmann::json::parse(R"({"version": "v7", "threshold": 0.03})"), "q");
  EXPECT_NE(p.policy_version, q.policy_version);
  EXPECT_THROW(ParsePolicy(nlohmann::json::parse(R"({"treshold": 0.1})"), "x"), std::runtime_error);
  EXPECT_THROW(ParsePolicy(nlohmann::json::parse(R"({"threshold": -1})"), "x"), std::runtime_error);
  // A per-suite threshold changes the verdict: +10% inside a 20% band is SAME.
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Speed("k", 1.0, 0.01, 1));
  cand.results.push_back(Speed("k", 1.10, 0.01, 2));
  EXPECT_EQ(Row(Gate(base, cand, p, false), "k").verdict, "SAME");
}

TEST(Gate, DecisionsAreStoredWithTheirStatistics) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cb_gate_test_" + std::to_string(getpid()) + ".db")).string();
  std::filesystem::remove(path);
  {
    Ledger ledger = Ledger::Open(path);
    RunMeta meta;
    meta.platform_hash = "p1";
    const int64_t id = ledger.BeginRun(meta);
    ledger.FinishRun(id, RunStatus::kComplete);
    RunData base = MakeRun("base"), cand = MakeRun("cand");
    cand.run.id = id;
    base.results.push_back(Speed("k", 1.0, 0.01, 1));
    cand.results.push_back(Speed("k", 1.10, 0.01, 2));
    base.claims = {Claim("synth.A", "REPRODUCED")};
    cand.claims = {Claim("synth.A", "INCONCLUSIVE")};
    StoreDecisions(ledger, Gate(base, cand, GatePolicy{}, false));
    const auto ds = ledger.GetDecisions(id);
    ASSERT_EQ(ds.size(), 2u);
    EXPECT_EQ(ds[0].verdict, "SLOWER");
    EXPECT_EQ(ds[0].n, 10);
    EXPECT_TRUE(ds[0].p && ds[0].effect && ds[0].ci_low && ds[0].ci_high && ds[0].threshold);
    EXPECT_EQ(ds[0].policy_version, "default");
    EXPECT_EQ(ds[0].baseline, "base-hash");
    EXPECT_EQ(ds[0].detail.at("kind"), "speed");
    EXPECT_TRUE(ds[0].detail.at("q").is_number());
    EXPECT_EQ(ds[1].verdict, "WORSE");
    EXPECT_EQ(ds[1].detail.at("baseline_verdict"), "REPRODUCED");
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
}

TEST(Gate, JunitAndJsonShapes) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Speed("k<&>", 1.0, 0.01, 1));
  cand.results.push_back(Speed("k<&>", 1.10, 0.01, 2));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  const std::string xml = GateJunit(rep);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"SLOWER\""), std::string::npos);
  EXPECT_NE(xml.find("k&lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(xml.find("k<&>"), std::string::npos);
  const auto j = GateJson(rep);
  EXPECT_EQ(j.at("exit_code"), 1);
  EXPECT_EQ(j.at("rows").at(0).at("verdict"), "SLOWER");
}

}  // namespace
}  // namespace cb::ledger

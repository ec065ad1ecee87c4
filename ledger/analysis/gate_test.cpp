// File: ledger/analysis/gate_test.cpp
// -----------------------------------------------------------------------------
// The gate on synthetic runs with planted changes (issue 4 "Tests"): +10% with
// n = 10 is SLOWER (exit 1); pure noise is SAME or AMBIGUOUS (exit 0 or 2) and
// never SLOWER/FASTER; a planted accuracy change and an output-hash change on an
// unchanged input; a claim that flips from REPRODUCED; rows compared by their
// declared kind, old rows without one; rows new to the run;
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
  r.kind = cb::harness::ResultKind::kTiming;
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
  c.depends_on_clock = false;
  c.claim_id = id;
  c.suite = "synth";
  c.metric = "ratio";
  c.verdict = verdict;
  return c;
}

// Speed is gated only when a policy opts in (the default reports it).
GatePolicy SpeedGated() {
  GatePolicy p;
  p.gate_speed = true;
  return p;
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
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
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
  const GateReport rep2 = Gate(base2, cand2, SpeedGated(), false);
  EXPECT_EQ(Row(rep2, "k").verdict, "FASTER");
  EXPECT_EQ(rep2.exit_code, 0);
}

// One key recorded twice with different values (two claims' rows that
// collided): each occurrence meets its own counterpart, so an unchanged run
// matches; a run with one occurrence fewer reports the last one MISSING,
// one more reports it NEW.
TEST(Gate, ARepeatedKeyPairsOccurrencesInOrder) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (double v : {1.0, 2.0}) {
    Result r = Accuracy("twice", v, "in", "out");
    r.kind = cb::harness::ResultKind::kExact;
    base.results.push_back(r);
    cand.results.push_back(r);
  }
  const GateReport same = Gate(base, cand, GatePolicy{}, false);
  ASSERT_EQ(same.rows.size(), 2u);
  for (const GateRow& g : same.rows) EXPECT_EQ(g.verdict, "MATCH") << g.baseline_value.value_or(-1);
  EXPECT_EQ(same.exit_code, 0);

  // The report orders rows by verdict: find them by it.
  auto only = [](const GateReport& r, const std::string& verdict) {
    std::vector<const GateRow*> out;
    for (const GateRow& g : r.rows)
      if (g.verdict == verdict) out.push_back(&g);
    return out;
  };
  RunData shorter = MakeRun("cand");
  shorter.results.push_back(cand.results[0]);
  const GateReport fewer = Gate(base, shorter, GatePolicy{}, false);
  ASSERT_EQ(fewer.rows.size(), 2u);
  ASSERT_EQ(only(fewer, "MATCH").size(), 1u);
  EXPECT_EQ(*only(fewer, "MATCH")[0]->baseline_value, 1.0);
  ASSERT_EQ(only(fewer, "MISSING").size(), 1u);
  EXPECT_EQ(*only(fewer, "MISSING")[0]->baseline_value, 2.0);

  RunData longer = cand;
  longer.results.push_back(cand.results[1]);
  const GateReport more = Gate(base, longer, GatePolicy{}, false);
  ASSERT_EQ(more.rows.size(), 3u);
  EXPECT_EQ(only(more, "MATCH").size(), 2u);
  ASSERT_EQ(only(more, "NEW").size(), 1u);
  EXPECT_EQ(*only(more, "NEW")[0]->candidate_value, 2.0);
}

// The kind each row declares decides its comparison; names, units, samples
// and params do not: a row called "seconds" in unit "s" that is declared
// exact is compared by tolerance, an accuracy with per-seed samples declared
// an estimate likewise, and a timing called "auroc" is a speed row.
TEST(Gate, TheDeclaredKindDecidesNotTheName) {
  using cb::harness::ResultKind;
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (RunData* run : {&base, &cand}) {
    run->results.push_back(Speed("auroc_gap", 0.1, 0.01, 1));
    run->results.back().metric = "auroc_difference";
    run->results.back().kind = ResultKind::kEstimate;
    run->results.push_back(Speed("named_like_time", 2.0, 0.0, 1));
    run->results.back().kind = ResultKind::kExact;  // metric "seconds", unit "s"
    run->results.push_back(Speed("timed_accuracy", 0.5, 0.01, run == &base ? 1 : 2));
    run->results.back().metric = "accuracy";
    run->results.back().unit = "1";
    run->results.push_back(Speed("fraction", 0.5, 0.01, 1));
    run->results.back().metric = "flops_fraction_of_cpu_sgemm";
    run->results.back().params.erase("benchmark");
  }
  for (RunData* run : {&base, &cand}) {  // one timed value without samples
    run->results.push_back(Accuracy("cost", run == &base ? 14.0 : 13.5, "", ""));
    run->results.back().metric = "target_over_draft_eval_time_ratio";
    run->results.back().kind = ResultKind::kTiming;
  }
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
  EXPECT_EQ(Row(rep, "cost").kind, RowKind::kValue);
  EXPECT_EQ(Row(rep, "cost").verdict, "VALUE");
  EXPECT_FALSE(Row(rep, "cost").gated);
  EXPECT_EQ(Row(rep, "auroc_gap").kind, RowKind::kDeterministic);
  EXPECT_EQ(Row(rep, "auroc_gap").verdict, "MATCH");
  EXPECT_EQ(Row(rep, "auroc_gap").result_kind, "estimate");
  EXPECT_EQ(Row(rep, "named_like_time").kind, RowKind::kDeterministic);
  EXPECT_EQ(Row(rep, "named_like_time").verdict, "MATCH");
  EXPECT_EQ(Row(rep, "timed_accuracy").kind, RowKind::kSpeed);
  EXPECT_EQ(Row(rep, "fraction").kind, RowKind::kSpeed);
  EXPECT_EQ(Row(rep, "fraction").verdict, "SAME");
  EXPECT_NE(rep.exit_code, 1);
  // An estimate is deterministic: a changed one is a regression.
  cand.results[0].value += 1e-3;
  const GateReport changed = Gate(base, cand, SpeedGated(), false);
  EXPECT_EQ(Row(changed, "auroc_gap").verdict, "CHANGED");
  EXPECT_EQ(changed.exit_code, 1);
  // Two sides that declare different kinds are not compared.
  cand.results[0].kind = ResultKind::kTiming;
  const GateReport kind_changed = Gate(base, cand, SpeedGated(), false);
  const GateRow& moved = Row(kind_changed, "auroc_gap");
  EXPECT_EQ(moved.verdict, "KIND_CHANGED");
  EXPECT_FALSE(moved.gated);
}

// Rows recorded before ledger schema 4 have no kind (RunData::kinds nullopt):
// compared as the other side's declared kind, but never gated.
TEST(Gate, RowsWithoutARecordedKindAreReportedNotGated) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Accuracy("acc", 1.0, "in", "out"));
  cand.results.push_back(Accuracy("acc", 2.0, "in", "out"));
  base.results.push_back(Speed("k", 1.0, 0.01, 1));
  cand.results.push_back(Speed("k", 1.5, 0.01, 2));
  base.kinds = {std::nullopt, std::nullopt};  // an old baseline
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
  const GateRow& acc = Row(rep, "acc");
  EXPECT_EQ(acc.verdict, "CHANGED");
  EXPECT_FALSE(acc.gated);
  EXPECT_FALSE(acc.regression);
  EXPECT_NE(acc.note.find("no recorded kind"), std::string::npos) << acc.note;
  const GateRow& k = Row(rep, "k");
  EXPECT_EQ(k.verdict, "SLOWER");
  EXPECT_FALSE(k.regression);
  EXPECT_NE(k.note.find("no recorded kind"), std::string::npos) << k.note;
  EXPECT_EQ(rep.exit_code, 0);
  // Neither side has one: VALUE.
  cand.kinds = {std::nullopt, std::nullopt};
  const GateReport old = Gate(base, cand, SpeedGated(), false);
  EXPECT_EQ(Row(old, "acc").verdict, "VALUE");
  EXPECT_EQ(Row(old, "acc").result_kind, "unknown");
  EXPECT_EQ(Row(old, "k").verdict, "VALUE");
  EXPECT_EQ(old.exit_code, 0);
}

// The default policy reports speed: two runs of one build on one machine can
// differ by whatever else the machine did.
TEST(Gate, TheDefaultPolicyReportsSpeedWithoutGatingIt) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  base.results.push_back(Speed("k", 1.0, 0.01, 1));
  cand.results.push_back(Speed("k", 1.30, 0.01, 2));
  const GateReport rep = Gate(base, cand, GatePolicy{}, false);
  EXPECT_EQ(Row(rep, "k").verdict, "SLOWER");
  EXPECT_FALSE(Row(rep, "k").regression);
  EXPECT_EQ(rep.exit_code, 0);
  EXPECT_FALSE(ParsePolicy(nlohmann::json::object(), "empty").gate_speed);
}

TEST(Gate, PureNoiseIsSameOrAmbiguousNeverAChange) {
  RunData base = MakeRun("base"), cand = MakeRun("cand");
  for (int i = 0; i < 40; ++i) {
    base.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 100 + i));
    cand.results.push_back(Speed("k" + std::to_string(i), 1.0, 0.01, 200 + i));
  }
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
  for (const auto& g : rep.rows) {
    EXPECT_TRUE(g.verdict == "SAME" || g.verdict == "AMBIGUOUS") << g.case_name << " " << g.verdict;
  }
  EXPECT_TRUE(rep.exit_code == 0 || rep.exit_code == 2);
  EXPECT_GT(rep.counts.count("SAME") ? rep.counts.at("SAME") : 0, 30);  // 1% noise, 5% threshold
  // Noisier than the threshold: the CI straddles it -> AMBIGUOUS, exit 2.
  RunData nb = MakeRun("base"), nc = MakeRun("cand");
  nb.results.push_back(Speed("noisy", 1.0, 0.15, 5, 5));
  nc.results.push_back(Speed("noisy", 1.0, 0.15, 6, 5));
  const GateReport noisy = Gate(nb, nc, SpeedGated(), false);
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
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
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
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
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
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
  EXPECT_EQ(Row(rep, "synth.A").verdict, "WORSE");
  EXPECT_TRUE(Row(rep, "synth.A").regression);
  EXPECT_EQ(Row(rep, "synth.B").verdict, "IMPROVED");
  EXPECT_EQ(Row(rep, "synth.C").verdict, "MATCH");
  EXPECT_EQ(Row(rep, "later.D").verdict, "NEW");
  EXPECT_EQ(Row(rep, "brand_new").verdict, "NEW");
  EXPECT_FALSE(Row(rep, "brand_new").regression);
  EXPECT_EQ(rep.exit_code, 1);
  // A claim whose verdict rests on a clock is reported, not gated; the
  // candidate's declaration wins.
  cand.claims[0].depends_on_clock = true;
  GateReport clocked = Gate(base, cand, SpeedGated(), false);
  EXPECT_EQ(Row(clocked, "synth.A").verdict, "WORSE");
  EXPECT_FALSE(Row(clocked, "synth.A").regression);
  EXPECT_NE(Row(clocked, "synth.A").note.find("depends_on_clock"), std::string::npos);
  EXPECT_EQ(clocked.exit_code, 0);
  // Neither side recorded it (both from before ledger schema 4): not gated.
  cand.claims[0].depends_on_clock.reset();
  base.claims[0].depends_on_clock.reset();
  clocked = Gate(base, cand, SpeedGated(), false);
  EXPECT_FALSE(Row(clocked, "synth.A").gated);
  EXPECT_NE(Row(clocked, "synth.A").note.find("neither run recorded"), std::string::npos);
  base.claims[0].depends_on_clock = false;  // the baseline's declaration then counts
  EXPECT_EQ(Gate(base, cand, SpeedGated(), false).exit_code, 1);
  // Only new things: exit 0.
  RunData empty_base = MakeRun("base");
  EXPECT_EQ(Gate(empty_base, cand, SpeedGated(), false).exit_code, 0);
}

TEST(Gate, PlatformMismatchIsRefusedUnlessCrossPlatform) {
  RunData base = MakeRun("base", "p1"), cand = MakeRun("cand", "p2");
  EXPECT_THROW(Gate(base, cand, SpeedGated(), false), std::runtime_error);
  EXPECT_NO_THROW(Gate(base, cand, SpeedGated(), true));
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
  // ignore_claims is gone: one clear error pointing at depends_on_clock.
  try {
    ParsePolicy(nlohmann::json::parse(R"({"ignore_claims": ["synth.A"]})"), "old.json");
    ADD_FAILURE() << "ignore_claims accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("old.json"), std::string::npos) << what;
    EXPECT_NE(what.find("depends_on_clock"), std::string::npos) << what;
  }
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
    StoreDecisions(ledger, Gate(base, cand, SpeedGated(), false));
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
  const GateReport rep = Gate(base, cand, SpeedGated(), false);
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

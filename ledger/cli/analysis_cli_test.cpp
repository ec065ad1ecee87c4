// File: harness/cli/analysis_cli_test.cpp
// End-to-end tests of compare, history, report and the gbench-json exchange on
// synthetic ledgers: a planted 2x cpu->cuda speedup, a planted step in a
// history named by its first run, a report in both formats, and Google
// Benchmark JSON that survives export -> import -> gate.
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

#include "fixtures/cli_test_util.h"
#include "fixtures/count.h"

#include "harness/random.h"
#include "ledger/ledger.h"

namespace {

using cb::testing::CountOf;

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;
namespace lg = cb::ledger;

lg::Result Timing(const std::string& backend, double seconds, cb::harness::Rng& rng) {
  lg::Result r;
  r.suite = "synth";
  r.case_name = "kernel";
  r.backend = backend;
  r.metric = "seconds";
  r.unit = "s";
  r.direction = "lower";
  for (int i = 0; i < 9; ++i) r.samples.push_back(seconds * (1 + 0.01 * rng.Normal()));
  r.n = 9;
  r.value = r.samples[0];
  r.kind = cb::harness::ResultKind::kTiming;
  return r;
}

// A REPRODUCED claim "<suite>.C1" of `paper`.
lg::ClaimRow Claim(const std::string& suite, const std::string& paper) {
  lg::ClaimRow c;
  c.claim_id = suite + ".C1";
  c.suite = suite;
  c.paper = paper;
  c.verdict = "REPRODUCED";
  return c;
}

class AnalysisCliTest : public ClaimbenchTest {
 protected:
  // 12 runs: cpu 2 s, cuda 1 s (runs 0-5) then 1.5 s (runs 6-11); one claim.
  std::vector<int64_t> MakeLedger(const std::string& name) {
    lg::Ledger ledger = lg::Ledger::Open((dir_ / name).string());
    cb::harness::Rng rng(5, 5);
    std::vector<int64_t> ids;
    for (int run = 0; run < 12; ++run) {
      lg::RunMeta meta;
      meta.platform_hash = "pf";
      const int64_t id = ledger.BeginRun(meta);
      ids.push_back(id);
      ledger.AddResult(id, Timing("cpu", 2.0, rng));
      ledger.AddResult(id, Timing("cuda", run < 6 ? 1.0 : 1.5, rng));
      ledger.AddClaim(id, Claim("synth", "Synthetic"));
      ledger.FinishRun(id, lg::RunStatus::kComplete);
    }
    return ids;
  }

};

TEST_F(AnalysisCliTest, CompareCpuVersusCuda) {
  MakeLedger("l.db");
  const Output o = Run({"compare", "--ledger", "l.db", "--run", "1", "--backends", "cpu,cuda", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j.at("rows").size(), 1u);
  EXPECT_NEAR(j["rows"][0]["speedup"].get<double>(), 2.0, 0.05);
  EXPECT_TRUE(j["rows"][0]["counted"].get<bool>());
  EXPECT_NEAR(j["overall_geomean"].get<double>(), 2.0, 0.05);
  EXPECT_EQ(Run({"compare", "--ledger", "l.db"}).exit_code, 3);  // no mode
  EXPECT_EQ(Run({"compare", "--ledger", "l.db", "--backends", "cpu"}).exit_code, 3);
  // Two ledgers: the same run on both sides is a speedup of 1.
  MakeLedger("m.db");
  const Output two = Run({"compare", "--ledger", "l.db", "--other", "m.db", "--json"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(nlohmann::json::parse(two.out)["rows"].size(), 2u);
}

TEST_F(AnalysisCliTest, HistoryNamesTheFirstRunAfterAStep) {
  const auto ids = MakeLedger("l.db");
  const Output o = Run({"history", "--ledger", "l.db", "--suite", "synth", "--case", "kernel",
                        "--metric", "seconds", "--backend", "cuda", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j.size(), 1u);
  ASSERT_EQ(j[0]["steps"].size(), 1u) << o.out;
  EXPECT_EQ(j[0]["steps"][0]["first_run_id"].get<int64_t>(), ids[6]);
  const Output cpu = Run({"history", "--ledger", "l.db", "--suite", "synth", "--case", "kernel",
                          "--metric", "seconds", "--backend", "cpu"});
  EXPECT_NE(cpu.out.find("0 change points"), std::string::npos) << cpu.out;
  EXPECT_EQ(Run({"history", "--ledger", "l.db", "--suite", "synth"}).exit_code, 3);
}

// --param KEY=VALUE selects rows by a param, e.g. a benchmark axis the
// reporter stored as a number (ArgNames): "rows=1000" matches 1000.
TEST_F(AnalysisCliTest, CompareAndHistorySelectByParam) {
  {
    lg::Ledger ledger = lg::Ledger::Open(Path("p.db"));
    cb::harness::Rng rng(7, 7);
    for (int run = 0; run < 3; ++run) {
      lg::RunMeta meta;
      meta.platform_hash = "pf";
      const int64_t id = ledger.BeginRun(meta);
      for (int rows : {1000, 2000}) {
        for (const char* backend : {"cpu", "cuda"}) {
          lg::Result r = Timing(backend, rows / 1000.0, rng);
          r.params = {{"rows", rows}, {"mode", "fast"}};
          ledger.AddResult(id, r);
        }
      }
      ledger.FinishRun(id, lg::RunStatus::kComplete);
    }
  }
  const Output all = Run({"compare", "--ledger", "p.db", "--backends", "cpu,cuda", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["rows"].size(), 2u);
  const Output one = Run({"compare", "--ledger", "p.db", "--backends", "cpu,cuda", "--param",
                          "rows=1000", "--param", "mode=fast", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto rows = nlohmann::json::parse(one.out)["rows"];
  ASSERT_EQ(rows.size(), 1u) << one.out;
  EXPECT_EQ(nlohmann::json::parse(rows[0]["params"].get<std::string>())["rows"], 1000);
  const Output none = Run({"compare", "--ledger", "p.db", "--backends", "cpu,cuda", "--param",
                           "rows=3000", "--json"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(nlohmann::json::parse(none.out)["rows"].empty());

  const Output h = Run({"history", "--ledger", "p.db", "--suite", "synth", "--case", "kernel",
                        "--metric", "seconds", "--backend", "cpu", "--param", "rows=2000", "--json"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  const auto series = nlohmann::json::parse(h.out);
  ASSERT_EQ(series.size(), 1u) << h.out;
  EXPECT_EQ(series[0]["points"].size(), 3u);
  EXPECT_NE(series[0]["params"].get<std::string>().find("\"rows\":2000"), std::string::npos);
  const Output bad = Run({"history", "--ledger", "p.db", "--suite", "synth", "--case", "kernel",
                          "--metric", "seconds", "--param", "rows"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("expected KEY=VALUE"), std::string::npos) << bad.err;
}

TEST_F(AnalysisCliTest, ReportInBothFormats) {
  MakeLedger("l.db");
  const Output md = Run({"report", "--ledger", "l.db", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| Synthetic | synth.C1 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("first run after it"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("Geometric mean speedup 1.3"), std::string::npos) << md.out;  // 2 s / 1.5 s
  std::ofstream(dir_ / "fake_chart.js") << "window.Chart = function () {}; // </script> inside\n";
  const Output html = Run({"report", "--ledger", "l.db", "--html", "r.html", "--chartjs", "fake_chart.js"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = ReadFile(dir_ / "r.html");
  EXPECT_NE(page.find("window.Chart = function () {};"), std::string::npos);  // inlined
  EXPECT_EQ(page.find("// </script> inside"), std::string::npos);           // and escaped
  EXPECT_NE(page.find("id=\"cmp-backends\""), std::string::npos);
  EXPECT_NE(page.find("data-expected-charts=\"2\""), std::string::npos);  // 2 histories (Chart.js)
  EXPECT_NE(page.find("data-speedup-bars=\"1\""), std::string::npos);     // cpu vs cuda (inline SVG)
  EXPECT_EQ(CountOf(page, "class=\"cb-speedup-bar\""), 1);
  EXPECT_EQ(CountOf(page, "class=\"cb-speedup-ci\""), 1);
  EXPECT_NE(md.out.find("| synth/kernel seconds | 1.3"), std::string::npos) << md.out;  // the bar as text
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(Run({"report", "--ledger", "l.db"}).exit_code, 3);
  EXPECT_EQ(Run({"report", "--ledger", "l.db", "--html", "x.html", "--chartjs", "nope.js"}).exit_code, 3);
  EXPECT_FALSE(fs::exists(dir_ / "x.html"));
}

// The default run is the newest complete one with claims (a later bench run
// has none); its platform comparison is against the newest run of another
// platform with the same profile.
TEST_F(AnalysisCliTest, ReportTablesTheNewestClaimsRunAndComparesItWithAnotherPlatform) {
  {
    lg::Ledger ledger = lg::Ledger::Open(Path("pl.db"));
    cb::harness::Rng rng(3, 3);
    auto add = [&](const std::string& platform, const std::string& profile, double seconds, bool claim) {
      lg::RunMeta meta;
      meta.platform_hash = platform;
      meta.profile = profile;
      const int64_t id = ledger.BeginRun(meta);
      ledger.AddResult(id, Timing("cpu", seconds, rng));
      if (claim) ledger.AddClaim(id, Claim("synth", "Synthetic"));
      ledger.FinishRun(id, lg::RunStatus::kComplete);
    };
    add("pf", "smoke", 2.0, true);       // run 1: superseded by run 4
    add("other", "smoke", 1.0, true);    // run 2: the other platform's run of this profile
    add("other", "bench", 9.0, false);   // run 3: newer on that platform, another profile
    add("pf", "smoke", 2.0, true);       // run 4: the one reported
    add("pf", "bench", 5.0, false);      // run 5: newest, no claims
  }
  const Output md = Run({"report", "--ledger", "pl.db", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("# claimbench report: run 4"), std::string::npos) << md.out;
  const std::string what = "Geometric mean speedup ";
  const size_t at = md.out.find(what);
  ASSERT_NE(at, std::string::npos) << md.out;
  EXPECT_NEAR(std::stod(md.out.substr(at + what.size())), 0.5, 0.02);  // 1 s there, 2 s here (1% noise)
  EXPECT_NE(md.out.find("over 1 cases (platform pf (this run) over platform other (run 2))"), std::string::npos)
      << md.out;
}

// Paper pages show the suite's benchmark rows as fractions of the ceiling,
// from the newest bench run of the SAME platform that has them (issue 29).
TEST_F(AnalysisCliTest, PaperPagesShowTheNewestBenchFractionsOfThisPlatform) {
  {
    lg::Ledger ledger = lg::Ledger::Open(Path("f.db"));
    auto bench = [&](const std::string& platform, const std::string& suite, double fraction) {
      lg::RunMeta meta;
      meta.platform_hash = platform;
      meta.profile = "bench";
      const int64_t id = ledger.BeginRun(meta);
      lg::Result r;
      r.suite = suite;
      r.case_name = "cpu/copy/access:read/threads:1";
      r.backend = "cpu";
      r.metric = "bytes_per_second";
      r.value = fraction * 1e10;
      ledger.AddResult(id, r);
      r.metric = "bytes_per_second_fraction_of_cpu_stream_read_1t";
      r.unit = "1";
      r.value = fraction;
      r.params = {{"ceiling", {{"name", "cpu_stream_read_1t"}, {"unit", "GB/s"}}}};
      ledger.AddResult(id, r);
      ledger.FinishRun(id, lg::RunStatus::kComplete);
    };
    bench("pf", "synth", 0.25);     // older: superseded
    bench("pf", "synth", 0.42);     // the one shown
    bench("other", "synth", 0.91);  // newer, but another machine's ceiling
    bench("pf", "zzz", 0.11);       // newest of this platform, another suite
    lg::RunMeta meta;
    meta.platform_hash = "pf";
    const int64_t id = ledger.BeginRun(meta);
    for (const char* suite : {"synth", "lonely"}) ledger.AddClaim(id, Claim(suite, std::string("Paper ") + suite));
    ledger.FinishRun(id, lg::RunStatus::kComplete);
  }
  const Output md = Run({"report", "--ledger", "f.db", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("(run 2, "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| cpu/copy/access:read/threads:1 | cpu |  | cpu_stream_read_1t | 0.42 |"), std::string::npos)
      << md.out;
  EXPECT_EQ(md.out.find("0.25"), std::string::npos);
  EXPECT_EQ(md.out.find("0.91"), std::string::npos);
  EXPECT_EQ(md.out.find("0.11"), std::string::npos);
  EXPECT_NE(md.out.find("has recorded `lonely` rows as fractions"), std::string::npos) << md.out;
  std::ofstream(dir_ / "fake_chart.js") << "window.Chart = function () {};\n";
  ASSERT_EQ(Run({"report", "--ledger", "f.db", "--html", "p.html", "--chartjs", "fake_chart.js", "--paper", "synth"})
                .exit_code, 0);
  const std::string page = ReadFile(dir_ / "p.html");
  EXPECT_EQ(CountOf(page, "<table class=\"cb-fractions\">"), 1);
  EXPECT_NE(page.find("<td>cpu_stream_read_1t</td><td>0.42</td>"), std::string::npos);
}

TEST_F(AnalysisCliTest, GbenchJsonRoundTrip) {
  const auto ids = MakeLedger("l.db");
  ASSERT_EQ(Run({"ledger", "export", "--ledger", "l.db", "--format", "gbench-json", "--run",
                 std::to_string(ids[0]), "--out", "gb.json"}).exit_code, 0);
  const auto gb = nlohmann::json::parse(ReadFile(dir_ / "gb.json"));
  EXPECT_EQ(gb["context"]["json_schema_version"], 1);
  // 2 rows x (9 iterations + mean, median, stddev, cv).
  ASSERT_EQ(gb["benchmarks"].size(), 26u);
  EXPECT_EQ(gb["benchmarks"][0]["run_type"], "iteration");
  EXPECT_EQ(gb["benchmarks"][0]["time_unit"], "ns");
  EXPECT_EQ(gb["benchmarks"][9]["aggregate_name"], "mean");
  EXPECT_NEAR(gb["benchmarks"][0]["real_time"].get<double>(), 2e9, 1e8);
  // Import into a new ledger: one run with the repetitions as raw samples.
  const Output imp = Run({"ledger", "import", "--format", "gbench-json", "--ledger", "g.db", "gb.json"});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  lg::Ledger g = lg::Ledger::OpenReadOnly((dir_ / "g.db").string());
  const auto rows = g.GetResults(g.ResolveRun("latest"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].suite, "synth");
  EXPECT_EQ(rows[0].case_name, "kernel/backend:cpu/metric:seconds");
  EXPECT_EQ(rows[0].samples.size(), 9u);
  EXPECT_NEAR(rows[0].value, 2e9, 1e8);
  EXPECT_TRUE(g.Verify().ok);
  // Not Google Benchmark JSON: refused, and no ledger is left behind.
  std::ofstream(dir_ / "bad.json") << R"({"context": {}})";
  EXPECT_EQ(Run({"ledger", "import", "--format", "gbench-json", "--ledger", "h.db", "bad.json"}).exit_code, 3);
  EXPECT_FALSE(fs::exists(dir_ / "h.db"));
  EXPECT_EQ(Run({"ledger", "export", "--ledger", "l.db", "--format", "csv"}).exit_code, 3);
}

TEST_F(AnalysisCliTest, EveryMutationOfAnImportIsNamed) {
  // A Google Benchmark --benchmark_out file as the library writes it; a
  // field of the wrong type was nlohmann's bare type_error (issue 30).
  const std::string native = R"({
  "context": {"date": "2025-01-01T00:00:00+00:00", "host_name": "h", "executable": "./b", "num_cpus": 2,
              "mhz_per_cpu": 3000, "caches": [], "library_build_type": "release"},
  "benchmarks": [
    {"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration", "repetitions": 1, "threads": 1,
     "iterations": 1000, "real_time": 12.5, "cpu_time": 12.4, "time_unit": "ns"},
    {"name": "BM_B/16", "run_name": "BM_B/16", "run_type": "iteration", "repetitions": 1, "threads": 1,
     "iterations": 500, "real_time": 20.0, "cpu_time": 19.9, "time_unit": "us", "bytes_per_second": 1.5e9}
  ]
}
)";
  std::ofstream(dir_ / "typed.json") << R"({"context": {"num_cpus": "two"}, "benchmarks": [{"name": "BM_A", "real_time": 1}]})";
  const Output typed = Run({"ledger", "import", "--format", "gbench-json", "--ledger", "t.db", "typed.json"});
  EXPECT_EQ(typed.exit_code, 3);
  EXPECT_NE(typed.err.find("typed.json"), std::string::npos) << typed.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.db"));
  ExpectMutationsNameTheFile({"ledger", "import", "--format", "gbench-json", "--ledger", "m.db", "g.json"}, "g.json",
                             native);
  // Our own export format.
  const auto ids = MakeLedger("l.db");
  ASSERT_EQ(Run({"ledger", "export", "--ledger", "l.db", "--run", std::to_string(ids[0]), "--out", "e.jsonl"})
                .exit_code, 0);
  ExpectMutationsNameTheFile({"ledger", "import", "--ledger", "n.db", "x.jsonl"}, "x.jsonl",
                             ReadFile(dir_ / "e.jsonl"));
}

}  // namespace

// File: ledger/cli/report_cli_test.cpp
// End-to-end test of `claimbench report` on a run split into 2 shards
// (`run --shard i/2`) and merged (`ledger merge`), issue 29: the report shows
// ONE logical run holding both shards, with every claim of the unsharded run
// in its forest plot (one bar per claim with a measured value, the others
// listed); one shard's ledger alone is reported with a warning naming the
// missing shard; `--paper NAME` writes that paper's page alone.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "fixtures/cli_test_util.h"
#include "fixtures/count.h"

namespace {

using cb::testing::CountOf;

using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class ReportCliTest : public ClaimbenchTest {
 protected:
  Output RunHarness(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "--profile", "smoke", "--backend", "cpu", "--suite", "harness"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
};

TEST_F(ReportCliTest, TwoMergedShardsAreOneLogicalRun) {
  ASSERT_EQ(RunHarness({"--shard", "0/2", "--ledger", "s0.db"}).exit_code, 0);
  ASSERT_EQ(RunHarness({"--shard", "1/2", "--ledger", "s1.db"}).exit_code, 0);
  ASSERT_EQ(RunHarness({"--ledger", "full.db"}).exit_code, 0);
  ASSERT_EQ(Run({"ledger", "merge", "--ledger", "m.db", "s0.db", "s1.db"}).exit_code, 0);

  const Output full = Run({"report", "--ledger", "full.db", "--format", "md"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  // The harness suite's claims are prerequisites: one line for all of them.
  auto prerequisites = [](const std::string& report) {
    const size_t at = report.find("harness prerequisites: ");
    return at == std::string::npos ? std::string() : report.substr(at, report.find('\n', at) - at);
  };
  const std::string line = prerequisites(full.out);
  ASSERT_NE(line.find("/6 hold"), std::string::npos) << full.out;
  const int claims = 6;
  EXPECT_EQ(full.out.find("logical run"), std::string::npos);  // not sharded

  const Output md = Run({"report", "--ledger", "m.db", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("one logical run of shards 0, 1 of 2 (runs 1, 2)"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("Warning"), std::string::npos) << md.out;
  // Both shards' claims (which of them hold may differ: H4 and H5 read a clock).
  EXPECT_NE(prerequisites(md.out).find("/6 hold"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("## Claims at a glance"), std::string::npos);
  EXPECT_NE(md.out.find("### Prerequisites"), std::string::npos);  // the harness's claims are all prerequisites

  std::ofstream(dir_ / "fake_chart.js") << "window.Chart = function () {};\n";
  const Output html = Run({"report", "--ledger", "m.db", "--html", "r.html", "--chartjs", "fake_chart.js"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = ReadFile(dir_ / "r.html");
  const int bars = CountOf(page, "class=\"cb-bar\"");
  const int unmeasured = CountOf(page, "</span>, no measured value");
  EXPECT_GE(bars, 3);
  EXPECT_EQ(bars + unmeasured, claims);  // every claim in the forest plot, measured ones as bars
  EXPECT_NE(page.find("data-forest-bars=\"" + std::to_string(bars) + "\""), std::string::npos);
  EXPECT_NE(page.find("data-shards=\"2\" data-shard-count=\"2\""), std::string::npos);
  EXPECT_NE(page.find("<h2>Prerequisites</h2>"), std::string::npos);
  EXPECT_EQ(page.find("cb-missing-shards"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos);  // self-contained

  // One shard alone: its claims only, and the missing one named.
  const Output one = Run({"report", "--ledger", "s0.db", "--format", "md"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("shard 1 of 2 is missing"), std::string::npos) << one.out;
  EXPECT_EQ(prerequisites(one.out).find("/6 hold"), std::string::npos) << one.out;
  ASSERT_EQ(Run({"report", "--ledger", "s0.db", "--html", "one.html", "--chartjs", "fake_chart.js"}).exit_code, 0);
  EXPECT_NE(ReadFile(dir_ / "one.html").find("id=\"cb-missing-shards\""), std::string::npos);

  // --paper: that paper's page alone (by suite name, any case); an unknown one is refused.
  const Output paper = Run({"report", "--ledger", "m.db", "--html", "p.html", "--chartjs", "fake_chart.js",
                            "--paper", "HARNESS"});
  ASSERT_EQ(paper.exit_code, 0) << paper.err;
  const std::string ppage = ReadFile(dir_ / "p.html");
  EXPECT_EQ(CountOf(ppage, "class=\"cb-bar\""), bars);
  EXPECT_NE(ppage.find("harness prerequisites: "), std::string::npos);
  EXPECT_EQ(ppage.find("<h2>Provenance</h2>"), std::string::npos);
  const Output bad = Run({"report", "--ledger", "m.db", "--format", "md", "--paper", "nope"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("--paper 'nope'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("claimbench harness"), std::string::npos) << bad.err;
}

}  // namespace

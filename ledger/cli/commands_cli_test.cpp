// File: ledger/cli/commands_cli_test.cpp
// End-to-end tests of the `claimbench` binary: help of every command, bad
// arguments (exit 3, one line, nothing written), `run --json`, the ledger
// commands (with the chain-head anchor: `ledger head`, `verify
// --expect-head`), and SIGINT sealing a run as interrupted.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/count.h"
#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;
using cb::testing::CountOf;

// The binary under test: $CB_CLAIMBENCH (a relocated bundle) or the build's.
class CliTest : public ClaimbenchTest {
 protected:
};

int Lines(const std::string& s) {
  int n = 0;
  for (const char c : s) n += c == '\n';
  return n;
}

TEST_F(CliTest, HelpOfEveryCommand) {
  const std::vector<std::vector<std::string>> commands = {
      {}, {"list"}, {"run"}, {"bench"}, {"ledger"}, {"ledger", "verify"}, {"ledger", "log"},
      {"ledger", "show"}, {"ledger", "export"}, {"ledger", "import"}, {"ledger", "merge"},
      {"ledger", "head"}, {"reproduce"}};
  for (auto args : commands) {
    args.push_back("--help");
    const Output o = Run(args);
    SCOPED_TRACE(args.size() > 1 ? args[args.size() - 2] : "claimbench");
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("Usage"), std::string::npos) << o.out;
  }
}

// The names of the files in the test's directory.
std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(CliTest, BadArgumentsGiveExit3AndOneLineAndWriteNothing) {
  std::ofstream(Path("bad.jsonl")) << "{\"not\": \"an export\"}\n";
  std::ofstream(Path("junk.db")) << "not a database\n";
  std::ofstream(Path("empty.jsonl")) << "\n \n";
  Run({"--version"});  // creates stdout/stderr, so the listing below is stable
  const std::vector<std::string> before = FilesIn(dir_);
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"frobnicate"},
      {"run", "--profile", "fast"},
      {"run", "--backend", "tpu"},
      {"run", "--seed", "abc"},
      {"run", "--claim", "("},
      {"run", "--claim", "no.such.claim"},
      {"bench", "--filter", "("},
      {"bench", "--repetitions", "0"},
      {"ledger", "verify", "--ledger", "missing.db"},
      {"ledger", "show", "--ledger", "missing.db"},
      {"ledger", "import", "missing.jsonl"},
      {"ledger", "log", "--limit", "0"},
      {"run", "--seed", "-1"},
      {"run", "--seed", "99999999999999999999999"},
      {"bench", "--filter", "no/such/benchmark"},
      {"bench", "--list", "--filter", "no/such/benchmark"},
      {"ledger", "import", "bad.jsonl", "--ledger", "new1.db"},
      {"ledger", "import", ".", "--ledger", "new2.db"},
      {"ledger", "import", "empty.jsonl", "--ledger", "new4.db"},
      {"ledger", "merge", "junk.db", "--ledger", "new3.db"},
      {"ledger", "export", "--ledger", "junk.db", "--out", "x.jsonl"},
      {"ledger", "head", "--ledger", "missing.db"},
      {"ledger", "verify", "--ledger", "junk.db", "--expect-head", "xyz"},
      {"ledger", "verify", "--expect-head", "0123456789abcdef0123456789abcdeg"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3);
    EXPECT_EQ(Lines(o.err), 1) << o.err;
    EXPECT_EQ(o.err.rfind("claimbench: error: ", 0), 0u) << o.err;
  }
  // None of those wrote a file.
  EXPECT_EQ(FilesIn(dir_), before);
}

TEST_F(CliTest, UnknownCommandsAreNamed) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"frobnicate"},
                                              std::vector<std::string>{"ledger", "frob"}}) {
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3);
    EXPECT_NE(o.err.find("unknown command '" + args.back() + "'"), std::string::npos) << o.err;
  }
}

TEST_F(CliTest, EveryClaimRunsAtTheSmokeProfile) {
  const Output o = Run({"run", "--profile", "smoke", "--backend", "cpu", "--json", "--ledger", "s.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j.at("status"), "complete");
  std::set<std::string> papers;
  for (const auto& c : j.at("claims")) {
    EXPECT_NE(c.at("reason").get<std::string>().rfind("error:", 0), 0u) << c.dump();
    // Built-in substrates only here: every verdict is at mechanism scale,
    // with no user input, and names its kind and pre-registered criterion.
    EXPECT_EQ(c.at("scale"), "mechanism") << c.dump();
    EXPECT_TRUE(c.at("inputs").empty()) << c.dump();
    EXPECT_EQ(c.at("criterion_hash").get<std::string>().size(), 32u) << c.dump();
    const std::string kind = c.at("kind");
    EXPECT_TRUE(kind == "paper" || kind == "prerequisite") << c.dump();
    if (kind == "paper") papers.insert(c.at("paper").get<std::string>());
  }
  // Every deterministic row carries its input and output hashes, so the gate
  // can tell "same input, other output" in every suite.
  ASSERT_EQ(Run({"ledger", "export", "--ledger", "s.db", "--out", "s.jsonl"}).exit_code, 0);
  int deterministic = 0;
  std::ifstream exported(Path("s.jsonl"));
  for (std::string line; std::getline(exported, line);) {
    if (line.empty()) continue;
    const auto run = nlohmann::json::parse(line);
    if (!run.contains("results")) continue;
    for (const auto& r : run.at("results")) {
      if (r.at("kind") == "timing") continue;
      ++deterministic;
      EXPECT_EQ(r.at("input_hash").get<std::string>().empty(), false) << r.dump();
      EXPECT_EQ(r.at("output_hash").get<std::string>().empty(), false) << r.dump();
    }
  }
  EXPECT_GT(deterministic, 100);
  // The report of the whole profile (issue 29): every claim in a forest plot
  // (a bar when it has a measured value, listed otherwise) and a section per
  // paper.
  std::ofstream(Path("fake_chart.js")) << "window.Chart = function () {};\n";
  ASSERT_EQ(Run({"report", "--ledger", "s.db", "--html", "r.html", "--chartjs", "fake_chart.js"}).exit_code, 0);
  const std::string page = ReadFile(Path("r.html"));
  EXPECT_EQ(CountOf(page, "class=\"cb-bar\"") + CountOf(page, "</span>, no measured value"),
            static_cast<int>(j.at("claims").size()));
  EXPECT_EQ(CountOf(page, "<h3 id=\"paper-"), static_cast<int>(papers.size()));
}

// The registry-wide falsifiability check: every registered claim's
// criterion has a synthetic measurement that reproduces it and one that
// fails it (INCONCLUSIVE where an interval can straddle), and none whose
// failure is softened. Registration refuses a constant criterion outright
// (harness claim_test's planted one), so this reads what `list` derives from
// each criterion.
TEST_F(CliTest, EveryRegisteredCriterionCanPassAndFail) {
  const Output o = Run({"list", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto claims = nlohmann::json::parse(o.out).at("claims");
  int paper = 0, prerequisite = 0, can_straddle = 0;
  for (const auto& c : claims) {
    SCOPED_TRACE(c.at("id").get<std::string>());
    EXPECT_TRUE(c.at("criterion_can_fail").get<bool>());
    const auto& outcomes = c.at("criterion_outcomes");
    EXPECT_NE(std::find(outcomes.begin(), outcomes.end(), "REPRODUCED"), outcomes.end()) << c.dump();
    EXPECT_NE(std::find(outcomes.begin(), outcomes.end(), "NOT_REPRODUCED"), outcomes.end()) << c.dump();
    can_straddle += std::find(outcomes.begin(), outcomes.end(), "INCONCLUSIVE") != outcomes.end();
    EXPECT_EQ(c.at("criterion_hash").get<std::string>().size(), 32u);
    const std::string kind = c.at("kind");
    paper += kind == "paper";
    prerequisite += kind == "prerequisite";
    EXPECT_TRUE(kind == "paper" || kind == "prerequisite");
    // A check of another claim carries that claim's kind and statement.
    if (const std::string of = c.at("check_of"); !of.empty()) {
      const auto checked = std::find_if(claims.begin(), claims.end(), [&](const auto& x) { return x.at("id") == of; });
      ASSERT_NE(checked, claims.end());
      EXPECT_EQ(c.at("kind"), checked->at("kind"));
      EXPECT_EQ(c.at("statement"), checked->at("statement"));
    }
  }
  EXPECT_EQ(paper + prerequisite, static_cast<int>(claims.size()));
  EXPECT_GT(prerequisite, 20);  // the self-checks are no longer counted as papers' claims
  EXPECT_GT(paper, 80);
  EXPECT_GT(can_straddle, paper / 2);
}

TEST_F(CliTest, NonSqliteLedgerIsAOneLineError) {
  std::ofstream(Path("junk.db")) << "this is not a database, just text\n";
  const Output o = Run({"ledger", "verify", "--ledger", "junk.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(Lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("junk.db"), std::string::npos) << o.err;
  EXPECT_EQ(ReadFile(Path("junk.db")), "this is not a database, just text\n");
}

TEST_F(CliTest, RunJsonParsesAndTheRunVerifies) {
  const Output o = Run({"run", "--suite", "harness", "--claim", "harness.H[123]", "--profile",
                        "smoke", "--json", "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);  // throws (and fails) if not JSON
  EXPECT_EQ(j.at("status"), "complete");
  EXPECT_EQ(j.at("run_hash").get<std::string>().size(), 32u);
  ASSERT_EQ(j.at("claims").size(), 3u);
  for (const auto& c : j.at("claims")) EXPECT_EQ(c.at("verdict"), "REPRODUCED") << c.dump();

  const Output verify = Run({"ledger", "verify", "--ledger", "l.db", "--json"});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_TRUE(nlohmann::json::parse(verify.out).at("ok").get<bool>());

  const Output log = Run({"ledger", "log", "--ledger", "l.db", "--json"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  const auto runs = nlohmann::json::parse(log.out);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("status"), "complete");
  EXPECT_EQ(runs[0].at("claims"), 3);

  const Output show = Run({"ledger", "show", "latest", "--ledger", "l.db", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(nlohmann::json::parse(show.out).at("claim_rows").size(), 3u);
}

TEST_F(CliTest, ExportImportMergeRoundTrip) {
  ASSERT_EQ(Run({"run", "--claim", "harness.H1", "--profile", "smoke", "--ledger", "a.db"}).exit_code, 0);
  ASSERT_EQ(Run({"ledger", "export", "--ledger", "a.db", "--out", "a.jsonl"}).exit_code, 0);
  const Output first = Run({"ledger", "import", "a.jsonl", "--ledger", "b.db"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("imported 1 runs"), std::string::npos) << first.out;
  const Output again = Run({"ledger", "merge", "a.db", "--ledger", "b.db"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("merged 0 runs, skipped 1"), std::string::npos) << again.out;
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "b.db"}).exit_code, 0);
}

TEST_F(CliTest, HeadAnchorsTheChain) {
  {
    cb::ledger::Ledger ledger = cb::ledger::Ledger::Open(Path("l.db"));
    for (int k = 0; k < 3; ++k) cb::ledger::testutil::AddSealedRun(ledger, 2, 1, 2 * k);
  }
  const Output head = Run({"ledger", "head", "--ledger", "l.db"});
  ASSERT_EQ(head.exit_code, 0) << head.err;
  ASSERT_EQ(head.out.size(), 33u) << head.out;  // 32 hex digits and a newline
  const std::string hex = head.out.substr(0, 32);
  const Output json = Run({"ledger", "head", "--ledger", "l.db", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("chain_head"), hex);
  EXPECT_EQ(j.at("run"), 3);
  EXPECT_EQ(j.at("chain_seq"), 3);
  const std::string older =
      cb::ledger::Ledger::OpenReadOnly(Path("l.db")).GetRun(2).chain_hash;

  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "l.db", "--expect-head", hex}).exit_code, 0);
  // The newest run deleted: the rest is a whole chain, and only the anchor
  // shows what is gone.
  ASSERT_EQ(cb::ledger::testutil::ExecSql(Path("l.db"),
                                          "DELETE FROM results WHERE run_id = 3; "
                                          "DELETE FROM claims WHERE run_id = 3; "
                                          "DELETE FROM runs WHERE id = 3"),
            "");
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "l.db"}).exit_code, 0);
  const Output cut = Run({"ledger", "verify", "--ledger", "l.db", "--expect-head", hex});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_EQ(Lines(cut.err), 1) << cut.err;
  EXPECT_NE(cut.err.find("does not verify: expected chain head " + hex + " is not in the chain"),
            std::string::npos)
      << cut.err;
  const Output cut_json =
      Run({"ledger", "verify", "--ledger", "l.db", "--expect-head", hex, "--json"});
  EXPECT_EQ(cut_json.exit_code, 1);
  EXPECT_FALSE(nlohmann::json::parse(cut_json.out).at("ok").get<bool>());
  // An older anchor, with runs sealed after it, still verifies.
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "l.db", "--expect-head", older}).exit_code, 0);
}

TEST_F(CliTest, BenchRecordsEveryBenchmarkWithCeilingFractions) {
  const Output o = Run({"bench", "--filter", "harness/linear_loop", "--repetitions", "2",
                        "--min-time", "0.01", "--ledger", "b.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const Output show = Run({"ledger", "show", "latest", "--ledger", "b.db", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto run = nlohmann::json::parse(show.out);
  EXPECT_EQ(run.at("status"), "complete");
  EXPECT_EQ(run.at("profile"), "bench");
  EXPECT_FALSE(run.at("ceilings").empty());
  int times = 0, fractions = 0;
  for (const auto& r : run.at("result_rows")) {
    EXPECT_EQ(r.at("suite"), "harness");
    if (r.at("metric") == "real_time") {
      ++times;
      EXPECT_EQ(r.at("n"), 2);  // one raw sample per repetition
      EXPECT_GT(r.at("value").get<double>(), 0);
    }
    // One-thread, access undeclared: the one-thread memcpy ceiling (issue 32).
    fractions += r.at("metric") == "bytes_per_second_fraction_of_cpu_copy_bandwidth_1t";
  }
  // One time row and one fraction row per benchmark that --list names.
  const Output list = Run({"bench", "--filter", "harness/linear_loop", "--list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_GE(Lines(list.out), 2);
  EXPECT_EQ(times, Lines(list.out));
  EXPECT_EQ(fractions, Lines(list.out));
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "b.db"}).exit_code, 0);
}

// Issue 32: a CPU benchmark's fraction rows divide by the ceiling of its
// thread count, which the reporter reads from a "threads:N" name axis; a
// CPU benchmark without one would be divided by the one-thread ceilings.
TEST_F(CliTest, EveryCpuBenchmarkNamesItsThreads) {
  const Output list = Run({"bench", "--list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::istringstream lines(list.out);
  int cpu = 0;
  for (std::string name; std::getline(lines, name);) {
    if (name.find("/cpu/") == std::string::npos) continue;
    ++cpu;
    EXPECT_NE(name.find("/threads:"), std::string::npos) << name;
  }
  EXPECT_GE(cpu, 30);  // the suites' CPU benchmarks are all listed
}

// Sets an environment variable for the claimbench processes a test starts.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST_F(CliTest, RemeasuredCeilingsOnlyRise) {
  const ScopedEnv quiet("CB_CEILING_LOAD", "quiet");  // the rule of quiet measurements
  const std::vector<std::string> bench = {"bench", "--filter", "harness/linear_loop/n:1024$",
                                          "--repetitions", "1", "--min-time", "0.001",
                                          "--ledger", "c.db"};
  ASSERT_EQ(Run(bench).exit_code, 0);
  std::string platform;
  std::vector<cb::ledger::Ceiling> stored;
  {
    auto ledger = cb::ledger::Ledger::Open(Path("c.db"));
    platform = ledger.GetRun(ledger.ResolveRun("latest")).platform_hash;
    stored = ledger.GetCeilings(platform);
    ASSERT_GE(stored.size(), 2u);
    // As if the first measurement ran on a loaded machine (the first ceiling)
    // or on a far faster one (the second).
    stored[0].value = 1e-9;
    stored[1].value = 1e30;
    ledger.PutCeilings(platform, stored);
  }
  std::vector<std::string> again = bench;
  again.push_back("--remeasure-ceilings");
  const Output o = Run(again);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("claimbench: ceiling " + stored[0].name + ": 1e-09 -> "), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("ceiling " + stored[1].name + ":"), std::string::npos) << o.err;
  auto ledger = cb::ledger::Ledger::Open(Path("c.db"));
  const auto now = ledger.GetCeilings(platform);
  for (const auto& c : now) {
    if (c.name == stored[0].name) { EXPECT_GT(c.value, 1e-9); }
    if (c.name == stored[1].name) { EXPECT_EQ(c.value, 1e30); }
  }
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "c.db"}).exit_code, 0);
}

// A ledger whose ceilings an older build stored, before a ceiling existed
// (cpu_philox4x32_10 came with issue 32), gets the missing ones on its next
// bench and keeps the others.
TEST_F(CliTest, CeilingsAddedByANewerBuildAreMeasuredIntoAnOlderLedger) {
  const ScopedEnv quiet("CB_CEILING_LOAD", "quiet");
  const std::vector<std::string> bench = {"bench", "--filter", "harness/linear_loop/n:1024$",
                                          "--repetitions", "1", "--min-time", "0.001",
                                          "--ledger", "old.db"};
  ASSERT_EQ(Run(bench).exit_code, 0);
  {
    // An unbeatable SGEMM ceiling shows that the stored ones stay.
    auto ledger = cb::ledger::Ledger::Open(Path("old.db"));
    const std::string platform = ledger.GetRun(ledger.ResolveRun("latest")).platform_hash;
    auto stored = ledger.GetCeilings(platform);
    for (auto& c : stored) {
      if (c.name == "cpu_sgemm") c.value = 1e30;
    }
    ledger.PutCeilings(platform, stored);
  }
  ASSERT_EQ(cb::ledger::testutil::ExecSql(Path("old.db"),
                                          "DELETE FROM ceilings WHERE name LIKE 'cpu_philox4x32_10%';"),
            "");
  const Output o = Run(bench);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto ledger = cb::ledger::Ledger::Open(Path("old.db"));
  const auto now = ledger.GetCeilings(ledger.GetRun(ledger.ResolveRun("latest")).platform_hash);
  std::set<std::string> names;
  for (const auto& c : now) {
    names.insert(c.name);
    if (c.name == "cpu_sgemm") {
      EXPECT_EQ(c.value, 1e30) << "a stored ceiling that was not beaten stays";
    }
  }
  EXPECT_TRUE(names.count("cpu_philox4x32_10")) << o.err;
  EXPECT_TRUE(names.count("cpu_philox4x32_10_1t")) << o.err;
}

// Issue 30 item 7: ceilings measured beside other work are provisional, and
// measured again (under the machine-wide lock) until a quiet run replaces
// them, even with lower values; quiet ceilings are then kept.
TEST_F(CliTest, CeilingsFromABusyMachineAreProvisionalUntilAQuietRun) {
  const std::vector<std::string> run = {"run", "--claim", "harness.H1", "--profile", "smoke", "--ledger", "p.db"};
  auto ceilings = [&] {
    auto ledger = cb::ledger::Ledger::OpenReadOnly(Path("p.db"));
    return ledger.GetCeilings(ledger.GetRun(ledger.ResolveRun("latest")).platform_hash);
  };
  {
    const ScopedEnv busy("CB_CEILING_LOAD", "busy");
    const Output o = Run(run);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.err.find("stored as provisional, measured again by the next run on a quiet machine"),
              std::string::npos) << o.err;
  }
  const auto first = ceilings();
  ASSERT_GE(first.size(), 2u);
  for (const auto& c : first) {
    EXPECT_TRUE(c.detail.at("provisional").get<bool>()) << c.name;
    EXPECT_EQ(c.detail.at("load").at("override"), "CB_CEILING_LOAD=busy");
    EXPECT_EQ(c.detail.at("machine_lock"), "held");
  }
  {
    const ScopedEnv quiet("CB_CEILING_LOAD", "quiet");
    const Output o = Run(run);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.err.find("provisional"), std::string::npos) << o.err;
  }
  const auto second = ceilings();
  ASSERT_EQ(second.size(), first.size());
  for (const auto& c : second) EXPECT_FALSE(c.detail.at("provisional").get<bool>()) << c.name;
  {
    const ScopedEnv busy("CB_CEILING_LOAD", "busy");
    const Output o = Run(run);  // quiet ceilings stored: nothing is measured
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.err.find("provisional"), std::string::npos) << o.err;
  }
  const auto third = ceilings();
  ASSERT_EQ(third.size(), second.size());
  for (size_t i = 0; i < third.size(); ++i) EXPECT_EQ(third[i].measured_at, second[i].measured_at) << third[i].name;
  const ScopedEnv bad("CB_CEILING_LOAD", "maybe");
  const Output o = Run({"run", "--claim", "harness.H1", "--profile", "smoke", "--ledger", "fresh.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("CB_CEILING_LOAD='maybe'"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "fresh.db"));
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "p.db"}).exit_code, 0);
}

TEST_F(CliTest, UnavailableBackendChangesNothing) {
  const Output o = Run({"run", "--backend", "cuda", "--claim", "harness.H1", "--profile", "smoke",
                        "--ledger", "x.db"});
  if (o.exit_code == 0) GTEST_SKIP() << "a CUDA device is available here";
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(Lines(o.err), 1) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.db"));
}

TEST_F(CliTest, GpuClaimIsUnmeasurableWithoutTheCudaBackend) {
  // With --backend cpu the GPU claim cannot run, on any machine; --strict
  // fails only NOT_REPRODUCED (1) and INCONCLUSIVE (2), not UNMEASURABLE.
  const Output o = Run({"run", "--claim", "harness.H6", "--backend", "cpu", "--profile", "smoke",
                        "--json", "--strict", "--ledger", "g.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto claims = nlohmann::json::parse(o.out).at("claims");
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].at("verdict"), "UNMEASURABLE");
  EXPECT_EQ(claims[0].at("reason").get<std::string>().rfind("no GPU: ", 0), 0u) << claims[0].dump();
}

TEST_F(CliTest, SigintSealsTheRunAsInterrupted) {
  // The full-profile wall-time claim runs for many seconds; interrupt it early.
  const pid_t pid = Spawn({"run", "--claim", "harness.H5", "--profile", "full", "--ledger", "i.db"});
  // Wait until the run row exists (after the ceilings are measured), then interrupt.
  auto run_started = [&] {
    const Output log = Run({"ledger", "log", "--ledger", "i.db", "--json"});
    return log.exit_code == 0 && nlohmann::json::parse(log.out).size() == 1;
  };
  bool started = false;
  for (int i = 0; i < 400 && !(started = run_started()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!started) kill(pid, SIGKILL);
  ASSERT_TRUE(started) << "the run did not start within 20 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);

  const Output log = Run({"ledger", "log", "--ledger", "i.db", "--json"});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  const auto runs = nlohmann::json::parse(log.out);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("status"), "interrupted");
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "i.db"}).exit_code, 0);
}

// PF suite (suites/pf/pf_command.cpp): watermarked texts are detected with
// their key and not with another; bad input is a one-line error, exit 3.
TEST_F(CliTest, PfGenTextAndDetect) {
  Output g = Run({"gen", "text", "--decoder", "pf", "--watermark", "pf", "--key", "42", "--count",
                  "4", "--length", "80", "--out", "pf.jsonl"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  Output d = Run({"detect", "--watermark", "pf", "--key", "42", "--in", "pf.jsonl", "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const auto rows = nlohmann::json::parse(d.out);
  ASSERT_EQ(rows.size(), 4u);
  int flagged = 0;
  for (const auto& r : rows) flagged += r.at("p_value").get<double>() < 0.01;
  EXPECT_GE(flagged, 3);
  Output other = Run({"detect", "--watermark", "pf", "--key", "0x2b1", "--in", "pf.jsonl", "--json"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  int other_flagged = 0;
  for (const auto& r : nlohmann::json::parse(other.out)) other_flagged += r.at("p_value").get<double>() < 0.01;
  EXPECT_LE(other_flagged, 1);
  EXPECT_EQ(Run({"detect", "--key", "4x2", "--in", "pf.jsonl"}).exit_code, 3);
  EXPECT_EQ(Run({"detect", "--key", "-1", "--in", "pf.jsonl"}).exit_code, 3);
  {
    std::ofstream empty(dir_ / "empty.jsonl");
    empty << "{\"tokens\": []}\n";
  }
  Output e = Run({"detect", "--in", "empty.jsonl"});
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_NE(e.err.find("non-empty"), std::string::npos) << e.err;
  EXPECT_EQ(Run({"gen", "text", "--temperature", "0", "--out", "x.jsonl"}).exit_code, 3);
  EXPECT_EQ(Run({"gen", "text", "--watermark", "gumbel", "--decoder", "pf", "--out", "x.jsonl"}).exit_code, 3);
  EXPECT_FALSE(fs::exists(dir_ / "x.jsonl"));
}

}  // namespace

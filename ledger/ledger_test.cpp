// File: ledger/ledger_test.cpp
// -----------------------------------------------------------------------------
// The writing and reading API: rows come back as written, seqs and seals
// behave, explicit transactions are joined and can be rolled back, sealed
// runs refuse rows, Log/ResolveRun find runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::AddSealedRun;
using testutil::OneLine;
using testutil::SampleClaim;
using testutil::SampleMeta;
using testutil::SampleResult;
using testutil::TempDir;

void ExpectSameResult(const Result& a, const Result& b) {
  EXPECT_EQ(a.suite, b.suite);
  EXPECT_EQ(a.case_name, b.case_name);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.direction, b.direction);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.input_hash, b.input_hash);
  EXPECT_EQ(a.output_hash, b.output_hash);
  EXPECT_EQ(a.energy_j, b.energy_j);
  EXPECT_EQ(a.energy_source, b.energy_source);
  EXPECT_EQ(a.energy_window_s, b.energy_window_s);
  EXPECT_EQ(a.threads, b.threads);
}

TEST(LedgerTest, RowsComeBackAsWritten) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run = ledger.BeginRun(SampleMeta());
  std::vector<Result> rows;
  for (int i = 0; i < 6; ++i) rows.push_back(SampleResult(i));
  rows[1].ci_low.reset();
  rows[2].samples.clear();
  ledger.AddResults(run, rows);
  ledger.AddClaim(run, SampleClaim(1));
  ClaimRow unmeasurable = SampleClaim(2);
  unmeasurable.verdict = "UNMEASURABLE";
  unmeasurable.value.reset();
  unmeasurable.reason = "no GPU";
  ledger.AddClaim(run, unmeasurable);
  ledger.FinishRun(run, RunStatus::kComplete);

  const auto got = ledger.GetResults(run);
  ASSERT_EQ(got.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) ExpectSameResult(got[i], rows[i]);
  const auto claims = ledger.GetClaims(run);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].claim_id, "harness.H1");
  EXPECT_EQ(claims[0].value, 1.01);
  EXPECT_EQ(claims[0].requirements, SampleClaim(1).requirements);
  EXPECT_EQ(claims[1].verdict, "UNMEASURABLE");
  EXPECT_FALSE(claims[1].value.has_value());
  EXPECT_EQ(claims[1].reason, "no GPU");

  const RunSummary s = ledger.GetRun(run);
  EXPECT_EQ(s.status, "complete");
  EXPECT_EQ(s.results, 6);
  EXPECT_EQ(s.claims, 2);
  EXPECT_EQ(s.run_hash.size(), 32u);
  EXPECT_EQ(s.chain_hash.size(), 32u);
  EXPECT_EQ(s.run_uuid.size(), 36u);
  EXPECT_EQ(s.started_at.size(), 24u);
  EXPECT_EQ(s.finished_at.size(), 24u);
  EXPECT_LE(s.started_at, s.finished_at);
  EXPECT_EQ(s.command, SampleMeta().command);
  EXPECT_EQ(s.pid, static_cast<int64_t>(getpid()));
  EXPECT_FALSE(s.host.empty());
}

TEST(LedgerTest, NanValueIsStoredAsNullAndReadBackAsNan) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run = ledger.BeginRun(SampleMeta());
  Result r = SampleResult(1);
  r.value = std::numeric_limits<double>::quiet_NaN();
  r.ci_high = std::numeric_limits<double>::quiet_NaN();
  ledger.AddResult(run, r);
  ledger.FinishRun(run, RunStatus::kFailed);
  const auto got = ledger.GetResults(run);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(std::isnan(got[0].value));
  EXPECT_FALSE(got[0].ci_high.has_value());
  EXPECT_TRUE(ledger.Verify().ok);
}

TEST(LedgerTest, SealedRunsRefuseRowsAndSecondSeal) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t run = AddSealedRun(ledger, 2);
  try {
    ledger.AddResult(run, SampleResult(9));
    FAIL() << "a row was added to a sealed run";
  } catch (const LedgerError& e) {
    EXPECT_NE(std::string(e.what()).find("is sealed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ledger.AddClaim(run, SampleClaim(9)), LedgerError);
  EXPECT_THROW(ledger.FinishRun(run, RunStatus::kFailed), LedgerError);
  EXPECT_THROW(ledger.AddResult(12345, SampleResult(1)), LedgerError);
  const int64_t open_run = ledger.BeginRun(SampleMeta());
  EXPECT_THROW(ledger.FinishRun(open_run, RunStatus::kRunning), LedgerError);
  EXPECT_EQ(ledger.GetRun(run).results, 2);
  EXPECT_TRUE(ledger.Verify().ok);
}

TEST(LedgerTest, ExplicitTransactionIsJoinedAndCanBeRolledBack) {
  TempDir dir;
  const std::string path = dir.File("l.db");
  Ledger ledger = Ledger::Open(path);
  const int64_t run = ledger.BeginRun(SampleMeta());
  ledger.AddResult(run, SampleResult(0));  // seq 1, committed alone

  ledger.BeginTransaction();
  for (int i = 1; i <= 5; ++i) ledger.AddResult(run, SampleResult(i));
  // Another connection cannot see the open transaction's rows.
  EXPECT_EQ(Ledger::OpenReadOnly(path).GetRun(run).results, 1);
  ledger.Rollback();
  EXPECT_EQ(ledger.GetRun(run).results, 1);

  ledger.BeginTransaction();
  EXPECT_THROW(ledger.BeginTransaction(), LedgerError);
  for (int i = 1; i <= 5; ++i) ledger.AddResult(run, SampleResult(i));
  ledger.Commit();
  EXPECT_THROW(ledger.Commit(), LedgerError);
  EXPECT_EQ(Ledger::OpenReadOnly(path).GetRun(run).results, 6);

  ledger.FinishRun(run, RunStatus::kComplete);
  // Seqs were reused after the rollback, so the rows are 1..6 without gaps:
  // the values show the order they were added in.
  const auto rows = ledger.GetResults(run);
  ASSERT_EQ(rows.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rows[i].value, SampleResult(i).value);
  EXPECT_TRUE(ledger.Verify().ok);
}

TEST(LedgerTest, FailedAddResultsLeavesNoRowsEvenInsideACallersTransaction) {
  // The middle row's params are not valid UTF-8, so it cannot be hashed. The
  // call must fail with one line naming the file and leave none of its rows,
  // whether it owns its transaction or joins the caller's (which the caller
  // may then commit for the sake of its other writes).
  TempDir dir;
  const std::string path = dir.File("l.db");
  Ledger ledger = Ledger::Open(path);
  const int64_t run = ledger.BeginRun(SampleMeta());
  std::vector<Result> batch = {SampleResult(1), SampleResult(2), SampleResult(3)};
  batch[1].params["name"] = std::string("\xff\xfe");
  try {
    ledger.AddResults(run, batch);
    FAIL() << "a row with invalid UTF-8 params was accepted";
  } catch (const LedgerError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(OneLine(what)) << what;
    EXPECT_EQ(what.rfind("ledger '" + path + "': result harness/case_2 params: ", 0), 0u) << what;
  }
  EXPECT_EQ(ledger.GetRun(run).results, 0);

  ledger.BeginTransaction();
  ledger.AddResult(run, SampleResult(0));
  EXPECT_THROW(ledger.AddResults(run, batch), LedgerError);
  ledger.Commit();
  const auto rows = ledger.GetResults(run);
  ASSERT_EQ(rows.size(), 1u) << "the failed call left rows in the caller's transaction";
  EXPECT_EQ(rows[0].value, SampleResult(0).value);
  ledger.AddResult(run, SampleResult(4));
  ledger.FinishRun(run, RunStatus::kComplete);
  EXPECT_EQ(ledger.GetResults(run).back().value, SampleResult(4).value);
  const VerifyReport v = ledger.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
}

TEST(LedgerTest, TwoConnectionsAppendingToOneRunKeepOrder) {
  // A run continued by a new Ledger (e.g. after reopening) picks up its seq.
  TempDir dir;
  const std::string path = dir.File("l.db");
  int64_t run = 0;
  {
    Ledger ledger = Ledger::Open(path);
    run = ledger.BeginRun(SampleMeta());
    ledger.AddResult(run, SampleResult(0));
  }
  Ledger again = Ledger::Open(path);
  again.AddResult(run, SampleResult(1));
  again.FinishRun(run, RunStatus::kComplete);
  const auto rows = again.GetResults(run);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].value, SampleResult(1).value);
  EXPECT_TRUE(again.Verify().ok);
}

TEST(LedgerTest, LogIsNewestFirstAndResolveRunFindsRuns) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t a = AddSealedRun(ledger, 1);
  const int64_t b = AddSealedRun(ledger, 1);
  const int64_t c = ledger.BeginRun(SampleMeta("running now"));
  const auto log = ledger.Log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].id, c);
  EXPECT_EQ(log[1].id, b);
  EXPECT_EQ(log[2].id, a);
  EXPECT_EQ(log[0].status, "running");
  EXPECT_TRUE(log[0].writer_alive) << "this process is the writer";
  EXPECT_TRUE(log[0].run_hash.empty());
  EXPECT_EQ(ledger.Log(1).size(), 1u);

  EXPECT_EQ(ledger.ResolveRun("latest"), c);
  EXPECT_EQ(ledger.ResolveRun(std::to_string(b)), b);
  const RunSummary sb = ledger.GetRun(b);
  EXPECT_EQ(ledger.ResolveRun(sb.run_hash.substr(0, 8)), b);
  EXPECT_EQ(ledger.ResolveRun(sb.run_uuid.substr(0, 13)), b);
  std::string upper = sb.run_hash.substr(0, 10);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(ledger.ResolveRun(upper), b);
  for (const std::string bad : {"99", "abc", "zzzzzzzz", "ffffffffffffffff"}) {
    try {
      ledger.ResolveRun(bad);
      ADD_FAILURE() << "resolved '" << bad << "'";
    } catch (const LedgerError& e) {
      EXPECT_TRUE(OneLine(e.what()));
    }
  }
}

TEST(LedgerTest, CanonicalParamsMeanInsertionOrderDoesNotMatter) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t r1 = ledger.BeginRun(SampleMeta());
  const int64_t r2 = ledger.BeginRun(SampleMeta());
  Result x = SampleResult(0), y = SampleResult(0);
  nlohmann::ordered_json ordered;
  ordered["z"] = 1;
  ordered["a"] = 2;
  x.params = nlohmann::json::parse(ordered.dump());
  y.params = {{"a", 2}, {"z", 1}};
  ledger.AddResult(r1, x);
  ledger.AddResult(r2, y);
  EXPECT_EQ(ledger.GetResults(r1)[0].params.dump(), R"({"a":2,"z":1})");
  EXPECT_EQ(ledger.GetResults(r1)[0].params, ledger.GetResults(r2)[0].params);
}

}  // namespace
}  // namespace cb::ledger

// File: ledger/resume_test.cpp
// claims.own_results (schema 6, claim/4) as AddClaim stores it, and
// PlanResume splitting an unfinished run's rows by claim.
#include "ledger/resume.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::SampleClaim;
using testutil::SampleMeta;
using testutil::SampleResult;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const LedgerError& e) {
    return e.what();
  }
  return "";
}

// A run cut off inside its third claim: claims 1 and 2 recorded with 2 and 0
// results of their own, claim 3 had recorded 3 rows when the writer died.
int64_t CutOffRun(Ledger& ledger) {
  const int64_t id = ledger.BeginRun(SampleMeta());
  ledger.AddResult(id, SampleResult(0));
  ledger.AddResult(id, SampleResult(1));
  ledger.AddClaim(id, SampleClaim(0));
  ledger.AddClaim(id, SampleClaim(1));  // e.g. UNMEASURABLE: no results
  for (int i = 2; i < 5; ++i) ledger.AddResult(id, SampleResult(i));
  return id;
}

TEST(ResultsRecorded, AddClaimStoresTheClaimsOwnResultCountWhateverTheCallerSaid) {
  testutil::TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t id = CutOffRun(ledger);
  ClaimRow lying = SampleClaim(2);
  lying.own_results = 99;
  ledger.AddClaim(id, lying);
  const auto claims = ledger.GetClaims(id);
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0].own_results, std::optional<int64_t>(2));
  EXPECT_EQ(claims[1].own_results, std::optional<int64_t>(0));
  EXPECT_EQ(claims[2].own_results, std::optional<int64_t>(3));
  ledger.FinishRun(id, RunStatus::kComplete);
  EXPECT_TRUE(ledger.Verify().ok);
}

TEST(ResultsRecorded, IsHashedAnEditIsCaughtByVerify) {
  testutil::TempDir dir;
  {
    Ledger ledger = Ledger::Open(dir.File("l.db"));
    const int64_t id = CutOffRun(ledger);
    ledger.FinishRun(id, RunStatus::kInterrupted);
    ASSERT_TRUE(ledger.Verify().ok);
  }
  ASSERT_EQ(testutil::ExecSql(dir.File("l.db"), "UPDATE claims SET own_results = 3 WHERE id = 1"), "");
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  EXPECT_EQ(ledger.Verify().first_error, "claims row 1 (run 1): content_hash mismatch");
  ASSERT_EQ(testutil::ExecSql(dir.File("l.db"), "UPDATE claims SET own_results = NULL WHERE id = 1"), "");
  EXPECT_EQ(ledger.Verify().first_error,
            "claims row 1 (run 1): own_results missing on a hash_version 5 claim");
}

TEST(PlanResume, KeepsEachRecordedClaimWithItsOwnResultsAndDropsTheCutOffClaimsRows) {
  testutil::TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t id = CutOffRun(ledger);
  const ResumePlan plan = PlanResume("run 1", ledger.GetResults(id), ledger.GetClaims(id));
  ASSERT_EQ(plan.kept.size(), 2u);
  EXPECT_EQ(plan.kept[0].claim.claim_id, "harness.H0");
  ASSERT_EQ(plan.kept[0].results.size(), 2u);
  EXPECT_EQ(plan.kept[0].results[0].case_name, SampleResult(0).case_name);
  EXPECT_EQ(plan.kept[0].results[1].value, SampleResult(1).value);
  EXPECT_EQ(plan.kept[1].claim.claim_id, "harness.H1");
  EXPECT_TRUE(plan.kept[1].results.empty());
  EXPECT_EQ(plan.results_kept, 2);
  EXPECT_EQ(plan.results_dropped, 3);
}

TEST(PlanResume, CopiedRowsHashAsTheOriginals) {
  // What `run --resume` does with the plan: the new run's rows are the old
  // run's, so their content hashes (position-free) are the same.
  testutil::TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("l.db"));
  const int64_t old_id = CutOffRun(ledger);
  ledger.FinishRun(old_id, RunStatus::kInterrupted);
  const ResumePlan plan = PlanResume("run 1", ledger.GetResults(old_id), ledger.GetClaims(old_id));
  const int64_t new_id = ledger.BeginRun(SampleMeta());
  for (const auto& kept : plan.kept) {
    ledger.AddResults(new_id, kept.results);
    ledger.AddClaim(new_id, kept.claim);
  }
  ledger.FinishRun(new_id, RunStatus::kComplete);
  ASSERT_TRUE(ledger.Verify().ok) << ledger.Verify().first_error;
  auto scalar = [&](const std::string& table, int run) {
    return testutil::QueryText(dir.File("l.db"), "SELECT group_concat(content_hash) FROM (SELECT content_hash FROM " +
                                                     table + " WHERE run_id = " + std::to_string(run) +
                                                     " AND seq <= 2 ORDER BY seq)");
  };
  EXPECT_FALSE(scalar("results", 1).empty());
  EXPECT_EQ(scalar("results", 1), scalar("results", 2));
  EXPECT_EQ(scalar("claims", 1), scalar("claims", 2));
}

TEST(PlanResume, RefusesClaimsWithoutOrWithImpossibleCounts) {
  std::vector<Result> results = {SampleResult(0), SampleResult(1)};
  std::vector<ClaimRow> claims = {SampleClaim(0), SampleClaim(1)};
  EXPECT_EQ(ErrorOf([&] { PlanResume("run 7", results, claims); }),
            "run 7: claim 1 (harness.H0) was recorded before ledger schema version 6, which does not "
            "say which results are a claim's: it cannot be resumed");
  claims[0].own_results = 1;
  claims[1].own_results = -1;
  EXPECT_EQ(ErrorOf([&] { PlanResume("run 7", results, claims); }),
            "run 7: claim 2 (harness.H1): own_results -1 is not in [0, 1] (the run's rows after the previous "
            "claims')");
  claims[1].own_results = 2;
  EXPECT_EQ(ErrorOf([&] { PlanResume("run 7", results, claims); }),
            "run 7: claim 2 (harness.H1): own_results 2 is not in [0, 1] (the run's rows after the previous "
            "claims')");
  claims[1].own_results = 1;
  EXPECT_EQ(PlanResume("run 7", results, claims).results_dropped, 0);
}

}  // namespace
}  // namespace cb::ledger

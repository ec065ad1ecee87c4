// File: ledger/verify_test.cpp
// -----------------------------------------------------------------------------
// Verify() on a clean ledger, and after the hand edits it exists to catch:
// each edit is plain SQL on the closed file, as a person with the sqlite3
// shell would make it, and Verify must name the first damaged row or run.
// Also the anchor (Verify with an expected chain head, Head()), the seq
// numbering of sealed runs, and the side tables' row hashes.
#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <string>

#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using testutil::AddSealedRun;
using testutil::ExecSql;
using testutil::TempDir;

class VerifyTest : public ::testing::Test {
 protected:
  // Three sealed runs (ids 1..3) of four results (ids 4k-3 .. 4k) and one
  // claim (id k) each. The ledger is closed again before each test edits it.
  void SetUp() override {
    path_ = dir_.File("ledger.db");
    Ledger ledger = Ledger::Open(path_);
    for (int k = 0; k < 3; ++k) AddSealedRun(ledger, 4, 1, 4 * k);
  }

  VerifyReport VerifyNow() { return Ledger::Open(path_).Verify(); }

  void Edit(const std::string& sql) { ASSERT_EQ(ExecSql(path_, sql), "") << sql; }

  TempDir dir_;
  std::string path_;
};

TEST_F(VerifyTest, CleanLedgerVerifies) {
  Ledger ledger = Ledger::Open(path_);
  const VerifyReport rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.runs, 3);
  EXPECT_EQ(rep.results, 12);
  EXPECT_EQ(rep.claims, 3);
  EXPECT_EQ(rep.unsealed_runs, 0);
  EXPECT_EQ(rep.chain_head, ledger.GetRun(3).chain_hash);
  EXPECT_EQ(rep.first_error, "");
}

TEST_F(VerifyTest, ChangedValueNamesTheRow) {
  // Result row 6 (run 2) holds 1005.0; 1005.0 -> 1013.0 flips one byte of
  // its IEEE-754 encoding (0x408f68.. -> 0x408fa8..).
  Edit("UPDATE results SET value = 1013.0 WHERE id = 6");
  VerifyReport rep = VerifyNow();
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.first_error, "results row 6 (run 2): content_hash mismatch");
  // Putting the value back makes the ledger whole again: the check is about
  // content, not about the file having been touched.
  Edit("UPDATE results SET value = 1005.0 WHERE id = 6");
  rep = VerifyNow();
  EXPECT_TRUE(rep.ok) << rep.first_error;
}

TEST_F(VerifyTest, ChangedTextByteNamesTheClaim) {
  Edit("UPDATE claims SET statement = 'the loop is linEar' WHERE id = 2");
  EXPECT_EQ(VerifyNow().first_error, "claims row 2 (run 2): content_hash mismatch");
}

TEST_F(VerifyTest, ChangedSampleBlobNamesTheRow) {
  Edit("UPDATE results SET samples = CAST(substr(samples, 1, 79) || x'00' AS BLOB) "
       "WHERE id = 11");
  EXPECT_EQ(VerifyNow().first_error, "results row 11 (run 3): content_hash mismatch");
}

TEST_F(VerifyTest, TextInANumberColumnIsNotReadAsZero) {
  Edit("UPDATE results SET value = 'abc' WHERE id = 3");
  EXPECT_EQ(VerifyNow().first_error,
            "results row 3 (run 1): column 'value' has the wrong type");
}

TEST_F(VerifyTest, DeletedRowNamesTheRun) {
  Edit("DELETE FROM results WHERE id = 7");
  const VerifyReport rep = VerifyNow();
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.first_error, "run 2: run_hash mismatch (rows missing or changed)");
  EXPECT_EQ(rep.results, 11);
}

TEST_F(VerifyTest, RowSlippedIntoASealedRunNamesTheRun) {
  // The guard trigger refuses this through any connection; someone who drops
  // it first still cannot get past the run_hash.
  EXPECT_EQ(ExecSql(path_,
                    "INSERT INTO results (run_id, seq, suite, case_name, backend, params_json, "
                    "metric, unit, direction, value, n, samples, input_hash, output_hash, "
                    "threads, content_hash) SELECT 1, 99, suite, case_name, backend, "
                    "params_json, metric, unit, direction, value, n, samples, input_hash, "
                    "output_hash, threads, content_hash FROM results WHERE id = 1"),
            "the run is sealed")
      << "the sealed-run guard trigger should have refused the insert";
  EXPECT_TRUE(VerifyNow().ok);
  Edit("DROP TRIGGER results_sealed_guard; "
       "INSERT INTO results (run_id, seq, hash_version, suite, case_name, backend, params_json, "
       "metric, unit, direction, value, n, samples, input_hash, output_hash, threads, "
       "energy_j, energy_source, energy_window_s, content_hash) "
       "SELECT 1, 99, 2, suite, case_name, backend, params_json, metric, unit, direction, value, "
       "n, samples, input_hash, output_hash, threads, energy_j, energy_source, energy_window_s, "
       "'00000000000000000000000000000000' FROM results WHERE id = 1");
  EXPECT_EQ(VerifyNow().first_error, "results row 13 (run 1): content_hash mismatch");
}

TEST_F(VerifyTest, ChangedRunMetaNamesTheRun) {
  Edit("UPDATE runs SET command = 'claimbench run --profile full' WHERE id = 3");
  EXPECT_EQ(VerifyNow().first_error, "run 3: run_hash mismatch (rows missing or changed)");
}

TEST_F(VerifyTest, SwappedRunsBreakTheChain) {
  Edit("UPDATE runs SET chain_seq = -1 WHERE id = 1; "
       "UPDATE runs SET chain_seq = 1 WHERE id = 2; "
       "UPDATE runs SET chain_seq = 2 WHERE id = 1");
  EXPECT_EQ(VerifyNow().first_error, "run 2: chain_hash mismatch (runs reordered or removed)");
}

TEST_F(VerifyTest, SwappedSealsNameTheFirstRun) {
  // Swapping the seals (run_hash and chain_hash) of runs 1 and 2: the chain
  // itself is intact, but each run's rows no longer match its run_hash.
  Edit("CREATE TEMP TABLE seal AS SELECT id, run_hash, chain_hash FROM runs WHERE id IN (1, 2); "
       "UPDATE runs SET run_hash = NULL WHERE id IN (1, 2); "
       "UPDATE runs SET run_hash = (SELECT run_hash FROM seal WHERE seal.id = 3 - runs.id), "
       "chain_hash = (SELECT chain_hash FROM seal WHERE seal.id = 3 - runs.id) "
       "WHERE id IN (1, 2)");
  EXPECT_EQ(VerifyNow().first_error, "run 1: run_hash mismatch (rows missing or changed)");
}

TEST_F(VerifyTest, RemovedRunBreaksTheChain) {
  Edit("DELETE FROM results WHERE run_id = 2; DELETE FROM claims WHERE run_id = 2; "
       "DELETE FROM runs WHERE id = 2");
  EXPECT_EQ(VerifyNow().first_error,
            "run 3: chain_seq 3 where 2 was expected (runs removed or reordered)");
  // Renumbering chain_seq to hide the gap still breaks the hash links.
  Edit("UPDATE runs SET chain_seq = 2 WHERE id = 3");
  EXPECT_EQ(VerifyNow().first_error, "run 3: chain_hash mismatch (runs reordered or removed)");
}

TEST_F(VerifyTest, RelabelledHashVersionIsCaught) {
  // Row 1 carries energy data: calling it a version-1 row would drop the
  // energy fields from its hash, which Verify refuses to accept.
  Edit("UPDATE results SET hash_version = 1 WHERE id = 1");
  EXPECT_EQ(VerifyNow().first_error,
            "results row 1 (run 1): energy fields set on a hash_version 1 row (its hash would "
            "not cover them)");
}

TEST_F(VerifyTest, TamperedKindIsCaught) {
  // Result row 6 (run 2) is SampleResult(5), an estimate: relabelling it a
  // timing would move it to the gate's speed test, so its hash covers it.
  Edit("UPDATE results SET kind = 'timing' WHERE id = 6");
  EXPECT_EQ(VerifyNow().first_error, "results row 6 (run 2): content_hash mismatch");
  Edit("UPDATE results SET kind = NULL WHERE id = 6");
  EXPECT_EQ(VerifyNow().first_error, "results row 6 (run 2): kind missing on a hash_version 4 row");
  Edit("UPDATE results SET kind = 'Estimate' WHERE id = 6");
  EXPECT_EQ(VerifyNow().first_error,
            "results row 6 (run 2): kind 'Estimate' is not exact, estimate or timing");
  Edit("UPDATE results SET kind = 'estimate' WHERE id = 6");
  const VerifyReport rep = VerifyNow();
  EXPECT_TRUE(rep.ok) << rep.first_error;
}

TEST_F(VerifyTest, TamperedDependsOnClockIsCaught) {
  // Claim 2 (run 2) is SampleClaim(4): depends_on_clock 0. Setting it would
  // stop the gate from gating the verdict.
  Edit("UPDATE claims SET depends_on_clock = 1 WHERE id = 2");
  EXPECT_EQ(VerifyNow().first_error, "claims row 2 (run 2): content_hash mismatch");
  Edit("UPDATE claims SET depends_on_clock = 2 WHERE id = 2");
  EXPECT_EQ(VerifyNow().first_error, "claims row 2 (run 2): depends_on_clock 2 is not 0 or 1");
  Edit("UPDATE claims SET depends_on_clock = NULL WHERE id = 2");
  EXPECT_EQ(VerifyNow().first_error,
            "claims row 2 (run 2): depends_on_clock missing on a hash_version 5 claim");
}

TEST_F(VerifyTest, UnsealedRunsAreCountedNotErrors) {
  {
    Ledger ledger = Ledger::Open(path_);
    const int64_t id = ledger.BeginRun(testutil::SampleMeta());
    ledger.AddResult(id, testutil::SampleResult(1));
  }
  VerifyReport rep = VerifyNow();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.unsealed_runs, 1);
  EXPECT_EQ(rep.results, 13);
  // ... but an unsealed run claiming to be complete is a hand edit.
  Edit("UPDATE runs SET status = 'complete' WHERE id = 4");
  rep = VerifyNow();
  EXPECT_EQ(rep.first_error, "run 4: status 'complete' but not sealed (run_hash missing)");
}

TEST_F(VerifyTest, HeadIsTheNewestSealedRun) {
  Ledger ledger = Ledger::Open(path_);
  const std::optional<ChainHead> head = ledger.Head();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->run_id, 3);
  EXPECT_EQ(head->chain_seq, 3);
  EXPECT_EQ(head->chain_hash, ledger.GetRun(3).chain_hash);
  TempDir empty;
  EXPECT_FALSE(Ledger::Open(empty.File("e.db")).Head().has_value());
}

TEST_F(VerifyTest, ExpectedHeadCatchesADeletedNewestRun) {
  const std::string head = Ledger::Open(path_).GetRun(3).chain_hash;
  const std::string older = Ledger::Open(path_).GetRun(2).chain_hash;
  EXPECT_TRUE(Ledger::Open(path_).Verify(head).ok);
  // An older head with newer runs on top of it is fine, in any case.
  const VerifyReport rep = Ledger::Open(path_).Verify(older);
  EXPECT_TRUE(rep.ok) << rep.first_error;
  std::string upper = head;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(Ledger::Open(path_).Verify(upper).ok);

  Edit("DELETE FROM results WHERE run_id = 3; DELETE FROM claims WHERE run_id = 3; "
       "DELETE FROM runs WHERE id = 3");
  // The chain itself cannot tell: what is left is a whole, shorter chain.
  EXPECT_TRUE(VerifyNow().ok);
  EXPECT_EQ(Ledger::Open(path_).Verify(head).first_error,
            "expected chain head " + head +
                " is not in the chain (the run sealed with it was removed or unsealed); the "
                "chain now ends at " + older);
  EXPECT_TRUE(Ledger::Open(path_).Verify(older).ok);
}

TEST_F(VerifyTest, ExpectedHeadCatchesAnUnsealedNewestRun) {
  const std::string head = Ledger::Open(path_).GetRun(3).chain_hash;
  Edit("UPDATE runs SET status = 'running', finished_at = NULL, run_hash = NULL, "
       "chain_hash = NULL, chain_seq = NULL WHERE id = 3");
  const VerifyReport plain = VerifyNow();
  EXPECT_TRUE(plain.ok) << plain.first_error;
  EXPECT_EQ(plain.unsealed_runs, 1);
  const VerifyReport rep = Ledger::Open(path_).Verify(head);
  EXPECT_FALSE(rep.ok);
  EXPECT_NE(rep.first_error.find("expected chain head " + head + " is not in the chain"),
            std::string::npos)
      << rep.first_error;
}

TEST_F(VerifyTest, SeqMovedPastTheLastIsCaught) {
  // Result row 8 is run 2's last (seq 4). Row hashes leave seq out and
  // run_hash keeps the order, which moving the last row further keeps too.
  Edit("UPDATE results SET seq = 99 WHERE id = 8");
  EXPECT_EQ(VerifyNow().first_error,
            "results row 8 (run 2): seq 99 where 4 was expected (the run has 4 results rows, "
            "numbered 1..4)");
  Edit("UPDATE results SET seq = 4 WHERE id = 8; UPDATE claims SET seq = 2 WHERE id = 3");
  EXPECT_EQ(VerifyNow().first_error,
            "claims row 3 (run 3): seq 2 where 1 was expected (the run has 1 claims rows, "
            "numbered 1..1)");
  Edit("UPDATE claims SET seq = 1 WHERE id = 3");
  EXPECT_TRUE(VerifyNow().ok);
}

// One row in each side table, then a single-cell edit per table: Verify and
// the getter that feeds later verdicts must both name the row.
class SideRowsTest : public VerifyTest {
 protected:
  void SetUp() override {
    VerifyTest::SetUp();
    Ledger ledger = Ledger::Open(path_);
    Ceiling c;
    c.name = "cpu_sgemm";
    c.value = 250.5;
    c.unit = "GFLOP/s";
    c.detail = {{"n", 1024}};
    const Ceiling ceilings[] = {c};
    ledger.PutCeilings("platform-A", ceilings);
    Artifact a;
    a.hash = "0123456789abcdef0123456789abcdef";
    a.generator = "tensors";
    a.params = {{"n", 8}};
    a.size = 64;
    ledger.PutArtifact(a);
    Decision d;
    d.run_id = 3;
    d.baseline = "base.jsonl";
    d.suite = "harness";
    d.case_name = "case_1";
    d.metric = "real_time";
    d.verdict = "SAME";
    d.test = "mann-whitney+bootstrap";
    d.n = 10;
    d.p = 0.5;
    d.threshold = 0.05;
    d.policy_version = "test";
    ledger.AddDecision(d);
    ledger.CachePut("key-1", "{\"choices\":[{\"message\":{\"content\":\"B\"}}]}");
  }
};

TEST_F(SideRowsTest, CleanSideRowsVerifyAndAreCounted) {
  const VerifyReport rep = VerifyNow();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.ceilings, 1);
  EXPECT_EQ(rep.artifacts, 1);
  EXPECT_EQ(rep.decisions, 1);
  EXPECT_EQ(rep.cache_entries, 1);
  Ledger ledger = Ledger::Open(path_);
  EXPECT_EQ(ledger.CacheGet("key-1").value_or(""), "{\"choices\":[{\"message\":{\"content\":\"B\"}}]}");
  ASSERT_EQ(ledger.GetCeilings("platform-A").size(), 1u);
  EXPECT_EQ(ledger.GetCeilings("platform-A")[0].value, 250.5);
  EXPECT_TRUE(ledger.GetArtifact("0123456789abcdef0123456789abcdef").has_value());
  ASSERT_EQ(ledger.GetDecisions(3).size(), 1u);
  EXPECT_EQ(ledger.GetDecisions(3)[0].p, 0.5);
}

TEST_F(SideRowsTest, EditedCachedAnswerIsCaughtByVerifyAndNeverUsed) {
  // The fault-injection finding: a cached answer changed from B to A raised a
  // later run's accuracy while verify said ok.
  Edit("UPDATE http_cache SET response = CAST(replace(CAST(response AS TEXT), '\"B\"', '\"A\"') "
       "AS BLOB) WHERE key = 'key-1'");
  EXPECT_EQ(VerifyNow().first_error, "http_cache row 'key-1': content_hash mismatch");
  Ledger ledger = Ledger::Open(path_);
  try {
    ledger.CacheGet("key-1");
    ADD_FAILURE() << "CacheGet returned an edited answer";
  } catch (const LedgerError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("http_cache row 'key-1': content_hash mismatch"), std::string::npos) << what;
    EXPECT_TRUE(testutil::OneLine(what)) << what;
  }
  EXPECT_FALSE(ledger.CacheGet("key-2").has_value());  // a miss is still a miss
}

TEST_F(SideRowsTest, EditedCeilingArtifactAndDecisionAreNamed) {
  Edit("UPDATE ceilings SET value = 125.25");
  EXPECT_EQ(VerifyNow().first_error, "ceilings row 'platform-A/cpu_sgemm': content_hash mismatch");
  EXPECT_THROW(Ledger::Open(path_).GetCeilings("platform-A"), LedgerError);
  Edit("UPDATE ceilings SET value = 250.5; UPDATE artifacts SET path = '/elsewhere'");
  EXPECT_EQ(VerifyNow().first_error,
            "artifacts row '0123456789abcdef0123456789abcdef': content_hash mismatch");
  EXPECT_THROW(Ledger::Open(path_).GetArtifact("0123456789abcdef0123456789abcdef"), LedgerError);
  Edit("UPDATE artifacts SET path = ''; UPDATE decisions SET verdict = 'FASTER'");
  EXPECT_EQ(VerifyNow().first_error, "decisions row 1 (run 3): content_hash mismatch");
  Edit("UPDATE decisions SET verdict = 'SAME', p = 'abc'");
  EXPECT_EQ(VerifyNow().first_error, "decisions row 1 (run 3): column 'p' has the wrong type");
  Edit("UPDATE decisions SET p = 0.5, content_hash = NULL");
  EXPECT_EQ(VerifyNow().first_error, "decisions row 1 (run 3): content_hash missing");
}

}  // namespace
}  // namespace cb::ledger

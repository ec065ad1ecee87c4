// File: ledger/open_test.cpp
// -----------------------------------------------------------------------------
// Opening ledgers: foreign, damaged and too-new files are refused with one
// line naming the file; a version-1 ledger (fixtures/ledger/v1_ledger.sql) is
// migrated, still verifies and takes new runs; read-only opening leaves files
// untouched. Also the unhashed side tables (ceilings, artifacts, decisions,
// endpoint cache).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "fixtures/paths.h"
#include "ledger/ledger.h"
#include "ledger/ledger_test_util.h"
#include "ledger/schema.h"
#include "ledger/sqlite.h"

namespace cb::ledger {
namespace {

using testutil::AddSealedRun;
using testutil::ExecSql;
using testutil::OneLine;
using testutil::ReadFile;
using testutil::TempDir;

// Runs `f` (an Open, OpenReadOnly or write) expecting a LedgerError; returns
// its what(), or "(no error)".
template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const LedgerError& e) {
    return e.what();
  }
  return "(no error)";
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

int64_t UserVersion(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  const int64_t v = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return v;
}

std::string V1Sql() { return ReadFile(cb::testing::FixturePath("ledger/v1_ledger.sql")); }

TEST(OpenTest, GarbageFileIsRefusedInOneLineNamingIt) {
  TempDir dir;
  const std::string path = dir.File("garbage.db");
  std::string garbage;
  for (int i = 0; i < 8192; ++i) garbage.push_back(static_cast<char>((i * 7919) % 251));
  WriteBytes(path, garbage);
  const std::string what = ErrorOf([&] { Ledger::Open(path); });
  EXPECT_EQ(what, "ledger '" + path + "': file is not a database");
  EXPECT_EQ(ErrorOf([&] { Ledger::OpenReadOnly(path); }),
            "ledger '" + path + "': file is not a database");
  EXPECT_EQ(ReadFile(path), garbage) << "a refused file must not be modified";
}

TEST(OpenTest, TruncatedLedgerIsRefused) {
  TempDir dir;
  const std::string path = dir.File("truncated.db");
  {
    Ledger ledger = Ledger::Open(path);
    AddSealedRun(ledger, 500);
  }
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 3u * 4096);
  std::filesystem::resize_file(path, size / 2);
  const std::string what = ErrorOf([&] { Ledger::Open(path); });
  EXPECT_TRUE(OneLine(what)) << what;
  EXPECT_EQ(what.rfind("ledger '" + path + "': ", 0), 0u) << what;
  EXPECT_NE(what.find("malformed"), std::string::npos) << what;
}

TEST(OpenTest, DamagedSchemaPageIsRefused) {
  TempDir dir;
  const std::string path = dir.File("damaged.db");
  {
    Ledger ledger = Ledger::Open(path);
    AddSealedRun(ledger, 3);
  }
  // Scribble over page 1 past the 100-byte header: the schema table's b-tree.
  std::string bytes = ReadFile(path);
  for (size_t i = 100; i < 4096 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  WriteBytes(path, bytes);
  const std::string what = ErrorOf([&] { Ledger::Open(path); });
  EXPECT_TRUE(OneLine(what)) << what;
  EXPECT_EQ(what.rfind("ledger '" + path + "': ", 0), 0u) << what;
  EXPECT_NE(what, "(no error)");
}

TEST(OpenTest, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.File("future.db");
  {
    Ledger ledger = Ledger::Open(path);
  }
  ASSERT_EQ(ExecSql(path, "PRAGMA user_version = 99"), "");
  const std::string expected = "ledger '" + path +
                               "': schema version 99 is newer than this build supports (" +
                               std::to_string(kSchemaVersion) + "); use a newer claimbench";
  EXPECT_EQ(ErrorOf([&] { Ledger::Open(path); }), expected);
  EXPECT_EQ(ErrorOf([&] { Ledger::OpenReadOnly(path); }), expected);
  EXPECT_EQ(UserVersion(path), 99);
}

TEST(OpenTest, ForeignSqliteDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  ASSERT_EQ(ExecSql(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)"), "");
  const std::string what = ErrorOf([&] { Ledger::Open(path); });
  EXPECT_NE(what.find("not a claimbench ledger"), std::string::npos) << what;
}

TEST(OpenTest, MissingFileForReadingAndBadDirectory) {
  TempDir dir;
  EXPECT_EQ(ErrorOf([&] { Ledger::OpenReadOnly(dir.File("absent.db")); }),
            "ledger '" + dir.File("absent.db") + "': no such file");
  EXPECT_FALSE(std::filesystem::exists(dir.File("absent.db")));
  const std::string bad = dir.File("no/such/dir/x.db");
  const std::string what = ErrorOf([&] { Ledger::Open(bad); });
  EXPECT_EQ(what.rfind("ledger '" + bad + "': cannot open", 0), 0u) << what;
}

TEST(OpenTest, FreshLedgerHasTheCurrentSchemaInWalMode) {
  TempDir dir;
  const std::string path = dir.File("fresh.db");
  {
    Ledger ledger = Ledger::Open(path);
    EXPECT_EQ(ledger.path(), path);
    AddSealedRun(ledger, 1);
    EXPECT_TRUE(std::filesystem::exists(path + "-wal"));
  }
  EXPECT_EQ(UserVersion(path), kSchemaVersion);
}

TEST(OpenTest, VersionOneFixtureMigratesVerifiesAndTakesNewRuns) {
  TempDir dir;
  const std::string path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(path, V1Sql()), "");
  ASSERT_EQ(UserVersion(path), 1);

  Ledger ledger = Ledger::Open(path);
  EXPECT_EQ(UserVersion(path), kSchemaVersion);
  VerifyReport rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.runs, 2);
  EXPECT_EQ(rep.results, 6);
  EXPECT_EQ(rep.claims, 2);
  const auto old_rows = ledger.GetResults(1);
  ASSERT_EQ(old_rows.size(), 3u);
  EXPECT_FALSE(old_rows[0].energy_j.has_value());
  EXPECT_EQ(old_rows[0].case_name, "loop/256");
  EXPECT_FALSE(old_rows[2].ci_high.has_value());
  // Rows recorded before schema version 4 declared no kind, and none is made
  // up for them: the column stays NULL, the kind reads back as unknown.
  std::vector<std::optional<cb::harness::ResultKind>> kinds;
  ledger.GetResults(1, &kinds);
  ASSERT_EQ(kinds.size(), 3u);
  for (const auto& k : kinds) EXPECT_FALSE(k.has_value());
  EXPECT_EQ(ExecSql(path, "SELECT 1 FROM results WHERE kind IS NOT NULL"), "");
  for (const auto& c : ledger.GetClaims(1)) EXPECT_FALSE(c.depends_on_clock.has_value());

  // A new run with energy data goes onto the same chain.
  const int64_t run = ledger.BeginRun(testutil::SampleMeta());
  ledger.AddResult(run, testutil::SampleResult(0));  // has energy_j
  ledger.FinishRun(run, RunStatus::kComplete);
  rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.runs, 3);
  EXPECT_EQ(rep.chain_head, ledger.GetRun(run).chain_hash);
  EXPECT_EQ(ledger.GetResults(run)[0].energy_j, testutil::SampleResult(0).energy_j);
  ledger.GetResults(run, &kinds);
  EXPECT_EQ(kinds, (std::vector<std::optional<cb::harness::ResultKind>>{
                       testutil::SampleResult(0).kind}));
}

TEST(OpenTest, KindIsNotAddedToAMigratedRowByHand) {
  // A kind written into an old row would not be covered by its result/1
  // hash, so Verify refuses it rather than trusting it.
  TempDir dir;
  const std::string path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(path, V1Sql()), "");
  { Ledger::Open(path); }
  ASSERT_EQ(ExecSql(path, "UPDATE results SET kind = 'exact' WHERE id = 2"), "");
  EXPECT_EQ(Ledger::Open(path).Verify().first_error,
            "results row 2 (run 1): kind set on a hash_version 1 row (its hash would not cover it)");
  ASSERT_EQ(ExecSql(path, "UPDATE results SET kind = NULL WHERE id = 2; "
                          "UPDATE claims SET depends_on_clock = 0 WHERE id = 1"), "");
  EXPECT_EQ(Ledger::Open(path).Verify().first_error,
            "claims row 1 (run 1): depends_on_clock set on a hash_version 1 claim (its hash would "
            "not cover it)");
}

TEST(OpenTest, VersionOneRowsAreStillCheckedAfterMigration) {
  TempDir dir;
  const std::string path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(path, V1Sql()), "");
  { Ledger::Open(path); }
  ASSERT_EQ(ExecSql(path, "UPDATE results SET value = 0.75 WHERE id = 4"), "");
  EXPECT_EQ(Ledger::Open(path).Verify().first_error, "results row 4 (run 2): content_hash mismatch");
}

TEST(OpenTest, VersionOneFixtureReadOnlyLeavesTheFileAlone) {
  TempDir dir;
  const std::string path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(path, V1Sql()), "");
  const std::string before = ReadFile(path);
  Ledger ledger = Ledger::OpenReadOnly(path);
  const VerifyReport rep = ledger.Verify();
  EXPECT_TRUE(rep.ok) << rep.first_error;
  EXPECT_EQ(rep.results, 6);
  EXPECT_EQ(ledger.Log().size(), 2u);
  const std::string what = ErrorOf([&] { ledger.BeginRun(testutil::SampleMeta()); });
  EXPECT_NE(what.find("opened read-only"), std::string::npos) << what;
  EXPECT_EQ(UserVersion(path), 1);
  EXPECT_EQ(ReadFile(path), before);
}

TEST(OpenTest, VersionOneLedgerMergesIntoACurrentOne) {
  // Merging reads the old file through its read-only migrated copy; its
  // result/1 rows keep their version and their hashes in the new ledger.
  TempDir dir;
  const std::string old_path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(old_path, V1Sql()), "");
  Ledger target = Ledger::Open(dir.File("new.db"));
  AddSealedRun(target, 2);
  const ImportReport rep = target.Merge(old_path);
  EXPECT_EQ(rep.runs_added, 2);
  const VerifyReport v = target.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
  EXPECT_EQ(v.results, 2 + 6);
  EXPECT_EQ(target.Merge(old_path).runs_added, 0);
  EXPECT_EQ(UserVersion(old_path), 1);
}

TEST(OpenTest, VersionFourSideRowsAreHashedByTheMigration) {
  // A version-4 file with a row in each side table (no content_hash column
  // yet): step 5 hashes them as they are, after which an edit is caught.
  TempDir dir;
  const std::string path = dir.File("v4.db");
  ASSERT_EQ(ExecSql(path, V1Sql()), "");
  {
    sql::Db db(path, SQLITE_OPEN_READWRITE, path);
    Migrate(db, 4);
  }
  ASSERT_EQ(UserVersion(path), 4);
  ASSERT_EQ(ExecSql(path,
                    "INSERT INTO ceilings VALUES ('p', 'cpu_sgemm', 250.5, 'GFLOP/s', '{}', "
                    "'2025-01-01T00:00:00Z'); "
                    "INSERT INTO artifacts VALUES ('00ff', 'tensors', 1, '{}', 8, '', "
                    "'2025-01-01T00:00:00Z'); "
                    "INSERT INTO decisions (run_id, baseline, suite, case_name, metric, verdict, "
                    "test, n, p, policy_version, detail_json, created_at) VALUES (2, 'b', 's', "
                    "'c', 'm', 'MATCH', 'tolerance', NULL, 0.25, 'v', '{}', "
                    "'2025-01-01T00:00:00Z'); "
                    "INSERT INTO http_cache VALUES ('k', CAST('answer B' AS BLOB), "
                    "'2025-01-01T00:00:00Z')"),
            "");
  {
    Ledger ledger = Ledger::Open(path);
    EXPECT_EQ(UserVersion(path), kSchemaVersion);
    const VerifyReport rep = ledger.Verify();
    EXPECT_TRUE(rep.ok) << rep.first_error;
    EXPECT_EQ(rep.ceilings + rep.artifacts + rep.decisions + rep.cache_entries, 4);
    EXPECT_EQ(ledger.CacheGet("k").value_or(""), "answer B");
  }
  {
    sql::Db db(path, SQLITE_OPEN_READONLY, path);
    sql::Stmt hashed(db, "SELECT count(*) FROM http_cache WHERE length(content_hash) = 32");
    ASSERT_TRUE(hashed.Step());
    EXPECT_EQ(hashed.Int(0), 1);
  }
  ASSERT_EQ(ExecSql(path, "UPDATE http_cache SET response = CAST('answer A' AS BLOB)"), "");
  EXPECT_EQ(Ledger::Open(path).Verify().first_error, "http_cache row 'k': content_hash mismatch");
}

TEST(OpenTest, MigrationIsOneTransaction) {
  // A version-1 file whose step-2 migration cannot run (a table named like
  // one step 2 creates) must stay exactly at version 1.
  TempDir dir;
  const std::string path = dir.File("v1.db");
  ASSERT_EQ(ExecSql(path, V1Sql() + "CREATE TABLE ceilings (x);"), "");
  const std::string what = ErrorOf([&] { Ledger::Open(path); });
  EXPECT_NE(what.find("migrating to schema version 2"), std::string::npos) << what;
  EXPECT_TRUE(OneLine(what)) << what;
  EXPECT_EQ(UserVersion(path), 1);
  EXPECT_EQ(ExecSql(path, "SELECT energy_j FROM results"), "no such column: energy_j")
      << "the ALTER TABLE of step 2 should have been rolled back";
}

TEST(OpenTest, CeilingsRoundTrip) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("c.db"));
  EXPECT_TRUE(ledger.GetCeilings("p1").empty());
  const Ceiling put[] = {
      {"cpu_copy_bandwidth", 12.5, "GB/s", {{"bytes", 1 << 28}, {"reps", 5}}, ""},
      {"cpu_sgemm", 88.25, "GFLOP/s", {{"n", 1024}}, "2025-01-01T00:00:00.000Z"},
  };
  ledger.PutCeilings("p1", put);
  const Ceiling other[] = {{"cpu_sgemm", 1.0, "GFLOP/s", {}, ""}};
  ledger.PutCeilings("p2", other);
  auto got = ledger.GetCeilings("p1");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "cpu_copy_bandwidth");
  EXPECT_EQ(got[0].value, 12.5);
  EXPECT_EQ(got[0].unit, "GB/s");
  EXPECT_EQ(got[0].detail, put[0].detail);
  EXPECT_EQ(got[0].measured_at.size(), 24u);  // stamped now
  EXPECT_EQ(got[1].value, 88.25);
  EXPECT_EQ(got[1].measured_at, "2025-01-01T00:00:00.000Z");
  // A re-measurement replaces the old value.
  const Ceiling again[] = {{"cpu_sgemm", 90.0, "GFLOP/s", {}, ""}};
  ledger.PutCeilings("p1", again);
  got = ledger.GetCeilings("p1");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].value, 90.0);
  EXPECT_EQ(ledger.GetCeilings("p2").size(), 1u);
}

TEST(OpenTest, ArtifactsDecisionsAndCacheRoundTrip) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("s.db"));
  Artifact a;
  a.hash = "0123456789abcdef0123456789abcdef";
  a.generator = "tensors";
  a.version = 3;
  a.params = {{"shape", {4, 4}}};
  a.size = 64;
  a.path = "cache/0123.bin";
  ledger.PutArtifact(a);
  Artifact changed = a;
  changed.size = 1;
  ledger.PutArtifact(changed);  // same hash: the first row stays
  const auto got = ledger.GetArtifact(a.hash);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->size, 64);
  EXPECT_EQ(got->params, a.params);
  EXPECT_EQ(got->version, 3);
  EXPECT_FALSE(ledger.GetArtifact("ffff").has_value());

  const int64_t run = AddSealedRun(ledger, 1);
  Decision d;
  d.run_id = run;
  d.baseline = "abc123";
  d.suite = "harness";
  d.case_name = "loop";
  d.metric = "real_time";
  d.verdict = "regression";
  d.test = "mann-whitney";
  d.n = 9;
  d.p = 0.001;
  d.effect = 0.12;
  d.threshold = 0.05;
  d.policy_version = "gate/1";
  ledger.AddDecision(d);
  const auto decisions = ledger.GetDecisions(run);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].verdict, "regression");
  EXPECT_EQ(decisions[0].n, 9);
  EXPECT_EQ(decisions[0].p, 0.001);
  EXPECT_FALSE(decisions[0].ci_low.has_value());
  Decision orphan = d;
  orphan.run_id = 999;
  EXPECT_THROW(ledger.AddDecision(orphan), LedgerError);

  EXPECT_FALSE(ledger.CacheGet("k").has_value());
  ledger.CachePut("k", std::string("resp\0onse", 9));
  EXPECT_EQ(ledger.CacheGet("k"), std::string("resp\0onse", 9));
  ledger.CachePut("k", "new");
  EXPECT_EQ(ledger.CacheGet("k"), "new");
}

}  // namespace
}  // namespace cb::ledger

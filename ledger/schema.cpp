// File: ledger/schema.cpp
// -----------------------------------------------------------------------------
// The ledger schema as a list of migration steps (see schema.h).
//
// Every hashed value has an explicit column type so SQLite's affinity rules
// cannot change what Verify() reads back: TEXT for text, REAL for reals,
// INTEGER for integers, BLOB for raw samples. Hashes are stored as 32-digit
// lower-case hex text so that the sqlite3 shell shows them as they are printed.
#include "ledger/schema.h"

#include <iterator>
#include <string>

#include "ledger/ledger.h"
#include "ledger/side_rows.h"

namespace cb::ledger {
namespace {

// Step k has version k; the last step's version is kSchemaVersion.
struct Migration {
  int version;       // user_version after this step
  const char* what;  // one line, for error messages
  const char* sql;
  // Runs after `sql` in the same transaction, for what SQL cannot compute
  // (hashes); nullptr for none.
  void (*fill)(sql::Db&) = nullptr;
};

// Version 1: runs, their results and claim verdicts.
//
// The guard triggers refuse rows for a sealed run: such a row would not be
// covered by the run's run_hash and would make the ledger fail Verify().
constexpr const char* kStep1 = R"sql(
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  run_uuid      TEXT    NOT NULL UNIQUE,
  status        TEXT    NOT NULL
                CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
  command       TEXT    NOT NULL,
  profile       TEXT    NOT NULL,
  seed          INTEGER NOT NULL,
  git_commit    TEXT    NOT NULL,
  git_dirty     INTEGER NOT NULL,
  source_hash   TEXT    NOT NULL,
  platform_hash TEXT    NOT NULL,
  platform_json TEXT    NOT NULL,
  build_json    TEXT    NOT NULL,
  started_at    TEXT    NOT NULL,
  finished_at   TEXT,
  host          TEXT    NOT NULL,
  pid           INTEGER NOT NULL,
  pid_start     INTEGER,
  run_hash      TEXT    UNIQUE,
  chain_hash    TEXT,
  chain_seq     INTEGER UNIQUE
);
CREATE TABLE results (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  seq          INTEGER NOT NULL,
  suite        TEXT    NOT NULL,
  case_name    TEXT    NOT NULL,
  backend      TEXT    NOT NULL,
  params_json  TEXT    NOT NULL,
  metric       TEXT    NOT NULL,
  unit         TEXT    NOT NULL,
  direction    TEXT    NOT NULL,
  value        REAL,
  ci_low       REAL,
  ci_high      REAL,
  n            INTEGER NOT NULL,
  samples      BLOB    NOT NULL,
  input_hash   TEXT    NOT NULL,
  output_hash  TEXT    NOT NULL,
  threads      INTEGER NOT NULL,
  content_hash TEXT    NOT NULL,
  UNIQUE (run_id, seq)
);
CREATE TABLE claims (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  seq               INTEGER NOT NULL,
  claim_id          TEXT    NOT NULL,
  suite             TEXT    NOT NULL,
  paper             TEXT    NOT NULL,
  section           TEXT    NOT NULL,
  statement         TEXT    NOT NULL,
  paper_value       TEXT    NOT NULL,
  paper_setting     TEXT    NOT NULL,
  our_setting       TEXT    NOT NULL,
  metric            TEXT    NOT NULL,
  criterion         TEXT    NOT NULL,
  scale             TEXT    NOT NULL,
  verdict           TEXT    NOT NULL,
  value             REAL,
  ci_low            REAL,
  ci_high           REAL,
  confidence        REAL,
  reason            TEXT    NOT NULL,
  requirements_json TEXT    NOT NULL,
  content_hash      TEXT    NOT NULL,
  UNIQUE (run_id, seq)
);
CREATE TRIGGER results_sealed_guard BEFORE INSERT ON results
  WHEN (SELECT run_hash FROM runs WHERE id = NEW.run_id) IS NOT NULL
  BEGIN SELECT RAISE(ABORT, 'the run is sealed'); END;
CREATE TRIGGER claims_sealed_guard BEFORE INSERT ON claims
  WHEN (SELECT run_hash FROM runs WHERE id = NEW.run_id) IS NOT NULL
  BEGIN SELECT RAISE(ABORT, 'the run is sealed'); END;
)sql";

// Version 2: energy columns on results (with the per-row hash version that
// keeps version-1 rows verifiable), machine ceilings, generator artifacts,
// gate decisions and the model-endpoint cache.
constexpr const char* kStep2 = R"sql(
ALTER TABLE results ADD COLUMN hash_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE results ADD COLUMN energy_j REAL;
ALTER TABLE results ADD COLUMN energy_source TEXT;
ALTER TABLE results ADD COLUMN energy_window_s REAL;
CREATE TABLE ceilings (
  platform_hash TEXT NOT NULL,
  name          TEXT NOT NULL,
  value         REAL NOT NULL,
  unit          TEXT NOT NULL,
  detail_json   TEXT NOT NULL,
  measured_at   TEXT NOT NULL,
  PRIMARY KEY (platform_hash, name)
);
CREATE TABLE artifacts (
  hash        TEXT    PRIMARY KEY,
  generator   TEXT    NOT NULL,
  version     INTEGER NOT NULL,
  params_json TEXT    NOT NULL,
  size        INTEGER NOT NULL,
  path        TEXT    NOT NULL,
  created_at  TEXT    NOT NULL
);
CREATE TABLE decisions (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES runs(id),
  baseline       TEXT    NOT NULL,
  suite          TEXT    NOT NULL,
  case_name      TEXT    NOT NULL,
  metric         TEXT    NOT NULL,
  verdict        TEXT    NOT NULL,
  test           TEXT    NOT NULL,
  n              INTEGER,
  p              REAL,
  effect         REAL,
  ci_low         REAL,
  ci_high        REAL,
  threshold      REAL,
  policy_version TEXT    NOT NULL,
  detail_json    TEXT    NOT NULL,
  created_at     TEXT    NOT NULL
);
CREATE INDEX decisions_by_run ON decisions (run_id);
CREATE TABLE http_cache (
  key        TEXT PRIMARY KEY,
  response   BLOB NOT NULL,
  created_at TEXT NOT NULL
);
)sql";

// Version 3: claims.hash_version. Existing claims are claim/1 rows (seq in
// their hash); new claims are claim/2 and new results result/3, whose hashes
// leave out the row's position (ledger/canonical.h).
constexpr const char* kStep3 = R"sql(
ALTER TABLE claims ADD COLUMN hash_version INTEGER NOT NULL DEFAULT 1;
)sql";

// Version 4: what a row declares of itself. results.kind ("exact" |
// "estimate" | "timing", harness ResultKind) and claims.depends_on_clock
// (0/1). Both stay NULL on existing rows: those were recorded before rows
// declared their kind, so nothing is filled in by guessing, and their hash
// versions (result/1-3, claim/1-2) do not cover the columns; new rows are
// result/4 and claim/3, which hash them (ledger/canonical.h).
constexpr const char* kStep4 = R"sql(
ALTER TABLE results ADD COLUMN kind TEXT;
ALTER TABLE claims ADD COLUMN depends_on_clock INTEGER;
)sql";

// Version 5: a content_hash on every row of the side tables, which decide
// verdicts without being part of a run (ceilings turn rows into fractions of
// the limit, decisions are the gate's verdicts, http_cache holds the model
// answers that become accuracy, artifacts the generators' outputs). The
// column is nullable because ALTER TABLE cannot add a NOT NULL column without
// a default; the fill hashes every existing row as it is (the file's state at
// migration is what is trusted), new rows are hashed by their writers, and
// Verify treats a NULL as an error.
constexpr const char* kStep5 = R"sql(
ALTER TABLE ceilings ADD COLUMN content_hash TEXT;
ALTER TABLE artifacts ADD COLUMN content_hash TEXT;
ALTER TABLE decisions ADD COLUMN content_hash TEXT;
ALTER TABLE http_cache ADD COLUMN content_hash TEXT;
)sql";

// Version 6: claims.own_results, how many result rows the claim recorded
// (the run's rows after the previous claim's), which is what `run --resume`
// copies. NULL on existing claims (claim/1-3, whose hash does not cover it);
// new claims are claim/4 (ledger/canonical.h).
constexpr const char* kStep6 = R"sql(
ALTER TABLE claims ADD COLUMN own_results INTEGER;
)sql";

// Version 7: what a verdict is and what it rests on. claims.kind ("paper" |
// "prerequisite"), claims.criterion_hash (the pre-registered criterion, so
// that a changed criterion is seen as such) and claims.inputs_json (the
// user's inputs and their content hashes, from which the scale follows).
// NULL on existing claims (claim/1-4 do not hash them); new claims are
// claim/5 (ledger/canonical.h).
constexpr const char* kStep7 = R"sql(
ALTER TABLE claims ADD COLUMN kind TEXT;
ALTER TABLE claims ADD COLUMN criterion_hash TEXT;
ALTER TABLE claims ADD COLUMN inputs_json TEXT;
)sql";

constexpr Migration kMigrations[] = {
    {1, "runs, results and claims", kStep1},
    {2, "energy columns, ceilings, artifacts, decisions, http_cache", kStep2},
    {3, "claims.hash_version (position-free row hashes)", kStep3},
    {4, "results.kind and claims.depends_on_clock", kStep4},
    {5, "content_hash of ceilings, artifacts, decisions and http_cache rows", kStep5,
     HashUnhashedSideRows},
    {6, "claims.own_results (which results are a claim's)", kStep6},
    {7, "claims.kind, criterion_hash and inputs_json", kStep7},
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration step per schema version");

}  // namespace

int CheckedSchemaVersion(sql::Db& db) {
  // The first statement on a connection reads the header and the schema, so a
  // file that is not a database, or a damaged one, is reported from here.
  // One statement, hence one snapshot: read separately, a concurrent creator
  // could commit the schema in between and make a fresh file look foreign.
  sql::Stmt check(db,
                  "SELECT (SELECT user_version FROM pragma_user_version), "
                  "(SELECT count(*) FROM sqlite_master)");
  if (!check.Step()) db.Fail("cannot read the schema version");
  const int64_t version = check.Int(0);
  const int64_t objects = check.Int(1);
  check.Reset();
  if (version > kSchemaVersion || version < 0) {
    db.Fail("schema version " + std::to_string(version) + " is newer than this build supports (" +
            std::to_string(kSchemaVersion) + "); use a newer claimbench");
  }
  if (version == 0 && objects > 0) {
    db.Fail("not a claimbench ledger (a SQLite database with other tables and no ledger schema)");
  }
  return static_cast<int>(version);
}

void Migrate(sql::Db& db) { Migrate(db, kSchemaVersion); }

void Migrate(sql::Db& db, int target) {
  if (CheckedSchemaVersion(db) >= target) return;
  db.Exec("BEGIN IMMEDIATE");
  try {
    // Another process may have migrated between the check and the lock.
    const int from = CheckedSchemaVersion(db);
    for (const Migration& m : kMigrations) {
      if (m.version > from && m.version <= target) {
        const std::string context =
            "migrating to schema version " + std::to_string(m.version) + " (" + m.what + ") failed";
        db.Exec(m.sql, context);
        if (m.fill != nullptr) m.fill(db);
      }
    }
    // PRAGMA takes no bound parameters; `target` is an int, so this is safe.
    if (from < target) db.Exec(("PRAGMA user_version = " + std::to_string(target)).c_str());
    db.Exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace cb::ledger

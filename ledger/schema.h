// File: ledger/schema.h
// -----------------------------------------------------------------------------
// The ledger's tables and their forward migrations. The schema version lives
// in PRAGMA user_version; step k of kMigrations turns a version k-1 file into
// a version k file. Steps are append-only: a released step is never edited,
// because files made by it exist.
//
//   step 1  runs, results, claims (and the seal guard triggers)
//   step 2  results.hash_version + energy columns; ceilings, artifacts,
//           decisions, http_cache
//   step 3  claims.hash_version (new rows: result/3 and claim/2, whose
//           content_hash leaves out the row's position in its run)
//   step 4  results.kind, claims.depends_on_clock (new rows: result/4 and
//           claim/3, which hash them; older rows keep NULL there)
//   step 5  content_hash on ceilings, artifacts, decisions and http_cache
//           rows (ceiling/1, artifact/1, decision/1, cache/1); the step
//           hashes the rows already there
//   step 6  claims.own_results (new claims: claim/4, which hashes it;
//           older claims keep NULL there)
//
// Rows already in a file keep the hash encoding they were written with:
// step 2 adds results.hash_version with DEFAULT 1, so every pre-existing row
// is marked as a result/1 row (ledger/canonical.h), whose encoding has no
// energy fields, and its content_hash stays valid. Rows written afterwards
// carry hash_version 2.
#ifndef CB_LEDGER_SCHEMA_H_
#define CB_LEDGER_SCHEMA_H_

#include "ledger/sqlite.h"

namespace cb::ledger {

// Brings `db` up to `target` (default kSchemaVersion) in one BEGIN IMMEDIATE
// transaction, so a concurrent opener either sees the old file or the fully
// migrated one. A fresh (empty) file runs every step.
// Throws LedgerError when the file is newer than this build, or is a SQLite
// database that is not a ledger (user_version 0 with tables in it).
// REQUIRES: target <= kSchemaVersion.
void Migrate(sql::Db& db, int target);
void Migrate(sql::Db& db);

// user_version of `db`, with the "newer than this build" and "not a ledger"
// checks of Migrate() but without changing anything.
int CheckedSchemaVersion(sql::Db& db);

}  // namespace cb::ledger

#endif  // CB_LEDGER_SCHEMA_H_

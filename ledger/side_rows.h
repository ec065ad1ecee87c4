// File: ledger/side_rows.h
// -----------------------------------------------------------------------------
// Internal to ledger/: the side tables (ceilings, artifacts, decisions,
// http_cache) as rows with a content_hash each (schema version 5; encodings
// ceiling/1, artifact/1, decision/1, cache/1 in canonical.h). Their SELECT
// statements, readers into the zero-copy views of canonical.h, the one check
// of a row (types, then hash) that Verify() and the getters share, and the
// migration step that hashes the rows a version-4 file already holds.
//
// The writers (store.cpp) hash exactly the values they bind, so a row is
// hashed as it will read back; the SQL strings are inline constexpr arrays
// (one address program-wide, the statement cache's key).
#ifndef CB_LEDGER_SIDE_ROWS_H_
#define CB_LEDGER_SIDE_ROWS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/canonical.h"
#include "ledger/sqlite.h"

namespace cb::ledger {

#define CB_LEDGER_CEILING_COLUMNS \
  "rowid, platform_hash, name, value, unit, detail_json, measured_at, content_hash"
#define CB_LEDGER_ARTIFACT_COLUMNS \
  "rowid, hash, generator, version, params_json, size, path, created_at, content_hash"
#define CB_LEDGER_DECISION_COLUMNS                                                            \
  "id, run_id, baseline, suite, case_name, metric, verdict, test, n, p, effect, ci_low, "    \
  "ci_high, threshold, policy_version, detail_json, created_at, content_hash"
#define CB_LEDGER_CACHE_COLUMNS "rowid, key, response, created_at, content_hash"

// Whole tables in storage order (Verify, the migration).
inline constexpr char kSelectAllCeilings[] = "SELECT " CB_LEDGER_CEILING_COLUMNS " FROM ceilings";
inline constexpr char kSelectAllArtifacts[] = "SELECT " CB_LEDGER_ARTIFACT_COLUMNS " FROM artifacts";
inline constexpr char kSelectAllDecisions[] = "SELECT " CB_LEDGER_DECISION_COLUMNS " FROM decisions";
inline constexpr char kSelectAllCacheEntries[] = "SELECT " CB_LEDGER_CACHE_COLUMNS " FROM http_cache";
// The getters' lookups.
inline constexpr char kSelectPlatformCeilings[] =
    "SELECT " CB_LEDGER_CEILING_COLUMNS " FROM ceilings WHERE platform_hash = ?1 ORDER BY name";
inline constexpr char kSelectArtifact[] =
    "SELECT " CB_LEDGER_ARTIFACT_COLUMNS " FROM artifacts WHERE hash = ?1";
inline constexpr char kSelectRunDecisions[] =
    "SELECT " CB_LEDGER_DECISION_COLUMNS " FROM decisions WHERE run_id = ?1 ORDER BY id";
inline constexpr char kSelectCacheEntry[] =
    "SELECT " CB_LEDGER_CACHE_COLUMNS " FROM http_cache WHERE key = ?1";

// A stored row: its view, its local row id and its content_hash (NULL only
// where a hand edit cleared it: the migration hashes every row it finds).
// Views point into the statement's buffers: valid until it steps or resets.
struct StoredCeiling {
  int64_t rowid = 0;
  CeilingView view;
  std::optional<std::string_view> content_hash;
};
struct StoredArtifact {
  int64_t rowid = 0;
  ArtifactView view;
  std::optional<std::string_view> content_hash;
};
struct StoredDecision {
  int64_t rowid = 0;  // decisions.id (an alias of the rowid)
  DecisionView view;
  std::optional<std::string_view> content_hash;
};
struct StoredCacheEntry {
  int64_t rowid = 0;
  CacheEntryView view;
  std::optional<std::string_view> content_hash;
};

// Fill `out` from a statement that selected the matching column list; return
// nullptr or the name of the first column with the wrong storage type.
const char* ReadSideRow(const sql::Stmt& s, StoredCeiling* out);
const char* ReadSideRow(const sql::Stmt& s, StoredArtifact* out);
const char* ReadSideRow(const sql::Stmt& s, StoredDecision* out);
const char* ReadSideRow(const sql::Stmt& s, StoredCacheEntry* out);

// How errors name a row: "ceilings row 'PLATFORM/NAME'", "artifacts row
// 'HASH'", "decisions row ID (run R)", "http_cache row 'KEY'".
std::string SideRowName(const StoredCeiling& r);
std::string SideRowName(const StoredArtifact& r);
std::string SideRowName(const StoredDecision& r);
std::string SideRowName(const StoredCacheEntry& r);

// The row's content hash, computed from its view.
Hash128 SideRowHash(const StoredCeiling& r, std::string* scratch);
Hash128 SideRowHash(const StoredArtifact& r, std::string* scratch);
Hash128 SideRowHash(const StoredDecision& r, std::string* scratch);
Hash128 SideRowHash(const StoredCacheEntry& r, std::string* scratch);

// Reads the statement's current row into `row` and checks it: "" when it is
// whole, else one line naming it ("http_cache row 'KEY': content_hash
// mismatch", "... column 'value' has the wrong type", "... content_hash
// missing").
template <typename Stored>
std::string ReadAndCheckSideRow(const sql::Stmt& s, Stored* row, std::string* scratch) {
  if (const char* bad = ReadSideRow(s, row); bad != nullptr) {
    return SideRowName(*row) + ": column '" + bad + "' has the wrong type";
  }
  if (!row->content_hash) return SideRowName(*row) + ": content_hash missing";
  const auto stored = Hash128::FromHex(*row->content_hash);
  if (!stored || !(*stored == SideRowHash(*row, scratch))) {
    return SideRowName(*row) + ": content_hash mismatch";
  }
  return "";
}

// Schema step 5's fill: sets content_hash on every side-table row that has
// none, from the row as it is (a row whose columns have the wrong type is
// left without one, so Verify names it). REQUIRES: inside the migration's
// transaction, after the columns were added.
void HashUnhashedSideRows(sql::Db& db);

}  // namespace cb::ledger

#endif  // CB_LEDGER_SIDE_ROWS_H_

// File: ledger/side_rows.cpp
// -----------------------------------------------------------------------------
// Readers, names and hashes of the side tables' rows, and schema step 5's
// fill (see side_rows.h). Column indices follow the CB_LEDGER_*_COLUMNS
// lists in side_rows.h; keep the two in step.
#include "ledger/side_rows.h"

#include <utility>
#include <vector>

#include "ledger/columns.h"

namespace cb::ledger {

const char* ReadSideRow(const sql::Stmt& s, StoredCeiling* out) {
  Columns c(s);
  CeilingView& v = out->view;
  out->rowid = c.Int(0, "rowid");
  v.platform_hash = c.Text(1, "platform_hash");
  v.name = c.Text(2, "name");
  v.value = c.Real(3, "value");
  v.unit = c.Text(4, "unit");
  v.detail_json = c.Text(5, "detail_json");
  v.measured_at = c.Text(6, "measured_at");
  out->content_hash = c.OptText(7, "content_hash");
  return c.problem();
}

const char* ReadSideRow(const sql::Stmt& s, StoredArtifact* out) {
  Columns c(s);
  ArtifactView& v = out->view;
  out->rowid = c.Int(0, "rowid");
  v.hash = c.Text(1, "hash");
  v.generator = c.Text(2, "generator");
  v.version = c.Int(3, "version");
  v.params_json = c.Text(4, "params_json");
  v.size = c.Int(5, "size");
  v.path = c.Text(6, "path");
  v.created_at = c.Text(7, "created_at");
  out->content_hash = c.OptText(8, "content_hash");
  return c.problem();
}

const char* ReadSideRow(const sql::Stmt& s, StoredDecision* out) {
  Columns c(s);
  DecisionView& v = out->view;
  out->rowid = c.Int(0, "id");
  v.run_id = c.Int(1, "run_id");
  v.baseline = c.Text(2, "baseline");
  v.suite = c.Text(3, "suite");
  v.case_name = c.Text(4, "case_name");
  v.metric = c.Text(5, "metric");
  v.verdict = c.Text(6, "verdict");
  v.test = c.Text(7, "test");
  v.n = c.OptInt(8, "n");
  v.p = c.Real(9, "p");
  v.effect = c.Real(10, "effect");
  v.ci_low = c.Real(11, "ci_low");
  v.ci_high = c.Real(12, "ci_high");
  v.threshold = c.Real(13, "threshold");
  v.policy_version = c.Text(14, "policy_version");
  v.detail_json = c.Text(15, "detail_json");
  v.created_at = c.Text(16, "created_at");
  out->content_hash = c.OptText(17, "content_hash");
  return c.problem();
}

const char* ReadSideRow(const sql::Stmt& s, StoredCacheEntry* out) {
  Columns c(s);
  CacheEntryView& v = out->view;
  out->rowid = c.Int(0, "rowid");
  v.key = c.Text(1, "key");
  v.response = c.Blob(2, "response");
  v.created_at = c.Text(3, "created_at");
  out->content_hash = c.OptText(4, "content_hash");
  return c.problem();
}

std::string SideRowName(const StoredCeiling& r) {
  return "ceilings row '" + std::string(r.view.platform_hash) + "/" + std::string(r.view.name) + "'";
}
std::string SideRowName(const StoredArtifact& r) {
  return "artifacts row '" + std::string(r.view.hash) + "'";
}
std::string SideRowName(const StoredDecision& r) {
  return "decisions row " + std::to_string(r.rowid) + " (run " + std::to_string(r.view.run_id) + ")";
}
std::string SideRowName(const StoredCacheEntry& r) {
  return "http_cache row '" + std::string(r.view.key) + "'";
}

Hash128 SideRowHash(const StoredCeiling& r, std::string* scratch) {
  return CeilingHash(r.view, scratch);
}
Hash128 SideRowHash(const StoredArtifact& r, std::string* scratch) {
  return ArtifactHash(r.view, scratch);
}
Hash128 SideRowHash(const StoredDecision& r, std::string* scratch) {
  return DecisionHash(r.view, scratch);
}
Hash128 SideRowHash(const StoredCacheEntry& r, std::string* scratch) {
  return CacheEntryHash(r.view, scratch);
}

namespace {

// Hashes the rows of one table that have no content_hash. The hashes are
// collected first and written after the scan, so the UPDATEs cannot disturb
// the statement that is still walking the table.
template <typename Stored>
void HashTable(sql::Db& db, const char* select_sql, const char* update_sql) {
  std::vector<std::pair<int64_t, std::string>> fills;
  std::string scratch;
  {
    sql::Stmt s(db, select_sql);
    Stored row;
    while (s.Step()) {
      if (ReadSideRow(s, &row) != nullptr || row.content_hash) continue;
      fills.emplace_back(row.rowid, SideRowHash(row, &scratch).Hex());
    }
  }
  sql::Stmt update(db, update_sql);
  for (const auto& [rowid, hex] : fills) {
    update.BindInt(1, rowid);
    update.BindText(2, hex);
    update.Run();
  }
}

}  // namespace

void HashUnhashedSideRows(sql::Db& db) {
  HashTable<StoredCeiling>(db, kSelectAllCeilings,
                           "UPDATE ceilings SET content_hash = ?2 WHERE rowid = ?1");
  HashTable<StoredArtifact>(db, kSelectAllArtifacts,
                            "UPDATE artifacts SET content_hash = ?2 WHERE rowid = ?1");
  HashTable<StoredDecision>(db, kSelectAllDecisions,
                            "UPDATE decisions SET content_hash = ?2 WHERE rowid = ?1");
  HashTable<StoredCacheEntry>(db, kSelectAllCacheEntries,
                              "UPDATE http_cache SET content_hash = ?2 WHERE rowid = ?1");
}

}  // namespace cb::ledger

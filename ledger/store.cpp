// File: ledger/store.cpp
// -----------------------------------------------------------------------------
// The ledger's side tables: machine ceilings per platform hash,
// content-addressed generator artifacts, gate decisions with their statistics,
// and the model-endpoint response cache. None of them is part of a run's
// hash (they are shared by runs, or come after them), but each row carries
// its own content_hash (side_rows.h), computed here from exactly the values
// bound, and the getters whose rows decide a later verdict check it.
#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/side_rows.h"
#include "ledger/writer.h"

namespace cb::ledger {
namespace {

constexpr char kPutCeiling[] =
    "INSERT OR REPLACE INTO ceilings (platform_hash, name, value, unit, detail_json, measured_at, "
    "content_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr char kPutArtifact[] =
    "INSERT OR IGNORE INTO artifacts (hash, generator, version, params_json, size, path, "
    "created_at, content_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
constexpr char kAddDecision[] =
    "INSERT INTO decisions (run_id, baseline, suite, case_name, metric, verdict, test, n, p, "
    "effect, ci_low, ci_high, threshold, policy_version, detail_json, created_at, content_hash) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
constexpr char kCachePut[] =
    "INSERT OR REPLACE INTO http_cache (key, response, created_at, content_hash) "
    "VALUES (?1, ?2, ?3, ?4)";

nlohmann::json ParseStored(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string Json(const Ledger::Impl& d, const nlohmann::json& j, const std::string& what) {
  return d.NamingTheFile(what, [&] { return CanonicalJson(j); });
}

// Reads the current row of `s` into `row`, failing with one line naming the
// row and the file when its types or content_hash are not as written.
template <typename Stored>
void ReadChecked(const Ledger::Impl& d, sql::Stmt& s, Stored* row, std::string* scratch) {
  if (std::string problem = ReadAndCheckSideRow(s, row, scratch); !problem.empty()) {
    s.Reset();  // ends the statement's read before the error leaves
    d.Fail(problem + " (changed since it was written; `claimbench ledger verify` checks the "
                     "whole file)");
  }
}

}  // namespace

std::vector<Ceiling> Ledger::GetCeilings(const std::string& platform_hash) {
  Impl& d = *impl_;
  std::vector<Ceiling> out;
  sql::Stmt& s = d.Prepare(kSelectPlatformCeilings);
  s.BindText(1, platform_hash);
  StoredCeiling row;
  while (s.Step()) {
    ReadChecked(d, s, &row, &d.scratch);
    Ceiling c;
    c.name = std::string(row.view.name);
    c.value = row.view.value.value_or(0);
    c.unit = std::string(row.view.unit);
    c.detail = ParseStored(row.view.detail_json);
    c.measured_at = std::string(row.view.measured_at);
    out.push_back(std::move(c));
  }
  s.Reset();
  return out;
}

void Ledger::PutCeilings(const std::string& platform_hash, std::span<const Ceiling> ceilings) {
  Impl& d = *impl_;
  d.RequireWritable("store ceilings");
  const std::string now = NowUtcIso8601();
  WriteScope scope(d);
  for (const Ceiling& c : ceilings) {
    const std::string detail = Json(d, c.detail, "ceiling " + c.name + " detail");
    CeilingView v;
    v.platform_hash = platform_hash;
    v.name = c.name;
    v.value = CanonicalReal(c.value);
    v.unit = c.unit;
    v.detail_json = detail;
    v.measured_at = c.measured_at.empty() ? now : c.measured_at;
    const std::string hash = CeilingHash(v, &d.scratch).Hex();
    sql::Stmt& s = d.Prepare(kPutCeiling);
    s.BindText(1, v.platform_hash);
    s.BindText(2, v.name);
    s.BindOptReal(3, v.value);
    s.BindText(4, v.unit);
    s.BindText(5, v.detail_json);
    s.BindText(6, v.measured_at);
    s.BindText(7, hash);
    s.Run();
  }
  scope.Commit();
}

void Ledger::PutArtifact(const Artifact& a) {
  Impl& d = *impl_;
  d.RequireWritable("store an artifact");
  const std::string params = Json(d, a.params, "artifact " + a.hash + " params");
  const std::string now = NowUtcIso8601();
  const ArtifactView v{a.hash, a.generator, a.version, params, a.size, a.path, now};
  const std::string hash = ArtifactHash(v, &d.scratch).Hex();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kPutArtifact);
  s.BindText(1, v.hash);
  s.BindText(2, v.generator);
  s.BindInt(3, v.version);
  s.BindText(4, v.params_json);
  s.BindInt(5, v.size);
  s.BindText(6, v.path);
  s.BindText(7, v.created_at);
  s.BindText(8, hash);
  s.Run();
  scope.Commit();
}

std::optional<Artifact> Ledger::GetArtifact(const std::string& hash) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kSelectArtifact);
  s.BindText(1, hash);
  if (!s.Step()) {
    s.Reset();
    return std::nullopt;
  }
  StoredArtifact row;
  ReadChecked(d, s, &row, &d.scratch);
  Artifact a;
  a.hash = std::string(row.view.hash);
  a.generator = std::string(row.view.generator);
  a.version = row.view.version;
  a.params = ParseStored(row.view.params_json);
  a.size = row.view.size;
  a.path = std::string(row.view.path);
  a.created_at = std::string(row.view.created_at);
  s.Reset();
  return a;
}

int64_t Ledger::AddDecision(const Decision& dec) {
  Impl& d = *impl_;
  d.RequireWritable("record a decision");
  const std::string detail = Json(d, dec.detail, "decision detail");
  const std::string now = NowUtcIso8601();
  DecisionView v;
  v.run_id = dec.run_id;
  v.baseline = dec.baseline;
  v.suite = dec.suite;
  v.case_name = dec.case_name;
  v.metric = dec.metric;
  v.verdict = dec.verdict;
  v.test = dec.test;
  v.n = dec.n;
  v.p = CanonicalReal(dec.p);
  v.effect = CanonicalReal(dec.effect);
  v.ci_low = CanonicalReal(dec.ci_low);
  v.ci_high = CanonicalReal(dec.ci_high);
  v.threshold = CanonicalReal(dec.threshold);
  v.policy_version = dec.policy_version;
  v.detail_json = detail;
  v.created_at = now;
  const std::string hash = DecisionHash(v, &d.scratch).Hex();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kAddDecision);
  s.BindInt(1, v.run_id);
  s.BindText(2, v.baseline);
  s.BindText(3, v.suite);
  s.BindText(4, v.case_name);
  s.BindText(5, v.metric);
  s.BindText(6, v.verdict);
  s.BindText(7, v.test);
  s.BindOptInt(8, v.n);
  s.BindOptReal(9, v.p);
  s.BindOptReal(10, v.effect);
  s.BindOptReal(11, v.ci_low);
  s.BindOptReal(12, v.ci_high);
  s.BindOptReal(13, v.threshold);
  s.BindText(14, v.policy_version);
  s.BindText(15, v.detail_json);
  s.BindText(16, v.created_at);
  s.BindText(17, hash);
  s.Run();
  const int64_t id = sqlite3_last_insert_rowid(d.db.get());
  scope.Commit();
  return id;
}

std::vector<Decision> Ledger::GetDecisions(int64_t run_id) {
  // Decisions are reported, never fed into another verdict, so reading them
  // does not check their hashes (Verify does).
  Impl& d = *impl_;
  std::vector<Decision> out;
  sql::Stmt& s = d.Prepare(kSelectRunDecisions);
  s.BindInt(1, run_id);
  StoredDecision row;
  while (s.Step()) {
    ReadSideRow(s, &row);
    const DecisionView& v = row.view;
    Decision dec;
    dec.run_id = v.run_id;
    dec.baseline = std::string(v.baseline);
    dec.suite = std::string(v.suite);
    dec.case_name = std::string(v.case_name);
    dec.metric = std::string(v.metric);
    dec.verdict = std::string(v.verdict);
    dec.test = std::string(v.test);
    dec.n = v.n;
    dec.p = v.p;
    dec.effect = v.effect;
    dec.ci_low = v.ci_low;
    dec.ci_high = v.ci_high;
    dec.threshold = v.threshold;
    dec.policy_version = std::string(v.policy_version);
    dec.detail = ParseStored(v.detail_json);
    dec.created_at = std::string(v.created_at);
    out.push_back(std::move(dec));
  }
  s.Reset();
  return out;
}

std::optional<std::string> Ledger::CacheGet(const std::string& key) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kSelectCacheEntry);
  s.BindText(1, key);
  std::optional<std::string> out;
  if (s.Step()) {
    StoredCacheEntry row;
    ReadChecked(d, s, &row, &d.scratch);
    out = std::string(row.view.response);
  }
  s.Reset();
  return out;
}

void Ledger::CachePut(const std::string& key, std::string_view response) {
  Impl& d = *impl_;
  d.RequireWritable("store a cache entry");
  const std::string now = NowUtcIso8601();
  const std::string hash = CacheEntryHash(CacheEntryView{key, response, now}, &d.scratch).Hex();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kCachePut);
  s.BindText(1, key);
  s.BindBlob(2, response);
  s.BindText(3, now);
  s.BindText(4, hash);
  s.Run();
  scope.Commit();
}

}  // namespace cb::ledger

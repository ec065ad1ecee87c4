// File: ledger/store.cpp
// -----------------------------------------------------------------------------
// The ledger's unhashed side tables: machine ceilings per platform hash,
// content-addressed generator artifacts, gate decisions with their statistics,
// and the model-endpoint response cache. None of them is part of a run's
// hash: they are caches and derived verdicts that can be recomputed.
#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/writer.h"

namespace cb::ledger {
namespace {

constexpr char kGetCeilings[] =
    "SELECT name, value, unit, detail_json, measured_at FROM ceilings "
    "WHERE platform_hash = ?1 ORDER BY name";
constexpr char kPutCeiling[] =
    "INSERT OR REPLACE INTO ceilings (platform_hash, name, value, unit, detail_json, measured_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
constexpr char kPutArtifact[] =
    "INSERT OR IGNORE INTO artifacts (hash, generator, version, params_json, size, path, "
    "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr char kGetArtifact[] =
    "SELECT hash, generator, version, params_json, size, path, created_at FROM artifacts "
    "WHERE hash = ?1";
constexpr char kAddDecision[] =
    "INSERT INTO decisions (run_id, baseline, suite, case_name, metric, verdict, test, n, p, "
    "effect, ci_low, ci_high, threshold, policy_version, detail_json, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
constexpr char kGetDecisions[] =
    "SELECT run_id, baseline, suite, case_name, metric, verdict, test, n, p, effect, ci_low, "
    "ci_high, threshold, policy_version, detail_json, created_at FROM decisions "
    "WHERE run_id = ?1 ORDER BY id";
constexpr char kCacheGet[] = "SELECT response FROM http_cache WHERE key = ?1";
constexpr char kCachePut[] =
    "INSERT OR REPLACE INTO http_cache (key, response, created_at) VALUES (?1, ?2, ?3)";

nlohmann::json ParseStored(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string Json(const Ledger::Impl& d, const nlohmann::json& j, const std::string& what) {
  return d.NamingTheFile(what, [&] { return CanonicalJson(j); });
}

}  // namespace

std::vector<Ceiling> Ledger::GetCeilings(const std::string& platform_hash) {
  Impl& d = *impl_;
  std::vector<Ceiling> out;
  sql::Stmt& s = d.Prepare(kGetCeilings);
  s.BindText(1, platform_hash);
  while (s.Step()) {
    Ceiling c;
    c.name = s.String(0);
    c.value = s.Real(1);
    c.unit = s.String(2);
    c.detail = ParseStored(s.Text(3));
    c.measured_at = s.String(4);
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
    sql::Stmt& s = d.Prepare(kPutCeiling);
    s.BindText(1, platform_hash);
    s.BindText(2, c.name);
    s.BindReal(3, c.value);
    s.BindText(4, c.unit);
    s.BindText(5, detail);
    s.BindText(6, c.measured_at.empty() ? now : c.measured_at);
    s.Run();
  }
  scope.Commit();
}

void Ledger::PutArtifact(const Artifact& a) {
  Impl& d = *impl_;
  d.RequireWritable("store an artifact");
  const std::string params = Json(d, a.params, "artifact " + a.hash + " params");
  const std::string now = NowUtcIso8601();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kPutArtifact);
  s.BindText(1, a.hash);
  s.BindText(2, a.generator);
  s.BindInt(3, a.version);
  s.BindText(4, params);
  s.BindInt(5, a.size);
  s.BindText(6, a.path);
  s.BindText(7, now);
  s.Run();
  scope.Commit();
}

std::optional<Artifact> Ledger::GetArtifact(const std::string& hash) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kGetArtifact);
  s.BindText(1, hash);
  if (!s.Step()) {
    s.Reset();
    return std::nullopt;
  }
  Artifact a;
  a.hash = s.String(0);
  a.generator = s.String(1);
  a.version = s.Int(2);
  a.params = ParseStored(s.Text(3));
  a.size = s.Int(4);
  a.path = s.String(5);
  a.created_at = s.String(6);
  s.Reset();
  return a;
}

int64_t Ledger::AddDecision(const Decision& dec) {
  Impl& d = *impl_;
  d.RequireWritable("record a decision");
  const std::string detail = Json(d, dec.detail, "decision detail");
  const std::string now = NowUtcIso8601();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kAddDecision);
  s.BindInt(1, dec.run_id);
  s.BindText(2, dec.baseline);
  s.BindText(3, dec.suite);
  s.BindText(4, dec.case_name);
  s.BindText(5, dec.metric);
  s.BindText(6, dec.verdict);
  s.BindText(7, dec.test);
  s.BindOptInt(8, dec.n);
  s.BindOptReal(9, CanonicalReal(dec.p));
  s.BindOptReal(10, CanonicalReal(dec.effect));
  s.BindOptReal(11, CanonicalReal(dec.ci_low));
  s.BindOptReal(12, CanonicalReal(dec.ci_high));
  s.BindOptReal(13, CanonicalReal(dec.threshold));
  s.BindText(14, dec.policy_version);
  s.BindText(15, detail);
  s.BindText(16, now);
  s.Run();
  const int64_t id = sqlite3_last_insert_rowid(d.db.get());
  scope.Commit();
  return id;
}

std::vector<Decision> Ledger::GetDecisions(int64_t run_id) {
  Impl& d = *impl_;
  std::vector<Decision> out;
  sql::Stmt& s = d.Prepare(kGetDecisions);
  s.BindInt(1, run_id);
  while (s.Step()) {
    Decision dec;
    dec.run_id = s.Int(0);
    dec.baseline = s.String(1);
    dec.suite = s.String(2);
    dec.case_name = s.String(3);
    dec.metric = s.String(4);
    dec.verdict = s.String(5);
    dec.test = s.String(6);
    if (!s.IsNull(7)) dec.n = s.Int(7);
    dec.p = s.OptReal(8);
    dec.effect = s.OptReal(9);
    dec.ci_low = s.OptReal(10);
    dec.ci_high = s.OptReal(11);
    dec.threshold = s.OptReal(12);
    dec.policy_version = s.String(13);
    dec.detail = ParseStored(s.Text(14));
    dec.created_at = s.String(15);
    out.push_back(std::move(dec));
  }
  s.Reset();
  return out;
}

std::optional<std::string> Ledger::CacheGet(const std::string& key) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kCacheGet);
  s.BindText(1, key);
  std::optional<std::string> out;
  if (s.Step()) out = std::string(s.Blob(0));
  s.Reset();
  return out;
}

void Ledger::CachePut(const std::string& key, std::string_view response) {
  Impl& d = *impl_;
  d.RequireWritable("store a cache entry");
  const std::string now = NowUtcIso8601();
  WriteScope scope(d);
  sql::Stmt& s = d.Prepare(kCachePut);
  s.BindText(1, key);
  s.BindBlob(2, response);
  s.BindText(3, now);
  s.Run();
  scope.Commit();
}

}  // namespace cb::ledger

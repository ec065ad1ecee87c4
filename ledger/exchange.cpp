// File: ledger/exchange.cpp
// -----------------------------------------------------------------------------
// Moving sealed runs between ledgers: Export (JSON Lines), Import and Merge.
//
// Export format, one line per sealed run (format_version 1):
//
//   {"format": "claimbench-ledger-run", "format_version": 1,
//    "run":     {run_uuid, status, command, profile, seed (uint64),
//                git_commit, git_dirty (bool), source_hash, platform_hash,
//                platform_json, build_json, started_at, finished_at, host,
//                pid, run_hash, chain_hash},
//    "results": [{seq, hash_version, suite, case_name, backend, params_json,
//                 metric, unit, direction, value, ci_low, ci_high, n,
//                 samples, input_hash, output_hash, threads, energy_j,
//                 energy_source, energy_window_s, kind, content_hash}, ...],
//    "claims":  [{seq, hash_version, claim_id, ..., requirements_json,
//                 depends_on_clock, own_results, kind, criterion_hash,
//                 inputs_json, content_hash}, ...]}
//   (a claim without hash_version, from an older export, is a claim/1 row;
//   kind and depends_on_clock are null on rows recorded before schema
//   version 4 (result/1-3, claim/1-2), own_results on claims recorded
//   before schema version 6 (claim/1-3), a claim's kind, criterion_hash and
//   inputs_json before schema version 7 (claim/1-4), and each is absent
//   from older exports, which reads the same)
//
// The *_json fields travel as the exact stored text, not as parsed objects:
// hashes cover those bytes, and re-serialising them (possibly with another
// JSON library version) could change them. Reals are JSON numbers (printed
// so that they parse back to the same double), null for NULL, and the strings
// "inf" / "-inf" / "nan" where JSON has no number.
//
// Import re-derives every content_hash and the run_hash from the line's own
// fields before writing, skips a run whose run_hash is already present (so
// import and merge are idempotent), appends new runs to this ledger's chain
// (their chain_hash here differs from the source's: a chain is per ledger),
// and is one write (see WriteScope), so a bad line leaves the ledger as it
// was, even inside the caller's transaction.
#include <algorithm>
#include <bit>
#include <cmath>
#include <istream>
#include <limits>
#include <ostream>

#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/rows.h"

namespace cb::ledger {
namespace {

constexpr char kFormat[] = "claimbench-ledger-run";
constexpr int kFormatVersion = 1;

constexpr char kSealedRunIds[] =
    "SELECT id FROM runs WHERE run_hash IS NOT NULL ORDER BY chain_seq";
constexpr char kRunByHash[] = "SELECT id FROM runs WHERE run_hash = ?1";
constexpr char kRunByUuid[] = "SELECT id FROM runs WHERE run_uuid = ?1";

// --- to JSON -----------------------------------------------------------------

nlohmann::json RealJson(std::optional<double> v) {
  if (!v) return nullptr;
  if (std::isnan(*v)) return "nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  return *v;
}

nlohmann::json SamplesJson(std::string_view blob) {
  nlohmann::json out = nlohmann::json::array();
  for (double s : SamplesFromBlob(blob)) out.push_back(RealJson(s));
  return out;
}

nlohmann::json OptTextJson(std::optional<std::string_view> v) {
  if (!v) return nullptr;
  return std::string(*v);
}

nlohmann::json ResultJson(const StoredResult& row) {
  const ResultView& v = row.view;
  return {{"seq", v.seq},
          {"hash_version", v.hash_version},
          {"suite", v.suite},
          {"case_name", v.case_name},
          {"backend", v.backend},
          {"params_json", v.params_json},
          {"metric", v.metric},
          {"unit", v.unit},
          {"direction", v.direction},
          {"value", RealJson(v.value)},
          {"ci_low", RealJson(v.ci_low)},
          {"ci_high", RealJson(v.ci_high)},
          {"n", v.n},
          {"samples", SamplesJson(v.samples)},
          {"input_hash", v.input_hash},
          {"output_hash", v.output_hash},
          {"threads", v.threads},
          {"energy_j", RealJson(v.energy_j)},
          {"energy_source", OptTextJson(v.energy_source)},
          {"energy_window_s", RealJson(v.energy_window_s)},
          {"kind", OptTextJson(v.kind)},
          {"content_hash", row.content_hash}};
}

nlohmann::json ClaimJson(const StoredClaim& row) {
  const ClaimView& v = row.view;
  return {{"seq", v.seq},
          {"hash_version", v.hash_version},
          {"claim_id", v.claim_id},
          {"suite", v.suite},
          {"paper", v.paper},
          {"section", v.section},
          {"statement", v.statement},
          {"paper_value", v.paper_value},
          {"paper_setting", v.paper_setting},
          {"our_setting", v.our_setting},
          {"metric", v.metric},
          {"criterion", v.criterion},
          {"scale", v.scale},
          {"verdict", v.verdict},
          {"value", RealJson(v.value)},
          {"ci_low", RealJson(v.ci_low)},
          {"ci_high", RealJson(v.ci_high)},
          {"confidence", RealJson(v.confidence)},
          {"reason", v.reason},
          {"requirements_json", v.requirements_json},
          {"depends_on_clock", v.depends_on_clock ? nlohmann::json(*v.depends_on_clock != 0)
                                                  : nlohmann::json()},
          {"own_results", v.own_results ? nlohmann::json(*v.own_results) : nlohmann::json()},
          {"kind", OptTextJson(v.kind)},
          {"criterion_hash", OptTextJson(v.criterion_hash)},
          {"inputs_json", OptTextJson(v.inputs_json)},
          {"content_hash", row.content_hash}};
}

// One sealed run of `d` as an export object.
nlohmann::json RunJson(Ledger::Impl& d, int64_t run_id) {
  const std::string name = "run " + std::to_string(run_id);
  nlohmann::json run;
  {
    sql::Stmt& s = d.Prepare(kSelectRun);
    s.BindInt(1, run_id);
    if (!s.Step()) d.Fail(name + " does not exist");
    StoredRun r;
    if (const char* bad = ReadRun(s, &r)) d.Fail(name + ": column '" + bad + "' has the wrong type");
    if (!r.run_hash) d.Fail(name + " is not sealed; only sealed runs can be exported");
    const RunView& v = r.view;
    run = {{"run_uuid", v.run_uuid},
           {"status", v.status},
           {"command", v.command},
           {"profile", v.profile},
           {"seed", std::bit_cast<uint64_t>(v.seed)},
           {"git_commit", v.git_commit},
           {"git_dirty", v.git_dirty != 0},
           {"source_hash", v.source_hash},
           {"platform_hash", v.platform_hash},
           {"platform_json", v.platform_json},
           {"build_json", v.build_json},
           {"started_at", v.started_at},
           {"finished_at", OptTextJson(v.finished_at)},
           {"host", r.host},
           {"pid", r.pid},
           {"run_hash", *r.run_hash},
           {"chain_hash", OptTextJson(r.chain_hash)}};
    s.Reset();
  }
  nlohmann::json results = nlohmann::json::array();
  {
    sql::Stmt& s = d.Prepare(kSelectRunResults);
    s.BindInt(1, run_id);
    StoredResult row;
    while (s.Step()) {
      if (const char* bad = ReadResult(s, &row)) {
        d.Fail(name + ": a result's column '" + bad + "' has the wrong type");
      }
      results.push_back(ResultJson(row));
    }
    s.Reset();
  }
  nlohmann::json claims = nlohmann::json::array();
  {
    sql::Stmt& s = d.Prepare(kSelectRunClaims);
    s.BindInt(1, run_id);
    StoredClaim row;
    while (s.Step()) {
      if (const char* bad = ReadClaim(s, &row)) {
        d.Fail(name + ": a claim's column '" + bad + "' has the wrong type");
      }
      claims.push_back(ClaimJson(row));
    }
    s.Reset();
  }
  return {{"format", kFormat},
          {"format_version", kFormatVersion},
          {"run", std::move(run)},
          {"results", std::move(results)},
          {"claims", std::move(claims)}};
}

std::vector<int64_t> SealedRunIds(Ledger::Impl& d) {
  std::vector<int64_t> ids;
  sql::Stmt& s = d.Prepare(kSealedRunIds);
  while (s.Step()) ids.push_back(s.Int(0));
  s.Reset();
  return ids;
}

// --- from JSON ---------------------------------------------------------------

// Typed access to one JSON object; every failure names the import position
// and the field, e.g. "import 'x.jsonl' line 3: results[2].value: ...".
class Fields {
 public:
  // `where` is the position ("import 'x.jsonl' line 3"), `path` the object
  // within the line ("", "run", "results[2]").
  Fields(const Ledger::Impl& d, const nlohmann::json& obj, std::string where, std::string path)
      : d_(d), obj_(obj), where_(std::move(where)), path_(std::move(path)) {
    if (!obj_.is_object()) Bad("", "expected a JSON object");
  }

  [[noreturn]] void Bad(std::string_view key, std::string_view what) const {
    std::string field = path_;
    if (!key.empty()) field += (field.empty() ? "" : ".") + std::string(key);
    d_.Fail(where_ + ": " + (field.empty() ? "" : field + ": ") + std::string(what));
  }

  const nlohmann::json& Get(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) Bad(key, "missing");
    return *it;
  }
  std::string Str(const char* key) const {
    const auto& v = Get(key);
    if (!v.is_string()) Bad(key, "expected a string");
    return v.get<std::string>();
  }
  std::optional<std::string> OptStr(const char* key) const {
    const auto& v = Get(key);
    if (v.is_null()) return std::nullopt;
    return Str(key);
  }
  // A field that older exports lack: absent reads as null.
  std::optional<std::string> AbsentOrOptStr(const char* key) const {
    if (obj_.find(key) == obj_.end()) return std::nullopt;
    return OptStr(key);
  }
  std::optional<bool> AbsentOrOptBool(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return std::nullopt;
    return Bool(key);
  }
  int64_t Int(const char* key) const {
    const auto& v = Get(key);
    if (!v.is_number_integer()) Bad(key, "expected an integer");
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) Bad(key, "out of range");
    return v.get<int64_t>();
  }
  // An integer field that older exports lack: `absent` when missing.
  int64_t IntOr(const char* key, int64_t absent) const {
    return obj_.find(key) == obj_.end() ? absent : Int(key);
  }
  // An integer field that older exports lack: absent reads as null.
  std::optional<int64_t> AbsentOrOptInt(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return std::nullopt;
    return Int(key);
  }
  uint64_t UInt(const char* key) const {
    const auto& v = Get(key);
    if (!v.is_number_unsigned()) Bad(key, "expected an unsigned integer");
    return v.get<uint64_t>();
  }
  bool Bool(const char* key) const {
    const auto& v = Get(key);
    if (!v.is_boolean()) Bad(key, "expected true or false");
    return v.get<bool>();
  }
  std::optional<double> Real(const char* key) const { return RealOf(Get(key), key); }
  const nlohmann::json& Array(const char* key) const {
    const auto& v = Get(key);
    if (!v.is_array()) Bad(key, "expected an array");
    return v;
  }

  std::optional<double> RealOf(const nlohmann::json& v, std::string_view key) const {
    if (v.is_null()) return std::nullopt;
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    Bad(key, "expected a number, null, \"inf\", \"-inf\" or \"nan\"");
  }

 private:
  const Ledger::Impl& d_;
  const nlohmann::json& obj_;
  std::string where_, path_;
};

// A row decoded from JSON, owning the bytes its view points to.
struct ImportedResult {
  std::string suite, case_name, backend, params_json, metric, unit, direction;
  std::string samples, input_hash, output_hash, content_hash;
  std::optional<std::string> energy_source, kind;
  ResultView view;
};

struct ImportedClaim {
  std::string claim_id, suite, paper, section, statement, paper_value, paper_setting;
  std::string our_setting, metric, criterion, scale, verdict, reason, requirements_json;
  std::string content_hash;
  std::optional<std::string> kind, criterion_hash, inputs_json;
  ClaimView view;
};

void DecodeResult(const Fields& f, ImportedResult* r) {
  ResultView& v = r->view;
  v.seq = f.Int("seq");
  v.hash_version = static_cast<int>(f.Int("hash_version"));
  r->suite = f.Str("suite");
  r->case_name = f.Str("case_name");
  r->backend = f.Str("backend");
  r->params_json = f.Str("params_json");
  r->metric = f.Str("metric");
  r->unit = f.Str("unit");
  r->direction = f.Str("direction");
  v.value = CanonicalReal(f.Real("value"));
  v.ci_low = CanonicalReal(f.Real("ci_low"));
  v.ci_high = CanonicalReal(f.Real("ci_high"));
  v.n = f.Int("n");
  std::vector<double> samples;
  const auto& array = f.Array("samples");
  for (size_t i = 0; i < array.size(); ++i) {
    const auto s = f.RealOf(array[i], "samples[" + std::to_string(i) + "]");
    if (!s) f.Bad("samples", "null in raw samples");
    samples.push_back(*s);
  }
  r->samples = SamplesBlob(samples);
  r->input_hash = f.Str("input_hash");
  r->output_hash = f.Str("output_hash");
  v.threads = f.Int("threads");
  v.energy_j = CanonicalReal(f.Real("energy_j"));
  r->energy_source = f.OptStr("energy_source");
  v.energy_window_s = CanonicalReal(f.Real("energy_window_s"));
  r->kind = f.AbsentOrOptStr("kind");
  r->content_hash = f.Str("content_hash");
  v.suite = r->suite;
  v.case_name = r->case_name;
  v.backend = r->backend;
  v.params_json = r->params_json;
  v.metric = r->metric;
  v.unit = r->unit;
  v.direction = r->direction;
  v.samples = r->samples;
  v.input_hash = r->input_hash;
  v.output_hash = r->output_hash;
  if (r->energy_source) v.energy_source = std::string_view(*r->energy_source);
  if (r->kind) v.kind = std::string_view(*r->kind);
}

void DecodeClaim(const Fields& f, ImportedClaim* c) {
  ClaimView& v = c->view;
  // Exports written before schema step 3 carry no claim hash_version: claim/1.
  v.hash_version = static_cast<int>(f.IntOr("hash_version", 1));
  v.seq = f.Int("seq");
  c->claim_id = f.Str("claim_id");
  c->suite = f.Str("suite");
  c->paper = f.Str("paper");
  c->section = f.Str("section");
  c->statement = f.Str("statement");
  c->paper_value = f.Str("paper_value");
  c->paper_setting = f.Str("paper_setting");
  c->our_setting = f.Str("our_setting");
  c->metric = f.Str("metric");
  c->criterion = f.Str("criterion");
  c->scale = f.Str("scale");
  c->verdict = f.Str("verdict");
  v.value = CanonicalReal(f.Real("value"));
  v.ci_low = CanonicalReal(f.Real("ci_low"));
  v.ci_high = CanonicalReal(f.Real("ci_high"));
  v.confidence = CanonicalReal(f.Real("confidence"));
  c->reason = f.Str("reason");
  c->requirements_json = f.Str("requirements_json");
  if (const auto clock = f.AbsentOrOptBool("depends_on_clock")) v.depends_on_clock = *clock ? 1 : 0;
  v.own_results = f.AbsentOrOptInt("own_results");
  c->kind = f.AbsentOrOptStr("kind");
  c->criterion_hash = f.AbsentOrOptStr("criterion_hash");
  c->inputs_json = f.AbsentOrOptStr("inputs_json");
  c->content_hash = f.Str("content_hash");
  v.claim_id = c->claim_id;
  v.suite = c->suite;
  v.paper = c->paper;
  v.section = c->section;
  v.statement = c->statement;
  v.paper_value = c->paper_value;
  v.paper_setting = c->paper_setting;
  v.our_setting = c->our_setting;
  v.metric = c->metric;
  v.criterion = c->criterion;
  v.scale = c->scale;
  v.verdict = c->verdict;
  v.reason = c->reason;
  v.requirements_json = c->requirements_json;
  if (c->kind) v.kind = std::string_view(*c->kind);
  if (c->criterion_hash) v.criterion_hash = std::string_view(*c->criterion_hash);
  if (c->inputs_json) v.inputs_json = std::string_view(*c->inputs_json);
}

bool CheckHash(std::string_view stored_hex, const Hash128& computed) {
  const auto stored = Hash128::FromHex(stored_hex);
  return stored && *stored == computed;
}

// The hashes of one table's rows in seq order (sorts `rows`); a seq given
// twice is refused.
std::vector<Hash128> InSeqOrder(const Fields& top, const char* table, std::vector<SeqHash>& rows) {
  std::optional<int64_t> duplicate;
  std::vector<Hash128> hashes = HashesInSeqOrder(rows, &duplicate);
  if (duplicate) top.Bad(table, "seq " + std::to_string(*duplicate) + " appears twice");
  return hashes;
}

// Refuses seqs other than 1..n (Verify would refuse them once stored: a seq
// past the last is how a moved row shows, since run_hash covers only the
// order). Checked after run_hash, so a dropped row is reported as that.
// REQUIRES: `rows` in seq order (InSeqOrder sorted them).
void CheckNumberedFromOne(const Fields& top, const char* table, const std::vector<SeqHash>& rows) {
  for (size_t k = 0; k < rows.size(); ++k) {
    if (rows[k].seq != static_cast<int64_t>(k) + 1) {
      top.Bad(table, "seq " + std::to_string(rows[k].seq) + " where " + std::to_string(k + 1) +
                         " was expected (a run's rows are numbered 1.." +
                         std::to_string(rows.size()) + ")");
    }
  }
}

// Verifies one export object and, unless its run_hash is already here, writes
// it. REQUIRES: inside a WriteScope.
void ImportRun(Ledger::Impl& d, const nlohmann::json& line, const std::string& where,
               ImportReport* report) {
  const Fields top(d, line, where, "");
  if (top.Str("format") != kFormat) top.Bad("format", "expected \"" + std::string(kFormat) + "\"");
  const int64_t version = top.Int("format_version");
  if (version > kFormatVersion) {
    top.Bad("format_version", std::to_string(version) + " is newer than this build reads (" +
                                  std::to_string(kFormatVersion) + ")");
  }
  if (version < 1) top.Bad("format_version", "must be >= 1");

  const Fields run(d, top.Get("run"), where, "run");
  OwnedRun meta;
  meta.run_uuid = run.Str("run_uuid");
  meta.status = run.Str("status");
  meta.command = run.Str("command");
  meta.profile = run.Str("profile");
  meta.seed = std::bit_cast<int64_t>(run.UInt("seed"));
  meta.git_commit = run.Str("git_commit");
  meta.git_dirty = run.Bool("git_dirty") ? 1 : 0;
  meta.source_hash = run.Str("source_hash");
  meta.platform_hash = run.Str("platform_hash");
  meta.platform_json = run.Str("platform_json");
  meta.build_json = run.Str("build_json");
  meta.started_at = run.Str("started_at");
  meta.finished_at = run.OptStr("finished_at");
  const std::string host = run.Str("host");
  const int64_t pid = run.Int("pid");
  const std::string run_hash_hex = run.Str("run_hash");
  if (meta.status != "complete" && meta.status != "failed" && meta.status != "interrupted") {
    run.Bad("status", "'" + meta.status + "' is not the status of a sealed run");
  }

  // Rows are stored with the hashes computed here (canonical lower-case hex),
  // not the line's text, which only has to match them.
  std::string scratch;
  const auto& result_array = top.Array("results");
  std::vector<ImportedResult> results(result_array.size());
  std::vector<SeqHash> result_hashes;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string path = "results[" + std::to_string(i) + "]";
    const Fields f(d, result_array[i], where, path);
    DecodeResult(f, &results[i]);
    const ResultView& v = results[i].view;
    if (std::string problem = ResultViewProblem(v); !problem.empty()) f.Bad("", problem);
    const Hash128 h = ResultHash(v, &scratch);
    if (!CheckHash(results[i].content_hash, h)) {
      d.Fail(where + ": " + path + " (seq " + std::to_string(v.seq) + "): content_hash mismatch");
    }
    results[i].content_hash = h.Hex();
    result_hashes.push_back({v.seq, h});
  }
  const auto& claim_array = top.Array("claims");
  std::vector<ImportedClaim> claims(claim_array.size());
  std::vector<SeqHash> claim_hashes;
  for (size_t i = 0; i < claims.size(); ++i) {
    const std::string path = "claims[" + std::to_string(i) + "]";
    const Fields f(d, claim_array[i], where, path);
    DecodeClaim(f, &claims[i]);
    if (std::string problem = ClaimViewProblem(claims[i].view); !problem.empty()) f.Bad("", problem);
    const Hash128 h = ClaimHash(claims[i].view, &scratch);
    if (!CheckHash(claims[i].content_hash, h)) {
      d.Fail(where + ": " + path + " (seq " + std::to_string(claims[i].view.seq) +
             "): content_hash mismatch");
    }
    claims[i].content_hash = h.Hex();
    claim_hashes.push_back({claims[i].view.seq, h});
  }

  const RunView v = meta.View();
  const Hash128 run_hash = RunHash(v, InSeqOrder(top, "results", result_hashes),
                                   InSeqOrder(top, "claims", claim_hashes));
  if (!CheckHash(run_hash_hex, run_hash)) {
    run.Bad("run_hash", "mismatch (the run's meta or rows were changed)");
  }
  CheckNumberedFromOne(top, "results", result_hashes);
  CheckNumberedFromOne(top, "claims", claim_hashes);

  const std::string run_hex = run_hash.Hex();
  {
    sql::Stmt& s = d.Prepare(kRunByHash);
    s.BindText(1, run_hex);
    const bool present = s.Step();
    s.Reset();
    if (present) {
      ++report->runs_skipped;
      return;
    }
  }
  {
    sql::Stmt& s = d.Prepare(kRunByUuid);
    s.BindText(1, meta.run_uuid);
    const bool present = s.Step();
    s.Reset();
    if (present) {
      run.Bad("run_uuid", meta.run_uuid + " is already in this ledger with a different run_hash");
    }
  }

  sql::Stmt& insert_run = d.Prepare(kInsertRun);
  BindRun(insert_run, v, host, pid, std::nullopt);
  insert_run.Run();
  const int64_t run_id = sqlite3_last_insert_rowid(d.db.get());
  for (const ImportedResult& r : results) {
    sql::Stmt& insert = d.Prepare(kInsertResult);
    BindResult(insert, run_id, r.view, r.content_hash);
    insert.Run();
  }
  for (const ImportedClaim& c : claims) {
    sql::Stmt& insert = d.Prepare(kInsertClaim);
    BindClaim(insert, run_id, c.view, c.content_hash);
    insert.Run();
  }
  d.AppendToChain(run_id, run_hash);
  ++report->runs_added;
}

}  // namespace

void Ledger::Export(std::ostream& out, std::span<const int64_t> run_ids) {
  Impl& d = *impl_;
  ReadSnapshot snapshot(d);
  std::vector<int64_t> ids(run_ids.begin(), run_ids.end());
  if (ids.empty()) ids = SealedRunIds(d);
  for (int64_t id : ids) {
    std::string line;
    try {
      line = RunJson(d, id).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::exception&) {
      d.Fail("run " + std::to_string(id) + " has text that is not valid UTF-8 and cannot be exported");
    }
    out << line << '\n';
  }
  out.flush();
  if (!out) d.Fail("writing the export failed");
}

ImportReport Ledger::Import(std::istream& in, const std::string& source_name) {
  Impl& d = *impl_;
  d.RequireWritable("import");
  ImportReport report;
  WriteScope scope(d);
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "import '" + source_name + "' line " + std::to_string(line_no);
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) d.Fail(where + ": not valid JSON");
    ImportRun(d, j, where, &report);
  }
  if (in.bad()) d.Fail("import '" + source_name + "': read error");
  // An empty file is almost always a wrong path or a failed export, never a
  // run worth "importing 0 runs" for.
  if (report.runs_added + report.runs_skipped == 0) d.Fail("import '" + source_name + "': holds no runs (empty file)");
  scope.Commit();
  return report;
}

ImportReport Ledger::Merge(const std::string& other_path) {
  Impl& d = *impl_;
  d.RequireWritable("merge");
  Ledger other = OpenReadOnly(other_path);
  Impl& o = *other.impl_;
  ImportReport report;
  ReadSnapshot other_snapshot(o);
  WriteScope scope(d);
  for (int64_t id : SealedRunIds(o)) {
    const std::string where = "merge '" + other_path + "' run " + std::to_string(id);
    ImportRun(d, RunJson(o, id), where, &report);
  }
  scope.Commit();
  return report;
}

}  // namespace cb::ledger

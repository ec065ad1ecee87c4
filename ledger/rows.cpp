// File: ledger/rows.cpp
// -----------------------------------------------------------------------------
// Row readers, binders and owning canonical forms (see rows.h). Column
// indices here follow the CB_LEDGER_*_COLUMNS lists and INSERT statements in
// rows.h; keep the two in step.
#include "ledger/rows.h"

#include <limits>

#include "ledger/columns.h"

namespace cb::ledger {

const char* ReadResult(const sql::Stmt& s, StoredResult* out) {
  Columns c(s);
  ResultView& v = out->view;
  out->id = c.Int(0, "id");
  out->run_id = c.Int(1, "run_id");
  v.seq = c.Int(2, "seq");
  v.hash_version = static_cast<int>(c.Int(3, "hash_version"));
  v.suite = c.Text(4, "suite");
  v.case_name = c.Text(5, "case_name");
  v.backend = c.Text(6, "backend");
  v.params_json = c.Text(7, "params_json");
  v.metric = c.Text(8, "metric");
  v.unit = c.Text(9, "unit");
  v.direction = c.Text(10, "direction");
  v.value = c.Real(11, "value");
  v.ci_low = c.Real(12, "ci_low");
  v.ci_high = c.Real(13, "ci_high");
  v.n = c.Int(14, "n");
  v.samples = c.Blob(15, "samples");
  v.input_hash = c.Text(16, "input_hash");
  v.output_hash = c.Text(17, "output_hash");
  v.threads = c.Int(18, "threads");
  v.energy_j = c.Real(19, "energy_j");
  v.energy_source = c.OptText(20, "energy_source");
  v.energy_window_s = c.Real(21, "energy_window_s");
  out->content_hash = c.Text(22, "content_hash");
  v.kind = c.OptText(23, "kind");
  return c.problem();
}

const char* ReadClaim(const sql::Stmt& s, StoredClaim* out) {
  Columns c(s);
  ClaimView& v = out->view;
  out->id = c.Int(0, "id");
  out->run_id = c.Int(1, "run_id");
  v.seq = c.Int(2, "seq");
  v.claim_id = c.Text(3, "claim_id");
  v.suite = c.Text(4, "suite");
  v.paper = c.Text(5, "paper");
  v.section = c.Text(6, "section");
  v.statement = c.Text(7, "statement");
  v.paper_value = c.Text(8, "paper_value");
  v.paper_setting = c.Text(9, "paper_setting");
  v.our_setting = c.Text(10, "our_setting");
  v.metric = c.Text(11, "metric");
  v.criterion = c.Text(12, "criterion");
  v.scale = c.Text(13, "scale");
  v.verdict = c.Text(14, "verdict");
  v.value = c.Real(15, "value");
  v.ci_low = c.Real(16, "ci_low");
  v.ci_high = c.Real(17, "ci_high");
  v.confidence = c.Real(18, "confidence");
  v.reason = c.Text(19, "reason");
  v.requirements_json = c.Text(20, "requirements_json");
  out->content_hash = c.Text(21, "content_hash");
  v.hash_version = static_cast<int>(c.Int(22, "hash_version"));
  v.depends_on_clock = c.OptInt(23, "depends_on_clock");
  v.own_results = c.OptInt(24, "own_results");
  v.kind = c.OptText(25, "kind");
  v.criterion_hash = c.OptText(26, "criterion_hash");
  v.inputs_json = c.OptText(27, "inputs_json");
  return c.problem();
}

const char* ReadRun(const sql::Stmt& s, StoredRun* out) {
  Columns c(s);
  RunView& v = out->view;
  out->id = c.Int(0, "id");
  v.run_uuid = c.Text(1, "run_uuid");
  v.status = c.Text(2, "status");
  v.command = c.Text(3, "command");
  v.profile = c.Text(4, "profile");
  v.seed = c.Int(5, "seed");
  v.git_commit = c.Text(6, "git_commit");
  v.git_dirty = c.Int(7, "git_dirty");
  v.source_hash = c.Text(8, "source_hash");
  v.platform_hash = c.Text(9, "platform_hash");
  v.platform_json = c.Text(10, "platform_json");
  v.build_json = c.Text(11, "build_json");
  v.started_at = c.Text(12, "started_at");
  v.finished_at = c.OptText(13, "finished_at");
  out->host = c.Text(14, "host");
  out->pid = c.Int(15, "pid");
  out->pid_start = c.OptInt(16, "pid_start");
  out->run_hash = c.OptText(17, "run_hash");
  out->chain_hash = c.OptText(18, "chain_hash");
  out->chain_seq = c.OptInt(19, "chain_seq");
  return c.problem();
}

void BindResult(sql::Stmt& insert, int64_t run_id, const ResultView& r,
                std::string_view content_hash) {
  insert.BindInt(1, run_id);
  insert.BindInt(2, r.seq);
  insert.BindInt(3, r.hash_version);
  insert.BindText(4, r.suite);
  insert.BindText(5, r.case_name);
  insert.BindText(6, r.backend);
  insert.BindText(7, r.params_json);
  insert.BindText(8, r.metric);
  insert.BindText(9, r.unit);
  insert.BindText(10, r.direction);
  insert.BindOptReal(11, CanonicalReal(r.value));
  insert.BindOptReal(12, CanonicalReal(r.ci_low));
  insert.BindOptReal(13, CanonicalReal(r.ci_high));
  insert.BindInt(14, r.n);
  insert.BindBlob(15, r.samples);
  insert.BindText(16, r.input_hash);
  insert.BindText(17, r.output_hash);
  insert.BindInt(18, r.threads);
  insert.BindOptReal(19, CanonicalReal(r.energy_j));
  insert.BindOptText(20, r.energy_source);
  insert.BindOptReal(21, CanonicalReal(r.energy_window_s));
  insert.BindText(22, content_hash);
  insert.BindOptText(23, r.kind);
}

void BindClaim(sql::Stmt& insert, int64_t run_id, const ClaimView& c,
               std::string_view content_hash) {
  insert.BindInt(1, run_id);
  insert.BindInt(2, c.seq);
  insert.BindText(3, c.claim_id);
  insert.BindText(4, c.suite);
  insert.BindText(5, c.paper);
  insert.BindText(6, c.section);
  insert.BindText(7, c.statement);
  insert.BindText(8, c.paper_value);
  insert.BindText(9, c.paper_setting);
  insert.BindText(10, c.our_setting);
  insert.BindText(11, c.metric);
  insert.BindText(12, c.criterion);
  insert.BindText(13, c.scale);
  insert.BindText(14, c.verdict);
  insert.BindOptReal(15, CanonicalReal(c.value));
  insert.BindOptReal(16, CanonicalReal(c.ci_low));
  insert.BindOptReal(17, CanonicalReal(c.ci_high));
  insert.BindOptReal(18, CanonicalReal(c.confidence));
  insert.BindText(19, c.reason);
  insert.BindText(20, c.requirements_json);
  insert.BindText(21, content_hash);
  insert.BindInt(22, c.hash_version);
  insert.BindOptInt(23, c.depends_on_clock);
  insert.BindOptInt(24, c.own_results);
  insert.BindOptText(25, c.kind);
  insert.BindOptText(26, c.criterion_hash);
  insert.BindOptText(27, c.inputs_json);
}

void BindRun(sql::Stmt& insert, const RunView& run, std::string_view host, int64_t pid,
             std::optional<int64_t> pid_start) {
  insert.BindText(1, run.run_uuid);
  insert.BindText(2, run.status);
  insert.BindText(3, run.command);
  insert.BindText(4, run.profile);
  insert.BindInt(5, run.seed);
  insert.BindText(6, run.git_commit);
  insert.BindInt(7, run.git_dirty);
  insert.BindText(8, run.source_hash);
  insert.BindText(9, run.platform_hash);
  insert.BindText(10, run.platform_json);
  insert.BindText(11, run.build_json);
  insert.BindText(12, run.started_at);
  insert.BindOptText(13, run.finished_at);
  insert.BindText(14, host);
  insert.BindInt(15, pid);
  insert.BindOptInt(16, pid_start);
}

CanonicalResult::CanonicalResult(const Result& r, int64_t seq)
    : params_json_(CanonicalJson(r.params)), samples_(SamplesBlob(r.samples)) {
  view_.hash_version = kResultHashVersion;
  view_.seq = seq;
  view_.suite = r.suite;
  view_.case_name = r.case_name;
  view_.backend = r.backend;
  view_.params_json = params_json_;
  view_.metric = r.metric;
  view_.unit = r.unit;
  view_.direction = r.direction;
  view_.value = CanonicalReal(r.value);
  view_.ci_low = CanonicalReal(r.ci_low);
  view_.ci_high = CanonicalReal(r.ci_high);
  view_.n = r.n;
  view_.samples = samples_;
  view_.input_hash = r.input_hash;
  view_.output_hash = r.output_hash;
  view_.threads = r.threads;
  view_.energy_j = CanonicalReal(r.energy_j);
  view_.energy_source = std::string_view(r.energy_source);
  view_.energy_window_s = CanonicalReal(r.energy_window_s);
  view_.kind = std::string_view(cb::harness::ResultKindName(r.kind));
}

CanonicalClaim::CanonicalClaim(const ClaimRow& c, int64_t seq)
    : requirements_json_(CanonicalJson(c.requirements)) {
  view_.seq = seq;
  view_.claim_id = c.claim_id;
  view_.suite = c.suite;
  view_.paper = c.paper;
  view_.section = c.section;
  view_.statement = c.statement;
  view_.paper_value = c.paper_value;
  view_.paper_setting = c.paper_setting;
  view_.our_setting = c.our_setting;
  view_.metric = c.metric;
  view_.criterion = c.criterion;
  view_.scale = c.scale;
  view_.verdict = c.verdict;
  view_.value = CanonicalReal(c.value);
  view_.ci_low = CanonicalReal(c.ci_low);
  view_.ci_high = CanonicalReal(c.ci_high);
  view_.confidence = CanonicalReal(c.confidence);
  view_.reason = c.reason;
  view_.requirements_json = requirements_json_;
  view_.depends_on_clock = c.depends_on_clock.value_or(false) ? 1 : 0;
  view_.own_results = c.own_results;
  // claim/5 fields left unset are written as a paper claim with no
  // recorded criterion and no user inputs (as depends_on_clock is false).
  view_.kind = c.kind ? std::string_view(*c.kind) : std::string_view("paper");
  // A non-null empty text: sqlite3_bind_text binds a null pointer as NULL.
  view_.criterion_hash = c.criterion_hash ? std::string_view(*c.criterion_hash) : std::string_view("");
  inputs_json_ = CanonicalJson(c.inputs.value_or(nlohmann::json::array()));
  view_.inputs_json = std::string_view(inputs_json_);
}

OwnedRun OwnedRun::Copy(const RunView& v) {
  OwnedRun run;
  run.run_uuid = v.run_uuid;
  run.status = v.status;
  run.command = v.command;
  run.profile = v.profile;
  run.seed = v.seed;
  run.git_commit = v.git_commit;
  run.git_dirty = v.git_dirty;
  run.source_hash = v.source_hash;
  run.platform_hash = v.platform_hash;
  run.platform_json = v.platform_json;
  run.build_json = v.build_json;
  run.started_at = v.started_at;
  if (v.finished_at) run.finished_at = std::string(*v.finished_at);
  return run;
}

RunView OwnedRun::View() const {
  RunView v;
  v.run_uuid = run_uuid;
  v.status = status;
  v.command = command;
  v.profile = profile;
  v.seed = seed;
  v.git_commit = git_commit;
  v.git_dirty = git_dirty;
  v.source_hash = source_hash;
  v.platform_hash = platform_hash;
  v.platform_json = platform_json;
  v.build_json = build_json;
  v.started_at = started_at;
  if (finished_at) v.finished_at = std::string_view(*finished_at);
  return v;
}

Result ToResult(const ResultView& v) {
  Result r;
  r.suite = v.suite;
  r.case_name = v.case_name;
  r.backend = v.backend;
  r.params = nlohmann::json::parse(v.params_json, nullptr, /*allow_exceptions=*/false);
  r.metric = v.metric;
  r.unit = v.unit;
  r.direction = v.direction;
  r.value = v.value.value_or(std::numeric_limits<double>::quiet_NaN());
  r.ci_low = v.ci_low;
  r.ci_high = v.ci_high;
  r.n = v.n;
  r.samples = SamplesFromBlob(v.samples);
  r.input_hash = v.input_hash;
  r.output_hash = v.output_hash;
  r.energy_j = v.energy_j;
  r.energy_source = std::string(v.energy_source.value_or(""));
  r.energy_window_s = v.energy_window_s;
  r.threads = static_cast<int>(v.threads);
  r.kind = StoredKind(v).value_or(cb::harness::ResultKind::kExact);
  return r;
}

std::optional<cb::harness::ResultKind> StoredKind(const ResultView& v) {
  if (!v.kind) return std::nullopt;
  return ParseResultKind(*v.kind);
}

ClaimRow ToClaimRow(const ClaimView& v) {
  ClaimRow c;
  c.claim_id = v.claim_id;
  c.suite = v.suite;
  c.paper = v.paper;
  c.section = v.section;
  c.statement = v.statement;
  c.paper_value = v.paper_value;
  c.paper_setting = v.paper_setting;
  c.our_setting = v.our_setting;
  c.metric = v.metric;
  c.criterion = v.criterion;
  c.scale = v.scale;
  c.verdict = v.verdict;
  c.value = v.value;
  c.ci_low = v.ci_low;
  c.ci_high = v.ci_high;
  c.confidence = v.confidence.value_or(std::numeric_limits<double>::quiet_NaN());
  c.reason = v.reason;
  c.requirements = nlohmann::json::parse(v.requirements_json, nullptr, false);
  if (v.depends_on_clock) c.depends_on_clock = *v.depends_on_clock != 0;
  c.own_results = v.own_results;
  if (v.kind) c.kind = std::string(*v.kind);
  if (v.criterion_hash) c.criterion_hash = std::string(*v.criterion_hash);
  if (v.inputs_json) c.inputs = nlohmann::json::parse(*v.inputs_json, nullptr, false);
  return c;
}

}  // namespace cb::ledger

// File: ledger/query.cpp
// -----------------------------------------------------------------------------
// Reading runs back: Log (newest first, with dead writers shown as
// "incomplete"), ResolveRun (id, "latest", hash or UUID prefix), GetRun,
// GetResults, GetClaims and Head (the newest sealed run of the chain).
#include <algorithm>
#include <cctype>

#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/rows.h"
#include "ledger/writer.h"

namespace cb::ledger {
namespace {

// Runs with their row counts. The counts use the UNIQUE(run_id, seq) indexes,
// so they cost an index range scan, not a table scan.
#define CB_LEDGER_SUMMARY_SELECT                                                   \
  "SELECT " CB_LEDGER_RUN_COLUMNS                                                  \
  ", (SELECT count(*) FROM results WHERE run_id = runs.id)"                        \
  ", (SELECT count(*) FROM claims WHERE run_id = runs.id) FROM runs "

// The two counts follow the 20 CB_LEDGER_RUN_COLUMNS.
constexpr int kResultCountColumn = 20;
constexpr int kClaimCountColumn = 21;

constexpr char kLog[] = CB_LEDGER_SUMMARY_SELECT "ORDER BY started_at DESC, id DESC LIMIT ?1";
constexpr char kSummary[] = CB_LEDGER_SUMMARY_SELECT "WHERE id = ?1";
constexpr char kLatest[] = "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1";
constexpr char kFindResults[] =
    "SELECT " CB_LEDGER_RESULT_COLUMNS " FROM results WHERE suite = ?1 AND case_name = ?2 "
    "AND metric = ?3 ORDER BY run_id, seq";
constexpr char kHead[] =
    "SELECT id, chain_seq, chain_hash FROM runs WHERE chain_seq IS NOT NULL "
    "ORDER BY chain_seq DESC LIMIT 1";
constexpr char kRunExists[] = "SELECT 1 FROM runs WHERE id = ?1";
constexpr char kByPrefix[] =
    "SELECT id FROM runs WHERE substr(run_hash, 1, length(?1)) = ?1 "
    "OR substr(run_uuid, 1, length(?1)) = ?1 LIMIT 3";

RunSummary Summarise(const Ledger::Impl& d, const sql::Stmt& s) {
  StoredRun run;
  if (const char* bad = ReadRun(s, &run)) {
    d.Fail("run " + std::to_string(s.Int(0)) + ": column '" + bad + "' has the wrong type");
  }
  RunSummary out;
  out.id = run.id;
  out.run_uuid = run.view.run_uuid;
  out.status = run.view.status;
  out.command = run.view.command;
  out.profile = run.view.profile;
  out.started_at = run.view.started_at;
  out.finished_at = std::string(run.view.finished_at.value_or(""));
  out.platform_hash = run.view.platform_hash;
  out.run_hash = std::string(run.run_hash.value_or(""));
  out.chain_hash = std::string(run.chain_hash.value_or(""));
  out.host = run.host;
  out.pid = run.pid;
  out.results = s.Int(kResultCountColumn);
  out.claims = s.Int(kClaimCountColumn);
  if (out.status == "running") {
    // Liveness can only be judged on the writer's own host; elsewhere the
    // run keeps its stored status and is not claimed alive.
    if (out.host == d.host) {
      out.writer_alive = ProcessAlive(run.pid, run.pid_start);
      if (!out.writer_alive) out.status = "incomplete";
    }
  }
  return out;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool HexOrDash(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
}

}  // namespace

std::vector<RunSummary> Ledger::Log(int limit) {
  Impl& d = *impl_;
  std::vector<RunSummary> runs;
  sql::Stmt& s = d.Prepare(kLog);
  s.BindInt(1, limit);
  while (s.Step()) runs.push_back(Summarise(d, s));
  s.Reset();
  return runs;
}

RunSummary Ledger::GetRun(int64_t run_id) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kSummary);
  s.BindInt(1, run_id);
  if (!s.Step()) d.Fail("run " + std::to_string(run_id) + " does not exist");
  RunSummary out = Summarise(d, s);
  s.Reset();
  return out;
}

int64_t Ledger::ResolveRun(const std::string& ref) {
  Impl& d = *impl_;
  if (ref == "latest") {
    sql::Stmt& s = d.Prepare(kLatest);
    if (!s.Step()) d.Fail("'latest': the ledger has no runs");
    const int64_t id = s.Int(0);
    s.Reset();
    return id;
  }
  if (AllDigits(ref) && ref.size() <= 18) {
    sql::Stmt& s = d.Prepare(kRunExists);
    s.BindInt(1, std::stoll(ref));
    const bool found = s.Step();
    s.Reset();
    if (found) return std::stoll(ref);
    if (ref.size() < 6) d.Fail("run " + ref + " does not exist");
  }
  if (ref.size() < 6 || !HexOrDash(ref)) {
    d.Fail("'" + ref + "' is not a run id, 'latest', or a run_hash / run_uuid prefix of >= 6 hex digits");
  }
  std::string prefix = ref;
  std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  sql::Stmt& s = d.Prepare(kByPrefix);
  s.BindText(1, prefix);
  std::vector<int64_t> ids;
  while (s.Step()) ids.push_back(s.Int(0));
  s.Reset();
  if (ids.empty()) d.Fail("no run matches '" + ref + "'");
  if (ids.size() > 1) d.Fail("'" + ref + "' matches several runs; give more digits");
  return ids.front();
}

std::vector<Result> Ledger::GetResults(int64_t run_id,
                                       std::vector<std::optional<cb::harness::ResultKind>>* kinds) {
  Impl& d = *impl_;
  std::vector<Result> out;
  if (kinds != nullptr) kinds->clear();
  sql::Stmt& s = d.Prepare(kSelectRunResults);
  s.BindInt(1, run_id);
  StoredResult row;
  while (s.Step()) {
    ReadResult(s, &row);  // type problems are Verify's business; read what is there
    out.push_back(ToResult(row.view));
    if (kinds != nullptr) kinds->push_back(StoredKind(row.view));
  }
  s.Reset();
  return out;
}

std::vector<std::pair<int64_t, Result>> Ledger::FindResults(const std::string& suite,
                                                             const std::string& case_name,
                                                             const std::string& metric) {
  Impl& d = *impl_;
  std::vector<std::pair<int64_t, Result>> out;
  sql::Stmt& s = d.Prepare(kFindResults);
  s.BindText(1, suite);
  s.BindText(2, case_name);
  s.BindText(3, metric);
  StoredResult row;
  while (s.Step()) {
    ReadResult(s, &row);
    out.emplace_back(s.Int(1), ToResult(row.view));
  }
  s.Reset();
  return out;
}

RunMeta Ledger::GetRunMeta(int64_t run_id) {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kSelectRun);
  s.BindInt(1, run_id);
  if (!s.Step()) d.Fail("run " + std::to_string(run_id) + " does not exist");
  StoredRun run;
  ReadRun(s, &run);
  RunMeta m;
  m.command = run.view.command;
  m.profile = run.view.profile;
  m.seed = static_cast<uint64_t>(run.view.seed);
  m.git_commit = run.view.git_commit;
  m.git_dirty = run.view.git_dirty != 0;
  m.source_hash = run.view.source_hash;
  m.platform_hash = run.view.platform_hash;
  m.platform = nlohmann::json::parse(run.view.platform_json, nullptr, /*allow_exceptions=*/false);
  m.build = nlohmann::json::parse(run.view.build_json, nullptr, /*allow_exceptions=*/false);
  s.Reset();
  return m;
}

std::vector<ClaimRow> Ledger::GetClaims(int64_t run_id) {
  Impl& d = *impl_;
  std::vector<ClaimRow> out;
  sql::Stmt& s = d.Prepare(kSelectRunClaims);
  s.BindInt(1, run_id);
  StoredClaim row;
  while (s.Step()) {
    ReadClaim(s, &row);
    out.push_back(ToClaimRow(row.view));
  }
  s.Reset();
  return out;
}

std::optional<ChainHead> Ledger::Head() {
  Impl& d = *impl_;
  sql::Stmt& s = d.Prepare(kHead);
  std::optional<ChainHead> head;
  if (s.Step()) head = ChainHead{s.Int(0), s.Int(1), s.String(2)};
  s.Reset();
  return head;
}

}  // namespace cb::ledger

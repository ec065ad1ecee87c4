// File: ledger/ledger.cpp
// -----------------------------------------------------------------------------
// Opening a ledger and everything that writes a run: BeginRun, AddResult(s),
// AddClaim, FinishRun (sealing and chaining), explicit transactions.
//
// Connection settings, and why:
//   journal_mode=WAL     readers never block the writer and a killed writer
//                        leaves only whole committed transactions;
//   synchronous=NORMAL   in WAL mode a commit survives a process crash (the
//                        WAL is written before COMMIT returns); only a power
//                        loss may drop the newest commits, never corrupt;
//   busy_timeout=10 s    concurrent writers queue instead of failing;
//   foreign_keys=ON      rows cannot name a run that does not exist.
// All writes begin with BEGIN IMMEDIATE: taking the write lock up front means
// SQLite's busy handler can wait for it, whereas upgrading a read transaction
// fails at once with SQLITE_BUSY.
#include "ledger/ledger.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "ledger/canonical.h"
#include "ledger/ledger_impl.h"
#include "ledger/rows.h"
#include "ledger/schema.h"
#include "ledger/writer.h"

namespace cb::ledger {
namespace {

constexpr int kBusyTimeoutMs = 10'000;

constexpr char kBegin[] = "BEGIN IMMEDIATE";
constexpr char kBeginRead[] = "BEGIN";
constexpr char kCommit[] = "COMMIT";
constexpr char kRollback[] = "ROLLBACK";
constexpr char kSavepoint[] = "SAVEPOINT ledger_write";
constexpr char kRelease[] = "RELEASE ledger_write";
constexpr char kRollbackToSavepoint[] = "ROLLBACK TO ledger_write; RELEASE ledger_write";
constexpr char kRunSealState[] = "SELECT run_hash IS NOT NULL FROM runs WHERE id = ?1";
constexpr char kMaxResultSeq[] = "SELECT COALESCE(MAX(seq), 0) FROM results WHERE run_id = ?1";
constexpr char kMaxClaimSeq[] = "SELECT COALESCE(MAX(seq), 0) FROM claims WHERE run_id = ?1";
constexpr char kClaimedResults[] = "SELECT COALESCE(SUM(own_results), 0) FROM claims WHERE run_id = ?1";
constexpr char kResultHashes[] =
    "SELECT content_hash FROM results WHERE run_id = ?1 ORDER BY seq";
constexpr char kClaimHashes[] = "SELECT content_hash FROM claims WHERE run_id = ?1 ORDER BY seq";
constexpr char kChainHead[] =
    "SELECT chain_hash, chain_seq FROM runs WHERE chain_seq IS NOT NULL "
    "ORDER BY chain_seq DESC LIMIT 1";
constexpr char kSetChain[] =
    "UPDATE runs SET run_hash = ?2, chain_hash = ?3, chain_seq = ?4 WHERE id = ?1";
constexpr char kSetFinal[] = "UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1";

// Parses a stored 32-hex-digit hash; throws naming `what` when malformed.
Hash128 ParseStoredHash(const Ledger::Impl& d, std::string_view hex, std::string_view what) {
  const auto h = Hash128::FromHex(hex);
  if (!h) d.Fail(std::string(what) + " is not 32 hex digits");
  return *h;
}

// The content hashes of a run's rows in seq order, as stored.
std::vector<Hash128> StoredRowHashes(Ledger::Impl& d, const char* select_sql, int64_t run_id) {
  std::vector<Hash128> hashes;
  sql::Stmt& s = d.Prepare(select_sql);
  s.BindInt(1, run_id);
  while (s.Step()) hashes.push_back(ParseStoredHash(d, s.Text(0), "a row's content_hash"));
  s.Reset();
  return hashes;
}

// Throws unless `run_id` exists and is not sealed: rows added to a sealed
// run would not be covered by its run_hash. `use_cache` trusts an earlier
// answer for this run (see Impl::open_runs).
void RequireOpenRun(Ledger::Impl& d, int64_t run_id, bool use_cache = false) {
  if (use_cache && d.open_runs.count(run_id) != 0) return;
  d.open_runs.erase(run_id);
  sql::Stmt& s = d.Prepare(kRunSealState);
  s.BindInt(1, run_id);
  if (!s.Step()) d.Fail("run " + std::to_string(run_id) + " does not exist");
  const bool sealed = s.Int(0) != 0;
  s.Reset();
  if (sealed) d.Fail("run " + std::to_string(run_id) + " is sealed; no rows can be added to it");
  d.open_runs.insert(run_id);
}

// Runs an INSERT of a row into `run_id`. When it fails because the run was
// sealed meanwhile (the guard trigger), the error says so by run id.
void InsertRow(Ledger::Impl& d, sql::Stmt& insert, int64_t run_id) {
  try {
    insert.Run();
  } catch (const LedgerError&) {
    RequireOpenRun(d, run_id);  // throws the specific reason if there is one
    throw;
  }
}

// The next seq for a run's rows, loaded from the file on first use.
int64_t& NextSeq(Ledger::Impl& d, std::unordered_map<int64_t, int64_t>& cache,
                 const char* max_sql, int64_t run_id) {
  auto it = cache.find(run_id);
  if (it != cache.end()) return it->second;
  sql::Stmt& s = d.Prepare(max_sql);
  s.BindInt(1, run_id);
  s.Step();
  const int64_t next = s.Int(0) + 1;
  s.Reset();
  return cache.emplace(run_id, next).first->second;
}

void ConfigureWritable(sql::Db& db) {
  // WAL is a property of the file, so only its first opener switches it (the
  // switch needs an exclusive lock). A file system without shared-memory
  // support keeps the rollback journal: slower, still correct.
  sql::Stmt mode(db, "PRAGMA journal_mode");
  const bool wal = mode.Step() && mode.Text(0) == "wal";
  mode.Reset();
  if (!wal) {
    sql::Stmt set(db, "PRAGMA journal_mode = WAL");
    set.Run();
  }
  db.Exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
}

// Checks, configures and migrates a freshly opened file. Several processes
// opening a new file at once contend for it in ways SQLite's busy handler does
// not cover (switching to WAL, recovering the WAL index), so a busy failure
// here is retried until the busy timeout has passed.
void PrepareWritable(sql::Db& db) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 1;; ++attempt) {
    try {
      CheckedSchemaVersion(db);  // reports a foreign or damaged file first
      ConfigureWritable(db);
      Migrate(db);
      return;
    } catch (const LedgerError&) {
      if (!db.LastFailureWasBusy() || std::chrono::steady_clock::now() > deadline) throw;
      db.NoteFailure(SQLITE_OK);
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(attempt, 20)));
    }
  }
}

}  // namespace

std::string FormatMeasured(const ClaimRow& c) {
  if (!c.value) return "-";
  char buf[96];
  if (c.ci_low && c.ci_high) {
    std::snprintf(buf, sizeof buf, "%.4g [%.4g, %.4g]", *c.value, *c.ci_low, *c.ci_high);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", *c.value);
  }
  return buf;
}

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kComplete: return "complete";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kInterrupted: return "interrupted";
  }
  return "unknown";
}

// --- Impl --------------------------------------------------------------------

sql::Stmt& Ledger::Impl::Prepare(const char* sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    it = statements_.emplace(sql, std::make_unique<sql::Stmt>(db, sql)).first;
  } else {
    it->second->Reset();
  }
  return *it->second;
}

void Ledger::Impl::RequireWritable(std::string_view operation) const {
  if (read_only) Fail("opened read-only; cannot " + std::string(operation));
}

void Ledger::Impl::ForgetUncommitted() {
  next_result_seq.clear();
  next_claim_seq.clear();
  open_runs.clear();
}

void Ledger::Impl::AppendToChain(int64_t run_id, const Hash128& run_hash) {
  Hash128 previous{};  // the chain starts from 16 zero bytes
  int64_t previous_seq = 0;
  sql::Stmt& head = Prepare(kChainHead);
  if (head.Step()) {
    previous = ParseStoredHash(*this, head.Text(0), "the chain head's chain_hash");
    previous_seq = head.Int(1);
  }
  head.Reset();
  const std::string run_hex = run_hash.Hex();
  const std::string chain_hex = ChainHash(previous, run_hash).Hex();
  sql::Stmt& set = Prepare(kSetChain);
  set.BindInt(1, run_id);
  set.BindText(2, run_hex);
  set.BindText(3, chain_hex);
  set.BindInt(4, previous_seq + 1);
  set.Run();
}

// --- WriteScope --------------------------------------------------------------

WriteScope::WriteScope(Ledger::Impl& impl, bool one_statement)
    : impl_(impl), owns_(!impl.explicit_txn), savepoint_(impl.explicit_txn && !one_statement) {
  if (owns_) impl_.Prepare(kBegin).Run();
  if (savepoint_) impl_.Prepare(kSavepoint).Run();
}

void WriteScope::Commit() {
  if (owns_) impl_.Prepare(kCommit).Run();
  if (savepoint_) impl_.Prepare(kRelease).Run();
  done_ = true;
}

WriteScope::~WriteScope() {
  if (done_) return;
  // A destructor cannot report a failed rollback; the next statement will.
  if (owns_) sqlite3_exec(impl_.db.get(), kRollback, nullptr, nullptr, nullptr);
  if (savepoint_) sqlite3_exec(impl_.db.get(), kRollbackToSavepoint, nullptr, nullptr, nullptr);
  // Also after a lone failed statement: some errors (a full disk) make SQLite
  // roll back the caller's whole transaction.
  impl_.ForgetUncommitted();
}

// --- ReadSnapshot ------------------------------------------------------------

ReadSnapshot::ReadSnapshot(Ledger::Impl& impl) : impl_(impl), owns_(!impl.explicit_txn) {
  if (owns_) impl_.Prepare(kBeginRead).Run();
}

ReadSnapshot::~ReadSnapshot() {
  // A read transaction has nothing to undo; COMMIT just ends it.
  if (owns_) sqlite3_exec(impl_.db.get(), kCommit, nullptr, nullptr, nullptr);
}

// --- opening -----------------------------------------------------------------

Ledger::Ledger(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Ledger::Ledger(Ledger&&) noexcept = default;
Ledger& Ledger::operator=(Ledger&&) noexcept = default;
Ledger::~Ledger() = default;

const std::string& Ledger::path() const { return impl_->path; }

Ledger Ledger::Open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  // NOMUTEX: a Ledger belongs to one thread at a time (see ledger.h).
  impl->db = sql::Db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, path);
  sqlite3_busy_timeout(impl->db.get(), kBusyTimeoutMs);
  PrepareWritable(impl->db);
  impl->host = HostName();
  impl->pid = static_cast<int64_t>(getpid());
  impl->pid_start = ProcessStartTicks(impl->pid);
  return Ledger(std::move(impl));
}

Ledger Ledger::OpenReadOnly(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw LedgerError(sql::ErrorLine(path, "no such file"));
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->read_only = true;
  sql::Db disk(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, path);
  sqlite3_busy_timeout(disk.get(), kBusyTimeoutMs);
  if (CheckedSchemaVersion(disk) == kSchemaVersion) {
    impl->db = std::move(disk);
  } else {
    // An older file is read through a migrated in-memory copy, so the file
    // itself stays untouched and every reader sees the current schema.
    sql::Db memory(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, path);
    sqlite3_backup* copy = sqlite3_backup_init(memory.get(), "main", disk.get(), "main");
    if (copy == nullptr) memory.FailSqlite("cannot copy for reading");
    sqlite3_backup_step(copy, -1);
    if (sqlite3_backup_finish(copy) != SQLITE_OK) memory.FailSqlite("cannot copy for reading");
    Migrate(memory);
    impl->db = std::move(memory);
  }
  impl->host = HostName();
  impl->pid = static_cast<int64_t>(getpid());
  return Ledger(std::move(impl));
}

// --- transactions ------------------------------------------------------------

void Ledger::BeginTransaction() {
  Impl& d = *impl_;
  d.RequireWritable("begin a transaction");
  if (d.explicit_txn) d.Fail("a transaction is already open");
  d.Prepare(kBegin).Run();
  d.explicit_txn = true;
}

void Ledger::Commit() {
  Impl& d = *impl_;
  if (!d.explicit_txn) d.Fail("Commit() without BeginTransaction()");
  d.Prepare(kCommit).Run();
  d.explicit_txn = false;
}

void Ledger::Rollback() {
  Impl& d = *impl_;
  if (!d.explicit_txn) d.Fail("Rollback() without BeginTransaction()");
  d.explicit_txn = false;
  d.ForgetUncommitted();
  d.Prepare(kRollback).Run();
}

// --- writing a run -----------------------------------------------------------

int64_t Ledger::BeginRun(const RunMeta& meta) {
  Impl& d = *impl_;
  d.RequireWritable("begin a run");
  const std::string platform_json =
      d.NamingTheFile("run platform", [&] { return CanonicalJson(meta.platform); });
  const std::string build_json =
      d.NamingTheFile("run build", [&] { return CanonicalJson(meta.build); });
  const std::string uuid = d.NamingTheFile("new run", [] { return NewUuid(); });
  const std::string started_at = NowUtcIso8601();
  RunView v;
  v.run_uuid = uuid;
  v.status = RunStatusName(RunStatus::kRunning);
  v.command = meta.command;
  v.profile = meta.profile;
  v.seed = std::bit_cast<int64_t>(meta.seed);
  v.git_commit = meta.git_commit;
  v.git_dirty = meta.git_dirty ? 1 : 0;
  v.source_hash = meta.source_hash;
  v.platform_hash = meta.platform_hash;
  v.platform_json = platform_json;
  v.build_json = build_json;
  v.started_at = started_at;

  WriteScope scope(d);
  sql::Stmt& insert = d.Prepare(kInsertRun);
  BindRun(insert, v, d.host, d.pid, d.pid_start);
  insert.Run();
  const int64_t id = sqlite3_last_insert_rowid(d.db.get());
  scope.Commit();
  return id;
}

void Ledger::AddResult(int64_t run_id, const Result& r) {
  AddResults(run_id, std::span<const Result>(&r, 1));
}

void Ledger::AddResults(int64_t run_id, std::span<const Result> rows) {
  Impl& d = *impl_;
  d.RequireWritable("add results");
  WriteScope scope(d, /*one_statement=*/rows.size() == 1);
  RequireOpenRun(d, run_id, /*use_cache=*/true);
  int64_t& next = NextSeq(d, d.next_result_seq, kMaxResultSeq, run_id);
  for (const Result& r : rows) {
    std::optional<CanonicalResult> row;
    d.NamingTheFile("result " + r.suite + "/" + r.case_name + " params",
                    [&] { row.emplace(r, next); });
    char hex[32];
    HashHex(ResultHash(row->view(), &d.scratch), hex);
    sql::Stmt& insert = d.Prepare(kInsertResult);
    BindResult(insert, run_id, row->view(), std::string_view(hex, 32));
    InsertRow(d, insert, run_id);
    ++next;
  }
  scope.Commit();
}

void Ledger::AddClaim(int64_t run_id, const ClaimRow& c) {
  Impl& d = *impl_;
  d.RequireWritable("add a claim");
  WriteScope scope(d, /*one_statement=*/true);
  RequireOpenRun(d, run_id, /*use_cache=*/true);
  int64_t& next = NextSeq(d, d.next_claim_seq, kMaxClaimSeq, run_id);
  // The claim's own rows: the run's rows after those its earlier claims recorded.
  sql::Stmt& claimed = d.Prepare(kClaimedResults);
  claimed.BindInt(1, run_id);
  claimed.Step();
  const int64_t before = claimed.Int(0);
  claimed.Reset();
  ClaimRow stored = c;
  stored.own_results = NextSeq(d, d.next_result_seq, kMaxResultSeq, run_id) - 1 - before;
  std::optional<CanonicalClaim> row;
  d.NamingTheFile("claim " + c.claim_id + " requirements", [&] { row.emplace(stored, next); });
  char hex[32];
  HashHex(ClaimHash(row->view(), &d.scratch), hex);
  sql::Stmt& insert = d.Prepare(kInsertClaim);
  BindClaim(insert, run_id, row->view(), std::string_view(hex, 32));
  InsertRow(d, insert, run_id);
  ++next;
  scope.Commit();
}

void Ledger::FinishRun(int64_t run_id, RunStatus status) {
  Impl& d = *impl_;
  d.RequireWritable("finish a run");
  if (status == RunStatus::kRunning) d.Fail("FinishRun needs a final status, not 'running'");
  const std::string where = "run " + std::to_string(run_id);
  WriteScope scope(d);
  RequireOpenRun(d, run_id);

  const std::string finished_at = NowUtcIso8601();
  const char* status_name = RunStatusName(status);
  sql::Stmt& set_final = d.Prepare(kSetFinal);
  set_final.BindInt(1, run_id);
  set_final.BindText(2, status_name);
  set_final.BindText(3, finished_at);
  set_final.Run();

  // Hash the meta as stored, so FinishRun and Verify read the same bytes.
  Hash128 run_hash;
  {
    sql::Stmt& select = d.Prepare(kSelectRun);
    select.BindInt(1, run_id);
    if (!select.Step()) d.Fail(where + " does not exist");
    StoredRun run;
    if (const char* bad = ReadRun(select, &run)) {
      d.Fail(where + ": column '" + bad + "' has the wrong type");
    }
    const auto results = StoredRowHashes(d, kResultHashes, run_id);
    const auto claims = StoredRowHashes(d, kClaimHashes, run_id);
    run_hash = RunHash(run.view, results, claims);
    select.Reset();  // before the UPDATE below touches the row it points into
  }
  d.AppendToChain(run_id, run_hash);
  scope.Commit();
  d.next_result_seq.erase(run_id);
  d.next_claim_seq.erase(run_id);
  d.open_runs.erase(run_id);
}

}  // namespace cb::ledger

// File: ledger/ledger_impl.h
// -----------------------------------------------------------------------------
// Internal to ledger/: the state behind a Ledger (its connection, cached
// statements, the caller's explicit transaction, per-run seq counters) and
// WriteScope, the one way writes take the write lock. Shared by ledger.cpp
// (writes), query.cpp (reads), verify.cpp and exchange.cpp.
#ifndef CB_LEDGER_LEDGER_IMPL_H_
#define CB_LEDGER_LEDGER_IMPL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/sqlite.h"

namespace cb::ledger {

struct Ledger::Impl {
  sql::Db db;
  std::string path;
  bool read_only = false;
  // True between BeginTransaction() and Commit()/Rollback().
  bool explicit_txn = false;
  // Next seq per run for rows this connection appends, loaded from the file
  // on first use. One writer per run is the contract (the run's own process);
  // a second one would hit UNIQUE(run_id, seq), not corrupt anything.
  std::unordered_map<int64_t, int64_t> next_result_seq, next_claim_seq;
  // Runs this connection has seen open (exist, not sealed), so appending a row
  // costs no extra query; the guard trigger still refuses a row for a run
  // sealed since by someone else.
  std::unordered_set<int64_t> open_runs;
  // Reused canonical-encoding buffer.
  std::string scratch;
  // This process, as recorded in the runs it begins.
  std::string host;
  int64_t pid = 0;
  std::optional<int64_t> pid_start;

  // The cached statement for `sql`, reset and with bindings cleared.
  // REQUIRES: `sql` has static storage (its address is the cache key).
  sql::Stmt& Prepare(const char* sql);
  [[noreturn]] void Fail(std::string_view what) const { db.Fail(what); }
  void RequireWritable(std::string_view operation) const;
  // The sealed run's chain head: (chain_hash, chain_seq), or zeros when the
  // chain is empty. REQUIRES: the write lock is held (inside a WriteScope).
  std::pair<Hash128, int64_t> ChainHead();
  // Stores `run_hash` on `run_id` and appends the run to the hash chain
  // (chain_hash, next chain_seq). Allocating chain_seq under the write lock is
  // what makes concurrent sealers chain correctly.
  // REQUIRES: inside a WriteScope; the run exists and is not sealed; its status
  // and finished_at are already final.
  void AppendToChain(int64_t run_id, const Hash128& run_hash);
  // The content hashes of a run's rows in seq order, as stored.
  std::vector<Hash128> StoredRowHashes(const char* select_sql, int64_t run_id);

 private:
  std::unordered_map<const char*, std::unique_ptr<sql::Stmt>> statements_;
};

// Holds the write lock for one logical write: BEGIN IMMEDIATE (so concurrent
// writers queue on the busy timeout instead of failing on a lock upgrade),
// unless the caller's explicit transaction already holds it. Rolls back when
// destroyed without Commit(), e.g. on an exception.
class WriteScope {
 public:
  explicit WriteScope(Ledger::Impl& impl);
  WriteScope(const WriteScope&) = delete;
  WriteScope& operator=(const WriteScope&) = delete;
  ~WriteScope();
  void Commit();

 private:
  Ledger::Impl& impl_;
  bool owns_;
  bool done_ = false;
};

// One read transaction (a snapshot) for a multi-statement read such as
// Verify() or Export(), so a concurrent writer's commit cannot be half seen.
// Joins the caller's explicit transaction when one is open.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Ledger::Impl& impl);
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot();

 private:
  Ledger::Impl& impl_;
  bool owns_;
};

// Parses a stored 32-hex-digit hash; throws naming `what` when malformed.
Hash128 ParseStoredHash(const Ledger::Impl& impl, std::string_view hex, std::string_view what);

}  // namespace cb::ledger

#endif  // CB_LEDGER_LEDGER_IMPL_H_

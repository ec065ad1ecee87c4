// File: ledger/ledger_impl.h
// -----------------------------------------------------------------------------
// Internal to ledger/: the state behind a Ledger (its connection, cached
// statements, the caller's explicit transaction, per-run seq counters),
// WriteScope, the one way writes take the write lock, and ReadSnapshot.
// Shared by ledger.cpp (writes), store.cpp, query.cpp (reads), verify.cpp and
// exchange.cpp.
#ifndef CB_LEDGER_LEDGER_IMPL_H_
#define CB_LEDGER_LEDGER_IMPL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

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

  // Runs `f` and rethrows a LedgerError from it, which cannot name the file
  // (e.g. CanonicalJson's), as one line naming the file and `what`.
  template <typename F>
  decltype(auto) NamingTheFile(std::string_view what, F&& f) const {
    try {
      return f();
    } catch (const LedgerError& e) {
      Fail(std::string(what) + ": " + e.what());
    }
  }

  // Drops what this connection cached about uncommitted writes that were just
  // rolled back: seqs handed out there are free again, and a run begun there
  // is gone.
  void ForgetUncommitted();

  // Stores `run_hash` on `run_id` and appends the run to the hash chain
  // (chain_hash, next chain_seq). Allocating chain_seq under the write lock is
  // what makes concurrent sealers chain correctly.
  // REQUIRES: inside a WriteScope; the run exists and is not sealed; its status
  // and finished_at are already final.
  void AppendToChain(int64_t run_id, const Hash128& run_hash);

 private:
  std::unordered_map<const char*, std::unique_ptr<sql::Stmt>> statements_;
};

// One logical write, all or nothing. On its own it is a transaction begun with
// BEGIN IMMEDIATE (so concurrent writers queue on the busy timeout instead of
// failing on a lock upgrade); inside the caller's explicit transaction, which
// already holds the lock, it is a savepoint. Destroyed without Commit(), e.g.
// by an exception, it rolls back exactly its own writes: the caller may still
// commit the rest of its transaction.
class WriteScope {
 public:
  // `one_statement`: the write is a single statement, which SQLite already
  // makes all or nothing, so inside the caller's transaction it needs no
  // savepoint (that keeps a bulk load of single AddResult calls cheap).
  explicit WriteScope(Ledger::Impl& impl, bool one_statement = false);
  WriteScope(const WriteScope&) = delete;
  WriteScope& operator=(const WriteScope&) = delete;
  ~WriteScope();
  void Commit();

 private:
  Ledger::Impl& impl_;
  bool owns_;       // BEGIN IMMEDIATE ... COMMIT
  bool savepoint_;  // SAVEPOINT ... RELEASE inside the caller's transaction
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

}  // namespace cb::ledger

#endif  // CB_LEDGER_LEDGER_IMPL_H_

// File: ledger/sqlite.h
// -----------------------------------------------------------------------------
// Thin RAII wrappers over the SQLite C API for the ledger: a connection (Db)
// and a prepared statement (Stmt). Every failure becomes a one-line
// LedgerError that names the ledger file, so callers never see a raw return
// code and never leak a handle on the error path.
//
// Text and blob columns are returned as string_views into SQLite's own
// buffers: they stay valid until the statement steps, resets or is destroyed.
// That is what lets Verify() hash rows without copying them.
#ifndef CB_LEDGER_SQLITE_H_
#define CB_LEDGER_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cb::ledger::sql {

// "ledger '<path>': <what>", with any newline in `what` folded to a space so
// the message stays one line.
std::string ErrorLine(std::string_view path, std::string_view what);

// An open connection. Move-only; closing happens in the destructor.
class Db {
 public:
  Db() = default;
  // Opens `path` with sqlite3_open_v2 `flags`. Opening is lazy in SQLite: a
  // file that is not a database is only noticed by the first statement.
  Db(const std::string& path, int flags, std::string label);
  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  ~Db();

  sqlite3* get() const { return db_; }

  // Runs one or more statements that return no rows we need. A failure
  // throws "<context>: <SQLite's message>" (just the message without one).
  void Exec(const char* sql, std::string_view context = {});

  // True when the last failure on this connection was SQLITE_BUSY (the lock
  // was held past the busy timeout, or SQLite chose not to wait, as it does
  // while another connection sets up the WAL).
  bool LastFailureWasBusy() const { return (last_rc_ & 0xff) == SQLITE_BUSY; }
  void NoteFailure(int rc) { last_rc_ = rc; }

  // Throws LedgerError "ledger '<label>': <what>".
  [[noreturn]] void Fail(std::string_view what) const;
  // Throws with `context` and SQLite's message for the last error.
  [[noreturn]] void FailSqlite(std::string_view context) const;

 private:
  sqlite3* db_ = nullptr;
  std::string label_;
  int last_rc_ = SQLITE_OK;
};

// A prepared statement. Bind indices are 1-based and column indices 0-based,
// as in SQLite.
class Stmt {
 public:
  // REQUIRES: `db` outlives the statement.
  Stmt(Db& db, std::string_view sql);
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  // Makes the statement ready for new bindings (keeps it compiled).
  void Reset();

  // Text and blobs are bound without a copy (SQLITE_STATIC): their bytes
  // must stay alive until the statement has run.
  void BindInt(int i, int64_t v);
  void BindReal(int i, double v);
  void BindText(int i, std::string_view v);
  void BindBlob(int i, std::string_view bytes);
  // nullopt binds NULL. (Named apart from the plain binders: a std::string
  // argument would convert equally well to string_view and to its optional.)
  void BindOptInt(int i, std::optional<int64_t> v);
  void BindOptReal(int i, std::optional<double> v);
  void BindOptText(int i, std::optional<std::string_view> v);

  // Steps once: true when a row is available, false when done. Errors throw.
  bool Step();
  // Steps a statement that returns no rows, then resets it.
  void Run();

  int ColumnType(int c) const { return sqlite3_column_type(stmt_, c); }
  bool IsNull(int c) const { return ColumnType(c) == SQLITE_NULL; }
  int64_t Int(int c) const { return sqlite3_column_int64(stmt_, c); }
  double Real(int c) const { return sqlite3_column_double(stmt_, c); }
  std::optional<double> OptReal(int c) const;
  std::string_view Text(int c) const;
  std::string_view Blob(int c) const;
  std::string String(int c) const { return std::string(Text(c)); }

 private:
  Db* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace cb::ledger::sql

#endif  // CB_LEDGER_SQLITE_H_

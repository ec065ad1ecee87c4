// File: ledger/sqlite.cpp
// -----------------------------------------------------------------------------
// RAII wrappers over the SQLite C API (see sqlite.h).
#include "ledger/sqlite.h"

#include <utility>

#include "ledger/ledger.h"

namespace cb::ledger::sql {

std::string ErrorLine(std::string_view path, std::string_view what) {
  std::string line = "ledger '";
  line.append(path);
  line.append("': ");
  line.append(what);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

Db::Db(const std::string& path, int flags, std::string label) : label_(std::move(label)) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 may hand back a handle even on failure; it must be closed.
    std::string what = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw LedgerError(ErrorLine(label_, "cannot open: " + what));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::Db(Db&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      label_(std::move(other.label_)),
      last_rc_(other.last_rc_) {}

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    label_ = std::move(other.label_);
    last_rc_ = other.last_rc_;
  }
  return *this;
}

// close_v2 defers the close until the last statement is finalized, so the
// order in which members are destroyed does not matter.
Db::~Db() { sqlite3_close_v2(db_); }

void Db::Exec(const char* sql, std::string_view context) {
  char* err = nullptr;
  if (const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err); rc != SQLITE_OK) {
    NoteFailure(rc);
    std::string what(context);
    if (!what.empty()) what += ": ";
    what += err != nullptr ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    Fail(what);
  }
}

void Db::Fail(std::string_view what) const { throw LedgerError(ErrorLine(label_, what)); }

void Db::FailSqlite(std::string_view context) const {
  std::string what(context);
  if (!what.empty()) what += ": ";
  what += sqlite3_errmsg(db_);
  Fail(what);
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(&db) {
  // PERSISTENT: these statements are cached for the connection's lifetime.
  if (sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
    db.NoteFailure(sqlite3_extended_errcode(db.get()));
    db.FailSqlite("");
  }
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

void Stmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Stmt::BindInt(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
void Stmt::BindReal(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
void Stmt::BindOptReal(int i, std::optional<double> v) {
  if (v) {
    sqlite3_bind_double(stmt_, i, *v);
  } else {
    sqlite3_bind_null(stmt_, i);
  }
}
void Stmt::BindOptInt(int i, std::optional<int64_t> v) {
  if (v) {
    sqlite3_bind_int64(stmt_, i, *v);
  } else {
    sqlite3_bind_null(stmt_, i);
  }
}
// SQLITE_STATIC saves a copy per bound field on the insert path.
void Stmt::BindText(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}
void Stmt::BindOptText(int i, std::optional<std::string_view> v) {
  if (v) {
    BindText(i, *v);
  } else {
    sqlite3_bind_null(stmt_, i);
  }
}
void Stmt::BindBlob(int i, std::string_view bytes) {
  // A zero-length blob from a null pointer would be stored as NULL.
  static const char kEmpty = 0;
  sqlite3_bind_blob(stmt_, i, bytes.empty() ? &kEmpty : bytes.data(),
                    static_cast<int>(bytes.size()), SQLITE_STATIC);
}

bool Stmt::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Read the message before reset() can replace it.
  db_->NoteFailure(rc);
  std::string what = sqlite3_errmsg(db_->get());
  if ((rc & 0xff) == SQLITE_BUSY) what += " (another process held the ledger past the busy timeout)";
  sqlite3_reset(stmt_);
  db_->Fail(what);
}

void Stmt::Run() {
  while (Step()) {
  }
  Reset();
}

std::optional<double> Stmt::OptReal(int c) const {
  if (IsNull(c)) return std::nullopt;
  return Real(c);
}

std::string_view Stmt::Text(int c) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
  if (p == nullptr) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, c))};
}

std::string_view Stmt::Blob(int c) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, c));
  if (p == nullptr) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, c))};
}

}  // namespace cb::ledger::sql

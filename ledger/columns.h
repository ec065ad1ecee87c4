// File: ledger/columns.h
// -----------------------------------------------------------------------------
// Internal to ledger/: reading a stepped statement's columns with the storage
// type this ledger writes, remembering the first column whose type is wrong
// (a hand edit such as text in a REAL column: reading it as a number would
// silently turn it into 0, so such a row must fail verification instead).
// Shared by the row readers of rows.cpp and side_rows.cpp.
#ifndef CB_LEDGER_COLUMNS_H_
#define CB_LEDGER_COLUMNS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "ledger/sqlite.h"

namespace cb::ledger {

// Reads typed columns and remembers the first one whose storage type is wrong.
// REQUIRES: `s` outlives this object and stays on its row meanwhile.
class Columns {
 public:
  explicit Columns(const sql::Stmt& s) : s_(s) {}
  const char* problem() const { return problem_; }

  int64_t Int(int c, const char* name) {
    Expect(c, SQLITE_INTEGER, name);
    return s_.Int(c);
  }
  std::optional<int64_t> OptInt(int c, const char* name) {
    if (s_.IsNull(c)) return std::nullopt;
    return Int(c, name);
  }
  std::optional<double> Real(int c, const char* name) {
    if (s_.IsNull(c)) return std::nullopt;
    Expect(c, SQLITE_FLOAT, name);
    return s_.Real(c);
  }
  std::string_view Text(int c, const char* name) {
    Expect(c, SQLITE_TEXT, name);
    return s_.Text(c);
  }
  std::optional<std::string_view> OptText(int c, const char* name) {
    if (s_.IsNull(c)) return std::nullopt;
    return Text(c, name);
  }
  std::string_view Blob(int c, const char* name) {
    Expect(c, SQLITE_BLOB, name);
    return s_.Blob(c);
  }

 private:
  void Expect(int c, int type, const char* name) {
    if (problem_ == nullptr && s_.ColumnType(c) != type) problem_ = name;
  }
  const sql::Stmt& s_;
  const char* problem_ = nullptr;
};

}  // namespace cb::ledger

#endif  // CB_LEDGER_COLUMNS_H_

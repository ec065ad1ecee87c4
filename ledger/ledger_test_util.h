// File: ledger/ledger_test_util.h
// -----------------------------------------------------------------------------
// Helpers shared by the ledger tests (header-only, test code only): a
// self-removing temporary directory, realistic run metadata and rows, editing
// a ledger file by hand with SQL, and reading files.
#ifndef CB_LEDGER_LEDGER_TEST_UTIL_H_
#define CB_LEDGER_LEDGER_TEST_UTIL_H_

#include <sqlite3.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ledger/ledger.h"

namespace cb::ledger::testutil {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cb-ledger-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline RunMeta SampleMeta(const std::string& command = "claimbench run --profile smoke") {
  RunMeta m;
  m.command = command;
  m.profile = "smoke";
  m.seed = 0x9e3779b97f4a7c15ULL;  // above INT64_MAX on purpose: stored as bits
  m.git_commit = "0123456789abcdef0123456789abcdef01234567";
  m.git_dirty = true;
  m.source_hash = "00112233445566778899aabbccddeeff";
  m.platform_hash = "ffeeddccbbaa99887766554433221100";
  m.platform = {{"cpu", "test cpu"}, {"cores", 2}};
  m.build = {{"compiler", "g++ 12"}, {"cuda", false}};
  return m;
}

// A realistic result row: ~20 fields, 3 params, 10 raw samples.
inline Result SampleResult(int i) {
  Result r;
  r.suite = "harness";
  r.case_name = "case_" + std::to_string(i % 17);
  r.backend = i % 2 == 0 ? "cpu" : "cuda";
  r.params = {{"n", 1024 + i}, {"dtype", "fp32"}, {"alpha", 0.25 * (i % 5)}};
  r.metric = "real_time";
  r.unit = "ns";
  r.direction = "lower";
  r.value = 1000.0 + i;
  r.ci_low = 990.0 + i;
  r.ci_high = 1010.5 + i;
  r.n = 10;
  for (int k = 0; k < 10; ++k) r.samples.push_back(1000.0 + i + 0.125 * k);
  r.input_hash = "0f0e0d0c0b0a09080706050403020100";
  r.output_hash = "";
  if (i % 3 == 0) {
    r.energy_j = 0.5 + i;
    r.energy_source = "rapl";
    r.energy_window_s = 1.25;
  } else {
    r.energy_source = "unavailable: no meter";
  }
  r.threads = 1 + i % 2;
  r.kind = i % 3 == 0   ? cb::harness::ResultKind::kTiming
           : i % 3 == 1 ? cb::harness::ResultKind::kExact
                        : cb::harness::ResultKind::kEstimate;
  return r;
}

inline ClaimRow SampleClaim(int i) {
  ClaimRow c;
  c.claim_id = "harness.H" + std::to_string(i);
  c.suite = "harness";
  c.paper = "Test et al. 2025";
  c.section = "§3.2";
  c.statement = "the loop is linear";
  c.paper_value = "1.0";
  c.paper_setting = "n = 2^20";
  c.our_setting = "n = 2^10..2^14";
  c.metric = "exponent";
  c.criterion = "exponent in [0.9, 1.1]";
  c.scale = "mechanism";
  c.verdict = "REPRODUCED";
  c.value = 1.01;
  c.ci_low = 0.98;
  c.ci_high = 1.04;
  c.confidence = 0.95;
  c.reason = "";
  c.requirements = {{"gpu", false}};
  c.depends_on_clock = i % 2 == 1;
  return c;
}

// Begins a run, adds `rows` results and `claims` claims, seals it complete.
inline int64_t AddSealedRun(Ledger& ledger, int rows, int claims = 1, int offset = 0) {
  const int64_t id = ledger.BeginRun(SampleMeta());
  for (int i = 0; i < rows; ++i) ledger.AddResult(id, SampleResult(offset + i));
  for (int i = 0; i < claims; ++i) ledger.AddClaim(id, SampleClaim(offset + i));
  ledger.FinishRun(id, RunStatus::kComplete);
  return id;
}

// Runs `sql` on the file at `db_path` (created if absent) through a plain
// connection of its own, as a person editing the file with the sqlite3 shell
// would: no ledger code, no foreign keys. Returns "" on success, else
// SQLite's error message.
inline std::string ExecSql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    error = db != nullptr ? sqlite3_errmsg(db) : "cannot open";
  } else if (char* err = nullptr;
             sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    error = err != nullptr ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
  }
  sqlite3_close(db);
  return error;
}

// The first column of the first row `sql` gives on the file at `db_path`, as
// text ("" when no row or NULL), through a plain connection like ExecSql's.
inline std::string QueryText(const std::string& db_path, const std::string& sql) {
  std::string out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_exec(
        db, sql.c_str(),
        [](void* dst, int n, char** values, char**) {
          if (n > 0 && values[0] != nullptr) *static_cast<std::string*>(dst) = values[0];
          return 1;  // the first row is enough
        },
        &out, nullptr);
  }
  sqlite3_close(db);
  return out;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::set<std::string> RunHashes(Ledger& ledger) {
  std::set<std::string> hashes;
  for (const RunSummary& r : ledger.Log(1'000'000)) {
    if (!r.run_hash.empty()) hashes.insert(r.run_hash);
  }
  return hashes;
}

inline bool OneLine(const std::string& s) { return s.find('\n') == std::string::npos; }

}  // namespace cb::ledger::testutil

#endif  // CB_LEDGER_LEDGER_TEST_UTIL_H_

// File: ledger/rows.h
// -----------------------------------------------------------------------------
// The one place that maps ledger rows to SQL columns and back: the SELECT and
// INSERT statements for runs, results and claims, readers that turn a stepped
// statement into the zero-copy views of ledger/canonical.h, and binders that
// store a view. Writing, Verify(), export/import and the getters all go
// through these, so what is stored and what is hashed cannot drift apart.
//
// The SQL strings are inline constexpr arrays: one address program-wide, which
// the per-connection statement cache uses as its key.
#ifndef CB_LEDGER_ROWS_H_
#define CB_LEDGER_ROWS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/sqlite.h"

namespace cb::ledger {

// --- SELECT lists ------------------------------------------------------------
// Callers append WHERE/ORDER clauses by choosing one of the full statements.

#define CB_LEDGER_RESULT_COLUMNS                                                          \
  "id, run_id, seq, hash_version, suite, case_name, backend, params_json, metric, unit, " \
  "direction, value, ci_low, ci_high, n, samples, input_hash, output_hash, threads, "     \
  "energy_j, energy_source, energy_window_s, content_hash, kind"
#define CB_LEDGER_CLAIM_COLUMNS                                                            \
  "id, run_id, seq, claim_id, suite, paper, section, statement, paper_value, paper_setting, " \
  "our_setting, metric, criterion, scale, verdict, value, ci_low, ci_high, confidence, "    \
  "reason, requirements_json, content_hash, hash_version, depends_on_clock, own_results, "    \
  "kind, criterion_hash, inputs_json"
#define CB_LEDGER_RUN_COLUMNS                                                              \
  "id, run_uuid, status, command, profile, seed, git_commit, git_dirty, source_hash, "      \
  "platform_hash, platform_json, build_json, started_at, finished_at, host, pid, pid_start, " \
  "run_hash, chain_hash, chain_seq"

// Every result row in storage order (the fastest scan: the rowid b-tree).
inline constexpr char kSelectAllResults[] = "SELECT " CB_LEDGER_RESULT_COLUMNS " FROM results";
inline constexpr char kSelectAllClaims[] = "SELECT " CB_LEDGER_CLAIM_COLUMNS " FROM claims";
inline constexpr char kSelectAllRuns[] = "SELECT " CB_LEDGER_RUN_COLUMNS " FROM runs ORDER BY id";
// One run's rows in seq order (?1 = run id).
inline constexpr char kSelectRunResults[] =
    "SELECT " CB_LEDGER_RESULT_COLUMNS " FROM results WHERE run_id = ?1 ORDER BY seq";
inline constexpr char kSelectRunClaims[] =
    "SELECT " CB_LEDGER_CLAIM_COLUMNS " FROM claims WHERE run_id = ?1 ORDER BY seq";
inline constexpr char kSelectRun[] = "SELECT " CB_LEDGER_RUN_COLUMNS " FROM runs WHERE id = ?1";

// INSERTs; bind with BindResult / BindClaim / BindRun.
inline constexpr char kInsertResult[] =
    "INSERT INTO results (run_id, seq, hash_version, suite, case_name, backend, params_json, "
    "metric, unit, direction, value, ci_low, ci_high, n, samples, input_hash, output_hash, "
    "threads, energy_j, energy_source, energy_window_s, content_hash, kind) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23)";
inline constexpr char kInsertClaim[] =
    "INSERT INTO claims (run_id, seq, claim_id, suite, paper, section, statement, paper_value, "
    "paper_setting, our_setting, metric, criterion, scale, verdict, value, ci_low, ci_high, "
    "confidence, reason, requirements_json, content_hash, hash_version, depends_on_clock, "
    "own_results, kind, criterion_hash, inputs_json) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)";
// The meta of a run; status, seal columns and chain are set separately.
inline constexpr char kInsertRun[] =
    "INSERT INTO runs (run_uuid, status, command, profile, seed, git_commit, git_dirty, "
    "source_hash, platform_hash, platform_json, build_json, started_at, finished_at, host, pid, "
    "pid_start) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

// --- stored rows as views ----------------------------------------------------
// Views point into the statement's buffers: valid until it steps or resets.

struct StoredResult {
  int64_t id = 0, run_id = 0;
  ResultView view;
  std::string_view content_hash;
};

struct StoredClaim {
  int64_t id = 0, run_id = 0;
  ClaimView view;
  std::string_view content_hash;
};

struct StoredRun {
  int64_t id = 0;
  RunView view;
  std::string_view host;
  int64_t pid = 0;
  std::optional<int64_t> pid_start;
  std::optional<std::string_view> run_hash, chain_hash;
  std::optional<int64_t> chain_seq;
};

// Each Read* fills `out` from the current row of a statement that selected the
// matching column list. It returns nullptr, or the name of the first column
// whose stored SQLite type is not one this ledger writes (e.g. text in a REAL
// column after a hand edit): such a row must fail verification, since reading
// it as a number would silently turn the text into 0.
const char* ReadResult(const sql::Stmt& s, StoredResult* out);
const char* ReadClaim(const sql::Stmt& s, StoredClaim* out);
const char* ReadRun(const sql::Stmt& s, StoredRun* out);

// Binds every parameter of kInsertResult / kInsertClaim / kInsertRun.
// REQUIRES: the bound views outlive the statement's next Run().
void BindResult(sql::Stmt& insert, int64_t run_id, const ResultView& r,
                std::string_view content_hash);
void BindClaim(sql::Stmt& insert, int64_t run_id, const ClaimView& c,
               std::string_view content_hash);
void BindRun(sql::Stmt& insert, const RunView& run, std::string_view host, int64_t pid,
             std::optional<int64_t> pid_start);

// --- owning forms ------------------------------------------------------------

// A Result in stored form: canonical params JSON and samples blob, plus a
// view over them and the Result's strings. Not movable: the view points into
// it. Throws LedgerError (no file named) when params cannot be canonicalised.
// REQUIRES: `r` outlives this object (a temporary is refused at compile time).
class CanonicalResult {
 public:
  CanonicalResult(const Result& r, int64_t seq);
  CanonicalResult(Result&&, int64_t) = delete;
  CanonicalResult(const CanonicalResult&) = delete;
  CanonicalResult& operator=(const CanonicalResult&) = delete;
  const ResultView& view() const { return view_; }

 private:
  std::string params_json_, samples_;
  ResultView view_;
};

// As CanonicalResult. REQUIRES: `c` outlives this object.
class CanonicalClaim {
 public:
  CanonicalClaim(const ClaimRow& c, int64_t seq);
  CanonicalClaim(ClaimRow&&, int64_t) = delete;
  CanonicalClaim(const CanonicalClaim&) = delete;
  CanonicalClaim& operator=(const CanonicalClaim&) = delete;
  const ClaimView& view() const { return view_; }

 private:
  std::string requirements_json_, inputs_json_;
  ClaimView view_;
};

// A run's hashed meta owning its bytes: for a run kept after its statement
// has moved on (Verify) or decoded from text (Import). Runs are few, so the
// copies cost nothing next to the rows.
struct OwnedRun {
  std::string run_uuid, status, command, profile, git_commit, source_hash, platform_hash;
  std::string platform_json, build_json, started_at;  // *_json: canonical JSON text
  std::optional<std::string> finished_at;
  int64_t seed = 0;  // the uint64 seed's bit pattern
  int64_t git_dirty = 0;

  static OwnedRun Copy(const RunView& v);
  // Points into this object: valid while it lives unchanged.
  RunView View() const;
};

// Owning copies of stored rows, as the public API returns them. A result row
// without a kind (hash versions 1-3) comes back with Result::kind kExact,
// which means nothing: callers that use the kind read StoredKind() instead.
Result ToResult(const ResultView& v);
// The row's declared kind; nullopt for rows written before result/4.
std::optional<cb::harness::ResultKind> StoredKind(const ResultView& v);
ClaimRow ToClaimRow(const ClaimView& v);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ROWS_H_

// File: ledger/ledger.h
// -----------------------------------------------------------------------------
// The reproducibility ledger (DESIGN §7): a SQLite file holding runs, their
// result rows and claim verdicts, each row content-hashed with XXH3-128 over a
// canonical encoding (ledger/canonical.h), each finished run sealed with a
// run_hash over its metadata and ordered row hashes, and runs chained in seal
// order by chain_hash = H(previous chain_hash, run_hash).
//
// Writes are transactional (WAL, busy timeout, BEGIN IMMEDIATE), so several
// processes may write one ledger at once and a killed writer leaves a ledger
// that verifies, with its run shown as not complete.
//
// Errors throw cb::ledger::LedgerError whose what() is one line naming the
// file and what is wrong.
//
// XXH3-128 detects corruption and accidental or casual edits; it is not a
// cryptographic hash, and anyone who can write the file can recompute every
// hash. Nor can a chain show on its own that runs were cut off its end: keep
// the chain head (Head(), VerifyReport::chain_head) somewhere else (a CI
// artifact) and pass it back to Verify() to detect that.
//
// A Ledger is one SQLite connection: use it from one thread at a time, and
// never across fork() (open a new one in the child).
#ifndef CB_LEDGER_LEDGER_H_
#define CB_LEDGER_LEDGER_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/result.h"

namespace cb::ledger {

class LedgerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Current schema version (PRAGMA user_version). Opening an older file
// migrates it forward in one transaction; a newer one is refused.
inline constexpr int kSchemaVersion = 7;

enum class RunStatus { kRunning, kComplete, kFailed, kInterrupted };
const char* RunStatusName(RunStatus s);  // "running", "complete", ...

struct RunMeta {
  std::string command;       // the command line, e.g. "claimbench run --profile quick"
  std::string profile;       // smoke | quick | full | bench
  uint64_t seed = 0;
  std::string git_commit;    // empty when unknown
  bool git_dirty = false;
  std::string source_hash;   // XXH3-128 hex of the harness+reference sources
  std::string platform_hash; // harness/platform.h
  nlohmann::json platform = nlohmann::json::object();
  nlohmann::json build = nlohmann::json::object();
};

// One measured or computed value (defined in harness/result.h).
using Result = cb::harness::Result;

// One claim verdict (harness/claim.h fills it).
struct ClaimRow {
  std::string claim_id, suite, paper, section, statement;
  std::string paper_value, paper_setting, our_setting;
  std::string metric, criterion, scale;        // scale: "mechanism" | "real" | "paper-scale"
  std::string verdict;                         // REPRODUCED | NOT_REPRODUCED | INCONCLUSIVE | UNMEASURABLE
  std::optional<double> value, ci_low, ci_high;
  double confidence = 0.95;
  std::string reason;                          // why unmeasurable / inconclusive, else detail
  nlohmann::json requirements = nlohmann::json::object();
  // The verdict rests on a clock or meter (harness ClaimSpec::depends_on_clock):
  // the gate reports it and does not gate it. nullopt when read back from a
  // claim recorded before schema version 4, which did not store it; written
  // as false when left unset.
  std::optional<bool> depends_on_clock;
  // How many result rows the claim recorded: the run's rows after the
  // previous claim's (a claim records its results before its verdict). Set
  // by AddClaim (whatever the caller put here); nullopt when read back from
  // a claim recorded before schema version 6.
  std::optional<int64_t> own_results;
  // Schema version 7 (claim/5); nullopt when read back from an older claim.
  std::optional<std::string> kind;            // "paper" | "prerequisite"
  // harness CriterionHash(): the pre-registered criterion; written as ""
  // (not recorded) when left unset.
  std::optional<std::string> criterion_hash;
  // The user's inputs behind the verdict (harness ClaimInput): an array of
  // {role, name, content_hash, declared}; empty for a mechanism-scale verdict.
  std::optional<nlohmann::json> inputs;
};

// A claim's measured value for tables: "0.3063 [0.2999, 0.3111]" (4
// significant digits, the CI when there is one), or "-" when none.
std::string FormatMeasured(const ClaimRow& c);

struct Ceiling {
  std::string name;   // "cpu_copy_bandwidth", "cpu_sgemm", "gpu_copy_bandwidth", ...
  double value = 0;
  std::string unit;   // "GB/s", "GFLOP/s", "TFLOP/s", "Gblock/s"
  nlohmann::json detail = nlohmann::json::object();
  std::string measured_at;  // ISO-8601 UTC; set by PutCeilings, filled by GetCeilings
};

// A content-addressed generator output (DESIGN §4): its bytes hash to `hash`.
struct Artifact {
  std::string hash;        // XXH3-128 hex of the bytes
  std::string generator;   // e.g. "tensors"
  int64_t version = 1;     // generator version
  nlohmann::json params = nlohmann::json::object();
  int64_t size = 0;        // bytes
  std::string path;        // where the bytes are cached, "" when not kept
  std::string created_at;  // filled by GetArtifact
};

// A gate verdict with the statistics that produced it (decision provenance).
struct Decision {
  int64_t run_id = 0;      // the candidate run
  std::string baseline;    // baseline run (uuid or run_hash) or baseline file
  std::string suite, case_name, metric;
  std::string verdict;     // e.g. "pass" | "regression" | "inconclusive"
  std::string test;        // e.g. "mann-whitney+bootstrap"
  std::optional<int64_t> n;
  std::optional<double> p, effect, ci_low, ci_high, threshold;
  std::string policy_version;
  nlohmann::json detail = nlohmann::json::object();
  std::string created_at;  // filled by GetDecisions
};

struct RunSummary {
  int64_t id = 0;
  std::string run_uuid;
  std::string status;         // as stored; "running" rows whose writer is gone are shown "incomplete"
  bool writer_alive = false;  // a running run whose process still exists on this host
  std::string command, profile, started_at, finished_at, platform_hash;
  std::string run_hash, chain_hash;  // empty until sealed
  int64_t results = 0, claims = 0;
  std::string host;           // where the writer ran
  int64_t pid = 0;
};

struct VerifyReport {
  bool ok = true;
  int64_t runs = 0, results = 0, claims = 0;
  int64_t unsealed_runs = 0;    // running / killed runs: rows verified, no run hash yet
  // The side tables' rows (schema version 5 hashes each one on its own).
  int64_t ceilings = 0, artifacts = 0, decisions = 0, cache_entries = 0;
  std::string first_error;      // e.g. "results row 42 (run 3): content_hash mismatch"
  // chain_hash of the newest sealed run ("" when none). A chain cannot show
  // that runs were cut off its end: keep this value elsewhere (CI artifact)
  // and pass it to Verify(expect_head) to detect that.
  std::string chain_head;
};

// The newest sealed run of the hash chain (the highest chain_seq).
struct ChainHead {
  int64_t run_id = 0;
  int64_t chain_seq = 0;
  std::string chain_hash;  // 32 lower-case hex digits
};

struct ImportReport {
  int64_t runs_added = 0, runs_skipped = 0;  // skipped: run_hash already present
};

class Ledger {
 public:
  // Opens (creating if absent) the ledger at `path`, migrating older schemas.
  // A file that is not SQLite, or a newer schema, throws LedgerError.
  static Ledger Open(const std::string& path);
  // Opens an existing ledger without creating or migrating it. An older
  // schema is read through a migrated in-memory copy (the file is untouched).
  static Ledger OpenReadOnly(const std::string& path);

  Ledger(Ledger&&) noexcept;
  Ledger& operator=(Ledger&&) noexcept;
  ~Ledger();

  const std::string& path() const;

  // --- writing a run -------------------------------------------------------
  // Records the run with this process's host, pid and start time (see Log).
  int64_t BeginRun(const RunMeta& meta);            // status "running"
  void AddResult(int64_t run_id, const Result& r);  // own transaction unless one is open
  void AddResults(int64_t run_id, std::span<const Result> rows);  // one transaction
  void AddClaim(int64_t run_id, const ClaimRow& c);
  // Seals the run: computes run_hash and chain_hash and stores the status.
  // Rows cannot be added to a sealed run. Any process may seal a run (e.g. a
  // killed writer's run as kInterrupted). REQUIRES: status != kRunning.
  void FinishRun(int64_t run_id, RunStatus status);

  // Explicit transaction for bulk writes (AddResult joins it). A write that
  // fails inside it undoes only its own changes, so the caller may still
  // commit the rest.
  void BeginTransaction();
  void Commit();
  void Rollback();

  // --- ceilings, measured once per platform hash --------------------------
  std::vector<Ceiling> GetCeilings(const std::string& platform_hash);
  void PutCeilings(const std::string& platform_hash, std::span<const Ceiling> ceilings);

  // --- artifacts, gate decisions, endpoint cache ---------------------------
  // Each row of these tables and of ceilings carries its own content_hash
  // (canonical.h: ceiling/1, artifact/1, decision/1, cache/1), checked by
  // Verify(). They are not part of any run's run_hash. The getters of what
  // decides a later verdict (GetCeilings, GetArtifact, CacheGet) check the
  // hash of each row they return and throw LedgerError naming the row when it
  // does not match, so an edited cached answer is never used.
  // Idempotent by hash: a second put of the same hash keeps the first row.
  void PutArtifact(const Artifact& a);
  std::optional<Artifact> GetArtifact(const std::string& hash);
  int64_t AddDecision(const Decision& d);  // returns the decision's row id
  std::vector<Decision> GetDecisions(int64_t run_id);
  std::optional<std::string> CacheGet(const std::string& key);
  void CachePut(const std::string& key, std::string_view response);  // replaces

  // --- reading ------------------------------------------------------------
  // Recomputes every hash (rows, side tables, runs, chain) and checks that a
  // sealed run's rows are numbered 1..n. With `expect_head` (a chain_hash
  // as Head() gave it earlier, any case), the report also fails unless that
  // hash is one of the verified chain's: a newer run on top of it is fine,
  // the run it belongs to being deleted or unsealed is not.
  // REQUIRES: expect_head is empty or 32 hex digits (the CLI checks input).
  VerifyReport Verify(std::string_view expect_head = {});
  // The newest sealed run of the chain as stored (not verified: Verify()
  // does that); nullopt when no run is sealed.
  std::optional<ChainHead> Head();
  // Newest first (by started_at). A "running" run whose writer process is
  // gone from this host is shown as "incomplete" (the stored status stays).
  std::vector<RunSummary> Log(int limit = 20);
  // A run by numeric id, "latest", or a run_hash / run_uuid prefix (>= 6 hex).
  // Throws LedgerError when none or several match.
  int64_t ResolveRun(const std::string& ref);
  RunSummary GetRun(int64_t run_id);
  // Result::kind of a row recorded before schema version 4 (which stored no
  // kind) is meaningless; `kinds`, when given, receives per row the stored
  // kind, or nullopt for such a row.
  std::vector<Result> GetResults(int64_t run_id,
                                 std::vector<std::optional<cb::harness::ResultKind>>* kinds = nullptr);
  std::vector<ClaimRow> GetClaims(int64_t run_id);
  // The metadata a run was begun with (git, platform, build; provenance).
  RunMeta GetRunMeta(int64_t run_id);
  // Every result row of (suite, case_name, metric) in every run, with its run
  // id, ordered by run id then seq (history series; a full scan of results).
  std::vector<std::pair<int64_t, Result>> FindResults(const std::string& suite,
                                                      const std::string& case_name,
                                                      const std::string& metric);

  // --- exchange -----------------------------------------------------------
  // JSON Lines: one object per sealed run with its meta, rows and hashes.
  // `run_ids` empty = every sealed run.
  void Export(std::ostream& out, std::span<const int64_t> run_ids = {});
  // Idempotent by run_hash; every imported run is re-verified before it is
  // written (a tampered export is refused with the line number).
  ImportReport Import(std::istream& in, const std::string& source_name);
  ImportReport Merge(const std::string& other_path);

  struct Impl;

 private:
  explicit Ledger(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cb::ledger

#endif  // CB_LEDGER_LEDGER_H_

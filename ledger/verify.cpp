// File: ledger/verify.cpp
// -----------------------------------------------------------------------------
// Ledger::Verify(): recomputes every row's content_hash, every sealed run's
// run_hash and the hash chain in chain_seq order, checks that each sealed
// run's rows are numbered 1..n and, when asked, that an expected chain head is
// still in the chain; names the first problem.
//
// Order of checks, so that the most specific cause is the one reported:
// runs (types and seal state), then result rows, then claim rows, then the
// side tables (ceilings, artifacts, decisions, http_cache: each row on its
// own), then per sealed run its run_hash, its seq numbering and its chain
// link, and last the expected head. A changed value is thus reported as its
// row, not as the run_hash mismatch it also causes.
//
// Speed: one prepared statement streams each table in rowid order (the
// cheapest scan SQLite has); rows are read as string_views into SQLite's
// buffers and encoded into one reused buffer, so a row costs no heap
// allocation beyond its 24-byte (seq, hash) entry. The whole check runs in
// one read transaction, i.e. against one snapshot, so concurrent writers
// neither block it nor make it see half a seal.
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/rows.h"
#include "ledger/side_rows.h"

namespace cb::ledger {
namespace {

// A run as Verify keeps it: its meta copied out of the statement, its seal,
// and the (seq, content_hash) of each of its rows that checked out.
struct RunRecord {
  int64_t id = 0;
  OwnedRun meta;
  std::optional<std::string> run_hash, chain_hash;
  std::optional<int64_t> chain_seq;
  std::vector<SeqHash> results, claims;
};

std::optional<std::string> OptString(std::optional<std::string_view> v) {
  if (!v) return std::nullopt;
  return std::string(*v);
}

std::string RowName(const char* table, int64_t id, int64_t run_id) {
  return std::string(table) + " row " + std::to_string(id) + " (run " + std::to_string(run_id) +
         ")";
}

constexpr char kResultIdBySeq[] = "SELECT id FROM results WHERE run_id = ?1 AND seq = ?2";
constexpr char kClaimIdBySeq[] = "SELECT id FROM claims WHERE run_id = ?1 AND seq = ?2";

std::string Lower(std::string_view hex) {
  std::string out(hex);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class Verifier {
 public:
  Verifier(Ledger::Impl& d, std::string_view expect_head) : d_(d), expect_head_(Lower(expect_head)) {}

  VerifyReport Run() {
    ReadSnapshot snapshot(d_);
    ScanRuns();
    ScanRows(kSelectAllResults, "results", ReadResult, ResultViewProblem, ResultHash,
             &RunRecord::results, &report_.results);
    ScanRows(kSelectAllClaims, "claims", ReadClaim, ClaimViewProblem, ClaimHash, &RunRecord::claims,
             &report_.claims);
    ScanSideRows<StoredCeiling>(kSelectAllCeilings, &report_.ceilings);
    ScanSideRows<StoredArtifact>(kSelectAllArtifacts, &report_.artifacts);
    ScanSideRows<StoredDecision>(kSelectAllDecisions, &report_.decisions);
    ScanSideRows<StoredCacheEntry>(kSelectAllCacheEntries, &report_.cache_entries);
    CheckRunsAndChain();
    CheckExpectedHead();
    return report_;
  }

 private:
  void Fail(std::string what) {
    if (report_.ok) {
      report_.ok = false;
      report_.first_error = std::move(what);
    }
  }

  RunRecord* FindRun(int64_t run_id) {
    if (last_ != nullptr && last_->id == run_id) return last_;
    auto it = runs_.find(run_id);
    last_ = it == runs_.end() ? nullptr : &it->second;
    return last_;
  }

  void ScanRuns() {
    sql::Stmt& s = d_.Prepare(kSelectAllRuns);
    StoredRun row;
    while (s.Step()) {
      ++report_.runs;
      const char* bad = ReadRun(s, &row);
      const std::string name = "run " + std::to_string(row.id);
      if (bad != nullptr) Fail(name + ": column '" + bad + "' has the wrong type");
      RunRecord& r = runs_[row.id];
      r.id = row.id;
      r.meta = OwnedRun::Copy(row.view);
      r.run_hash = OptString(row.run_hash);
      r.chain_hash = OptString(row.chain_hash);
      r.chain_seq = row.chain_seq;
      const bool sealed = r.run_hash.has_value();
      if (!sealed) ++report_.unsealed_runs;
      // FinishRun sets status, run_hash and chain in one transaction, so any
      // other combination is a hand edit.
      const std::string& status = r.meta.status;
      if (sealed && status == "running") {
        Fail(name + ": sealed but its status is 'running'");
      } else if (!sealed && status != "running") {
        Fail(name + ": status '" + status + "' but not sealed (run_hash missing)");
      } else if (sealed != (r.chain_hash.has_value() && r.chain_seq.has_value())) {
        Fail(name + ": run_hash and chain columns are inconsistent");
      }
    }
    s.Reset();
  }

  // Streams one row table (results or claims): each row's column types, its
  // run, whether its hash_version can encode it (`problem`) and its
  // content_hash are checked, and a row that passes is filed under its run
  // (`filed`) for the run_hash check. Rows are counted even after the first
  // error, so the report's counts stay whole.
  template <typename Stored, typename View>
  void ScanRows(const char* select_sql, const char* table,
                const char* (*read)(const sql::Stmt&, Stored*),
                std::string (*problem)(const View&), Hash128 (*hash)(const View&, std::string*),
                std::vector<SeqHash> RunRecord::*filed, int64_t* count) {
    sql::Stmt& s = d_.Prepare(select_sql);
    Stored row;
    while (s.Step()) {
      ++*count;
      const char* bad = read(s, &row);
      if (!report_.ok) continue;
      if (bad != nullptr) {
        Fail(RowName(table, row.id, row.run_id) + ": column '" + bad + "' has the wrong type");
        continue;
      }
      RunRecord* run = FindRun(row.run_id);
      if (run == nullptr) {
        Fail(std::string(table) + " row " + std::to_string(row.id) + ": its run " +
             std::to_string(row.run_id) + " does not exist");
        continue;
      }
      if (std::string why = problem(row.view); !why.empty()) {
        Fail(RowName(table, row.id, row.run_id) + ": " + why);
        continue;
      }
      const Hash128 computed = hash(row.view, &scratch_);
      const auto stored = Hash128::FromHex(row.content_hash);
      if (!stored || !(*stored == computed)) {
        Fail(RowName(table, row.id, row.run_id) + ": content_hash mismatch");
        continue;
      }
      (run->*filed).push_back({row.view.seq, computed});
    }
    s.Reset();
  }

  // Streams one side table, checking each row's types and content_hash
  // (counted even after the first error, as the row tables are).
  template <typename Stored>
  void ScanSideRows(const char* select_sql, int64_t* count) {
    sql::Stmt& s = d_.Prepare(select_sql);
    Stored row;
    while (s.Step()) {
      ++*count;
      if (!report_.ok) continue;
      if (std::string problem = ReadAndCheckSideRow(s, &row, &scratch_); !problem.empty()) {
        Fail(std::move(problem));
      }
    }
    s.Reset();
  }

  void CheckRunsAndChain() {
    std::vector<RunRecord*> sealed;
    for (auto& [id, run] : runs_) {
      if (run.run_hash && run.chain_seq) sealed.push_back(&run);
    }
    std::sort(sealed.begin(), sealed.end(),
              [](const RunRecord* a, const RunRecord* b) { return *a->chain_seq < *b->chain_seq; });
    Hash128 previous{};
    int64_t expected_seq = 1;
    for (RunRecord* run : sealed) {
      if (!report_.ok) return;
      const std::string name = "run " + std::to_string(run->id);
      const Hash128 computed = RunHash(run->meta.View(), HashesInSeqOrder(run->results),
                                       HashesInSeqOrder(run->claims));
      const auto stored = Hash128::FromHex(*run->run_hash);
      if (!stored || !(*stored == computed)) {
        Fail(name + ": run_hash mismatch (rows missing or changed)");
        return;
      }
      // run_hash covers the rows' order, not their seq values: a seq moved
      // past the last (or below 1) keeps the order and must be caught here.
      if (!NumberedFromOne(*run, run->results, "results", kResultIdBySeq) ||
          !NumberedFromOne(*run, run->claims, "claims", kClaimIdBySeq)) {
        return;
      }
      if (*run->chain_seq != expected_seq) {
        Fail(name + ": chain_seq " + std::to_string(*run->chain_seq) + " where " +
             std::to_string(expected_seq) + " was expected (runs removed or reordered)");
        return;
      }
      const auto stored_chain = Hash128::FromHex(*run->chain_hash);
      if (!stored_chain || !(*stored_chain == ChainHash(previous, *stored))) {
        Fail(name + ": chain_hash mismatch (runs reordered or removed)");
        return;
      }
      previous = *stored_chain;
      ++expected_seq;
      report_.chain_head = *run->chain_hash;
      chain_hashes_.push_back(Lower(*run->chain_hash));
    }
  }

  // Writers number a run's rows 1, 2, ... (MAX(seq) + 1) and import refuses
  // anything else, so in a sealed run (`rows` already in seq order, as
  // HashesInSeqOrder left them) row k must have seq k.
  bool NumberedFromOne(const RunRecord& run, const std::vector<SeqHash>& rows, const char* table,
                       const char* id_by_seq) {
    for (size_t k = 0; k < rows.size(); ++k) {
      const int64_t expected = static_cast<int64_t>(k) + 1;
      if (rows[k].seq == expected) continue;
      sql::Stmt& s = d_.Prepare(id_by_seq);
      s.BindInt(1, run.id);
      s.BindInt(2, rows[k].seq);
      const int64_t id = s.Step() ? s.Int(0) : 0;
      s.Reset();
      Fail(RowName(table, id, run.id) + ": seq " + std::to_string(rows[k].seq) + " where " +
           std::to_string(expected) + " was expected (the run has " +
           std::to_string(rows.size()) + " " + table + " rows, numbered 1.." +
           std::to_string(rows.size()) + ")");
      return false;
    }
    return true;
  }

  // The head kept elsewhere must still be a link of the verified chain: runs
  // sealed after it are fine, but if its own run was deleted or unsealed the
  // chain now stops short of it (or forked) and nothing else would show it.
  void CheckExpectedHead() {
    if (!report_.ok || expect_head_.empty()) return;
    if (std::find(chain_hashes_.begin(), chain_hashes_.end(), expect_head_) != chain_hashes_.end()) {
      return;
    }
    Fail("expected chain head " + expect_head_ +
         " is not in the chain (the run sealed with it was removed or unsealed); the chain now "
         "ends at " + (report_.chain_head.empty() ? std::string("no sealed run") : report_.chain_head));
  }

  Ledger::Impl& d_;
  const std::string expect_head_;     // lower case, "" when not asked
  std::vector<std::string> chain_hashes_;  // lower case, of the verified chain
  VerifyReport report_;
  std::unordered_map<int64_t, RunRecord> runs_;
  RunRecord* last_ = nullptr;
  std::string scratch_;
};

}  // namespace

VerifyReport Ledger::Verify(std::string_view expect_head) {
  return Verifier(*impl_, expect_head).Run();
}

}  // namespace cb::ledger

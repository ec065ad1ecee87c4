// File: ledger/verify.cpp
// -----------------------------------------------------------------------------
// Ledger::Verify(): recomputes every row's content_hash, every sealed run's
// run_hash and the hash chain in chain_seq order, and names the first problem.
//
// Order of checks, so that the most specific cause is the one reported:
// runs (types and seal state), then result rows, then claim rows, then run
// hashes and the chain. A changed value is thus reported as its row, not as
// the run_hash mismatch it also causes.
//
// Speed: one prepared statement streams each table in rowid order (the
// cheapest scan SQLite has); rows are read as string_views into SQLite's
// buffers and encoded into one reused buffer, so a row costs no heap
// allocation beyond its 24-byte (seq, hash) entry. The whole check runs in
// one read transaction, i.e. against one snapshot, so concurrent writers
// neither block it nor make it see half a seal.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "ledger/canonical.h"
#include "ledger/ledger.h"
#include "ledger/ledger_impl.h"
#include "ledger/rows.h"

namespace cb::ledger {
namespace {

struct SeqHash {
  int64_t seq;
  Hash128 hash;
};

// A run's meta copied out of the statement (runs are few; rows are many).
struct RunRecord {
  int64_t id = 0;
  std::string run_uuid, status, command, profile, git_commit, source_hash, platform_hash;
  std::string platform_json, build_json, started_at;
  std::optional<std::string> finished_at, run_hash, chain_hash;
  int64_t seed = 0, git_dirty = 0;
  std::optional<int64_t> chain_seq;
  std::vector<SeqHash> results, claims;

  RunView View() const {
    RunView v;
    v.run_uuid = run_uuid;
    v.status = status;
    v.command = command;
    v.profile = profile;
    v.seed = seed;
    v.git_commit = git_commit;
    v.git_dirty = git_dirty;
    v.source_hash = source_hash;
    v.platform_hash = platform_hash;
    v.platform_json = platform_json;
    v.build_json = build_json;
    v.started_at = started_at;
    if (finished_at) v.finished_at = std::string_view(*finished_at);
    return v;
  }
};

std::optional<std::string> OptString(std::optional<std::string_view> v) {
  if (!v) return std::nullopt;
  return std::string(*v);
}

std::string RowName(const char* table, int64_t id, int64_t run_id) {
  return std::string(table) + " row " + std::to_string(id) + " (run " + std::to_string(run_id) +
         ")";
}

std::vector<Hash128> Ordered(std::vector<SeqHash>& rows) {
  std::sort(rows.begin(), rows.end(), [](const SeqHash& a, const SeqHash& b) { return a.seq < b.seq; });
  std::vector<Hash128> hashes;
  hashes.reserve(rows.size());
  for (const SeqHash& r : rows) hashes.push_back(r.hash);
  return hashes;
}

class Verifier {
 public:
  explicit Verifier(Ledger::Impl& d) : d_(d) {}

  VerifyReport Run() {
    ReadSnapshot snapshot(d_);
    ScanRuns();
    ScanResults();
    ScanClaims();
    CheckRunsAndChain();
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
      const RunView& v = row.view;
      r.id = row.id;
      r.run_uuid = v.run_uuid;
      r.status = v.status;
      r.command = v.command;
      r.profile = v.profile;
      r.seed = v.seed;
      r.git_commit = v.git_commit;
      r.git_dirty = v.git_dirty;
      r.source_hash = v.source_hash;
      r.platform_hash = v.platform_hash;
      r.platform_json = v.platform_json;
      r.build_json = v.build_json;
      r.started_at = v.started_at;
      r.finished_at = OptString(v.finished_at);
      r.run_hash = OptString(row.run_hash);
      r.chain_hash = OptString(row.chain_hash);
      r.chain_seq = row.chain_seq;
      const bool sealed = r.run_hash.has_value();
      if (!sealed) ++report_.unsealed_runs;
      // FinishRun sets status, run_hash and chain in one transaction, so any
      // other combination is a hand edit.
      if (sealed && r.status == "running") {
        Fail(name + ": sealed but its status is 'running'");
      } else if (!sealed && r.status != "running") {
        Fail(name + ": status '" + r.status + "' but not sealed (run_hash missing)");
      } else if (sealed != (r.chain_hash.has_value() && r.chain_seq.has_value())) {
        Fail(name + ": run_hash and chain columns are inconsistent");
      }
    }
    s.Reset();
  }

  void ScanResults() {
    sql::Stmt& s = d_.Prepare(kSelectAllResults);
    StoredResult row;
    while (s.Step()) {
      ++report_.results;
      const char* bad = ReadResult(s, &row);
      if (!report_.ok) continue;  // keep counting, the first error is taken
      if (bad != nullptr) {
        Fail(RowName("results", row.id, row.run_id) + ": column '" + bad + "' has the wrong type");
        continue;
      }
      RunRecord* run = FindRun(row.run_id);
      if (run == nullptr) {
        Fail("results row " + std::to_string(row.id) + ": its run " + std::to_string(row.run_id) +
             " does not exist");
        continue;
      }
      if (std::string problem = ResultViewProblem(row.view); !problem.empty()) {
        Fail(RowName("results", row.id, row.run_id) + ": " + problem);
        continue;
      }
      const Hash128 computed = ResultHash(row.view, &scratch_);
      const auto stored = Hash128::FromHex(row.content_hash);
      if (!stored || !(*stored == computed)) {
        Fail(RowName("results", row.id, row.run_id) + ": content_hash mismatch");
        continue;
      }
      run->results.push_back({row.view.seq, computed});
    }
    s.Reset();
  }

  void ScanClaims() {
    sql::Stmt& s = d_.Prepare(kSelectAllClaims);
    StoredClaim row;
    while (s.Step()) {
      ++report_.claims;
      const char* bad = ReadClaim(s, &row);
      if (!report_.ok) continue;
      if (bad != nullptr) {
        Fail(RowName("claims", row.id, row.run_id) + ": column '" + bad + "' has the wrong type");
        continue;
      }
      RunRecord* run = FindRun(row.run_id);
      if (run == nullptr) {
        Fail("claims row " + std::to_string(row.id) + ": its run " + std::to_string(row.run_id) +
             " does not exist");
        continue;
      }
      const Hash128 computed = ClaimHash(row.view, &scratch_);
      const auto stored = Hash128::FromHex(row.content_hash);
      if (!stored || !(*stored == computed)) {
        Fail(RowName("claims", row.id, row.run_id) + ": content_hash mismatch");
        continue;
      }
      run->claims.push_back({row.view.seq, computed});
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
      const Hash128 computed = RunHash(run->View(), Ordered(run->results), Ordered(run->claims));
      const auto stored = Hash128::FromHex(*run->run_hash);
      if (!stored || !(*stored == computed)) {
        Fail(name + ": run_hash mismatch (rows missing or changed)");
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
    }
  }

  Ledger::Impl& d_;
  VerifyReport report_;
  std::unordered_map<int64_t, RunRecord> runs_;
  RunRecord* last_ = nullptr;
  std::string scratch_;
};

}  // namespace

VerifyReport Ledger::Verify() { return Verifier(*impl_).Run(); }

}  // namespace cb::ledger

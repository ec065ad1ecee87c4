// File: ledger/analysis/run_data.cpp
// -----------------------------------------------------------------------------
// Loading runs and baselines (see run_data.h).
#include "ledger/analysis/run_data.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace cb::ledger {

std::string RowKey(const Result& r) {
  std::string key;
  const std::string params = r.params.dump();  // nlohmann objects keep keys sorted
  key.reserve(r.suite.size() + r.case_name.size() + r.backend.size() + params.size() +
              r.metric.size() + 4);
  key += r.suite;
  key += '\x1f';
  key += r.case_name;
  key += '\x1f';
  key += r.backend;
  key += '\x1f';
  key += params;
  key += '\x1f';
  key += r.metric;
  return key;
}

RunData LoadRun(Ledger& ledger, int64_t run_id) {
  RunData d;
  d.run = ledger.GetRun(run_id);
  d.label = ledger.path() + " run " + std::to_string(run_id);
  d.results = ledger.GetResults(run_id);
  d.claims = ledger.GetClaims(run_id);
  return d;
}

bool IsSqliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in.gcount() == 16 && std::memcmp(header, "SQLite format 3", 16) == 0;
}

int64_t NewestSealedRun(Ledger& ledger) {
  int64_t sealed = 0;
  for (const auto& r : ledger.Log(1 << 30)) {
    if (r.run_hash.empty()) continue;
    if (r.status == "complete") return r.id;
    if (sealed == 0) sealed = r.id;
  }
  if (sealed == 0) throw LedgerError("ledger '" + ledger.path() + "' has no sealed run");
  return sealed;
}

RunData LoadBaseline(const std::string& spec, Ledger& candidate_ledger) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec, ec)) {
    RunData d = LoadRun(candidate_ledger, candidate_ledger.ResolveRun(spec));
    if (d.run.run_hash.empty()) {
      throw LedgerError("baseline run '" + spec + "' is not sealed (still running or killed)");
    }
    return d;
  }
  if (IsSqliteFile(spec)) {
    Ledger base = Ledger::OpenReadOnly(spec);
    RunData d = LoadRun(base, NewestSealedRun(base));
    return d;
  }
  // An export: imported into a private in-memory ledger, which re-verifies
  // every row hash and run hash; the baseline is the file's last run.
  std::ifstream in(spec);
  if (!in) throw std::runtime_error("baseline '" + spec + "': cannot read");
  Ledger memory = Ledger::Open(":memory:");
  const ImportReport rep = memory.Import(in, spec);
  if (rep.runs_added == 0) throw std::runtime_error("baseline '" + spec + "': no run in the file");
  const auto runs = memory.Log(1);
  RunData d = LoadRun(memory, runs.at(0).id);
  d.label = spec + " run " + d.run.run_uuid.substr(0, 8);
  return d;
}

}  // namespace cb::ledger

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

ParamFilter ParseParamFilter(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::invalid_argument("--param '" + arg + "': expected KEY=VALUE");
  }
  ParamFilter f;
  f.key = arg.substr(0, eq);
  f.text = arg.substr(eq + 1);
  const nlohmann::json parsed = nlohmann::json::parse(f.text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean() || parsed.is_null())) {
    f.value = parsed;
  } else {
    f.value = f.text;
  }
  return f;
}

bool MatchesParams(const nlohmann::json& params, const std::vector<ParamFilter>& filters) {
  for (const ParamFilter& f : filters) {
    if (!params.is_object()) return false;
    const auto it = params.find(f.key);
    if (it == params.end()) return false;
    if (*it == f.value) continue;
    if (it->is_string() && it->get_ref<const std::string&>() == f.text) continue;
    return false;
  }
  return true;
}

RunData LoadRun(Ledger& ledger, int64_t run_id) {
  RunData d;
  d.run = ledger.GetRun(run_id);
  d.label = ledger.path() + " run " + std::to_string(run_id);
  d.results = ledger.GetResults(run_id, &d.kinds);
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

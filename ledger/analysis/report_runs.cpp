// File: ledger/analysis/report_runs.cpp
// -----------------------------------------------------------------------------
// Grouping shard runs into one logical run (see report_runs.h).
#include "ledger/analysis/report_runs.h"

#include <cstdlib>
#include <map>
#include <sstream>

namespace cb::ledger {
namespace {

std::optional<ShardTag> ParseTag(const std::string& s) {
  const size_t slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= s.size()) return std::nullopt;
  char* end = nullptr;
  const long i = std::strtol(s.c_str(), &end, 10);
  if (end != s.c_str() + slash) return std::nullopt;
  const long n = std::strtol(s.c_str() + slash + 1, &end, 10);
  if (*end != '\0' || n < 1 || i < 0 || i >= n || n > 1 << 20) return std::nullopt;
  return ShardTag{static_cast<int>(i), static_cast<int>(n)};
}

template <class T>
std::string Join(const std::vector<T>& v) {
  std::string s;
  for (const T& x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

std::optional<ShardTag> ShardOfCommand(const std::string& command) {
  std::istringstream in(command);
  std::string word, last;
  while (in >> word) {
    if (last == "--shard") return ParseTag(word);
    if (word.rfind("--shard=", 0) == 0) return ParseTag(word.substr(8));
    last = word;
  }
  return std::nullopt;
}

LogicalRun LoadLogicalRun(Ledger& ledger, int64_t run_id) {
  LogicalRun out;
  const RunMeta chosen = ledger.GetRunMeta(run_id);
  const auto tag = ShardOfCommand(chosen.command);
  if (!tag) {
    out.data = LoadRun(ledger, run_id);
    out.run_ids = {run_id};
    return out;
  }
  out.shard_count = tag->count;
  std::map<int, int64_t> by_index = {{tag->index, run_id}};
  for (const auto& r : ledger.Log(1 << 30)) {
    if (r.id == run_id || r.run_hash.empty()) continue;
    const RunMeta meta = ledger.GetRunMeta(r.id);
    const auto t = ShardOfCommand(meta.command);
    if (!t || t->count != tag->count || t->index == tag->index) continue;
    if (meta.seed != chosen.seed || meta.profile != chosen.profile || meta.git_commit != chosen.git_commit) continue;
    auto [it, added] = by_index.emplace(t->index, r.id);
    if (!added && std::llabs(r.id - run_id) < std::llabs(it->second - run_id)) it->second = r.id;
  }
  out.data = LoadRun(ledger, run_id);
  for (const auto& [index, id] : by_index) {
    out.shards.push_back(index);
    out.run_ids.push_back(id);
    if (id == run_id) continue;
    RunData member = LoadRun(ledger, id);
    for (size_t i = 0; i < member.results.size(); ++i) {
      out.data.results.push_back(std::move(member.results[i]));
      if (!out.data.kinds.empty() || !member.kinds.empty()) {
        out.data.kinds.resize(out.data.results.size() - 1);
        out.data.kinds.push_back(member.kinds.empty() ? std::nullopt : member.kinds[i]);
      }
    }
    for (auto& c : member.claims) out.data.claims.push_back(std::move(c));
  }
  for (int i = 0; i < tag->count; ++i) {
    if (!by_index.count(i)) out.missing.push_back(i);
  }
  out.data.label += " (" + DescribeShards(out) + ")";
  return out;
}

std::string DescribeShards(const LogicalRun& run) {
  if (run.shard_count == 0) return "";
  const std::vector<int64_t>& ids = run.run_ids;
  return std::string(run.shards.size() == 1 ? "shard " : "shards ") + Join(run.shards) + " of " +
         std::to_string(run.shard_count) + " (run" + (ids.size() == 1 ? " " : "s ") + Join(ids) + ")";
}

std::string MissingShardsWarning(const LogicalRun& run) {
  if (run.missing.empty()) return "";
  return std::string(run.missing.size() == 1 ? "shard " : "shards ") + Join(run.missing) + " of " +
         std::to_string(run.shard_count) + (run.missing.size() == 1 ? " is" : " are") +
         " missing (same seed, profile and commit): its claims are not in this report; merge that "
         "shard's ledger with `claimbench ledger merge`";
}

}  // namespace cb::ledger

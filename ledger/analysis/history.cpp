// File: ledger/analysis/history.cpp
// -----------------------------------------------------------------------------
// Per-run series of one metric and their change points (see history.h).
#include "ledger/analysis/history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "harness/criterion.h"
#include "harness/stats.h"

namespace cb::ledger {

std::vector<HistorySeries> History(Ledger& ledger, const std::string& suite,
                                   const std::string& case_name, const std::string& metric,
                                   const HistoryOptions& options) {
  // Sealed runs only: a running or killed run is not history yet.
  std::map<int64_t, RunSummary> runs;
  for (auto& r : ledger.Log(1 << 30)) {
    if (r.run_hash.empty()) continue;
    if (!options.platform.empty() && r.platform_hash.rfind(options.platform, 0) != 0) continue;
    runs.emplace(r.id, std::move(r));
  }
  std::map<std::pair<std::string, std::string>, HistorySeries> by_series;
  for (auto& [run_id, r] : ledger.FindResults(suite, case_name, metric)) {
    const auto run = runs.find(run_id);
    if (run == runs.end()) continue;
    if (!options.backend.empty() && r.backend != options.backend) continue;
    if (!MatchesParams(r.params, options.params)) continue;
    const std::string params = r.params.dump();
    HistorySeries& s = by_series[{r.backend, params}];
    s.suite = suite;
    s.case_name = case_name;
    s.metric = metric;
    s.backend = r.backend;
    s.params = params;
    HistoryPoint p;
    p.run_id = run_id;
    p.run_uuid = run->second.run_uuid;
    p.started_at = run->second.started_at;
    p.platform_hash = run->second.platform_hash;
    p.value = r.samples.empty() ? r.value : cb::harness::Median(r.samples);
    p.ci_low = r.ci_low;
    p.ci_high = r.ci_high;
    p.n = r.n;
    if (std::isnan(p.value)) continue;
    s.points.push_back(std::move(p));
  }
  std::vector<HistorySeries> out;
  for (auto& [key, s] : by_series) {
    // Runs are in id order (FindResults); a run with two rows of one series keeps both.
    std::vector<double> y;
    y.reserve(s.points.size());
    for (const auto& p : s.points) y.push_back(p.value);
    for (const auto& cp : cb::harness::DetectChangePoints(y, options.change)) {
      HistoryStep st;
      st.index = cp.index;
      st.first_run_id = s.points[cp.index].run_id;
      st.first_run_uuid = s.points[cp.index].run_uuid;
      st.before = cp.before;
      st.after = cp.after;
      st.relative = cp.before != 0 ? cp.after / cp.before - 1 : 0;
      s.steps.push_back(std::move(st));
    }
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json HistoryJson(const std::vector<HistorySeries>& series) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : series) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) {
      points.push_back({{"run_id", p.run_id}, {"run_uuid", p.run_uuid}, {"started_at", p.started_at},
                        {"value", p.value}, {"n", p.n},
                        {"ci", p.ci_low && p.ci_high ? nlohmann::json({*p.ci_low, *p.ci_high})
                                                     : nlohmann::json()}});
    }
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& st : s.steps) {
      steps.push_back({{"index", st.index}, {"first_run_id", st.first_run_id},
                       {"first_run_uuid", st.first_run_uuid}, {"before", st.before},
                       {"after", st.after}, {"relative", st.relative}});
    }
    out.push_back({{"suite", s.suite}, {"case", s.case_name}, {"metric", s.metric},
                   {"backend", s.backend}, {"params", s.params}, {"points", std::move(points)},
                   {"steps", std::move(steps)}});
  }
  return out;
}

std::string HistoryTable(const std::vector<HistorySeries>& series) {
  std::ostringstream out;
  char buf[256];
  for (const auto& s : series) {
    out << s.suite << "/" << s.case_name << " [" << s.backend << "] " << s.params << " "
        << s.metric << ": " << s.points.size() << " runs, " << s.steps.size() << " change point"
        << (s.steps.size() == 1 ? "" : "s") << "\n";
    size_t next_step = 0;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      std::string mark;
      if (next_step < s.steps.size() && s.steps[next_step].index == i) {
        std::snprintf(buf, sizeof buf, "  <- step %+.1f%% (%.4g -> %.4g), first run after it",
                      100 * s.steps[next_step].relative, s.steps[next_step].before,
                      s.steps[next_step].after);
        mark = buf;
        ++next_step;
      }
      std::snprintf(buf, sizeof buf, "  run %-6lld %-20s %12.6g", static_cast<long long>(p.run_id),
                    p.started_at.substr(0, 19).c_str(), p.value);
      out << buf << mark << "\n";
    }
  }
  if (series.empty()) out << "no rows match\n";
  return out.str();
}

std::vector<ClaimHistoryPoint> ClaimHistory(Ledger& ledger, const std::string& claim_id,
                                            const std::string& platform) {
  std::vector<RunSummary> runs = ledger.Log(1 << 30);
  std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) { return a.id < b.id; });
  std::vector<ClaimHistoryPoint> out;
  std::optional<std::string> last_hash;
  for (const RunSummary& r : runs) {
    if (r.run_hash.empty()) continue;
    if (!platform.empty() && r.platform_hash.rfind(platform, 0) != 0) continue;
    for (const ClaimRow& c : ledger.GetClaims(r.id)) {
      if (c.claim_id != claim_id) continue;
      ClaimHistoryPoint p;
      p.run_id = r.id;
      p.run_uuid = r.run_uuid;
      p.started_at = r.started_at;
      p.profile = r.profile;
      p.verdict = c.verdict;
      p.criterion = c.criterion;
      p.scale = c.scale;
      p.value = c.value;
      p.ci_low = c.ci_low;
      p.ci_high = c.ci_high;
      if (c.criterion_hash && !c.criterion_hash->empty()) p.criterion_hash = c.criterion_hash;
      if (p.criterion_hash) {
        p.criterion_changed = last_hash && *last_hash != *c.criterion_hash;
        last_hash = c.criterion_hash;
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

nlohmann::json ClaimHistoryJson(const std::string& claim_id, const std::vector<ClaimHistoryPoint>& points) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : points) {
    rows.push_back({{"run_id", p.run_id}, {"run_uuid", p.run_uuid}, {"started_at", p.started_at},
                    {"profile", p.profile}, {"verdict", p.verdict}, {"scale", p.scale},
                    {"value", p.value ? nlohmann::json(*p.value) : nlohmann::json()},
                    {"ci", p.ci_low && p.ci_high ? nlohmann::json({*p.ci_low, *p.ci_high}) : nlohmann::json()},
                    {"criterion", p.criterion},
                    {"criterion_hash", p.criterion_hash ? nlohmann::json(*p.criterion_hash) : nlohmann::json()},
                    {"criterion_changed", p.criterion_changed}});
  }
  return {{"claim", claim_id}, {"points", std::move(rows)}};
}

std::string ClaimHistoryTable(const std::string& claim_id, const std::vector<ClaimHistoryPoint>& points) {
  std::ostringstream out;
  if (points.empty()) return "claim " + claim_id + ": in no sealed run\n";
  out << "claim " << claim_id << ": " << points.size() << " runs\n";
  char buf[256];
  for (const auto& p : points) {
    std::snprintf(buf, sizeof buf, "  run %-6lld %-20s %-6s %-15s %12s", static_cast<long long>(p.run_id),
                  p.started_at.substr(0, 19).c_str(), p.profile.c_str(), p.verdict.c_str(),
                  p.value ? cb::harness::FormatNumber(*p.value).c_str() : "-");
    out << buf;
    if (p.criterion_changed) out << "  <- criterion changed: " << p.criterion;
    out << "\n";
  }
  return out.str();
}

}  // namespace cb::ledger

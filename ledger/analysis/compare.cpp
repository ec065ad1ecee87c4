// File: ledger/analysis/compare.cpp
// -----------------------------------------------------------------------------
// Per-case speedups, correctness status and geometric means (see compare.h).
#include "ledger/analysis/compare.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "harness/hash.h"
#include "harness/stats.h"
#include "harness/stats_tests.h"

namespace cb::ledger {
namespace {

namespace h = cb::harness;

std::string MatchKey(const Result& r, bool with_backend) {
  Result copy_key;
  copy_key.suite = r.suite;
  copy_key.case_name = r.case_name;
  copy_key.backend = with_backend ? r.backend : "";
  copy_key.params = r.params;
  copy_key.metric = r.metric;
  return RowKey(copy_key);
}

// Correctness of (suite, case, backend) in one run; see compare.h.
class Correctness {
 public:
  explicit Correctness(const RunData& run) : complete_(run.run.status == "complete") {
    for (const auto& r : run.results) {
      if (r.metric == "correct") {
        explicit_[r.suite + '\x1f' + r.case_name + '\x1f' + r.backend] = r.value == 1.0;
      }
    }
    for (const auto& c : run.claims) {
      auto& s = suites_[c.suite];
      s.any = true;
      s.failed |= c.verdict == "NOT_REPRODUCED";
    }
  }

  std::string Of(const Result& r) const {
    const auto e = explicit_.find(r.suite + '\x1f' + r.case_name + '\x1f' + r.backend);
    if (e != explicit_.end()) return e->second ? "passed" : "failed";
    const auto s = suites_.find(r.suite);
    if (s == suites_.end() || !s->second.any) return complete_ ? "unchecked" : "failed";
    return s->second.failed || !complete_ ? "failed" : "passed";
  }

 private:
  struct SuiteStatus {
    bool any = false, failed = false;
  };
  bool complete_;
  std::unordered_map<std::string, bool> explicit_;
  std::unordered_map<std::string, SuiteStatus> suites_;
};

bool Wanted(const Result& r, const std::string& backend, const std::vector<ParamFilter>& params) {
  return (backend.empty() || r.backend == backend) && r.metric != "correct" &&
         MatchesParams(r.params, params);
}

}  // namespace

CompareReport Compare(const CompareSide& a, const CompareSide& b, int resamples,
                      const std::vector<ParamFilter>& params) {
  const bool with_backend = a.backend == b.backend;
  CompareReport rep;
  rep.label_a = a.label;
  rep.label_b = b.label;
  const Correctness ca(*a.run), cbk(*b.run);
  std::unordered_map<std::string, const Result*> rows_a;
  for (const auto& r : a.run->results) {
    if (Wanted(r, a.backend, params)) rows_a.emplace(MatchKey(r, with_backend), &r);
  }
  std::map<std::string, std::pair<double, int>> log_sums;
  double total_log = 0;
  for (const auto& rb : b.run->results) {
    if (!Wanted(rb, b.backend, params)) continue;
    const std::string key = MatchKey(rb, with_backend);
    const auto it = rows_a.find(key);
    if (it == rows_a.end()) continue;
    const Result& ra = *it->second;
    const bool speed_rows = ra.samples.size() >= 2 && rb.samples.size() >= 2;
    if (!speed_rows && rb.direction == "none") continue;
    CompareRow row;
    row.suite = rb.suite;
    row.case_name = rb.case_name;
    row.params = rb.params.dump();
    row.metric = rb.metric;
    row.unit = rb.unit;
    row.backend_a = ra.backend;
    row.backend_b = rb.backend;
    row.a = ra.samples.size() >= 2 ? h::Median(ra.samples) : ra.value;
    row.b = rb.samples.size() >= 2 ? h::Median(rb.samples) : rb.value;
    const bool higher = rb.direction == "higher";
    if (row.a <= 0 || row.b <= 0 || !std::isfinite(row.a) || !std::isfinite(row.b)) continue;
    row.speedup = higher ? row.b / row.a : row.a / row.b;
    if (speed_rows) {
      // CI of median(B) / median(A) - 1; the speedup is that ratio or its inverse.
      const h::Interval rel = h::BootstrapRelativeChange(ra.samples, rb.samples, 0.95, resamples,
                                                         h::Xxh3_128(key).low);
      if (higher) {
        row.ci_low = 1 + rel.low;
        row.ci_high = 1 + rel.high;
      } else if (1 + rel.low > 0) {
        row.ci_low = 1 / (1 + rel.high);
        row.ci_high = 1 / (1 + rel.low);
      }
    }
    row.status_a = ca.Of(ra);
    row.status_b = cbk.Of(rb);
    row.counted = row.status_a == "passed" && row.status_b == "passed";
    if (row.counted) {
      auto& [sum, n] = log_sums[row.suite];
      sum += std::log(row.speedup);
      ++n;
      total_log += std::log(row.speedup);
      ++rep.counted;
    }
    rep.rows.push_back(std::move(row));
  }
  for (const auto& [suite, sn] : log_sums) {
    rep.suite_geomean[suite] = {std::exp(sn.first / sn.second), sn.second};
  }
  if (rep.counted > 0) rep.overall_geomean = std::exp(total_log / rep.counted);
  return rep;
}

std::string CompareTable(const CompareReport& r) {
  std::ostringstream out;
  char buf[512];
  out << "A: " << r.label_a << "\nB: " << r.label_b << "\nspeedup = how many times faster B is than A\n\n";
  std::snprintf(buf, sizeof buf, "%-52s %-18s %11s %11s %9s %-21s %-9s %-9s\n", "case", "metric",
                "A", "B", "speedup", "95% CI", "A check", "B check");
  out << buf;
  for (const auto& row : r.rows) {
    std::string name = row.suite + "/" + row.case_name + (row.params == "{}" ? "" : row.params);
    if (row.backend_a != row.backend_b) name += " [" + row.backend_a + " vs " + row.backend_b + "]";
    if (name.size() > 52) name = name.substr(0, 51) + "~";
    char ci[64] = "-";
    if (row.ci_low && row.ci_high) std::snprintf(ci, sizeof ci, "[%.3g, %.3g]", *row.ci_low, *row.ci_high);
    std::snprintf(buf, sizeof buf, "%-52s %-18s %11.4g %11.4g %8.3gx %-21s %-9s %-9s%s\n",
                  name.c_str(), row.metric.substr(0, 18).c_str(), row.a, row.b, row.speedup, ci,
                  row.status_a.c_str(), row.status_b.c_str(), row.counted ? "" : "  (not counted)");
    out << buf;
  }
  out << "\ngeometric mean speedup (rows where both sides passed their checks)\n";
  for (const auto& [suite, g] : r.suite_geomean) {
    std::snprintf(buf, sizeof buf, "  %-20s %8.3gx over %d rows\n", suite.c_str(), g.first, g.second);
    out << buf;
  }
  if (r.overall_geomean) {
    std::snprintf(buf, sizeof buf, "  %-20s %8.3gx over %d rows\n", "overall", *r.overall_geomean, r.counted);
    out << buf;
  } else {
    out << "  overall: no row counted (no case passed its checks on both sides)\n";
  }
  return out.str();
}

nlohmann::json CompareJson(const CompareReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows) {
    rows.push_back({{"suite", row.suite}, {"case", row.case_name}, {"params", row.params},
                    {"metric", row.metric}, {"unit", row.unit}, {"backend_a", row.backend_a},
                    {"backend_b", row.backend_b}, {"a", row.a}, {"b", row.b},
                    {"speedup", row.speedup},
                    {"ci", row.ci_low ? nlohmann::json({*row.ci_low, *row.ci_high}) : nlohmann::json()},
                    {"status_a", row.status_a}, {"status_b", row.status_b}, {"counted", row.counted}});
  }
  nlohmann::json suites = nlohmann::json::object();
  for (const auto& [suite, g] : r.suite_geomean) suites[suite] = {{"geomean", g.first}, {"rows", g.second}};
  return {{"a", r.label_a}, {"b", r.label_b}, {"rows", std::move(rows)}, {"suites", std::move(suites)},
          {"overall_geomean", r.overall_geomean ? nlohmann::json(*r.overall_geomean) : nlohmann::json()},
          {"counted", r.counted}};
}

}  // namespace cb::ledger

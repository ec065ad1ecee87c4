// File: ledger/analysis/report_fractions.cpp
// -----------------------------------------------------------------------------
// Ceiling-fraction rows for the paper pages (see report_fractions.h).
#include "ledger/analysis/report_fractions.h"

#include <cstdio>
#include <sstream>

#include "ledger/analysis/report_text.h"

namespace cb::ledger {
namespace {

// The row's params without the ceiling (its own column) and the benchmark's
// full name (the case and the named axes say it).
std::string OtherParams(const Result& r) {
  nlohmann::json p = r.params;
  if (p.is_object()) p.erase("ceiling"), p.erase("benchmark");
  return p.is_object() && p.empty() ? "" : p.dump();
}

std::string CeilingName(const Result& r) {
  const auto it = r.params.find("ceiling");
  if (it == r.params.end() || !it->is_object()) return "";
  return it->value("name", "");
}

std::string Fraction(const Result& r) {
  std::string s = ShortNumber(r.value);
  if (r.ci_low && r.ci_high) s += " [" + ShortNumber(*r.ci_low) + ", " + ShortNumber(*r.ci_high) + "]";
  return s;
}

}  // namespace

bool IsCeilingFraction(const Result& r) {
  return r.metric.find("_fraction_of_") != std::string::npos && r.params.is_object() && r.params.contains("ceiling");
}

std::map<std::string, SuiteFractions> FindCeilingFractions(Ledger& ledger, const std::string& platform_hash,
                                                           const std::set<std::string>& suites, int max_runs) {
  std::map<std::string, SuiteFractions> found;
  int looked = 0;
  for (const RunSummary& run : ledger.Log(1 << 30)) {  // newest first
    if (found.size() == suites.size() || looked >= max_runs) break;
    // Only `bench` writes fraction rows; claims runs need not be loaded.
    if (run.run_hash.empty() || run.platform_hash != platform_hash || run.profile != "bench") continue;
    ++looked;
    std::map<std::string, SuiteFractions> here;
    for (Result& r : ledger.GetResults(run.id)) {
      if (!suites.count(r.suite) || found.count(r.suite) || !IsCeilingFraction(r)) continue;
      SuiteFractions& f = here[r.suite];
      f.run_id = run.id;
      f.started_at = run.started_at;
      f.rows.push_back(std::move(r));
    }
    found.merge(here);
  }
  return found;
}

std::string FractionsHtml(const SuiteFractions& f) {
  std::ostringstream out;
  out << "<p>Benchmark rows as a fraction of this platform's ceiling (run " << f.run_id << ", "
      << HtmlEscape(f.started_at) << "):</p>\n<table class=\"cb-fractions\"><tr><th>case</th><th>backend</th>"
      << "<th>params</th><th>ceiling</th><th>fraction [CI]</th></tr>\n";
  for (const Result& r : f.rows) {
    out << "<tr><td>" << HtmlEscape(r.case_name) << "</td><td>" << HtmlEscape(r.backend) << "</td><td>"
        << HtmlEscape(OtherParams(r)) << "</td><td>" << HtmlEscape(CeilingName(r)) << "</td><td>"
        << HtmlEscape(Fraction(r)) << "</td></tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

std::string FractionsMarkdown(const SuiteFractions& f) {
  std::ostringstream out;
  out << "Benchmark rows as a fraction of this platform's ceiling (run " << f.run_id << ", " << f.started_at
      << "):\n\n| case | backend | params | ceiling | fraction [CI] |\n|---|---|---|---|---|\n";
  for (const Result& r : f.rows) {
    out << "| " << MarkdownCell(r.case_name) << " | " << r.backend << " | " << MarkdownCell(OtherParams(r)) << " | "
        << CeilingName(r) << " | " << Fraction(r) << " |\n";
  }
  return out.str();
}

}  // namespace cb::ledger

// File: ledger/analysis/report_fractions.h
// -----------------------------------------------------------------------------
// "How close to the limit" for the report's paper pages (issue 29): a suite's
// benchmark rows stated as a fraction of the platform's ceiling, the rows
// that `claimbench bench` writes beside every bandwidth or FLOP-rate row
// (metric "<counter>_fraction_of_<ceiling>", ledger/reporter.h). Claims runs
// hold none, so they are looked up in the newest sealed `bench` runs (profile
// "bench") of the SAME platform: a fraction means something only against its
// own machine's ceiling.
#ifndef CB_LEDGER_ANALYSIS_REPORT_FRACTIONS_H_
#define CB_LEDGER_ANALYSIS_REPORT_FRACTIONS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct SuiteFractions {
  int64_t run_id = 0;         // the run the rows come from
  std::string started_at;     // when that run began
  std::vector<Result> rows;   // its fraction rows of the suite, in recorded order
};

// True for a row that states another row as a fraction of a ceiling.
bool IsCeilingFraction(const Result& r);

// For each of `suites`: the fraction rows of the newest sealed bench run on
// `platform_hash` that has any for that suite, looking at most at the
// `max_runs` newest such runs. Suites with none are absent.
std::map<std::string, SuiteFractions> FindCeilingFractions(Ledger& ledger, const std::string& platform_hash,
                                                           const std::set<std::string>& suites,
                                                           int max_runs = 50);

// An HTML table (case, backend, params, ceiling, fraction) or Markdown table
// of one suite's fraction rows, with the run they came from.
std::string FractionsHtml(const SuiteFractions& f);
std::string FractionsMarkdown(const SuiteFractions& f);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_FRACTIONS_H_

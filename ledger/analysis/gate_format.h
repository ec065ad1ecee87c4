// File: ledger/analysis/gate_format.h
// -----------------------------------------------------------------------------
// Renderings of a GateReport: a terminal table, Markdown (a pull-request
// comment), JUnit XML (one testcase per row; a regression is a <failure>, a
// gated AMBIGUOUS row is <skipped> so CI shows it) and JSON.
#ifndef CB_LEDGER_ANALYSIS_GATE_FORMAT_H_
#define CB_LEDGER_ANALYSIS_GATE_FORMAT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "ledger/analysis/gate.h"

namespace cb::ledger {

// Rows that are SAME / MATCH are listed only when `all` (they are counted
// in the summary either way).
std::string GateTable(const GateReport& report, bool all);
std::string GateMarkdown(const GateReport& report, bool all);
std::string GateJunit(const GateReport& report);
nlohmann::json GateJson(const GateReport& report);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_GATE_FORMAT_H_

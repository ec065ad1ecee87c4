// File: ledger/analysis/report_text.h
// -----------------------------------------------------------------------------
// The report's text helpers, one copy each for the page, its SVG figures and
// the Markdown summary: HtmlEscape() (& < > " become entities, everything
// else is copied; the text is UTF-8 and stays so), MarkdownCell() for a cell
// of a Markdown table ('|' becomes "\|"), ShortNumber() for numbers in
// labels ("%.<digits>g").
#ifndef CB_LEDGER_ANALYSIS_REPORT_TEXT_H_
#define CB_LEDGER_ANALYSIS_REPORT_TEXT_H_

#include <cstdio>
#include <string>

namespace cb::ledger {

inline std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

inline std::string MarkdownCell(std::string s) {
  for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
  return s;
}

inline std::string ShortNumber(double v, int digits = 3) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_TEXT_H_

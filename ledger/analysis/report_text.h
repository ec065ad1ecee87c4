// File: ledger/analysis/html_escape.h
// -----------------------------------------------------------------------------
// The report's two escapes: HtmlEscape() for its pages and SVG figures (& < >
// " become entities, everything else is copied; the text is UTF-8 and stays
// so), MarkdownCell() for a cell of a Markdown table ('|' becomes "\|").
#ifndef CB_LEDGER_ANALYSIS_HTML_ESCAPE_H_
#define CB_LEDGER_ANALYSIS_HTML_ESCAPE_H_

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

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_HTML_ESCAPE_H_

// File: ledger/analysis/report_speedup.cpp
// -----------------------------------------------------------------------------
// Speedup bars as SVG and as text (see report_speedup.h).
#include "ledger/analysis/report_speedup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "ledger/analysis/report_text.h"

namespace cb::ledger {
namespace {

std::string Label(const CompareRow& r) {
  return r.suite + "/" + r.case_name + (r.params == "{}" ? "" : " " + r.params) + " " + r.metric;
}

bool Drawable(const CompareRow& r) { return std::isfinite(r.speedup) && r.speedup > 0; }

// A CI end that can go on the log axis.
std::optional<double> LogEnd(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v) || *v <= 0) return std::nullopt;
  return std::log10(*v);
}

// The drawn rows and the log10 axis they share (always holding 1x).
struct Axis {
  std::vector<const CompareRow*> rows, undrawable;
  double lo = -0.1, hi = 0.1;
  size_t more = 0;  // drawable rows past max_rows
};

Axis Lay(const CompareReport& report, size_t max_rows) {
  Axis a;
  for (const auto& r : report.rows) {
    if (!Drawable(r)) {
      a.undrawable.push_back(&r);
    } else if (a.rows.size() < max_rows) {
      a.rows.push_back(&r);
    } else {
      ++a.more;
    }
  }
  double lo = 0, hi = 0;
  for (const CompareRow* r : a.rows) {
    for (const auto& v : {LogEnd(r->speedup), LogEnd(r->ci_low), LogEnd(r->ci_high)}) {
      if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
    }
  }
  const double pad = std::max(0.05, 0.06 * (hi - lo));
  a.lo = lo - pad;
  a.hi = hi + pad;
  return a;
}

const char* Colour(const CompareRow& r) {
  if (!r.counted) return "#999999";
  return r.speedup >= 1 ? "#2a8a2a" : "#c03030";
}

std::string CiText(const CompareRow& r) {
  return r.ci_low && r.ci_high ? " [" + ShortNumber(*r.ci_low) + ", " + ShortNumber(*r.ci_high) + "]" : "";
}

}  // namespace

std::string SpeedupSvg(const CompareReport& report, size_t max_rows, int* bars) {
  const Axis a = Lay(report, max_rows);
  constexpr int kW = 1000, kLabel = 470, kPlot0 = 480, kPlot1 = 880, kRowH = 18, kTop = 34;
  auto X = [&](double log10v) { return kPlot0 + (kPlot1 - kPlot0) * (log10v - a.lo) / (a.hi - a.lo); };
  std::ostringstream out;
  if (!a.rows.empty()) {
    const int bottom = kTop + kRowH * static_cast<int>(a.rows.size()), h = bottom + 16;
    out << "<svg class=\"cb-speedup\" width=\"" << kW << "\" height=\"" << h << "\" viewBox=\"0 0 " << kW << " " << h
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<text x=\"0\" y=\"12\" font-weight=\"bold\">" << HtmlEscape(report.label_b) << " over "
        << HtmlEscape(report.label_a) << "</text><text x=\"" << kPlot0 << "\" y=\"12\" fill=\"#555\">"
        << "speedup, log axis; bar from 1x to the paired median, whisker: 95% CI</text>\n"
        << "<text x=\"" << kPlot0 << "\" y=\"28\" fill=\"#777\">" << ShortNumber(std::pow(10, a.lo)) << "x</text>"
        << "<text x=\"" << kPlot1 << "\" y=\"28\" text-anchor=\"end\" fill=\"#777\">" << ShortNumber(std::pow(10, a.hi))
        << "x</text><text x=\"" << X(0) << "\" y=\"" << h - 3 << "\" text-anchor=\"middle\">1x</text>\n"
        << "<line class=\"cb-speedup-one\" x1=\"" << X(0) << "\" x2=\"" << X(0) << "\" y1=\"" << kTop - 2
        << "\" y2=\"" << bottom + 2 << "\" stroke=\"#000\"/>\n";
    for (size_t i = 0; i < a.rows.size(); ++i) {
      const CompareRow& r = *a.rows[i];
      const int y = kTop + kRowH * static_cast<int>(i), mid = y + kRowH / 2;
      const double x0 = X(0), x1 = X(std::log10(r.speedup));
      out << "<g class=\"cb-speedup-row\"><title>" << HtmlEscape(Label(r) + ": " + ShortNumber(r.speedup) + "x" + CiText(r) +
                                                               (r.counted ? "" : " (not counted: a side failed or skipped its check)"))
          << "</title><text x=\"" << kLabel << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\">"
          << HtmlEscape(Label(r)) << "</text>"
          << "<rect class=\"cb-speedup-bar\" x=\"" << std::min(x0, x1) << "\" y=\"" << mid - 5 << "\" width=\""
          << std::max(1.0, std::fabs(x1 - x0)) << "\" height=\"10\" fill=\"" << Colour(r) << "\"/>";
      const auto lo = LogEnd(r.ci_low), hi = LogEnd(r.ci_high);
      if (lo && hi) {
        out << "<line class=\"cb-speedup-ci\" x1=\"" << X(*lo) << "\" x2=\"" << X(*hi) << "\" y1=\"" << mid
            << "\" y2=\"" << mid << "\" stroke=\"#000\" stroke-width=\"1.5\"/>";
        for (double e : {*lo, *hi}) {
          out << "<line x1=\"" << X(e) << "\" x2=\"" << X(e) << "\" y1=\"" << mid - 4 << "\" y2=\"" << mid + 4
              << "\" stroke=\"#000\"/>";
        }
      }
      out << "<text x=\"" << kPlot1 + 6 << "\" y=\"" << mid + 4 << "\">" << ShortNumber(r.speedup) << "x</text></g>\n";
    }
    out << "</svg>\n";
  }
  if (a.more > 0) {
    out << "<p class=\"note\">" << a.more << " more compared cases: <code>claimbench compare</code> lists them all.</p>\n";
  }
  for (const CompareRow* r : a.undrawable) {
    out << "<p class=\"note\">" << HtmlEscape(Label(*r)) << ": no positive speedup to draw (" << ShortNumber(r->speedup)
        << ").</p>\n";
  }
  if (bars) *bars = static_cast<int>(a.rows.size());
  return out.str();
}

std::string SpeedupMarkdown(const CompareReport& report, size_t max_rows) {
  const Axis a = Lay(report, max_rows);
  constexpr int kCells = 30;
  auto cell = [&](double log10v) {
    return std::clamp(static_cast<int>(std::lround((kCells - 1) * (log10v - a.lo) / (a.hi - a.lo))), 0, kCells - 1);
  };
  std::ostringstream out;
  if (!a.rows.empty()) {
    out << "| case | speedup [95% CI] | " << ShortNumber(std::pow(10, a.lo)) << "x .. " << ShortNumber(std::pow(10, a.hi))
        << "x (log; `+` is 1x) |\n|---|---|---|\n";
    for (const CompareRow* r : a.rows) {
      std::string track(kCells, '.');
      const int one = cell(0), at = cell(std::log10(r->speedup));
      for (int i = std::min(one, at); i <= std::max(one, at); ++i) track[i] = r->counted ? '=' : '~';
      track[one] = '+';  // not '|': GitHub splits table cells on it even inside code
      out << "| " << MarkdownCell(Label(*r)) << " | " << ShortNumber(r->speedup) << "x" << CiText(*r)
          << (r->counted ? "" : " (not counted)") << " | `" << track << "` |\n";
    }
  }
  if (a.more > 0) out << "\n" << a.more << " more compared cases: `claimbench compare` lists them all.\n";
  for (const CompareRow* r : a.undrawable) out << "\n- " << MarkdownCell(Label(*r)) << ": no positive speedup (" << ShortNumber(r->speedup) << ")";
  if (!a.undrawable.empty()) out << "\n";
  return out.str();
}

}  // namespace cb::ledger

// File: ledger/analysis/report_forest.cpp
// -----------------------------------------------------------------------------
// Forest plots as SVG and as text (see report_forest.h).
#include "ledger/analysis/report_forest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ledger/analysis/report_text.h"

namespace cb::ledger {
namespace {

// The whole of `s` (spaces around allowed) as one number.
std::optional<double> WholeNumber(const std::string& s) {
  const char* begin = s.c_str();
  while (*begin == ' ') ++begin;
  if (*begin == '\0') return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  while (*end == ' ') ++end;
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

const char* Colour(const std::string& verdict) {
  if (verdict == "REPRODUCED") return "#2a8a2a";
  if (verdict == "NOT_REPRODUCED") return "#c03030";
  if (verdict == "INCONCLUSIVE") return "#d08a00";
  return "#888888";
}

// One claim's row: the numbers it shows and the axis that spans them.
struct Row {
  const ClaimRow* c;
  double value, lo, hi;  // CI (lo == hi == value without one)
  std::optional<Bound> bound;
  std::optional<double> paper;
  double axis_lo, axis_hi;
};

std::vector<Row> Rows(const std::vector<ClaimRow>& claims, std::vector<const ClaimRow*>* unmeasured) {
  std::vector<Row> rows;
  for (const auto& c : claims) {
    if (!c.value || !std::isfinite(*c.value) || c.verdict == "UNMEASURABLE") {
      unmeasured->push_back(&c);
      continue;
    }
    Row r{&c, *c.value, *c.value, *c.value, HeadlineBound(c.criterion), PaperNumber(c.paper_value), 0, 0};
    if (c.ci_low && c.ci_high && std::isfinite(*c.ci_low) && std::isfinite(*c.ci_high)) {
      r.lo = std::min(*c.ci_low, *c.ci_high);
      r.hi = std::max(*c.ci_low, *c.ci_high);
    }
    double a = std::min(r.lo, r.value), b = std::max(r.hi, r.value);
    for (const auto& x : {r.bound ? r.bound->low : std::nullopt, r.bound ? r.bound->high : std::nullopt, r.paper}) {
      if (x) a = std::min(a, *x), b = std::max(b, *x);
    }
    const double pad = b > a ? 0.08 * (b - a) : (a != 0 ? 0.1 * std::fabs(a) : 1.0);
    r.axis_lo = a - pad;
    r.axis_hi = b + pad;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

std::optional<Bound> HeadlineBound(const std::string& criterion) {
  const std::string leaf = criterion.substr(0, criterion.find("; "));
  Bound b;
  if (size_t at = leaf.find("within ["); at != std::string::npos) {
    const size_t comma = leaf.find(", ", at), close = leaf.find(']', at);
    if (comma == std::string::npos || close == std::string::npos || close < comma) return std::nullopt;
    b.low = WholeNumber(leaf.substr(at + 8, comma - at - 8));
    b.high = WholeNumber(leaf.substr(comma + 2, close - comma - 2));
    if (!b.low || !b.high) return std::nullopt;
    return b;
  }
  for (const char* op : {">= ", "<= ", "== "}) {
    const size_t at = leaf.rfind(op);
    if (at == std::string::npos) continue;
    const auto v = WholeNumber(leaf.substr(at + 3));
    if (!v) return std::nullopt;
    if (op[0] != '<') b.low = v;
    if (op[0] != '>') b.high = v;
    return b;
  }
  return std::nullopt;
}

std::optional<double> PaperNumber(const std::string& paper_value) { return WholeNumber(paper_value); }

std::string ForestSvg(const std::vector<ClaimRow>& claims, int* bars) {
  std::vector<const ClaimRow*> unmeasured;
  const std::vector<Row> rows = Rows(claims, &unmeasured);
  constexpr int kW = 960, kLabel = 230, kPlot0 = 300, kPlot1 = 760, kRowH = 24, kTop = 22;
  std::ostringstream out;
  if (!rows.empty()) {
    const int h = kTop + kRowH * static_cast<int>(rows.size()) + 8;
    out << "<svg class=\"forest\" width=\"" << kW << "\" height=\"" << h
        << "\" viewBox=\"0 0 " << kW << " " << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<text x=\"0\" y=\"14\" font-weight=\"bold\">claim</text><text x=\"" << kPlot0
        << "\" y=\"14\" fill=\"#555\">value: black tick; CI: bar; criterion bound: line, its side shaded; "
           "paper: diamond; own axis per row</text>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const int y = kTop + kRowH * static_cast<int>(i), mid = y + kRowH / 2;
      auto X = [&](double v) {
        return kPlot0 + (kPlot1 - kPlot0) * (v - r.axis_lo) / (r.axis_hi - r.axis_lo);
      };
      auto clampx = [&](double x) { return std::clamp(x, double(kPlot0), double(kPlot1)); };
      out << "<g class=\"cb-forest-row\" data-claim=\"" << HtmlEscape(r.c->claim_id) << "\">"
          << "<title>" << HtmlEscape(r.c->claim_id + ": " + FormatMeasured(*r.c) + "; criterion " + r.c->criterion +
                              "; paper " + r.c->paper_value + "; " + r.c->verdict)
          << "</title>\n<text x=\"0\" y=\"" << mid + 4 << "\">" << HtmlEscape(r.c->claim_id) << "</text>"
          << "<text x=\"" << kLabel + 60 << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\" fill=\"#777\">"
          << ShortNumber(r.axis_lo, 4) << "</text><text x=\"" << kPlot1 + 4 << "\" y=\"" << mid + 4 << "\" fill=\"#777\">"
          << ShortNumber(r.axis_hi, 4) << "</text>"
          << "<line x1=\"" << kPlot0 << "\" x2=\"" << kPlot1 << "\" y1=\"" << mid << "\" y2=\"" << mid
          << "\" stroke=\"#ddd\"/>";
      if (r.bound) {
        const double a = r.bound->low ? X(*r.bound->low) : kPlot0, b = r.bound->high ? X(*r.bound->high) : kPlot1;
        if (b - a > 0.5) {
          out << "<rect class=\"cb-band\" x=\"" << clampx(a) << "\" y=\"" << y + 3 << "\" width=\""
              << clampx(b) - clampx(a) << "\" height=\"" << kRowH - 6 << "\" fill=\"#2a8a2a\" fill-opacity=\"0.12\"/>";
        }
        for (const auto& edge : {r.bound->low, r.bound->high}) {
          if (!edge) continue;
          out << "<line class=\"cb-threshold\" x1=\"" << X(*edge) << "\" x2=\"" << X(*edge) << "\" y1=\"" << y + 2
              << "\" y2=\"" << y + kRowH - 2 << "\" stroke=\"#000\" stroke-width=\"1.5\"/>";
        }
      }
      const double x0 = X(r.lo), x1 = X(r.hi);
      // At least 10 px wide, so that a claim without a CI (or a zero-width
      // one) still shows its verdict colour either side of the value tick.
      const double w = std::max(10.0, x1 - x0);
      out << "<rect class=\"cb-bar\" data-verdict=\"" << HtmlEscape(r.c->verdict) << "\" x=\"" << (x0 + x1 - w) / 2
          << "\" y=\"" << mid - 4 << "\" width=\"" << w << "\" height=\"8\" fill=\"" << Colour(r.c->verdict)
          << "\"/><rect class=\"cb-value\" x=\"" << X(r.value) - 1 << "\" y=\"" << mid - 7
          << "\" width=\"2\" height=\"14\" fill=\"#000\"/>";
      if (r.paper) {
        const double px = X(*r.paper);
        out << "<path class=\"cb-paper\" d=\"M" << px << " " << mid - 6 << " L" << px + 5 << " " << mid << " L" << px
            << " " << mid + 6 << " L" << px - 5 << " " << mid << " Z\" fill=\"#2255cc\"/>";
      }
      out << "<text x=\"" << kPlot1 + 60 << "\" y=\"" << mid + 4 << "\" fill=\"" << Colour(r.c->verdict) << "\">"
          << HtmlEscape(r.c->verdict) << "</text></g>\n";
    }
    out << "</svg>\n";
  }
  if (!unmeasured.empty()) {
    out << "<ul class=\"forest-unmeasured\">\n";
    for (const ClaimRow* c : unmeasured) {
      out << "<li><b>" << HtmlEscape(c->claim_id) << "</b>: <span class=\"" << HtmlEscape(c->verdict) << "\">" << HtmlEscape(c->verdict)
          << "</span>, no measured value" << (c->reason.empty() ? "" : " (" + HtmlEscape(c->reason) + ")") << "</li>\n";
    }
    out << "</ul>\n";
  }
  if (bars) *bars = static_cast<int>(rows.size());
  return out.str();
}

std::string ForestMarkdown(const std::vector<ClaimRow>& claims) {
  std::vector<const ClaimRow*> unmeasured;
  const std::vector<Row> rows = Rows(claims, &unmeasured);
  constexpr int kCells = 40;
  std::ostringstream out;
  if (!rows.empty()) {
    size_t width = 5;
    for (const Row& r : rows) width = std::max(width, r.c->claim_id.size());
    out << "```\n";
    for (const Row& r : rows) {
      std::string track(kCells, '.');
      auto cell = [&](double v) {
        const int i = static_cast<int>(std::lround((kCells - 1) * (v - r.axis_lo) / (r.axis_hi - r.axis_lo)));
        return std::clamp(i, 0, kCells - 1);
      };
      for (int i = cell(r.lo); i <= cell(r.hi); ++i) track[i] = '=';
      if (r.bound) {
        for (const auto& edge : {r.bound->low, r.bound->high}) if (edge) track[cell(*edge)] = '|';
      }
      if (r.paper) track[cell(*r.paper)] = 'P';
      track[cell(r.value)] = 'o';
      const std::string lo = ShortNumber(r.axis_lo, 4);
      out << r.c->claim_id << std::string(width - r.c->claim_id.size(), ' ') << " "
          << std::string(lo.size() < 10 ? 10 - lo.size() : 0, ' ') << lo << " ["
          << track << "] " << ShortNumber(r.axis_hi, 4) << "  " << r.c->verdict << "\n";
    }
    out << "```\n\no measured value, = its CI, | the criterion's bound, P the paper's value (each row its own axis).\n";
  }
  for (const ClaimRow* c : unmeasured) {
    out << "\n- " << c->claim_id << ": " << c->verdict << ", no measured value"
        << (c->reason.empty() ? "" : " (" + c->reason + ")");
  }
  if (!unmeasured.empty()) out << "\n";
  return out.str();
}

}  // namespace cb::ledger

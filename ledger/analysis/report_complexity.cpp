// File: ledger/analysis/report_complexity.cpp
// -----------------------------------------------------------------------------
// Log-log complexity figures (see report_complexity.h).
#include "ledger/analysis/report_complexity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "ledger/analysis/html_escape.h"

namespace cb::ledger {
namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

std::vector<ComplexitySeries> CollectComplexity(const std::vector<Result>& rows, size_t max_series) {
  std::vector<std::string> order;
  std::map<std::string, std::map<double, std::vector<double>>> by_key;
  for (const Result& r : rows) {
    if (!r.params.is_object() || !r.params.contains("n") || !r.params["n"].is_number()) continue;
    const double n = r.params["n"].get<double>();
    if (!(n > 0) || !(r.value > 0) || !std::isfinite(r.value)) continue;
    nlohmann::json rest = r.params;
    rest.erase("n");
    const std::string key = r.suite + "/" + r.case_name + " [" + r.backend + "] " + r.metric +
                            (rest.empty() ? "" : " " + rest.dump());
    if (!by_key.count(key)) order.push_back(key);
    by_key[key][n].push_back(r.value);
  }
  std::vector<ComplexitySeries> out;
  for (const std::string& key : order) {
    const auto& points = by_key[key];
    if (points.size() < 3) continue;
    ComplexitySeries s;
    s.title = key;
    for (auto [n, values] : points) {
      std::sort(values.begin(), values.end());
      const size_t k = values.size();
      s.n.push_back(n);
      s.value.push_back(k % 2 ? values[k / 2] : 0.5 * (values[k / 2 - 1] + values[k / 2]));
    }
    double mx = 0, my = 0;
    for (size_t i = 0; i < s.n.size(); ++i) mx += std::log(s.n[i]), my += std::log(s.value[i]);
    mx /= s.n.size();
    my /= s.n.size();
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < s.n.size(); ++i) {
      sxy += (std::log(s.n[i]) - mx) * (std::log(s.value[i]) - my);
      sxx += (std::log(s.n[i]) - mx) * (std::log(s.n[i]) - mx);
    }
    s.slope = sxx > 0 ? sxy / sxx : 0;
    s.intercept = my - s.slope * mx;
    out.push_back(std::move(s));
    if (out.size() >= max_series) break;
  }
  return out;
}

std::string ComplexitySvg(const ComplexitySeries& s) {
  constexpr double kW = 420, kH = 240, kL = 60, kR = 410, kT = 24, kB = 210;
  double x0 = std::log10(s.n.front()), x1 = std::log10(s.n.back());
  double y0 = 1e300, y1 = -1e300;
  for (double v : s.value) y0 = std::min(y0, std::log10(v)), y1 = std::max(y1, std::log10(v));
  if (y1 - y0 < 1e-9) y0 -= 0.5, y1 += 0.5;
  const double py = 0.08 * (y1 - y0);
  y0 -= py;
  y1 += py;
  auto X = [&](double n) { return kL + (kR - kL) * (std::log10(n) - x0) / (x1 - x0); };
  auto Y = [&](double v) { return kB - (kB - kT) * (std::log10(v) - y0) / (y1 - y0); };
  auto fit = [&](double n) { return std::exp(s.intercept + s.slope * std::log(n)); };
  std::ostringstream out;
  out << "<svg class=\"cb-fit\" width=\"" << kW << "\" height=\"" << kH << "\" font-family=\"sans-serif\" font-size=\"11\">"
      << "<title>" << HtmlEscape(s.title) << "</title>"
      << "<rect x=\"" << kL << "\" y=\"" << kT << "\" width=\"" << kR - kL << "\" height=\"" << kB - kT
      << "\" fill=\"none\" stroke=\"#ccc\"/>"
      << "<text x=\"" << kL << "\" y=\"14\">least-squares slope " << Num(s.slope) << " (log-log)</text>"
      << "<text x=\"" << kL << "\" y=\"" << kB + 14 << "\">n = " << Num(s.n.front()) << "</text>"
      << "<text x=\"" << kR << "\" y=\"" << kB + 14 << "\" text-anchor=\"end\">n = " << Num(s.n.back()) << "</text>"
      << "<text x=\"" << kL - 4 << "\" y=\"" << kT + 10 << "\" text-anchor=\"end\">" << Num(std::pow(10, y1)) << "</text>"
      << "<text x=\"" << kL - 4 << "\" y=\"" << kB << "\" text-anchor=\"end\">" << Num(std::pow(10, y0)) << "</text>"
      << "<line class=\"cb-fit-line\" x1=\"" << X(s.n.front()) << "\" y1=\"" << Y(fit(s.n.front())) << "\" x2=\""
      << X(s.n.back()) << "\" y2=\"" << Y(fit(s.n.back())) << "\" stroke=\"#c03030\" stroke-width=\"1.5\"/>";
  for (size_t i = 0; i < s.n.size(); ++i) {
    out << "<circle class=\"cb-fit-point\" cx=\"" << X(s.n[i]) << "\" cy=\"" << Y(s.value[i]) << "\" r=\"3.5\" fill=\"#2255cc\"/>";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace cb::ledger

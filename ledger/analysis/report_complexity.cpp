// File: ledger/analysis/report_complexity.cpp
// -----------------------------------------------------------------------------
// Log-log complexity figures (see report_complexity.h).
#include "ledger/analysis/report_complexity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "harness/complexity.h"
#include "harness/hash.h"
#include "ledger/analysis/report_text.h"

namespace cb::ledger {
namespace {

constexpr uint64_t kBandSeed = 29;

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
    // The claims' own fit (harness/complexity.h): least squares on log-log
    // with a pairs-bootstrap CI on the slope, seeded so a report is
    // reproducible.
    const cb::harness::PowerFit fit = cb::harness::FitPowerLaw(s.n, s.value, kBandSeed);
    s.slope = fit.exponent;
    s.intercept = fit.intercept;
    s.slope_ci = fit.exponent_ci;
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
  // The band: every line through the fit's centroid (the geometric mean of
  // n, where the least-squares line passes through the mean of log value)
  // with a slope inside the CI; a bow tie pinched at the centroid.
  double mean_log_n = 0;
  for (double n : s.n) mean_log_n += std::log(n);
  const double centre_n = std::exp(mean_log_n / s.n.size());
  auto band = [&](double n, double slope) { return fit(centre_n) * std::pow(n / centre_n, slope); };
  // Figures share one page, so each clip path's id is its series' own
  // (titles are unique within a run's series).
  const std::string clip = "cb-fit-clip-" + cb::harness::Xxh3_128(s.title).Hex().substr(0, 16);
  std::ostringstream out;
  out << "<svg class=\"cb-fit\" width=\"" << kW << "\" height=\"" << kH << "\" font-family=\"sans-serif\" font-size=\"11\">"
      << "<title>" << HtmlEscape(s.title) << "</title>"
      << "<rect x=\"" << kL << "\" y=\"" << kT << "\" width=\"" << kR - kL << "\" height=\"" << kB - kT
      << "\" fill=\"none\" stroke=\"#ccc\"/>"
      << "<text x=\"" << kL << "\" y=\"14\">log-log slope " << ShortNumber(s.slope) << " [" << ShortNumber(s.slope_ci.low)
      << ", " << ShortNumber(s.slope_ci.high) << "], band: its 95% CI</text>"
      << "<text x=\"" << kL << "\" y=\"" << kB + 14 << "\">n = " << ShortNumber(s.n.front()) << "</text>"
      << "<text x=\"" << kR << "\" y=\"" << kB + 14 << "\" text-anchor=\"end\">n = " << ShortNumber(s.n.back()) << "</text>"
      << "<text x=\"" << kL - 4 << "\" y=\"" << kT + 10 << "\" text-anchor=\"end\">" << ShortNumber(std::pow(10, y1)) << "</text>"
      << "<text x=\"" << kL - 4 << "\" y=\"" << kB << "\" text-anchor=\"end\">" << ShortNumber(std::pow(10, y0)) << "</text>"
      << "<clipPath id=\"" << clip << "\"><rect x=\"" << kL << "\" y=\"" << kT << "\" width=\"" << kR - kL
      << "\" height=\"" << kB - kT << "\"/></clipPath>"
      << "<path class=\"cb-fit-band\" clip-path=\"url(#" << clip << ")\" d=\"M" << X(s.n.front()) << " "
      << Y(band(s.n.front(), s.slope_ci.high)) << " L" << X(centre_n) << " " << Y(fit(centre_n)) << " L"
      << X(s.n.back()) << " " << Y(band(s.n.back(), s.slope_ci.high)) << " L" << X(s.n.back()) << " "
      << Y(band(s.n.back(), s.slope_ci.low)) << " L" << X(centre_n) << " " << Y(fit(centre_n)) << " L"
      << X(s.n.front()) << " " << Y(band(s.n.front(), s.slope_ci.low)) << " Z\" fill=\"#c03030\" fill-opacity=\"0.15\"/>"
      << "<line class=\"cb-fit-line\" x1=\"" << X(s.n.front()) << "\" y1=\"" << Y(fit(s.n.front())) << "\" x2=\""
      << X(s.n.back()) << "\" y2=\"" << Y(fit(s.n.back())) << "\" stroke=\"#c03030\" stroke-width=\"1.5\"/>";
  for (size_t i = 0; i < s.n.size(); ++i) {
    out << "<circle class=\"cb-fit-point\" cx=\"" << X(s.n[i]) << "\" cy=\"" << Y(s.value[i]) << "\" r=\"3.5\" fill=\"#2255cc\"/>";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace cb::ledger

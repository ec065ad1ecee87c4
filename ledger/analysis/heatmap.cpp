// File: ledger/analysis/heatmap.cpp
// Heatmap rows and their rendering (see heatmap.h).
#include "ledger/analysis/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "ledger/analysis/report_text.h"

namespace cb::ledger {
namespace {

// A label's text and where it sorts: numbers first by value, then strings by
// first appearance.
struct Label {
  bool numeric = false;
  double number = 0;
  size_t seen = 0;
  std::string text;
};

std::optional<Label> LabelOf(const nlohmann::json& j, size_t seen) {
  if (j.is_number()) return Label{true, j.get<double>(), seen, j.dump()};
  if (j.is_string()) return Label{false, 0, seen, j.get<std::string>()};
  return std::nullopt;
}

std::vector<std::string> Ordered(std::vector<Label> labels) {
  std::stable_sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) {
    if (a.numeric != b.numeric) return a.numeric;
    return a.numeric ? a.number < b.number : a.seen < b.seen;
  });
  std::vector<std::string> out;
  for (const auto& l : labels) out.push_back(l.text);
  return out;
}

std::string Cell(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

std::vector<Heatmap> CollectHeatmaps(const std::vector<Result>& results) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  struct Building {
    std::map<std::string, Label> rows, cols;  // by text
    std::map<std::pair<std::string, std::string>, double> cells;
  };
  std::vector<Key> order;
  std::map<Key, Building> maps;
  size_t seen = 0;
  for (const auto& r : results) {
    if (!r.params.is_object() || !r.params.contains("heatmap") || !r.params["heatmap"].is_string()) continue;
    const auto row = LabelOf(r.params.value("heatmap_row", nlohmann::json()), seen);
    const auto col = LabelOf(r.params.value("heatmap_col", nlohmann::json()), seen);
    if (!row || !col) continue;
    ++seen;
    const Key key{r.suite, r.case_name, r.backend, r.metric, r.params["heatmap"].get<std::string>()};
    auto [it, fresh] = maps.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.rows.try_emplace(row->text, *row);
    it->second.cols.try_emplace(col->text, *col);
    it->second.cells.try_emplace({row->text, col->text}, r.value);
  }
  std::vector<Heatmap> out;
  for (const auto& key : order) {
    const Building& b = maps.at(key);
    Heatmap m;
    std::tie(m.suite, m.case_name, m.backend, m.metric, m.title) = key;
    std::vector<Label> rows, cols;
    for (const auto& [text, l] : b.rows) rows.push_back(l);
    for (const auto& [text, l] : b.cols) cols.push_back(l);
    m.rows = Ordered(rows);
    m.cols = Ordered(cols);
    bool first = true;
    for (const auto& rl : m.rows) {
      std::vector<std::optional<double>> line;
      for (const auto& cl : m.cols) {
        const auto it = b.cells.find({rl, cl});
        if (it == b.cells.end()) {
          line.push_back(std::nullopt);
          continue;
        }
        line.push_back(it->second);
        m.min = first ? it->second : std::min(m.min, it->second);
        m.max = first ? it->second : std::max(m.max, it->second);
        first = false;
      }
      m.value.push_back(std::move(line));
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::string HeatmapHtml(const Heatmap& m) {
  std::ostringstream out;
  // Each map is shaded over its own range: the caption says how wide it is,
  // so a near-constant map does not read as structure.
  out << "<table class=\"heatmap\"><caption>shade: white " << Cell(m.min) << " to blue " << Cell(m.max)
      << "</caption><tr><th>" << HtmlEscape(m.metric) << "</th>";
  for (const auto& c : m.cols) out << "<th>" << HtmlEscape(c) << "</th>";
  out << "</tr>\n";
  const double span = m.max - m.min;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    out << "<tr><th>" << HtmlEscape(m.rows[i]) << "</th>";
    for (const auto& v : m.value[i]) {
      if (!v) {
        out << "<td></td>";
        continue;
      }
      // White at min, rgb(40, 90, 200) at max; dark cells get white text.
      const double t = span > 0 ? (*v - m.min) / span : 1.0;
      const int r = static_cast<int>(std::lround(255 - t * 215)), g = static_cast<int>(std::lround(255 - t * 165)),
                b = static_cast<int>(std::lround(255 - t * 55));
      out << "<td style=\"background:rgb(" << r << "," << g << "," << b << ")" << (t > 0.6 ? ";color:#fff" : "")
          << "\">" << Cell(*v) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

std::string HeatmapMarkdown(const Heatmap& m) {
  auto md = [](std::string s) {
    for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
    return s;
  };
  std::ostringstream out;
  out << "| " << md(m.metric) << " |";
  for (const auto& c : m.cols) out << " " << md(c) << " |";
  out << "\n|---|";
  for (size_t c = 0; c < m.cols.size(); ++c) out << "---|";
  out << "\n";
  for (size_t i = 0; i < m.rows.size(); ++i) {
    out << "| " << md(m.rows[i]) << " |";
    for (const auto& v : m.value[i]) out << " " << (v ? Cell(*v) : "") << " |";
    out << "\n";
  }
  return out.str();
}

}  // namespace cb::ledger

// File: ledger/analysis/heatmap.h
// -----------------------------------------------------------------------------
// Heatmap-shaped result rows, as `claimbench report` renders them. A row is a
// heatmap cell when its params hold "heatmap" (a string: the title),
// "heatmap_row" and "heatmap_col" (numbers or strings: the cell's labels).
// The cells of one heatmap share (suite, case, backend, metric, title); they
// are laid out with numeric labels first, ascending, then string labels in
// the order first seen. A missing cell is left blank (e.g. the lower
// triangle of a symmetric matrix recorded once per pair). The DOCS layer
// analysis (suites/docs/docs_layer_rows.h) writes such rows.
#ifndef CB_LEDGER_ANALYSIS_HEATMAP_H_
#define CB_LEDGER_ANALYSIS_HEATMAP_H_

#include <optional>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct Heatmap {
  std::string suite, case_name, backend, metric, title;
  std::vector<std::string> rows, cols;              // labels, in layout order
  std::vector<std::vector<std::optional<double>>> value;  // [row][col]
  double min = 0, max = 0;                          // over the cells present
};

// The heatmaps among `results`, in the order their first cell appears.
// A second row for a cell already seen keeps the first (and is ignored).
std::vector<Heatmap> CollectHeatmaps(const std::vector<Result>& results);

// A <table class="heatmap"> whose cells are shaded from white (min) to blue
// (max) and print the value to 3 decimals, captioned with that range; every
// label escaped.
std::string HeatmapHtml(const Heatmap& map);
// A Markdown table of the values (3 decimals; blank for a missing cell).
std::string HeatmapMarkdown(const Heatmap& map);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_HEATMAP_H_

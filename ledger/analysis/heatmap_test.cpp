// File: ledger/analysis/heatmap_test.cpp
// Heatmap rows: grouping, label order, missing cells, escaping, shading.
#include "ledger/analysis/heatmap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cb::ledger {
namespace {

Result Cell(const std::string& title, nlohmann::json row, nlohmann::json col, double v,
            const std::string& metric = "docs_score") {
  Result r;
  r.suite = "docs";
  r.case_name = "lm_layers";
  r.backend = "cpu";
  r.metric = metric;
  r.value = v;
  r.params = {{"heatmap", title}, {"heatmap_row", row}, {"heatmap_col", col}};
  return r;
}

TEST(Heatmap, GroupsByTitleAndMetricAndOrdersNumericLabels) {
  std::vector<Result> rows = {Cell("q", 10, 2, 0.5), Cell("q", 2, 10, 0.25), Cell("k", 0, 1, 0.75),
                              Cell("q", 2, 3, 0.125), Cell("q", 2, 3, 9.0) /* duplicate: ignored */,
                              Cell("q", 0, 1, 1.0, "other_metric")};
  Result plain;  // no heatmap keys: not a cell
  plain.params = {{"heatmap", "q"}};
  rows.push_back(plain);
  const auto maps = CollectHeatmaps(rows);
  ASSERT_EQ(maps.size(), 3u);
  const Heatmap& q = maps[0];
  EXPECT_EQ(q.title, "q");
  EXPECT_EQ(q.metric, "docs_score");
  EXPECT_EQ(q.rows, (std::vector<std::string>{"2", "10"}));  // 2 before 10: numbers, not text
  EXPECT_EQ(q.cols, (std::vector<std::string>{"2", "3", "10"}));
  ASSERT_EQ(q.value.size(), 2u);
  EXPECT_FALSE(q.value[0][0].has_value());  // (2, 2) never recorded
  EXPECT_EQ(q.value[0][1], 0.125);
  EXPECT_EQ(q.value[0][2], 0.25);
  EXPECT_EQ(q.value[1][0], 0.5);
  EXPECT_EQ(q.min, 0.125);
  EXPECT_EQ(q.max, 0.5);
  EXPECT_EQ(maps[1].title, "k");
  EXPECT_EQ(maps[2].metric, "other_metric");
}

TEST(Heatmap, StringLabelsKeepFirstSeenOrderAfterNumbers) {
  const auto maps = CollectHeatmaps({Cell("t", "zeta", "b", 1), Cell("t", "alpha", 5, 2), Cell("t", 1, "a", 3)});
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].rows, (std::vector<std::string>{"1", "zeta", "alpha"}));
  EXPECT_EQ(maps[0].cols, (std::vector<std::string>{"5", "b", "a"}));
}

TEST(Heatmap, RendersShadedEscapedHtmlAndMarkdown) {
  const auto maps = CollectHeatmaps({Cell("t", "<r>", "c|1", 0.2), Cell("t", "<r>", "c2", 0.6)});
  ASSERT_EQ(maps.size(), 1u);
  const std::string html = HeatmapHtml(maps[0]);
  EXPECT_NE(html.find("<th>&lt;r&gt;</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<caption>shade: white 0.200 to blue 0.600</caption>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<r>"), std::string::npos) << html;
  EXPECT_NE(html.find("background:rgb(255,255,255)\">0.200<"), std::string::npos) << html;  // min: white
  EXPECT_NE(html.find("background:rgb(40,90,200);color:#fff\">0.600<"), std::string::npos) << html;  // max
  const std::string md = HeatmapMarkdown(maps[0]);
  EXPECT_EQ(md, "| docs_score | c\\|1 | c2 |\n|---|---|---|\n| <r> | 0.200 | 0.600 |\n");
}

}  // namespace
}  // namespace cb::ledger

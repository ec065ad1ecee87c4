// File: suites/mia/stats_file_test.cpp
// Tests of EvaluateStats (suites/mia/stats_file.h), what `claimbench eval mia`
// reports: its TPR@5%FPR and FPR@95%TPR are the authors' values, read off
// sklearn's roc_curve with its default drop_intermediate=True
// (zjysteven/mink-plus-plus 5596c65dd7d5ca767c0efa80cbebf76f2e56d0a2 run.py
// lines 118-121; ml-stat-Sustech/Fine-tuned-Score-Deviation
// e3d9060847c1aa94c0c451efd391542ced52ac32 utils/tools.py lines 10 and 18),
// with the full-curve values beside them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suites/mia/stats_file.h"

namespace {

// One scored token per text, so the Loss score is ll[0] itself.
cb::mia::StatsFile OneTokenTexts(const std::vector<double>& scores, const std::vector<int>& labels) {
  cb::mia::StatsFile f;
  f.path = "memory";
  for (size_t i = 0; i < scores.size(); ++i) {
    cb::ref::mia::TextStats t;
    t.label = labels[i];
    t.ll = {scores[i]};
    f.texts.push_back(t);
  }
  return f;
}

const cb::mia::MethodMetrics& Loss(const std::vector<cb::mia::MethodMetrics>& all) {
  for (const auto& m : all) {
    if (m.method == "loss") return m;
  }
  throw std::runtime_error("no loss row");
}

// Six ties of {member, non-member} (10 members, 100 non-members) step the
// curve by (0.01, 0.1) across FPR = 0.05. sklearn 1.2.1's roc_curve with its
// defaults keeps fpr [0, 0.01, 0.06, 1], tpr [0, 0.1, 0.6, 1]: tpr05 = 0.1 by
// both conventions; drop_intermediate=False gives 0.5 (<=) and 0.4 (<).
TEST(MiaStatsFile, TprAt5FprIsTheAuthorsValueWhenTiesLineUp) {
  std::vector<double> s;
  std::vector<int> y;
  for (int g = 0; g < 6; ++g) {
    for (int label : {1, 0}) s.push_back(-1.0 - g), y.push_back(label);
  }
  for (int i = 0; i < 94; ++i) s.push_back(-20.0), y.push_back(0);
  for (int i = 0; i < 4; ++i) s.push_back(-20.0), y.push_back(1);
  const auto m = Loss(cb::mia::EvaluateStats(OneTokenTexts(s, y), 20, 1));
  EXPECT_DOUBLE_EQ(m.tpr_at_5_fpr_le, 0.1);
  EXPECT_DOUBLE_EQ(m.tpr_at_5_fpr_lt, 0.1);
  EXPECT_DOUBLE_EQ(m.fpr_at_95_tpr, 1.0);
  EXPECT_DOUBLE_EQ(m.tpr_at_5_fpr_le_all_points, 0.5);
  EXPECT_DOUBLE_EQ(m.tpr_at_5_fpr_lt_all_points, 0.4);
  EXPECT_DOUBLE_EQ(m.fpr_at_95_tpr_all_points, 1.0);
}

// 17 members on top, three {member, non-member} ties, 7 non-members: sklearn's
// default curve has fpr [0, 0, 0.3, 1], tpr [0, 0.85, 1, 1], so fpr95 = 0.3
// (0.2 on the full curve, where tpr = 0.95 at fpr = 0.2).
TEST(MiaStatsFile, FprAt95TprIsTheAuthorsValueWhenTiesLineUp) {
  std::vector<double> s;
  std::vector<int> y;
  for (int i = 0; i < 17; ++i) s.push_back(-1.0), y.push_back(1);
  for (int g = 0; g < 3; ++g) {
    for (int label : {1, 0}) s.push_back(-2.0 - g), y.push_back(label);
  }
  for (int i = 0; i < 7; ++i) s.push_back(-20.0), y.push_back(0);
  const auto m = Loss(cb::mia::EvaluateStats(OneTokenTexts(s, y), 20, 1));
  EXPECT_DOUBLE_EQ(m.fpr_at_95_tpr, 0.3);
  EXPECT_DOUBLE_EQ(m.tpr_at_5_fpr_le, 0.85);
  EXPECT_DOUBLE_EQ(m.fpr_at_95_tpr_all_points, 0.2);
}

TEST(MiaStatsFile, LedgerRowsCarryBothCurves) {
  std::vector<double> s = {-1, -2, -3, -4};
  std::vector<int> y = {1, 0, 1, 0};
  const auto file = OneTokenTexts(s, y);
  const auto rows = cb::mia::EvaluationResults(file, "d", cb::mia::EvaluateStats(file, 20, 1), 20);
  int all_points = 0;
  for (const auto& r : rows) all_points += r.metric.ends_with("_all_points");
  EXPECT_GT(all_points, 0);
  EXPECT_EQ(all_points * 7, int(rows.size()) * 3);  // 3 of each method's 7 rows
}

}  // namespace

// File: suites/medrega/hungarian_test.cpp
// Our Hungarian solver (reference/medrega/hungarian.h) against brute force on
// random rectangular matrices up to 7 x 7, ties included.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "harness/random.h"
#include "reference/medrega/hungarian.h"

namespace cb::ref::medrega {
namespace {

TEST(Hungarian, EqualsBruteForceUpTo7) {
  cb::harness::Rng rng(20250127, 0x48554e47ull);
  for (int trial = 0; trial < 3000; ++trial) {
    const int rows = static_cast<int>(rng.UniformInt(1, 7)), cols = static_cast<int>(rng.UniformInt(1, 7));
    const bool ties = trial % 3 == 0;  // few distinct values: many tied optima
    CostMatrix c(rows, std::vector<double>(cols));
    for (auto& row : c)
      for (double& x : row) x = ties ? static_cast<double>(rng.UniformInt(0, 2)) * 0.5 : rng.Uniform();
    const Assignment a = SolveAssignment(c);
    ASSERT_EQ(a.size(), static_cast<size_t>(std::min(rows, cols)));
    std::set<int> rs, cs;
    for (size_t k = 0; k < a.size(); ++k) {
      rs.insert(a[k].first);
      cs.insert(a[k].second);
      if (k) {
        ASSERT_LT(a[k - 1].first, a[k].first);  // rows ascending, as scipy's row_ind
      }
    }
    ASSERT_EQ(rs.size(), a.size());
    ASSERT_EQ(cs.size(), a.size());
    ASSERT_NEAR(AssignmentCost(c, a), BruteForceMinCost(c), 1e-9) << rows << "x" << cols << " trial " << trial;
  }
}

TEST(Hungarian, EdgeCases) {
  EXPECT_TRUE(SolveAssignment({}).empty());
  EXPECT_TRUE(SolveAssignment({{}, {}}).empty());
  EXPECT_THROW(SolveAssignment({{0.0, std::nan("")}}), std::invalid_argument);
  EXPECT_THROW(SolveAssignment({{0.0, 1.0}, {0.0}}), std::invalid_argument);
  const Assignment a = SolveAssignment({{1, 0}, {0, 1}, {0.5, 0.5}});
  EXPECT_EQ(a, (Assignment{{0, 1}, {1, 0}}));
}

}  // namespace
}  // namespace cb::ref::medrega

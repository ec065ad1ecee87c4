// File: harness/chi_square_test.cpp
#include "harness/chi_square.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "harness/stats.h"

namespace cb::harness {
namespace {

TEST(ChiSquareGoodnessOfFit, PearsonStatisticAndDf) {
  const std::vector<int64_t> obs{30, 50, 20};
  const std::vector<double> p{0.25, 0.5, 0.25};
  const ChiSquare c = ChiSquareGoodnessOfFit(obs, p, 0);
  // (30-25)^2/25 + 0 + (20-25)^2/25 = 2.
  EXPECT_DOUBLE_EQ(c.statistic, 2.0);
  EXPECT_EQ(c.df, 2);
  EXPECT_NEAR(c.p_value, std::exp(-1.0), 1e-12);  // chi2(2) survival at 2
  EXPECT_EQ(c.p_value, ChiSquareSurvival(2.0, 2));
}

TEST(ChiSquareGoodnessOfFit, PoolsSmallCells) {
  // Expected 98, 1, 1: the two small cells pool to 2 < 5 and are dropped.
  const std::vector<int64_t> obs{98, 1, 1};
  const std::vector<double> p{0.98, 0.01, 0.01};
  const ChiSquare c = ChiSquareGoodnessOfFit(obs, p);
  EXPECT_DOUBLE_EQ(c.statistic, 0.0);
  EXPECT_EQ(c.df, 1);
  // Without pooling every cell counts.
  EXPECT_EQ(ChiSquareGoodnessOfFit(obs, p, 0).df, 2);
}

TEST(ChiSquareGoodnessOfFit, ZeroProbabilityCellRejects) {
  const ChiSquare c = ChiSquareGoodnessOfFit(std::vector<int64_t>{5, 1}, std::vector<double>{1.0, 0.0});
  EXPECT_TRUE(std::isinf(c.statistic));
  EXPECT_EQ(c.p_value, 0.0);
}

TEST(ChiSquareGoodnessOfFit, RejectsBadInput) {
  EXPECT_THROW(ChiSquareGoodnessOfFit(std::vector<int64_t>{1}, std::vector<double>{0.5, 0.5}),
               std::invalid_argument);
  EXPECT_THROW(ChiSquareGoodnessOfFit(std::vector<int64_t>{0, 0}, std::vector<double>{0.5, 0.5}),
               std::invalid_argument);
}

}  // namespace
}  // namespace cb::harness

// File: harness/rank_correlation_test.cpp
#include "harness/rank_correlation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace cb::harness {
namespace {

TEST(Ranks, TiesShareTheAverageRank) {
  EXPECT_EQ(Ranks(std::vector<double>{10, 20, 20, 5}), (std::vector<double>{2, 3.5, 3.5, 1}));
  EXPECT_EQ(Ranks(std::vector<double>{7, 7, 7}), (std::vector<double>{2, 2, 2}));
}

TEST(SpearmanRho, MonotoneRelationsGiveOneOrMinusOne) {
  const std::vector<double> x = {0, 0.01, 0.1, 1, 3};
  EXPECT_DOUBLE_EQ(SpearmanRho(x, std::vector<double>{1, 0.9, 0.5, 0.2, 0.1}), -1.0);
  EXPECT_DOUBLE_EQ(SpearmanRho(x, std::vector<double>{-5, 2, 3, 100, 1e9}), 1.0);
  EXPECT_EQ(SpearmanRho(x, std::vector<double>{4, 4, 4, 4, 4}), 0.0);
}

// A worked example by hand: x ranks 1..5, y ranks {2, 1, 4, 3, 5};
// sum d^2 = 1 + 1 + 1 + 1 + 0 = 4, rho = 1 - 6 * 4 / (5 * 24) = 0.8.
TEST(SpearmanRho, MatchesTheTextbookFormulaWithoutTies) {
  EXPECT_NEAR(
      SpearmanRho(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{20, 10, 40, 30, 50}), 0.8,
      1e-15);
}

// With ties, rho is Pearson on average ranks: x = {1, 2, 2, 3} has ranks
// {1, 2.5, 2.5, 4}; y = {1, 2, 3, 4}; cov = 4.5, var_x = 4.5, var_y = 5
// (sums of squared deviations from 2.5), rho = 4.5 / sqrt(4.5 * 5) = 0.948683...
TEST(SpearmanRho, TiesUsePearsonOnAverageRanks) {
  EXPECT_NEAR(SpearmanRho(std::vector<double>{1, 2, 2, 3}, std::vector<double>{1, 2, 3, 4}),
              4.5 / std::sqrt(22.5), 1e-15);
}

TEST(SpearmanRho, RejectsBadInput) {
  EXPECT_THROW(SpearmanRho(std::vector<double>{1}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(SpearmanRho(std::vector<double>{1, 2}, std::vector<double>{1}),
               std::invalid_argument);
  EXPECT_THROW(SpearmanRho(std::vector<double>{1, NAN}, std::vector<double>{1, 2}),
               std::invalid_argument);
}

}  // namespace
}  // namespace cb::harness

// File: ledger/analysis/compare_test.cpp
// -----------------------------------------------------------------------------
// compare on synthetic runs: a planted 2x speedup with its CI, geometric means
// per suite and overall, and a suite whose check failed not counted; the cpu
// vs cuda rows of one run.
#include "ledger/analysis/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/random.h"

namespace cb::ledger {
namespace {

Result Timing(const std::string& suite, const std::string& name, const std::string& backend,
              double seconds, uint64_t seed) {
  cb::harness::Rng rng(seed, 5);
  Result r;
  r.suite = suite;
  r.case_name = name;
  r.backend = backend;
  r.metric = "seconds";
  r.direction = "lower";
  for (int i = 0; i < 9; ++i) r.samples.push_back(seconds * (1 + 0.02 * rng.Normal()));
  r.n = 9;
  r.value = r.samples[0];
  return r;
}

ClaimRow Claim(const std::string& suite, const std::string& verdict) {
  ClaimRow c;
  c.claim_id = suite + ".X";
  c.suite = suite;
  c.verdict = verdict;
  return c;
}

TEST(Compare, SpeedupsGeomeansAndCorrectness) {
  RunData a, b;
  a.run.status = b.run.status = "complete";
  a.results = {Timing("s1", "k1", "cpu", 2.0, 1), Timing("s1", "k2", "cpu", 8.0, 2),
               Timing("s2", "k3", "cpu", 1.0, 3)};
  b.results = {Timing("s1", "k1", "cpu", 1.0, 4), Timing("s1", "k2", "cpu", 1.0, 5),
               Timing("s2", "k3", "cpu", 0.5, 6)};
  a.claims = {Claim("s1", "REPRODUCED"), Claim("s2", "REPRODUCED")};
  b.claims = {Claim("s1", "REPRODUCED"), Claim("s2", "NOT_REPRODUCED")};
  const CompareReport rep = Compare({"A", "", &a}, {"B", "", &b});
  ASSERT_EQ(rep.rows.size(), 3u);
  EXPECT_NEAR(rep.rows[0].speedup, 2.0, 0.1);
  ASSERT_TRUE(rep.rows[0].ci_low && rep.rows[0].ci_high);
  EXPECT_LT(*rep.rows[0].ci_low, 2.0 * 1.001);
  EXPECT_GT(*rep.rows[0].ci_high, 2.0 * 0.999);
  EXPECT_LT(*rep.rows[0].ci_high - *rep.rows[0].ci_low, 0.3);
  EXPECT_FALSE(rep.rows[2].counted);  // s2 failed its check on B
  EXPECT_EQ(rep.rows[2].status_b, "failed");
  EXPECT_EQ(rep.counted, 2);
  ASSERT_TRUE(rep.overall_geomean.has_value());
  EXPECT_NEAR(*rep.overall_geomean, std::sqrt(2.0 * 8.0), 0.3);  // geomean of 2x and 8x = 4x
  EXPECT_EQ(rep.suite_geomean.count("s2"), 0u);
  EXPECT_NE(CompareTable(rep).find("(not counted)"), std::string::npos);
}

TEST(Compare, CpuVersusCudaInOneRun) {
  RunData r;
  r.run.status = "complete";
  r.results = {Timing("s", "k", "cpu", 10.0, 1), Timing("s", "k", "cuda", 0.5, 2)};
  r.claims = {Claim("s", "REPRODUCED")};
  const CompareReport rep = Compare({"cpu", "cpu", &r}, {"cuda", "cuda", &r});
  ASSERT_EQ(rep.rows.size(), 1u);
  EXPECT_NEAR(rep.rows[0].speedup, 20.0, 1.0);
  EXPECT_EQ(rep.rows[0].backend_a, "cpu");
  EXPECT_EQ(rep.rows[0].backend_b, "cuda");
  EXPECT_TRUE(rep.rows[0].counted);
  EXPECT_EQ(CompareJson(rep)["rows"][0]["status_a"], "passed");
}

}  // namespace
}  // namespace cb::ledger

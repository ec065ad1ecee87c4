// File: suites/lm/lm_test.cpp
// -----------------------------------------------------------------------------
// The lm suite's claims run at the smoke profile through the claim registry:
// both reach REPRODUCED on the fp64 reference and record their measured rows.
// (The reference's own tests are transformer_test.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/claim_runner.h"
#include "harness/claim.h"

namespace cb::lm_suite {
namespace {

namespace h = cb::harness;

using cb::testing::RunClaimAtSmoke;

TEST(LmClaims, GradientsMatchFiniteDifferences) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L1", &rows);
  EXPECT_EQ(o.verdict, h::Verdict::kReproduced) << o.reason;
  ASSERT_EQ(rows.size(), 5u);  // one row per variant
  for (const h::Result& r : rows) {
    EXPECT_EQ(r.metric, "max_rel_error");
    EXPECT_LE(r.value, 1e-6) << r.params.dump();
    EXPECT_GT(r.n, 0);
  }
  ASSERT_TRUE(o.value.has_value());
  EXPECT_LE(*o.value, 1e-6);
}

TEST(LmClaims, DecodeEqualsRecomputation) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L3", &rows);
  EXPECT_EQ(o.verdict, h::Verdict::kReproduced) << o.reason;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].metric, "max_abs_logit_diff");
  EXPECT_LE(rows[0].value, 1e-12);
  EXPECT_FALSE(rows[0].output_hash.empty());
}

}  // namespace
}  // namespace cb::lm_suite

// File: suites/lm/lm_test.cpp
// -----------------------------------------------------------------------------
// The lm suite's claims run at the smoke profile through the claim registry:
// L1-L4 reach REPRODUCED and record their measured rows; L5 and L6 (the
// trained models, whose verdicts are measurements, not guarantees) record
// every row with finite values and a verdict consistent with them. Without
// fixtures/lm they are UNMEASURABLE with the reason. (The reference's own
// tests are transformer_test.cpp; the fp32 path's, cpu_transformer_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fixtures/claim_runner.h"
#include "harness/claim.h"
#include "suites/lm/lm_fixtures.h"

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

TEST(LmClaims, Fp32ForwardEqualsTheOracle) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L2", &rows);
  EXPECT_EQ(o.verdict, h::Verdict::kReproduced) << o.reason;
  ASSERT_EQ(rows.size(), 2u);  // both oracle checkpoints
  for (const h::Result& r : rows) EXPECT_LE(r.value, 1e-5) << r.params.dump();
}

TEST(LmClaims, Fp32AgreesWithFp64) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L4", &rows);
  EXPECT_EQ(o.verdict, h::Verdict::kReproduced) << o.reason;
  ASSERT_GE(rows.size(), 2u);  // a pair per backend run (cpu first)
  ASSERT_EQ(rows.size() % 2, 0u);
  EXPECT_EQ(rows[0].backend, "cpu");
  EXPECT_EQ(rows[0].case_name, "fp32_vs_fp64_logits");
  EXPECT_GT(rows[0].value, 0);  // fp32 rounding is there: the comparison is not vacuous
  for (size_t i = 1; i < rows.size(); i += 2) EXPECT_LE(rows[i].value, 1e-3) << rows[i].backend;
}

TEST(LmClaims, HeldoutCrossEntropyRowsAndVerdictAgree) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L5", &rows);
  ASSERT_NE(o.verdict, h::Verdict::kUnmeasurable) << o.reason;
  ASSERT_EQ(rows.size(), 6u);
  double bayes = 0, kn = 0, target = 0;
  for (const h::Result& r : rows) {
    ASSERT_TRUE(std::isfinite(r.value)) << r.case_name;
    if (r.params.value("model", "") == "bayes_teacher") bayes = r.value;
    if (r.params.value("model", "") == "kneser_ney_4") kn = r.value;
    if (r.params.value("model", "") == "target") target = r.value;
  }
  // The Bayes limit is a limit: no model beats it on average over documents
  // this long (4 x 500 words), by more than noise.
  EXPECT_LT(bayes, kn);
  EXPECT_LT(bayes, target + 0.05);
  ASSERT_TRUE(o.value.has_value());
  EXPECT_NEAR(*o.value, kn - target, 1e-9);
  // Smoke bootstraps 4 documents, below the 20 a percentile interval is
  // judged on: INCONCLUSIVE whatever the interval, with the reason.
  EXPECT_EQ(o.verdict, h::Verdict::kInconclusive);
  EXPECT_NE(o.reason.find("too few trials: n = 4"), std::string::npos) << o.reason;
}

TEST(LmClaims, DraftTargetCostRatioIsRecorded) {
  std::vector<h::Result> rows;
  const h::Outcome o = RunClaimAtSmoke("lm.L6", &rows);
  ASSERT_NE(o.verdict, h::Verdict::kUnmeasurable) << o.reason;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GT(rows[0].value, 0);
  EXPECT_EQ(rows[0].samples.size(), 5u);  // smoke: five pairs
}

TEST(LmClaims, FixturesAreFoundOrNamedInTheReason) {
  ASSERT_FALSE(LmFixturesDir().empty()) << MissingLmFixtures();
  EXPECT_NE(MissingLmFixtures().find(kLmFixturesEnv), std::string::npos);
}

}  // namespace
}  // namespace cb::lm_suite

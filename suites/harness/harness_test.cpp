// File: suites/harness/harness_test.cpp
// The self-check suite: its loops count what they claim to count, its claims
// are well-formed, and the deterministic ones reach their verdicts.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/claim_runner.h"
#include "harness/claim.h"
#include "harness/random.h"
#include "suites/harness/loops.h"
#include "suites/harness/philox_stream.h"

namespace cb::harness_suite {
namespace {

namespace h = cb::harness;

TEST(Loops, CountTheirOperationsExactly) {
  h::Rng rng(7, 0);
  for (const int64_t n : {0, 1, 2, 17, 300}) {
    const auto x = RandomData(rng, n);
    EXPECT_EQ(LinearLoop(x).operations, n);
    EXPECT_EQ(QuadraticLoop(x).operations, n * (n - 1) / 2);
  }
}

TEST(Loops, ComputeTheRightAnswers) {
  const std::vector<double> x = {0.9, 0.1, 0.8, 0.2};  // inversions: (0,1) (0,2) (0,3) (2,3)
  EXPECT_DOUBLE_EQ(QuadraticLoop(x).value, 4.0);
  // Prefix sums of x - 0.5: 0.4, 0.0, 0.3, 0.0 -> max 0.4.
  EXPECT_NEAR(LinearLoop(x).value, 0.4, 1e-12);
}

// (Duplicate ids cannot reach this test: ClaimRegistration throws at start-up.)
TEST(Claims, AreRegisteredAndWellFormed) {
  int harness_claims = 0;
  for (const auto& def : h::RegisteredClaims()) {
    const auto& s = def.spec;
    SCOPED_TRACE(s.id);
    EXPECT_EQ(s.id.rfind(s.suite + ".", 0), 0u) << "id must start with '<suite>.'";
    EXPECT_FALSE(s.paper.empty());
    EXPECT_FALSE(s.statement.empty());
    EXPECT_FALSE(s.paper_value.empty());
    EXPECT_FALSE(s.metric.empty());
    EXPECT_FALSE(s.criterion.empty());
    EXPECT_TRUE(def.run);
    harness_claims += s.suite == "harness";
  }
  EXPECT_EQ(harness_claims, 6);
}

using cb::testing::RunClaimAtSmoke;

TEST(Claims, DeterministicClaimsReachTheirVerdicts) {
  for (const char* id : {"harness.H1", "harness.H2", "harness.H3"}) {
    SCOPED_TRACE(id);
    std::vector<h::Result> recorded;
    const h::Outcome o = RunClaimAtSmoke(id, &recorded);
    EXPECT_EQ(o.verdict, h::Verdict::kReproduced) << o.reason;
    EXPECT_FALSE(recorded.empty());
    ASSERT_TRUE(o.value.has_value());
  }
}

TEST(Claims, OperationCountsAreRecordedPerSize) {
  std::vector<h::Result> recorded;
  RunClaimAtSmoke("harness.H3", &recorded);
  int ops_rows = 0;
  for (const auto& r : recorded) {
    if (r.metric != "operations") continue;
    ++ops_rows;
    const double n = r.params.at("n").get<double>();
    EXPECT_DOUBLE_EQ(r.value, n * (n - 1) / 2);
  }
  EXPECT_GE(ops_rows, 5);
}

class PhiloxStreamTest : public cb::testing::BackendTest {};

// Every backend draws what a plain Rng draws, for a fresh seed each run.
TEST_P(PhiloxStreamTest, MatchesTheCpuRng) {
  const uint64_t seed = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  SCOPED_TRACE(seed);
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{1} << 18}) {
    h::Rng rng(seed, 3);
    std::vector<uint64_t> want(n);
    for (auto& v : want) v = rng.NextU64();
    EXPECT_EQ(PhiloxStream(backend(), seed, 3, n), want) << "n = " << n;
  }
}
CB_INSTANTIATE_BACKENDS(PhiloxStreamTest);

TEST(PhiloxStream, UnavailableBackendThrowsWithItsReason) {
  const auto status = h::Availability(h::Backend::kCuda);
  if (status.ok) GTEST_SKIP() << "cuda is available here";
  try {
    PhiloxStream(h::Backend::kCuda, 1, 0, 10);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(status.reason), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cb::harness_suite

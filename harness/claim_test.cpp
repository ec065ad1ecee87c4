// File: harness/claim_test.cpp
// Verdict rules, profiles, requirements and the interrupt path of claims.
#include "harness/claim.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace cb::harness {
namespace {

TEST(Verdicts, AtLeastUsesTheWholeInterval) {
  EXPECT_EQ(AtLeast(1.2, 1.5, 1.0), Verdict::kReproduced);
  EXPECT_EQ(AtLeast(1.0, 1.5, 1.0), Verdict::kReproduced);  // boundary counts as meeting it
  EXPECT_EQ(AtLeast(0.5, 0.9, 1.0), Verdict::kNotReproduced);
  EXPECT_EQ(AtLeast(0.9, 1.1, 1.0), Verdict::kInconclusive);
}

TEST(Verdicts, AtMostMirrorsAtLeast) {
  EXPECT_EQ(AtMost(0.1, 0.9, 1.0), Verdict::kReproduced);
  EXPECT_EQ(AtMost(1.1, 1.3, 1.0), Verdict::kNotReproduced);
  EXPECT_EQ(AtMost(0.9, 1.1, 1.0), Verdict::kInconclusive);
}

TEST(Verdicts, WithinNeedsTheIntervalInsideTheRange) {
  EXPECT_EQ(Within(0.95, 1.05, 0.9, 1.1), Verdict::kReproduced);
  EXPECT_EQ(Within(1.2, 1.3, 0.9, 1.1), Verdict::kNotReproduced);
  EXPECT_EQ(Within(0.5, 0.8, 0.9, 1.1), Verdict::kNotReproduced);
  EXPECT_EQ(Within(1.05, 1.2, 0.9, 1.1), Verdict::kInconclusive);
  EXPECT_EQ(Within(0.5, 1.5, 0.9, 1.1), Verdict::kInconclusive);
}

TEST(Names, RoundTrip) {
  for (const Profile p : {Profile::kSmoke, Profile::kQuick, Profile::kFull}) {
    EXPECT_EQ(ParseProfile(ProfileName(p)), p);
  }
  EXPECT_FALSE(ParseProfile("fast").has_value());
  EXPECT_STREQ(VerdictName(Verdict::kNotReproduced), "NOT_REPRODUCED");
  EXPECT_STREQ(ScaleName(Scale::kPaperScale), "paper-scale");
}

TEST(Requirements, NoneAreAlwaysMet) { EXPECT_EQ(UnmetRequirement({}), ""); }

TEST(Requirements, GpuRequirementFollowsAvailability) {
  const auto status = Availability(Backend::kCuda);
  const std::string unmet = UnmetRequirement({.gpu = true});
  if (status.ok) {
    EXPECT_EQ(unmet, "");
  } else {
    EXPECT_EQ(unmet, "no GPU: " + status.reason);
  }
}

TEST(Requirements, EndpointNeedsTheEnvironment) {
  unsetenv("CLAIMBENCH_ENDPOINT");
  EXPECT_NE(UnmetRequirement({.endpoint = true}), "");
  setenv("CLAIMBENCH_ENDPOINT", "http://127.0.0.1:1/v1", 1);
  EXPECT_EQ(UnmetRequirement({.endpoint = true}), "");
  unsetenv("CLAIMBENCH_ENDPOINT");
}

TEST(Context, RecordsThroughTheSinkAndPicksSizesByProfile) {
  std::vector<Result> got;
  ClaimContext ctx(Profile::kQuick, 9, {Backend::kCpu}, [&](const Result& r) { got.push_back(r); });
  ctx.Record({.metric = "m", .value = 2.5});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].value, 2.5);
  EXPECT_EQ(ctx.ByProfile(1, 2, 3), 2);
}

// After SIGINT the next Record() throws Interrupted; checked in a child
// process because the flag is process-wide.
TEST(Context, RecordThrowsInterruptedAfterSigint) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallInterruptHandlers();
    ClaimContext ctx(Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
    ctx.Record({});  // fine before the signal
    std::raise(SIGINT);
    if (!InterruptRequested() || InterruptSignal() != SIGINT) _exit(2);
    try {
      ctx.Record({});
    } catch (const Interrupted&) {
      _exit(0);
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace cb::harness

// File: harness/claim_test.cpp
// Criteria and verdict rules, registration, profiles, requirements and the interrupt path of claims.
#include "harness/claim.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

namespace cb::harness {
namespace {

Verdict Judge(const Criterion& c, Estimate e, std::string* reason = nullptr) {
  return c.Decide({e}, reason);
}

TEST(Criteria, AtLeastUsesTheWholeInterval) {
  const Criterion c = AtLeast(1.0);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.3, 1.2, 1.5)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.2, 1.0, 1.5)), Verdict::kReproduced);  // boundary meets it
  EXPECT_EQ(Judge(c, Estimate::Ci(0.7, 0.5, 0.9)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.0, 0.9, 1.1)), Verdict::kInconclusive);
  // An exact value is never inconclusive.
  EXPECT_EQ(Judge(c, Estimate::Exact(1.0)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Exact(0.999)), Verdict::kNotReproduced);
}

TEST(Criteria, AtMostMirrorsAtLeast) {
  const Criterion c = AtMost(1.0);
  EXPECT_EQ(Judge(c, Estimate::Ci(0.5, 0.1, 0.9)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.2, 1.1, 1.3)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.0, 0.9, 1.1)), Verdict::kInconclusive);
}

TEST(Criteria, WithinNeedsTheIntervalInsideTheRange) {
  const Criterion c = Within(0.9, 1.1);
  EXPECT_EQ(Judge(c, Estimate::Ci(1, 0.95, 1.05)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.25, 1.2, 1.3)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(0.6, 0.5, 0.8)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.1, 1.05, 1.2)), Verdict::kInconclusive);
  EXPECT_EQ(Judge(c, Estimate::Ci(1.0, 0.5, 1.5)), Verdict::kInconclusive);
  EXPECT_THROW(Within(2, 1), std::logic_error);
}

TEST(Criteria, EqualsIsExact) {
  const Criterion c = Equals(0, "mismatches");
  EXPECT_EQ(Judge(c, Estimate::Exact(0)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Exact(1)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Estimate::Exact(-1e-300)), Verdict::kNotReproduced);
}

TEST(Criteria, TextIsRenderedFromTheBounds) {
  EXPECT_EQ(AtLeast(0.95, "recall CI").Text(), "recall CI >= 0.95");
  EXPECT_EQ(AtMost(1e-5).Text(), "<= 1e-5");
  EXPECT_EQ(Within(0.9, 1.1, "exponent 95% CI").Text(), "exponent 95% CI within [0.9, 1.1]");
  EXPECT_EQ(Equals(0, "draws that differ").Text(), "draws that differ == 0");
  EXPECT_EQ(AllOf({AtLeast(5, "speedup CI"), Holds("outputs agree")}).Text(),
            "speedup CI >= 5; outputs agree");
  EXPECT_EQ(FormatNumber(262144), "262144");
  EXPECT_EQ(FormatNumber(1e12), "1e12");
  EXPECT_EQ(FormatNumber(0.466667), "0.4667");
  EXPECT_EQ(FormatNumber(-0.0001111), "-0.0001111");
}

TEST(Criteria, AllOfTakesTheWorstPartAndNamesIt) {
  const Criterion c = AllOf({Within(0.9, 1.1, "exponent"),
                             Holds("class O(n) selected", Verdict::kInconclusive)});
  EXPECT_EQ(c.Leaves(), 2u);
  std::string reason;
  EXPECT_EQ(c.Decide({Estimate::Ci(1, 0.95, 1.05), Estimate::Check(true)}, &reason),
            Verdict::kReproduced);
  EXPECT_EQ(reason, "");
  EXPECT_EQ(c.Decide({Estimate::Ci(1, 0.95, 1.05), Estimate::Check(false)}, &reason),
            Verdict::kInconclusive);
  EXPECT_EQ(reason, "not: class O(n) selected");
  EXPECT_EQ(c.Decide({Estimate::Ci(1.5, 1.4, 1.6), Estimate::Check(false)}, &reason),
            Verdict::kNotReproduced);
  EXPECT_EQ(reason, "exponent = 1.5 [1.4, 1.6], not within [0.9, 1.1]");
  EXPECT_THROW(c.Decide({Estimate::Exact(1)}, &reason), std::logic_error);
}

TEST(Criteria, WorstOfOrdersVerdicts) {
  EXPECT_EQ(WorstOf(Verdict::kReproduced, Verdict::kInconclusive), Verdict::kInconclusive);
  EXPECT_EQ(WorstOf(Verdict::kNotReproduced, Verdict::kInconclusive), Verdict::kNotReproduced);
  EXPECT_EQ(WorstOf(Verdict::kNotReproduced, Verdict::kUnmeasurable), Verdict::kUnmeasurable);
  EXPECT_EQ(WorstOf(Verdict::kReproduced, Verdict::kReproduced), Verdict::kReproduced);
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

TEST(Context, RecordsThroughTheSinkWithTheirKindAndPicksSizesByProfile) {
  std::vector<Result> got;
  ClaimContext ctx(Profile::kQuick, 9, {Backend::kCpu}, [&](const Result& r) { got.push_back(r); });
  ctx.RecordExact({.metric = "m", .value = 2.5});
  ctx.RecordEstimate({.metric = "auroc", .value = 0.7, .ci_low = 0.6, .ci_high = 0.8});
  ctx.RecordTiming({.metric = "t", .unit = "s", .value = 1e-3});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].value, 2.5);
  EXPECT_EQ(got[0].kind, ResultKind::kExact);
  EXPECT_EQ(got[1].kind, ResultKind::kEstimate);
  EXPECT_EQ(got[2].kind, ResultKind::kTiming);
  EXPECT_EQ(ctx.ByProfile(1, 2, 3), 2);
  EXPECT_THROW(ctx.Judge({Estimate::Exact(1)}, ""), std::logic_error);  // no spec
}

TEST(Context, JudgeAppliesTheSpecsCriterion) {
  ClaimSpec spec{.id = "x.X1", .criterion = AtLeast(0.5, "auroc CI")};
  ClaimContext ctx(spec, Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
  const Outcome ok = ctx.Judge({Estimate::Ci(0.7, 0.6, 0.8)}, "our setting");
  EXPECT_EQ(ok.verdict, Verdict::kReproduced);
  EXPECT_EQ(ok.value, 0.7);
  EXPECT_EQ(ok.ci_low, 0.6);
  EXPECT_EQ(ok.setting, "our setting");
  const Outcome bad = ctx.Judge({Estimate::Ci(0.45, 0.4, 0.55)}, "");
  EXPECT_EQ(bad.verdict, Verdict::kInconclusive);
  EXPECT_EQ(bad.reason, "auroc CI = 0.45 [0.4, 0.55], not >= 0.5");
}

TEST(Registration, SuiteComesFromTheIdAndDefaultsFillEmptyFields) {
  const size_t before = RegisteredClaims().size();
  ClaimRegistration({.paper = "P", .paper_setting = "S"},
                    {.id = "selftest.Z1", .criterion = Equals(0)}, nullptr);
  ASSERT_EQ(RegisteredClaims().size(), before + 1);
  const auto it = std::find_if(RegisteredClaims().begin(), RegisteredClaims().end(),
                               [](const ClaimDef& d) { return d.spec.id == "selftest.Z1"; });
  ASSERT_NE(it, RegisteredClaims().end());
  EXPECT_EQ(it->spec.suite, "selftest");
  EXPECT_EQ(it->spec.paper, "P");
  EXPECT_EQ(it->spec.paper_setting, "S");
  EXPECT_THROW(ClaimRegistration({.paper = "P"}, {.id = "nosuite", .criterion = Equals(0)}, nullptr),
               std::logic_error);
  EXPECT_THROW(ClaimRegistration({.paper = "P"}, {.id = "a.B", .suite = "c", .criterion = Equals(0)},
                                 nullptr),
               std::logic_error);
  EXPECT_THROW(ClaimRegistration({.paper = "P"}, {.id = "a.NoCriterion"}, nullptr), std::logic_error);
  EXPECT_THROW(ClaimRegistration({}, {.id = "a.NoPaper", .criterion = Equals(0)}, nullptr),
               std::logic_error);
  EXPECT_THROW(ClaimRegistration({.paper = "P"}, {.id = "selftest.Z1", .criterion = Equals(0)}, nullptr),
               std::logic_error);  // duplicate
}

// After SIGINT the next Record() throws Interrupted; checked in a child
// process because the flag is process-wide.
TEST(Context, RecordThrowsInterruptedAfterSigint) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallInterruptHandlers();
    ClaimContext ctx(Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
    ctx.RecordExact({});  // fine before the signal
    std::raise(SIGINT);
    if (!InterruptRequested() || InterruptSignal() != SIGINT) _exit(2);
    try {
      ctx.RecordExact({});
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

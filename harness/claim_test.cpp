// File: harness/claim_test.cpp
// Criteria and verdict rules, registration, profiles, requirements and the interrupt path of claims.
#include "harness/claim.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <limits>

namespace cb::harness {
namespace {

Verdict Judge(const Criterion& c, Estimate e, std::string* reason = nullptr) {
  return c.Decide({e}, reason);
}

// An interval from enough trials that its width alone decides.
Estimate Ci(double v, double low, double high) {
  return Estimate::Ci(v, low, high, IntervalMethod::kStudentT, 10);
}

TEST(Criteria, AtLeastUsesTheWholeInterval) {
  const Criterion c = AtLeast(1.0);
  EXPECT_EQ(Judge(c, Ci(1.3, 1.2, 1.5)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Ci(1.2, 1.0, 1.5)), Verdict::kReproduced);  // boundary meets it
  EXPECT_EQ(Judge(c, Ci(0.7, 0.5, 0.9)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Ci(1.0, 0.9, 1.1)), Verdict::kInconclusive);
  // An exact value is never inconclusive.
  EXPECT_EQ(Judge(c, Estimate::Exact(1.0)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Exact(0.999)), Verdict::kNotReproduced);
}

TEST(Criteria, AtMostMirrorsAtLeast) {
  const Criterion c = AtMost(1.0);
  EXPECT_EQ(Judge(c, Ci(0.5, 0.1, 0.9)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Ci(1.2, 1.1, 1.3)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Ci(1.0, 0.9, 1.1)), Verdict::kInconclusive);
}

TEST(Criteria, WithinNeedsTheIntervalInsideTheRange) {
  const Criterion c = Within(0.9, 1.1);
  EXPECT_EQ(Judge(c, Ci(1, 0.95, 1.05)), Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Ci(1.25, 1.2, 1.3)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Ci(0.6, 0.5, 0.8)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(c, Ci(1.1, 1.05, 1.2)), Verdict::kInconclusive);
  EXPECT_EQ(Judge(c, Ci(1.0, 0.5, 1.5)), Verdict::kInconclusive);
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
  const Criterion c = AllOf({Within(0.9, 1.1, "exponent"), Holds("class O(n) selected")});
  EXPECT_EQ(c.Leaves(), 2u);
  std::string reason;
  EXPECT_EQ(c.Decide({Ci(1, 0.95, 1.05), Estimate::Check(true)}, &reason),
            Verdict::kReproduced);
  EXPECT_EQ(reason, "");
  EXPECT_EQ(c.Decide({Ci(1, 0.95, 1.05), Estimate::Check(false)}, &reason),
            Verdict::kNotReproduced);
  EXPECT_EQ(reason, "not: class O(n) selected");
  EXPECT_EQ(c.Decide({Ci(1.5, 1.4, 1.6), Estimate::Check(false)}, &reason),
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
  EXPECT_STREQ(ScaleName(Scale::kReal), "real");
  EXPECT_STREQ(ClaimKindName(ClaimKind::kPrerequisite), "prerequisite");
}

TEST(Criteria, AboveAndBelowAreStrict) {
  const Criterion above = Above(0, "difference CI");
  EXPECT_EQ(Judge(above, Ci(0.2, 0.1, 0.3)), Verdict::kReproduced);
  EXPECT_EQ(Judge(above, Ci(0.1, 0.0, 0.2)), Verdict::kInconclusive);  // touches 0
  EXPECT_EQ(Judge(above, Ci(-0.2, -0.3, 0.0)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(above, Estimate::Exact(0)), Verdict::kNotReproduced);
  EXPECT_EQ(above.Text(), "difference CI > 0");
  const Criterion below = Below(1);
  EXPECT_EQ(Judge(below, Estimate::Exact(0.99)), Verdict::kReproduced);
  EXPECT_EQ(Judge(below, Estimate::Exact(1)), Verdict::kNotReproduced);
  EXPECT_EQ(Judge(below, Ci(1, 0.5, 1.5)), Verdict::kInconclusive);
}

TEST(Criteria, AFailingConditionIsNotReproducedNeverInconclusive) {
  std::string reason;
  EXPECT_EQ(Holds("outputs agree").Decide({Estimate::Check(false)}, &reason), Verdict::kNotReproduced);
  EXPECT_EQ(reason, "not: outputs agree");
}

// Below a method's minimum number of trials its interval's coverage is not
// what it claims: the leaf is INCONCLUSIVE whatever the interval says.
TEST(Criteria, TooFewTrialsIsInconclusiveWithTheReason) {
  const Criterion c = AtLeast(0, "gain CI");
  std::string reason;
  const Estimate two_seeds = Estimate::Ci(0.5, 0.4, 0.6, IntervalMethod::kStudentT, 2);
  EXPECT_EQ(c.Decide({two_seeds}, &reason), Verdict::kInconclusive);
  EXPECT_EQ(reason, "gain CI = 0.5 [0.4, 0.6]: too few trials: n = 2 (a student-t interval needs 3)");
  EXPECT_EQ(Judge(c, Estimate::Ci(0.5, 0.4, 0.6, IntervalMethod::kStudentT, 3)), Verdict::kReproduced);
  // Each method has its own minimum.
  EXPECT_EQ(Judge(c, Estimate::Ci(0.5, 0.4, 0.6, IntervalMethod::kPercentileBootstrap, 19)),
            Verdict::kInconclusive);
  EXPECT_EQ(Judge(c, Estimate::Ci(0.5, 0.4, 0.6, IntervalMethod::kPercentileBootstrap, 20)),
            Verdict::kReproduced);
  EXPECT_EQ(Judge(c, Estimate::Ci(0.5, 0.4, 0.6, IntervalMethod::kWilson, 29)), Verdict::kInconclusive);
  // An exact value needs no trials.
  EXPECT_EQ(Judge(c, Estimate::Exact(0.5)), Verdict::kReproduced);
}

// The falsifiability check that registration applies (and `list --json`
// shows per claim): planted constant criteria are caught, real ones pass.
TEST(Criteria, ConstantCriteriaCannotFailAndAreNamed) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(AtLeast(-inf, "x").CannotFail(), "leaf 1 'x >= -inf' holds for every value");
  EXPECT_NE(Within(-inf, inf).CannotFail(), "");
  EXPECT_NE(AtMost(1e308 * 10).CannotFail(), "");
  EXPECT_NE(AllOf({AtLeast(1), AtMost(inf)}).CannotFail(), "");
  EXPECT_NE(AllOf({}).CannotFail(), "");
  EXPECT_NE(AtLeast(std::nan("")).CannotFail(), "");  // compares false with everything
  for (const Criterion& c : {AtLeast(0.95), AtMost(1e-6), Above(0), Below(0), Within(0.9, 1.1),
                             Equals(0), Holds("x"), AllOf({Above(0), Holds("y"), Within(-1, 1)})}) {
    SCOPED_TRACE(c.Text());
    EXPECT_EQ(c.CannotFail(), "");
    // Each has a measurement for each outcome, and Decide agrees with it.
    for (const Verdict v : {Verdict::kReproduced, Verdict::kNotReproduced}) {
      const auto w = c.Witness(v);
      ASSERT_TRUE(w.has_value()) << VerdictName(v);
      EXPECT_EQ(c.Decide(*w, nullptr), v);
    }
  }
  // Only interval leaves can be INCONCLUSIVE.
  EXPECT_FALSE(Holds("x").Witness(Verdict::kInconclusive).has_value());
  const auto straddle = AtLeast(0.5).Witness(Verdict::kInconclusive);
  ASSERT_TRUE(straddle.has_value());
  EXPECT_EQ(AtLeast(0.5).Decide(*straddle, nullptr), Verdict::kInconclusive);
}

TEST(Criteria, FingerprintIsExactAndStructural) {
  EXPECT_EQ(AtLeast(0.95, "r").Fingerprint(), AtLeast(0.95, "r").Fingerprint());
  // Bounds that print alike still differ.
  EXPECT_NE(AtLeast(0.95, "r").Fingerprint(), AtLeast(0.95000001, "r").Fingerprint());
  EXPECT_NE(AtLeast(0.95, "r").Fingerprint(), Above(0.95, "r").Fingerprint());
  EXPECT_NE(AllOf({AtLeast(1), Holds("a")}).Fingerprint(), AllOf({Holds("a"), AtLeast(1)}).Fingerprint());
}

TEST(CriterionHash, ChangesWithWhatDecidesTheVerdictAndNothingElse) {
  const ClaimSpec base{.id = "x.X1", .statement = "s", .criterion = AtLeast(0.5)};
  const std::string h = CriterionHash(base);
  EXPECT_EQ(h.size(), 32u);
  ClaimSpec worded = base;
  worded.statement = "another wording";
  worded.paper_value = "0.6";
  EXPECT_EQ(CriterionHash(worded), h);
  ClaimSpec moved = base;
  moved.criterion = AtLeast(0.4);
  EXPECT_NE(CriterionHash(moved), h);
  ClaimSpec scoped = base;
  scoped.requirements.min_profile = Profile::kQuick;
  EXPECT_NE(CriterionHash(scoped), h);
  ClaimSpec setting = base;
  setting.criterion_setting = "d 128";
  EXPECT_NE(CriterionHash(setting), h);
  ClaimSpec kind = base;
  kind.kind = ClaimKind::kPrerequisite;
  EXPECT_NE(CriterionHash(kind), h);
  ClaimSpec cpu = base;
  cpu.requirements.cpu_only = true;
  EXPECT_NE(CriterionHash(cpu), h);
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

TEST(Context, DeterministicRowsGetHashesByConstruction) {
  std::vector<Result> got;
  ClaimContext ctx(Profile::kSmoke, 9, {Backend::kCpu}, [&](const Result& r) { got.push_back(r); });
  ctx.RecordExact({.case_name = "c", .metric = "m", .value = 2.5});
  ctx.RecordExact({.case_name = "c", .metric = "m", .value = 2.5000000000000004});
  ctx.RecordEstimate({.case_name = "c", .metric = "m", .value = 2.5, .input_hash = "given", .output_hash = "out"});
  ctx.RecordTiming({.case_name = "c", .metric = "t", .value = 1e-3});
  ClaimContext other_seed(Profile::kSmoke, 10, {Backend::kCpu}, [&](const Result& r) { got.push_back(r); });
  other_seed.RecordExact({.case_name = "c", .metric = "m", .value = 2.5});
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].input_hash.size(), 32u);
  EXPECT_EQ(got[0].output_hash.size(), 32u);
  EXPECT_EQ(got[0].input_hash, got[1].input_hash);    // same statement of inputs
  EXPECT_NE(got[0].output_hash, got[1].output_hash);  // one ulp apart
  EXPECT_EQ(got[2].input_hash, "given");              // a claim's own hashes are kept
  EXPECT_EQ(got[2].output_hash, "out");
  EXPECT_EQ(got[3].input_hash, "");                   // timings are not deterministic rows
  EXPECT_NE(got[4].input_hash, got[0].input_hash);    // another seed, another input
}

TEST(Context, ScaleComesFromTheEvidence) {
  ClaimSpec spec{.id = "x.X1", .criterion = AtLeast(0.5),
                 .paper_inputs = {"model=Llama-2-7b", "data=WikiMIA"}};
  ClaimContext ctx(spec, Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
  EXPECT_EQ(ctx.Finish({}).scale, Scale::kMechanism);  // built-in data only
  ctx.UseInput({.role = "checkpoint", .name = "m", .content_hash = "00", .declared = "model=Llama-2-7b"});
  EXPECT_EQ(ctx.scale(), Scale::kReal);  // real, but not all of the paper's inputs declared
  ctx.UseInput({.role = "dataset", .name = "d", .content_hash = "01", .declared = "data=WikiMIA"});
  const Outcome o = ctx.Finish(ctx.Judge({Estimate::Exact(0.7)}, ""));
  EXPECT_EQ(o.scale, Scale::kPaperScale);
  ASSERT_EQ(o.inputs.size(), 2u);
  EXPECT_EQ(o.inputs[1].declared, "data=WikiMIA");
  EXPECT_THROW(ctx.UseInput({.role = "dataset", .name = "no hash"}), std::logic_error);
  // A claim that names no paper inputs is at most `real`.
  ClaimSpec plain{.id = "x.X2", .criterion = AtLeast(0.5)};
  ClaimContext real(plain, Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
  real.UseInput({.role = "endpoint", .name = "e", .content_hash = "02", .declared = "model=Llama-2-7b"});
  EXPECT_EQ(real.scale(), Scale::kReal);
}

TEST(Context, EndpointInputKeepsNoCredentials) {
  setenv("CLAIMBENCH_ENDPOINT", "https://user:secret@api.example.test/v1?key=abc#frag", 1);
  setenv("CLAIMBENCH_MODEL", "m-7b", 1);
  const ClaimInput in = EndpointInput();
  EXPECT_EQ(in.role, "endpoint");
  EXPECT_EQ(in.name, "m-7b at https://api.example.test/v1");
  EXPECT_EQ(in.content_hash.size(), 32u);
  unsetenv("CLAIMBENCH_ENDPOINT");
  unsetenv("CLAIMBENCH_MODEL");
}

TEST(Context, BelowItsProfileAClaimIsUnmeasurableButKeepsItsValue) {
  ClaimSpec spec{.id = "x.X1", .criterion = AtLeast(0.5, "auroc"),
                 .requirements = {.min_profile = Profile::kQuick}};
  ClaimContext smoke(spec, Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
  const Outcome o = smoke.Judge({Estimate::Exact(0.4)}, "");
  EXPECT_EQ(o.verdict, Verdict::kUnmeasurable);
  EXPECT_EQ(o.value, 0.4);
  EXPECT_EQ(o.reason, "judged only at profile >= quick (this run: smoke); measured: auroc = 0.4, not >= 0.5");
  ClaimContext quick(spec, Profile::kQuick, 1, {Backend::kCpu}, [](const Result&) {});
  EXPECT_EQ(quick.Judge({Estimate::Exact(0.4)}, "").verdict, Verdict::kNotReproduced);
}

TEST(Context, JudgeAppliesTheSpecsCriterion) {
  ClaimSpec spec{.id = "x.X1", .criterion = AtLeast(0.5, "auroc CI")};
  ClaimContext ctx(spec, Profile::kSmoke, 1, {Backend::kCpu}, [](const Result&) {});
  const Outcome ok = ctx.Judge({Ci(0.7, 0.6, 0.8)}, "our setting");
  EXPECT_EQ(ok.verdict, Verdict::kReproduced);
  EXPECT_EQ(ok.value, 0.7);
  EXPECT_EQ(ok.ci_low, 0.6);
  EXPECT_EQ(ok.setting, "our setting");
  const Outcome bad = ctx.Judge({Ci(0.45, 0.4, 0.55)}, "");
  EXPECT_EQ(bad.verdict, Verdict::kInconclusive);
  EXPECT_EQ(bad.reason, "auroc CI = 0.45 [0.4, 0.55], not >= 0.5");
}

TEST(Registration, SuiteComesFromTheIdAndDefaultsFillEmptyFields) {
  const size_t before = RegisteredClaims().size();
  ClaimRegistration({.paper = "P", .paper_setting = "S"},
                    {.id = "selftest.Z1", .criterion = Equals(0)}, nullptr);
  ASSERT_EQ(RegisteredClaims().size(), before + 1);
  auto it = std::find_if(RegisteredClaims().begin(), RegisteredClaims().end(),
                               [](const ClaimDef& d) { return d.spec.id == "selftest.Z1"; });
  ASSERT_NE(it, RegisteredClaims().end());
  EXPECT_EQ(it->spec.suite, "selftest");
  EXPECT_EQ(it->spec.paper, "P");
  EXPECT_EQ(it->spec.paper_setting, "S");
  EXPECT_FALSE(it->spec.requirements.cpu_only);
  ClaimRegistration({.paper = "P", .cpu_only = true}, {.id = "selftest.Z2", .criterion = Equals(0)}, nullptr);
  const auto z2 = std::find_if(RegisteredClaims().begin(), RegisteredClaims().end(),
                               [](const ClaimDef& d) { return d.spec.id == "selftest.Z2"; });
  ASSERT_NE(z2, RegisteredClaims().end());
  EXPECT_TRUE(z2->spec.requirements.cpu_only);  // a file's default
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
  // A planted constant criterion is refused at registration.
  EXPECT_THROW(ClaimRegistration({.paper = "P"},
                                 {.id = "selftest.Constant",
                                  .criterion = Within(-std::numeric_limits<double>::infinity(),
                                                      std::numeric_limits<double>::infinity())},
                                 nullptr),
               std::logic_error);
}

TEST(Registration, ACheckTakesThePaperFieldsOfTheClaimItChecks) {
  ClaimRegistration({.paper = "P", .paper_setting = "7B model"},
                    {.id = "selftest.K1", .section = "Table 2", .statement = "K beats L",
                     .paper_value = "+5 points", .criterion = Above(0)},
                    nullptr);
  ClaimRegistration({.paper = "P"},
                    {.id = "selftest.K1-lm", .check_of = "selftest.K1", .criterion = Above(0)}, nullptr);
  const auto& claims = RegisteredClaims();
  const auto check = std::find_if(claims.begin(), claims.end(),
                                  [](const ClaimDef& d) { return d.spec.id == "selftest.K1-lm"; });
  ASSERT_NE(check, claims.end());
  EXPECT_EQ(check->spec.statement, "K beats L");
  EXPECT_EQ(check->spec.section, "Table 2");
  EXPECT_EQ(check->spec.paper_value, "+5 points");
  EXPECT_EQ(check->spec.paper_setting, "7B model");
  // A check of a prerequisite is a prerequisite.
  ClaimRegistration({.paper = "P"},
                    {.id = "selftest.Q1", .kind = ClaimKind::kPrerequisite, .statement = "exact by construction",
                     .criterion = Equals(0)},
                    nullptr);
  ClaimRegistration({.paper = "P"}, {.id = "selftest.Q1-lm", .check_of = "selftest.Q1", .criterion = Equals(0)},
                    nullptr);
  const auto q = std::find_if(RegisteredClaims().begin(), RegisteredClaims().end(),
                              [](const ClaimDef& d) { return d.spec.id == "selftest.Q1-lm"; });
  ASSERT_NE(q, RegisteredClaims().end());
  EXPECT_EQ(q->spec.kind, ClaimKind::kPrerequisite);
  EXPECT_EQ(q->spec.statement, "exact by construction");
  // A check that restates the paper is refused: the words live once.
  EXPECT_THROW(ClaimRegistration({.paper = "P"},
                                 {.id = "selftest.K1-x", .check_of = "selftest.K1", .statement = "copy",
                                  .criterion = Above(0)},
                                 nullptr),
               std::logic_error);
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

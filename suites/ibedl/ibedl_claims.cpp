// File: suites/ibedl/ibedl_claims.cpp
// -----------------------------------------------------------------------------
// IB-EDL's claims (Li et al., ICLR 2025; issue 21):
//   ibedl.C1  closed forms of the losses, psi, psi', ECE and u, to 1e-12
//   ibedl.C2  IB-EDL's ECE below EDL's and MAP's, clean labels (CI over seeds)
//   ibedl.C3  the same with 30% flipped training labels
//   ibedl.C4  OOD AUROC (uncertainty mass) of IB-EDL >= EDL's
//   ibedl.C5  the K_ID != K_OOD shift of the UM AUROC is material (> 0.05)
//   ibedl.C6  a larger beta lowers the evidence S (mechanism)
// C2-C5 fine-tune fixtures/lm's models (smoke: the 22K-parameter smoke model,
// a few steps; quick/full: the 5.3M-parameter target) through lm_fixtures.h
// and are UNMEASURABLE without them. One experiment per (profile, seed) is
// shared by C2-C6 (C6 records the fine-tuned model's S beside its free head).
// C1 is a prerequisite (our reference's closed forms); C2-C6 are the papers'.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/random.h"
#include "harness/seed_stats.h"
#include "harness/strings.h"
#include "reference/common/roc.h"
#include "reference/ibedl/evidential.h"
#include "reference/ibedl/metrics.h"
#include "reference/ibedl/special.h"
#include "suites/ibedl/experiment.h"
#include "suites/lm/lm_fixtures.h"

namespace cb::ibedl {
namespace {

namespace h = cb::harness;
namespace ri = cb::ref::ibedl;
using h::MeanCi;
using h::TMeanCi;

CB_CLAIM_DEFAULTS({.paper = "IB-EDL (Li et al., ICLR 2025)",
                   .paper_setting = "Llama2-7B / Llama3-8B / Mistral-7B, LoRA r 8 on q, v, lm_head; OBQA, ARC-C/E, "
                                    "CSQA, SciQ, RACE; 10,080 steps, bs 4, bf16"});

// ---------------------------------------------------------------------------
// C1: closed forms.

h::Outcome ClosedForms(h::ClaimContext& ctx) {
  double worst = 0;
  auto row = [&](const std::string& what, double got, double want) {
    const double err = std::abs(got - want);
    worst = std::max(worst, err);
    ctx.RecordExact({.case_name = "closed_form", .backend = "cpu", .params = {{"what", what}},
                     .metric = "abs_error", .value = err});
  };
  for (int K = 2; K <= 8; ++K) {
    const std::vector<double> ones(K, 1.0);
    row(h::StrFormat("ss_risk_alpha1_K%d", K), ri::SsRisk(ones, 0), double(K - 1) * (K + 2) / (double(K) * (K + 1)));
    double harmonic = 0;
    for (int i = 1; i < K; ++i) harmonic += 1.0 / i;
    row(h::StrFormat("ce_risk_alpha1_K%d", K), ri::CeRisk(ones, 0), harmonic);  // psi(K) - psi(1)
    row(h::StrFormat("dirichlet_kl_alpha1_K%d", K), ri::DirichletKl(ones, K - 1), 0.0);
    const std::vector<double> zero(K, 0.0);
    row(h::StrFormat("gaussian_kl_mu0_sigma1_K%d", K), ri::GaussianKl(zero, ones), 0.0);
  }
  row("digamma_1", ri::Digamma(1.0), -ri::kEulerGamma);
  row("trigamma_1", ri::Trigamma(1.0), std::numbers::pi * std::numbers::pi / 6);
  // ECE of confident, correct predictions.
  {
    const int K = 4, N = 40;
    std::vector<double> probs(size_t(N) * K, 0.0);
    std::vector<int> labels(N);
    for (int i = 0; i < N; ++i) labels[i] = i % K, probs[size_t(i) * K + labels[i]] = 1.0;
    row("ece_confident_correct", ri::Ece(probs, K, labels), 0.0);
  }
  // AUROC with ties: one positive and one negative tied -> 1/2.
  row("auroc_all_tied", cb::ref::Auroc(std::vector<double>{0.3, 0.3}, std::vector<int>{1, 0}), 0.5);
  // u in (0, 1] on random heads.
  bool u_in_range = true;
  h::Rng rng(ctx.seed(), 1);
  const int draws = ctx.ByProfile(200, 2000, 20000);
  for (int t = 0; t < draws; ++t) {
    const int K = 2 + int(rng.UniformInt(0, 6));
    std::vector<double> mu(K), tail(K), eps(size_t(20) * K);
    for (double& v : mu) v = 30 * rng.Normal();
    for (double& v : tail) v = 5 * rng.Normal();
    for (double& v : eps) v = rng.Normal();
    const ri::Prediction p = ri::PredictEvidential(mu, tail, eps, 20, true);
    u_in_range = u_in_range && p.uncertainty > 0 && p.uncertainty <= 1;
  }
  ctx.RecordExact({.case_name = "u_in_unit_interval", .backend = "cpu", .params = {{"heads", draws}},
                   .metric = "holds", .value = u_in_range ? 1.0 : 0.0});
  return ctx.Judge({h::Estimate::Exact(worst), h::Estimate::Check(u_in_range)},
                   h::StrFormat("K = 2..8, fp64; u on %d random heads (mu ~ N(0, 30^2), tail ~ N(0, 5^2))", draws));
}

CB_REGISTER_CLAIM(c1, {.id = "ibedl.C1",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§3-4, losses.py, metrics.py",
                       .statement = "The losses, special functions, ECE and u meet their closed forms: ss risk at "
                                    "alpha = 1, Dirichlet KL = 0 at alpha~ = 1, Gaussian KL = 0 at (0, 1), psi(1) = "
                                    "-gamma, psi'(1) = pi^2/6, ECE = 0 when confident and correct, u in (0, 1]",
                       .paper_value = "exact",
                       .paper_setting = "by construction",
                       .metric = "max abs error over the closed forms",
                       .criterion = h::AllOf({h::AtMost(1e-12, "max abs error"), h::Holds("u in (0, 1]")})},
                  ClosedForms);

// ---------------------------------------------------------------------------
// The fine-tuning experiment, shared by C2-C5.

struct Sizes {
  const char* model;
  int n_train, n_test, n_ood, steps, batch, seeds;
};

Sizes SizesFor(const h::ClaimContext& ctx) {
  return ctx.ByProfile(Sizes{"smoke", 16, 8, 8, 3, 4, 2}, Sizes{"target", 160, 60, 60, 60, 8, 5},
                       Sizes{"target", 320, 200, 200, 400, 8, 10});
}

const ExperimentResult& Experiment(h::ClaimContext& ctx) {
  static std::mutex mu;
  static std::map<std::string, ExperimentResult> cache;
  const std::string key = std::string(h::ProfileName(ctx.profile())) + "/" + std::to_string(ctx.seed());
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string fixtures = cb::lm_suite::LmFixturesDir();
  if (fixtures.empty()) throw std::runtime_error(cb::lm_suite::MissingLmFixtures());
  const Sizes s = SizesFor(ctx);
  ExperimentParams p;
  p.model_dir = fixtures + "/" + s.model;
  p.n_train = s.n_train;
  p.n_test = s.n_test;
  p.n_ood = s.n_ood;
  p.seeds = s.seeds;
  p.base_seed = ctx.seed();
  p.ft.steps = s.steps;
  p.ft.batch = s.batch;
  p.ft.warmup = std::min(10, s.steps / 10);
  // C6's fine-tuned evidence: IB-EDL at these betas besides the clean 1e-5
  // (quick had {1e-3, 1e-1} when C6 was first registered; 521ea10 dropped
  // 1e-3 with the evidence's move out of C6, restored with it).
  p.beta_sweep = ctx.ByProfile(std::vector<double>{}, std::vector<double>{1e-3, 1e-1},
                               std::vector<double>{1e-3, 1e-1});
  ctx.Progress(0, "ibedl fine-tunes");
  auto progress = [&ctx](int done, int total, const RunResult& r) {
    ctx.Progress(double(done) / total, h::StrFormat("ibedl fine-tune %d/%d %s noise %.1f: %.1f s, acc %.3f, ece %.3f",
                                                    done, total, MethodName(r.method), r.noise, r.seconds, r.test.acc,
                                                    r.test.ece));
  };
  return cache.emplace(key, RunExperiment(p, progress)).first->second;
}

std::string SettingOf(const h::ClaimContext& ctx, const ExperimentResult& r) {
  const Sizes s = SizesFor(ctx);
  std::string targets;
  for (const auto& t : r.lora_targets) targets += (targets.empty() ? "" : ",") + t;
  return h::StrFormat("fixtures/lm/%s (%lld params), LoRA r 8 a 16 on %s (%zu params), lr 1e-3, %d steps x %d, "
                      "synthetic MC K=4 (%d train, %d test, %d OOD), %d seeds",
                      s.model, static_cast<long long>(r.parameters), targets.c_str(), r.lora_params, s.steps,
                      s.batch, s.n_train, s.n_test, s.n_ood, s.seeds);
}

template <typename Body>
h::Outcome WithExperiment(h::ClaimContext& ctx, Body body) {
  const ExperimentResult* r = nullptr;
  try {
    r = &Experiment(ctx);
  } catch (const std::runtime_error& e) {
    return h::Unmeasurable(e.what());
  }
  return body(*r);
}

void RecordRuns(h::ClaimContext& ctx, const ExperimentResult& r, double noise) {
  for (Method m : {Method::kMap, Method::kEdl, Method::kIbEdl})
    for (const RunResult* run : r.Runs(m, noise)) {
      const nlohmann::json params = {{"method", MethodName(m)}, {"noise", noise}, {"seed_index", run->seed_index},
                                     {"beta", run->beta}, {"split", "id_test"}};
      for (const auto& [metric, v] : {std::pair{"acc", run->test.acc}, {"ece", run->test.ece},
                                      {"nll", run->test.nll}, {"brier", run->test.brier},
                                      {"mean_evidence_S", run->test.mean_s}}) {
        ctx.RecordExact({.case_name = "finetune_metric", .backend = "cpu", .params = params, .metric = metric,
                         .value = v, .n = 1, .input_hash = r.data_hash, .output_hash = r.model_hash});
      }
      ctx.RecordTiming({.case_name = "finetune_seconds", .backend = "cpu", .params = params, .metric = "seconds",
                        .unit = "s", .direction = "lower", .value = run->seconds, .n = 1});
    }
}

std::vector<double> Field(const std::vector<const RunResult*>& runs, double (*get)(const RunResult&)) {
  std::vector<double> out;
  for (const RunResult* r : runs) out.push_back(get(*r));
  return out;
}

std::vector<double> Minus(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

void RecordCi(h::ClaimContext& ctx, const std::string& name, const nlohmann::json& params, const MeanCi& c,
              const std::vector<double>& samples) {
  ctx.RecordEstimate({.case_name = name, .backend = "cpu", .params = params, .metric = "mean_over_seeds",
                      .unit = "1", .value = c.mean, .ci_low = c.low, .ci_high = c.high, .n = c.n,
                      .samples = samples});
}

// The t-interval over seeds as a criterion's estimate, with the number of
// seeds behind it. Seeds that all gave the same value are one outcome, not
// n: at smoke the 3-step fine-tune leaves the scores' ranking where the base
// model put it, so two seeds gave bit-identical AUROC differences and a
// zero-width "interval" (ibedl.C4 in the smoke baseline). Such an interval
// counts as n = 1 (too few trials), whatever the profile.
h::Estimate SeedEstimate(const MeanCi& c, const std::vector<double>& per_seed) {
  const bool all_same =
      !per_seed.empty() && std::all_of(per_seed.begin(), per_seed.end(), [&](double v) { return v == per_seed[0]; });
  return h::Estimate::Ci(c.mean, c.low, c.high, h::IntervalMethod::kStudentT, all_same ? 1 : c.n);
}

// "; the 2 seeds gave identical values" when they did (see SeedEstimate).
std::string SameSeedsNote(const std::vector<double>& per_seed, const char* what) {
  if (per_seed.size() < 2 ||
      !std::all_of(per_seed.begin(), per_seed.end(), [&](double v) { return v == per_seed[0]; }))
    return "";
  return h::StrFormat("; %s: the %zu seeds gave identical values (counted as one trial)", what, per_seed.size());
}

// ---------------------------------------------------------------------------
// C2 / C3: ECE.

h::Outcome EceClaim(h::ClaimContext& ctx, double noise) {
  return WithExperiment(ctx, [&](const ExperimentResult& r) {
    RecordRuns(ctx, r, noise);
    auto ece = [](const RunResult& x) { return x.test.ece; };
    auto acc = [](const RunResult& x) { return x.test.acc; };
    const auto ib = Field(r.Runs(Method::kIbEdl, noise), ece);
    const auto d_edl = Minus(Field(r.Runs(Method::kEdl, noise), ece), ib);
    const auto d_map = Minus(Field(r.Runs(Method::kMap, noise), ece), ib);
    const MeanCi c_edl = TMeanCi(d_edl), c_map = TMeanCi(d_map);
    RecordCi(ctx, "ece_edl_minus_ib_edl", {{"noise", noise}}, c_edl, d_edl);
    RecordCi(ctx, "ece_map_minus_ib_edl", {{"noise", noise}}, c_map, d_map);
    const auto acc_ib_seeds = Field(r.Runs(Method::kIbEdl, noise), acc);
    const auto acc_ib = TMeanCi(acc_ib_seeds);
    const auto acc_edl = TMeanCi(Field(r.Runs(Method::kEdl, noise), acc));
    const auto acc_map = TMeanCi(Field(r.Runs(Method::kMap, noise), acc));
    const double acc_gap = std::max(acc_edl.mean, acc_map.mean) - acc_ib.mean;
    ctx.RecordExact({.case_name = "acc_best_baseline_minus_ib_edl", .backend = "cpu", .params = {{"noise", noise}},
                     .metric = "accuracy_difference", .value = acc_gap, .n = acc_ib.n});
    const std::string setting =
        SettingOf(ctx, r) +
        h::StrFormat("; noise %.0f%%, beta %g; mean ACC map %.3f edl %.3f ib %.3f [%.3f, %.3f]", noise * 100,
                     noise > 0 ? 6e-5 : 1e-5, acc_map.mean, acc_edl.mean, acc_ib.mean, acc_ib.low, acc_ib.high) +
        SameSeedsNote(d_edl, "ECE(EDL) - ECE(IB-EDL)") + SameSeedsNote(d_map, "ECE(MAP) - ECE(IB-EDL)");
    return ctx.Judge({SeedEstimate(c_edl, d_edl), SeedEstimate(c_map, d_map), h::Estimate::Check(acc_gap <= 0.05),
                      SeedEstimate(acc_ib, acc_ib_seeds)},
                     setting);
  });
}

// The absolute leaf (issue 49: a comparison also says the winner is any
// good): IB-EDL must answer above chance (1/K = 0.25), else a lower ECE
// only compares models that have not learnt the task.
h::Criterion EceCriterion() {
  return h::AllOf({h::AtLeast(0, "ECE(EDL) - ECE(IB-EDL), t-CI over seeds"),
                   h::AtLeast(0, "ECE(MAP) - ECE(IB-EDL), t-CI over seeds"),
                   h::Holds("comparable accuracy: best baseline's mean ACC - IB-EDL's <= 0.05"),
                   h::Above(0.25, "IB-EDL's test ACC, t-CI over seeds (chance 1/K)")});
}

constexpr char kAbsoluteLeafReason[] =
    "issue 49: a comparison claim carries an absolute leaf (IB-EDL above chance), added to the unchanged "
    "comparison leaves";

CB_REGISTER_CLAIM(c2, {.id = "ibedl.C2",
                       .section = "§5.1, Table 1",
                       .statement = "IB-EDL has a lower ECE than EDL and MAP at comparable accuracy (clean labels)",
                       .paper_value = "lowest ECE across models and datasets (e.g. OBQA/Llama3-8B; table values "
                                      "not verified here)",
                       .metric = "ECE difference (baseline - IB-EDL), mean over seeds",
                       .criterion = EceCriterion(),
                       .criterion_reason = kAbsoluteLeafReason},
                  [](h::ClaimContext& ctx) { return EceClaim(ctx, 0.0); });

CB_REGISTER_CLAIM(c3, {.id = "ibedl.C3",
                       .section = "§5.3, label noise",
                       .statement = "With 30% flipped training labels IB-EDL still has a lower ECE than EDL and MAP "
                                    "at comparable accuracy",
                       .paper_value = "robust to 30% label noise (table values not verified here)",
                       .metric = "ECE difference (baseline - IB-EDL), mean over seeds",
                       .criterion = EceCriterion(),
                       .criterion_reason = kAbsoluteLeafReason},
                  [](h::ClaimContext& ctx) { return EceClaim(ctx, 0.3); });

// ---------------------------------------------------------------------------
// C4 / C5: OOD.

void RecordOod(h::ClaimContext& ctx, const ExperimentResult& r) {
  for (Method m : {Method::kMap, Method::kEdl, Method::kIbEdl})
    for (const RunResult* run : r.Runs(m, 0.0)) {
      for (const auto& [split, o] : {std::pair{"ood_same_k", &run->ood}, {"ood_k_plus_1", &run->ood_k}}) {
        const nlohmann::json params = {{"method", MethodName(m)}, {"seed_index", run->seed_index},
                                       {"split", split}, {"k_id", 4}, {"k_ood", std::string(split) == "ood_same_k" ? 4 : 5}};
        std::vector<std::pair<const char*, double>> rows = {{"auroc_mp", o->auroc_mp}, {"aupr_mp", o->aupr_mp}};
        if (o->has_um) rows.insert(rows.end(), {{"auroc_um", o->auroc_um}, {"aupr_um", o->aupr_um}});
        for (const auto& [metric, v] : rows)
          ctx.RecordExact({.case_name = "ood_metric", .backend = "cpu", .params = params, .metric = metric,
                           .value = v, .n = 1, .input_hash = r.data_hash, .output_hash = r.model_hash});
      }
    }
}

h::Outcome OodClaim(h::ClaimContext& ctx) {
  return WithExperiment(ctx, [&](const ExperimentResult& r) {
    RecordOod(ctx, r);
    auto um = [](const RunResult& x) { return x.ood.auroc_um; };
    auto mp = [](const RunResult& x) { return x.ood.auroc_mp; };
    const auto d = Minus(Field(r.Runs(Method::kIbEdl, 0.0), um), Field(r.Runs(Method::kEdl, 0.0), um));
    const auto dmp = Minus(Field(r.Runs(Method::kIbEdl, 0.0), mp), Field(r.Runs(Method::kEdl, 0.0), mp));
    const MeanCi c = TMeanCi(d), cmp = TMeanCi(dmp);
    RecordCi(ctx, "auroc_um_ib_edl_minus_edl", {{"split", "ood_same_k"}}, c, d);
    RecordCi(ctx, "auroc_mp_ib_edl_minus_edl", {{"split", "ood_same_k"}}, cmp, dmp);
    const auto ib_seeds = Field(r.Runs(Method::kIbEdl, 0.0), um);
    const auto ib = TMeanCi(ib_seeds);
    const auto edl = TMeanCi(Field(r.Runs(Method::kEdl, 0.0), um));
    return ctx.Judge({SeedEstimate(c, d), SeedEstimate(ib, ib_seeds)},
                     SettingOf(ctx, r) +
                         h::StrFormat("; ID base teacher K=4 vs OOD teacher K=4; mean UM AUROC ib %.3f [%.3f, %.3f] "
                                      "edl %.3f; MP diff %.3f [%.3f, %.3f]",
                                      ib.mean, ib.low, ib.high, edl.mean, cmp.mean, cmp.low, cmp.high) +
                         SameSeedsNote(d, "UM AUROC difference"));
  });
}

CB_REGISTER_CLAIM(c4, {.id = "ibedl.C4",
                       .section = "§5.2, Table 3 (OOD detection)",
                       .statement = "IB-EDL's OOD AUROC with the uncertainty mass is at least EDL's",
                       .paper_value = "better OOD AUROC with OBQA as ID and ARC-C/E, CSQA, MMLU, SciQ as OOD "
                                      "(OBQA->MMLU 83.16, unverified)",
                       .metric = "AUROC_UM(IB-EDL) - AUROC_UM(EDL), mean over seeds",
                       .criterion = h::AllOf({h::AtLeast(0, "AUROC difference, t-CI over seeds"),
                                              h::Above(0.5, "IB-EDL's UM AUROC, t-CI over seeds (chance 0.5)")}),
                       .criterion_reason = "issue 49: a comparison claim carries an absolute leaf (IB-EDL's UM AUROC "
                                           "above chance), added to the unchanged comparison leaf"},
                  OodClaim);

// The shift's size, whichever its sign: the t-interval of the mean shift
// reflected to the side of its mean. "Above 0.05" on it holds when the
// interval lies wholly beyond +-0.05, fails when it lies wholly within
// [-0.05, 0.05] (no material shift), and straddles otherwise.
h::Estimate ShiftSize(const MeanCi& c, const std::vector<double>& per_seed) {
  const h::Estimate e = SeedEstimate(c, per_seed);
  if (c.mean >= 0) return e;
  return h::Estimate::Ci(-c.mean, -c.high, -c.low, e.method, e.n);
}

h::Outcome KShiftClaim(h::ClaimContext& ctx) {
  return WithExperiment(ctx, [&](const ExperimentResult& r) {
    RecordOod(ctx, r);
    std::vector<h::Estimate> est;
    std::string note;
    for (Method m : {Method::kIbEdl, Method::kEdl}) {
      auto same = [](const RunResult& x) { return x.ood.auroc_um; };
      auto plus = [](const RunResult& x) { return x.ood_k.auroc_um; };
      const auto d = Minus(Field(r.Runs(m, 0.0), plus), Field(r.Runs(m, 0.0), same));
      const MeanCi c = TMeanCi(d);
      RecordCi(ctx, "auroc_um_k5_minus_k4", {{"method", MethodName(m)}}, c, d);
      auto aupr = [](const RunResult& x) { return x.ood_k.aupr_um - x.ood.aupr_um; };
      const auto da = Field(r.Runs(m, 0.0), aupr);
      RecordCi(ctx, "aupr_um_k5_minus_k4", {{"method", MethodName(m)}}, TMeanCi(da), da);
      note += h::StrFormat("; %s shift %.3f [%.3f, %.3f]", MethodName(m), c.mean, c.low, c.high);
      if (m == Method::kIbEdl) {
        est.push_back(ShiftSize(c, d));
        note += SameSeedsNote(d, "IB-EDL's shift");
      }
    }
    return ctx.Judge(est, SettingOf(ctx, r) + "; OOD teacher with K_OOD = 5 vs K_OOD = 4 against ID K = 4" + note);
  });
}

CB_REGISTER_CLAIM(c5, {.id = "ibedl.C5",
                       .section = "pitfall (arXiv 2605.06382): K_ID != K_OOD",
                       .statement = "When the OOD split has a different number of choices, the uncertainty-mass "
                                    "AUROC shifts materially (measured on IB-EDL: K_OOD = 5 vs 4, same OOD teacher)",
                       .paper_value = "UM AUROC/AUPR shift by up to 0.36/0.68 (OBQA K=4 vs CSQA K=5)",
                       .paper_setting = "IB-EDL's released predictions, OBQA as ID",
                       .metric = "|AUROC_UM(K_OOD = 5) - AUROC_UM(K_OOD = 4)|, IB-EDL, mean over seeds",
                       .criterion = h::Above(0.05, "|UM AUROC shift|, t-CI over seeds reflected to its mean's sign"),
                       .criterion_reason = "the former leaves could not fail: an AUROC difference always lies in "
                                           "[-1, 1], and 'CI excludes 0' mapped failure to INCONCLUSIVE; a shift "
                                           "within +-0.05 AUROC now fails (the source reports up to 0.36); chosen on "
                                           "2026-12-08 after the quick value (-0.135 [-0.170, -0.100]) was known, "
                                           "so it is not pre-registered"},
                  KShiftClaim);

// ---------------------------------------------------------------------------
// C6: beta lowers S. Gradient descent on a free head (mu, tail per example,
// the brief's "mu-only" toy extended to sigma), IB-EDL's ss + beta KL, J = 20
// draws per step; the mean evidence S after `steps` per beta. The step is
// the pre-registered 2 per example. 521ea10 moved it to 1 after the quick
// run was NOT_REPRODUCED (at beta = 1 the IB term's curvature, beta per
// example, makes a step of 2 oscillate: S = 18.96 > 7.46 at beta 0.1); a
// setting moved after a failing run is reverted (issue 49), and the
// verdict is what the registered setting gives.
constexpr double kHeadStep = 2.0;

double HeadOnlyS(double beta, int B, int K, int steps, uint64_t seed) {
  h::Rng rng(seed, 7);
  std::vector<int> labels(B);
  for (int& y : labels) y = int(rng.UniformInt(0, K - 1));
  std::vector<double> mu(size_t(B) * K, 0.0), tail(size_t(B) * K, 0.0), dmu(mu.size()), dtail(mu.size());
  const ri::LossConfig c{.data = ri::DataTerm::kSs, .vib = true, .draws = 20, .beta = beta};
  std::vector<double> eps(size_t(B) * 20 * K);
  for (int s = 0; s < steps; ++s) {
    for (double& e : eps) e = rng.Normal();
    ri::EvidentialLoss(c, B, K, mu, tail, labels, eps, dmu.data(), dtail.data());
    // A step of kHeadStep per example (the batch loss is a mean over B).
    for (size_t i = 0; i < mu.size(); ++i) mu[i] -= kHeadStep * B * dmu[i], tail[i] -= kHeadStep * B * dtail[i];
  }
  double S = 0;
  std::vector<double> e(size_t(20) * K);
  for (int b = 0; b < B; ++b) {
    for (double& v : e) v = rng.Normal();
    const auto p = ri::PredictEvidential(std::span(&mu[size_t(b) * K], K), std::span(&tail[size_t(b) * K], K), e,
                                         20, true);
    S += p.strength / B;
  }
  return S;
}

h::Outcome BetaClaim(h::ClaimContext& ctx) {
  const std::vector<double> betas = {0.0, 1e-3, 1e-2, 1e-1, 1.0};
  const int steps = ctx.ByProfile(40, 400, 2000);
  std::vector<double> S;
  for (double b : betas) {
    S.push_back(HeadOnlyS(b, 32, 4, steps, ctx.seed()));
    ctx.RecordExact({.case_name = "head_only_mean_S", .backend = "cpu", .params = {{"beta", b}, {"steps", steps}},
                     .metric = "mean_evidence_S", .value = S.back(), .n = 32});
  }
  bool decreasing = true;
  for (size_t i = 1; i < S.size(); ++i) decreasing = decreasing && S[i] < S[i - 1];
  // Recorded with C6 (not judged), as when C6 was registered: the fine-tuned
  // model's S at the experiment's betas (quick/full). There a larger beta
  // gave a larger S (mu starts far below 0 and the IB term pulls it up): the
  // evidence against the statement beyond the free head belongs beside it.
  std::string note;
  if (ctx.profile() != h::Profile::kSmoke) {
    try {
      const ExperimentResult& r = Experiment(ctx);
      std::vector<const RunResult*> runs;
      for (const RunResult* x : r.Runs(Method::kIbEdl, 0.0))
        if (x->seed_index == 0) runs.push_back(x);
      for (const RunResult& x : r.sweep) runs.push_back(&x);
      for (const RunResult* x : runs) {
        ctx.RecordExact({.case_name = "finetuned_mean_S", .backend = "cpu", .params = {{"beta", x->beta}},
                         .metric = "mean_evidence_S", .value = x->test.mean_s, .n = 1});
        ctx.RecordExact({.case_name = "finetuned_acc", .backend = "cpu", .params = {{"beta", x->beta}},
                         .metric = "acc", .value = x->test.acc, .n = 1});
        note += h::StrFormat("; fine-tuned beta %g: S %.3f", x->beta, x->test.mean_s);
      }
    } catch (const std::runtime_error& e) {
      note = std::string("; fine-tuned rows not recorded: ") + e.what();
    }
  }
  return ctx.Judge({h::Estimate::Check(decreasing)},
                   h::StrFormat("free head, B 32, K 4, J 20, %d GD steps of %g per example; S at beta "
                                "0/1e-3/1e-2/1e-1/1: %.3f %.3f %.3f %.3f %.3f",
                                steps, kHeadStep, S[0], S[1], S[2], S[3], S[4]) +
                       note);
}

CB_REGISTER_CLAIM(c6, {.id = "ibedl.C6",
                       .section = "§4 (the IB term regularises the pre-evidence)",
                       .statement = "Increasing beta lowers the evidence S (mechanism)",
                       .paper_value = "the IB term penalises large pre-evidences (qualitative)",
                       .paper_setting = "the loss of §4",
                       .metric = "mean S after gradient descent, per beta",
                       .criterion = h::Holds("mean S strictly decreasing over beta = 0, 1e-3, 1e-2, 1e-1, 1"),
                       .criterion_setting = "free head B 32, K 4, J 20, GD step 2 per example, 40/400/2000 steps",
                       .criterion_reason = "restored the pre-registered step 2 (521ea10 had moved it to 1 after "
                                           "NOT_REPRODUCED) and the fine-tuned model's S rows beside it"},
                  BetaClaim);

}  // namespace
}  // namespace cb::ibedl

// File: suites/probegen/probegen_claims.cpp
// -----------------------------------------------------------------------------
// ProbeGen's claims (suites/probegen/README.md has each with our setting):
//   P1  learned probes through a generator rank held-out zoo models better
//       (Kendall tau-b) than vanilla probing and than random probes
//   P2  the generator is affine before its tanh (exact, to rounding)
//       [prerequisite]
//   P3  our FLOPs accounting (ProbeGen; a graph-metanetwork cost model) meets
//       a hand count on the CIFAR10-GS CNN [prerequisite: the paper's
//       30-1000x is recorded beside its ratio, not judged]
//   P4  ProbeGen's predictions sort held-out models into above / below the
//       median accuracy >= 20 points better than chance [prerequisite: a
//       check that our predictors work, not a paper number]
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/seed_stats.h"
#include "harness/strings.h"
#include "reference/probegen/generator.h"
#include "suites/probegen/flops.h"
#include "suites/probegen/zoo_experiment.h"

namespace cb::probegen {
namespace {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;

CB_CLAIM_DEFAULTS({.paper = "ProbeGen (Kahana et al., ICLR 2025)",
                   .paper_setting = "CIFAR10-GS and CNN Wild Park zoos; 64 or 128 probes from deep_linear_6 / _5; "
                                    "predictor 6 x Linear(256); Adam 3e-4 cosine, batch 32, 30-150 epochs"});

ComparisonSetting SettingFor(const h::ClaimContext& ctx) {
  ComparisonSetting s;
  s.zoo = {.models = ctx.ByProfile(40, 500, 1000),
           .train_images = ctx.ByProfile(200, 1000, 2000),
           .test_images = ctx.ByProfile(200, 500, 1000),
           .max_epochs = ctx.ByProfile(2, 6, 8),
           .seed = 7};
  s.train.probes = ctx.ByProfile(8, 32, 64);
  s.train.epochs = ctx.ByProfile(3, 15, 30);
  s.train.generator = "deep_linear_5";
  s.seeds = ctx.ByProfile(2, 3, 5);
  s.seed = ctx.seed();
  return s;
}

const std::vector<SeedRuns>& Comparison(h::ClaimContext& ctx, const ComparisonSetting& s) {
  ctx.Progress(0, "training the model zoo");
  SharedZoo(s.zoo);
  return SharedComparison(s, [&](double f) { ctx.Progress(f, "training predictors"); });
}

std::vector<double> Field(const std::vector<SeedRuns>& runs, double (*get)(const SeedRuns&)) {
  std::vector<double> v;
  for (const SeedRuns& r : runs) v.push_back(get(r));
  return v;
}

// A t-interval over training seeds as a criterion's estimate (n = seeds).
h::Estimate SeedCi(const h::MeanCi& c) {
  return h::Estimate::Ci(c.mean, c.low, c.high, h::IntervalMethod::kStudentT, c.n);
}

void RecordMeanCi(h::ClaimContext& ctx, const std::string& name, const std::vector<double>& samples) {
  const h::MeanCi c = h::TMeanCi(samples);
  ctx.RecordEstimate({.case_name = name, .backend = "cpu", .metric = "mean_over_seeds", .unit = "1",
                      .value = c.mean, .ci_low = c.low, .ci_high = c.high, .n = c.n, .samples = samples});
}

// Each run's tau and above-median accuracy, per method and seed.
void RecordRuns(h::ClaimContext& ctx, const std::vector<SeedRuns>& runs, const gen::ModelZoo& zoo) {
  ctx.RecordExact({.case_name = "zoo", .backend = "cpu", .params = {{"zoo", zoo.params.Canonical()}},
                   .metric = "models", .value = double(zoo.members.size()), .output_hash = zoo.hash.Hex()});
  for (const SeedRuns& r : runs) {
    for (const auto* x : {&r.probegen, &r.vanilla, &r.random}) {
      const char* method = x == &r.probegen ? "probegen" : x == &r.vanilla ? "vanilla" : "random";
      const nlohmann::json params = {{"method", method}, {"split_seed", r.split_seed}};
      const std::string out = h::HashDoubles(x->predicted).Hex();
      ctx.RecordExact({.case_name = "run", .backend = "cpu", .params = params, .metric = "kendall_tau",
                       .direction = "higher", .value = x->kendall_tau, .n = int64_t(x->actual.size()),
                       .output_hash = out});
      ctx.RecordExact({.case_name = "run", .backend = "cpu", .params = params, .metric = "above_median_accuracy",
                       .direction = "higher", .value = x->above_median_accuracy,
                       .n = int64_t(x->actual.size()), .output_hash = out});
      ctx.RecordExact({.case_name = "run", .backend = "cpu", .params = params, .metric = "final_train_mse",
                       .direction = "lower", .value = x->last_loss, .output_hash = out});
    }
  }
}

std::string SettingText(const ComparisonSetting& s, const gen::ModelZoo& zoo) {
  std::vector<double> acc;
  for (const auto& m : zoo.members) acc.push_back(m.test_accuracy);
  std::sort(acc.begin(), acc.end());
  return s.Describe() + h::StrFormat("; zoo accuracies %.2f..%.2f (median %.2f)", acc.front(), acc.back(),
                                     acc[acc.size() / 2]);
}

// ---------------------------------------------------------------------------
// P1: ranking held-out models.

h::Outcome RankingClaim(h::ClaimContext& ctx) {
  const ComparisonSetting s = SettingFor(ctx);
  const std::vector<SeedRuns>& runs = Comparison(ctx, s);
  const gen::ModelZoo& zoo = SharedZoo(s.zoo);
  RecordRuns(ctx, runs, zoo);
  std::vector<double> tau_pg, d_vanilla, d_random;
  for (const SeedRuns& r : runs) {
    tau_pg.push_back(r.probegen.kendall_tau);
    d_vanilla.push_back(r.probegen.kendall_tau - r.vanilla.kendall_tau);
    d_random.push_back(r.probegen.kendall_tau - r.random.kendall_tau);
  }
  RecordMeanCi(ctx, "tau_probegen", tau_pg);
  RecordMeanCi(ctx, "tau_probegen_minus_vanilla", d_vanilla);
  RecordMeanCi(ctx, "tau_probegen_minus_random", d_random);
  const h::MeanCi a = h::TMeanCi(d_vanilla), b = h::TMeanCi(d_random), t = h::TMeanCi(tau_pg);
  return ctx.Judge({SeedCi(a), SeedCi(b), SeedCi(t)},
                   SettingText(s, zoo) + h::StrFormat("; mean tau ProbeGen %.3f [%.3f, %.3f]", t.mean, t.low, t.high));
}

CB_REGISTER_CLAIM(p1, {.id = "probegen.P1",
                       .section = "§5, Tables 1-2",
                       .statement = "Probes from a learned deep linear generator predict held-out zoo models' "
                                    "accuracy with a higher Kendall tau than vanilla (free) probes and than random "
                                    "probes",
                       .paper_value = "ProbeGen above vanilla probing and the graph metanetworks on CIFAR10-GS and "
                                      "Wild Park (arXiv 2410.10811 Tables 1-2; their numbers are not in our brief and "
                                      "are not quoted here, unverified)",
                       .metric = "kendall_tau difference",
                       .criterion = h::AllOf({h::AtLeast(0, "tau(ProbeGen) - tau(vanilla), t-CI over seeds"),
                                              h::AtLeast(0, "tau(ProbeGen) - tau(random), t-CI over seeds"),
                                              h::Above(0, "tau(ProbeGen), t-CI over seeds (no ranking: 0)")}),
                       .criterion_reason = "issue 49: a comparison claim carries an absolute leaf (ProbeGen ranks "
                                           "better than no ranking at all), added to the unchanged comparison leaves"},
                  RankingClaim);

// ---------------------------------------------------------------------------
// P2: the generator is affine before tanh.

h::Outcome AffineClaim(h::ClaimContext& ctx) {
  const int trials = ctx.ByProfile(4, 16, 64);
  double worst = 0.0;
  for (const char* name : {"deep_linear_5", "deep_linear_6"}) {
    const rp::GeneratorSpec spec = rp::MakeGenerator(name, 1);
    const rp::GeneratorParams p = rp::InitGenerator(spec, trials, ctx.seed());
    std::vector<double> probes(size_t(trials) * spec.ProbeElems()), pre(probes.size());
    rp::GeneratorForward(spec, p, probes.data(), pre.data(), nullptr);
    const rp::AffineFold fold = rp::FoldGenerator(spec, p);
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < trials; ++i) {
      for (int64_t e = 0; e < spec.ProbeElems(); ++e) {
        double v = fold.c[e];
        for (int k = 0; k < spec.latent; ++k) v += fold.a[e * spec.latent + k] * p.input[size_t(i) * spec.latent + k];
        const double want = pre[i * spec.ProbeElems() + e];
        err = std::max(err, std::abs(v - want));
        scale = std::max(scale, std::abs(want));
      }
    }
    const double rel = err / scale;
    worst = std::max(worst, rel);
    ctx.RecordExact({.case_name = "affine_fold", .backend = "cpu", .params = {{"generator", name}, {"latents", trials}},
                     .metric = "max_rel_error", .direction = "lower", .value = rel});
  }
  return ctx.Judge({h::Estimate::Exact(worst)},
                   std::to_string(trials) + " random N(0,1) latents through freshly initialised deep_linear_5 and "
                                            "_6 (PyTorch default init), fp64; A from unit latents without biases");
}

CB_REGISTER_CLAIM(p2, {.id = "probegen.P2",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§4 (the generator has no activations)",
                       .statement = "The deep linear generator before its tanh is one affine map z -> A z + c",
                       .paper_value = "by construction (no activations between the ConvTranspose2d layers)",
                       .metric = "max |A z + c - pre-tanh output| / max |output|",
                       .criterion = h::AtMost(1e-12, "max relative error of the folded map")},
                  AffineClaim);

// ---------------------------------------------------------------------------
// P3: FLOPs.

// The CIFAR10-GS models (Unterthiner et al. 2020): 3 conv layers of 16
// channels, k3 s2 p1, global average pool, dense 10, on 32x32 grey images.
// Counted by hand, independently of flops.cpp and ZooMacsPerImage:
//   per image  conv 1->16 at 16x16 out, 16->16 at 8x8, 16->16 at 4x4 (9 taps
//              each, padding taps counted), dense 16 -> 10 (MACs);
//   ProbeGen   2 x (64 probes x per image + predictor 640 -> 256, 4 x
//              256 -> 256, 256 -> 1);
//   metanet    graph 1 + 16 + 16 + 16 + 10 nodes, 16 + 256 + 256 + 160
//              edges of 9 features; d 128, 4 rounds: 2 x (4 x (edges x
//              (2d + 9) x d + nodes x 2d x d) + d).
constexpr int64_t kCifarGsMacsPerImage = 16 * 16 * (1 * 16 * 9) + 8 * 8 * (16 * 16 * 9) + 4 * 4 * (16 * 16 * 9) +
                                         16 * 10;
constexpr int64_t kProbeGenFlops64 = 2 * (64 * kCifarGsMacsPerImage + 640 * 256 + 4 * 256 * 256 + 256);
constexpr int64_t kMetanetFlops = 2 * (4 * (int64_t{16 + 256 + 256 + 160} * (2 * 128 + 9) * 128 +
                                            int64_t{1 + 16 + 16 + 16 + 10} * 2 * 128 * 128) +
                                       128);

h::Outcome FlopsClaim(h::ClaimContext& ctx) {
  const rp::ZooArch cifar_gs = rp::MakeCnnArch(1, 32, {16, 16, 16}, 10);
  const MetanetConfig metanet;
  const int64_t probegen64 = ProbeGenFlops(cifar_gs, 64), meta = MetanetFlops(cifar_gs, metanet);
  for (int probes : {64, 128}) {
    const double ratio = double(MetanetFlops(cifar_gs, metanet)) / double(ProbeGenFlops(cifar_gs, probes));
    ctx.RecordExact({.case_name = "flops_ratio", .backend = "cpu",
                     .params = {{"arch", rp::ArchToString(cifar_gs)}, {"probes", probes},
                                {"metanet_hidden", metanet.hidden}, {"metanet_layers", metanet.layers}},
                     .metric = "metanet_over_probegen_flops", .direction = "higher", .value = ratio});
  }
  // And over our own zoo's architectures (a range, since widths vary).
  const gen::ModelZoo& zoo = SharedZoo(SettingFor(ctx).zoo);
  double lo = 1e300, hi = 0.0;
  for (const auto& m : zoo.members) {
    const double ratio = double(MetanetFlops(m.model.arch, metanet)) / double(ProbeGenFlops(m.model.arch, 64));
    lo = std::min(lo, ratio), hi = std::max(hi, ratio);
  }
  ctx.RecordExact({.case_name = "flops_ratio_zoo_min", .backend = "cpu", .params = {{"probes", 64}},
                   .metric = "metanet_over_probegen_flops", .value = lo});
  ctx.RecordExact({.case_name = "flops_ratio_zoo_max", .backend = "cpu", .params = {{"probes", 64}},
                   .metric = "metanet_over_probegen_flops", .value = hi});
  return ctx.Judge({h::Estimate::Exact(double(probegen64)), h::Estimate::Exact(double(meta))},
                   h::StrFormat("CIFAR10-GS CNN (%s), 64 probes: ProbeGen %lld FLOPs, metanet cost model (d = %d, "
                                "%d rounds, a lower bound; our assumption, not the authors' configuration) %lld; "
                                "ratio %.2fx beside the paper's 30-1000x, not compared; our zoo %.1fx..%.1fx",
                                rp::ArchToString(cifar_gs).c_str(), static_cast<long long>(probegen64), metanet.hidden,
                                metanet.layers, static_cast<long long>(meta), double(meta) / double(probegen64), lo,
                                hi));
}

CB_REGISTER_CLAIM(p3, {.id = "probegen.P3",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§1, §5 (the FLOPs comparison's accounting)",
                       .statement = "Our FLOPs accounting meets a hand count on the CIFAR10-GS CNN: ProbeGen's read "
                                    "of a model (64 probe forwards + predictor) and the graph-metanetwork cost model "
                                    "(d 128, 4 rounds, a lower bound) whose ratio is recorded beside the paper's "
                                    "30-1000x",
                       .paper_value = "n/a (prerequisite: our cost model's arithmetic; the paper's 30-1000x fewer "
                                      "FLOPs is not judged, its metanetwork configuration is not matched)",
                       .paper_setting = "claimbench probegen FLOPs accounting (flops.h)",
                       .metric = "FLOPs (ProbeGen, 64 probes; metanetwork cost model)",
                       .criterion = h::AllOf({h::Equals(double(kProbeGenFlops64), "ProbeGen FLOPs, 64 probes"),
                                              h::Equals(double(kMetanetFlops), "metanet cost-model FLOPs")}),
                       .criterion_setting = "CIFAR10-GS CNN conv 16,16,16 k3 s2 on 32x32 grey; 64 probes, predictor "
                                            "6 x 256; metanet d 128, 4 rounds",
                       .criterion_reason = "relabelled: the '>= 1x' stood in for the paper's 30-1000x, and the 6.9x "
                                           "is fixed arithmetic of our own cost model, so what is checked is that "
                                           "arithmetic (a hand count), as a prerequisite"},
                  FlopsClaim);

// ---------------------------------------------------------------------------
// P4: above / below the median.

h::Outcome MedianClaim(h::ClaimContext& ctx) {
  const ComparisonSetting s = SettingFor(ctx);
  const std::vector<SeedRuns>& runs = Comparison(ctx, s);
  const std::vector<double> acc = Field(runs, [](const SeedRuns& r) { return r.probegen.above_median_accuracy; });
  RecordMeanCi(ctx, "above_median_accuracy_probegen", acc);
  const h::MeanCi c = h::TMeanCi(acc);
  return ctx.Judge({SeedCi(c)}, SettingText(s, SharedZoo(s.zoo)) + "; chance 0.5");
}

CB_REGISTER_CLAIM(p4, {.id = "probegen.P4",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§5 (mechanism)",
                       .statement = "ProbeGen's predictions put held-out models on the right side of the median "
                                    "accuracy at least 20 points more often than chance",
                       .paper_value = "not a paper number: a mechanism check of the predictions",
                       .metric = "above-median accuracy",
                       .criterion = h::AtLeast(0.7, "above-median accuracy, t-CI over seeds")},
                  MedianClaim);

}  // namespace
}  // namespace cb::probegen

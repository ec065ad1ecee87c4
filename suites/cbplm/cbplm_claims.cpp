// File: suites/cbplm/cbplm_claims.cpp
// -----------------------------------------------------------------------------
// CB-pLM claims (issue 25):
//   P1  the concepts the model is built on equal Biopython's, on Biopython's
//       own doctest vectors;
//   P2  interventions on the tiny CB model (lobster's intervene_on_sequences)
//       move the target concept >= 3x more than the pre_encoder conditional
//       baseline at the same edit budget (efficiency Δ/Δ* against the exact
//       optimum, mean over held-out sequences, concepts, directions, seeds;
//       bootstrap over (seed, sequence) clusters);
//   P3  the concept-to-token map is linear: moving one concept neuron by δ
//       moves every logit by exactly δ M[j];
//   P4  the CB model's masked-token perplexity (predicted concepts) is within
//       10% of the unconstrained masked LM's of the same encoder.
// P2-P4 share one experiment per seed (cb_experiment.h, cached in the
// process). P1 and P3 are prerequisites (checks of our own code). P2 and P4
// also carry an absolute leaf (CB efficiency CI > 0; CB perplexity CI < 20,
// the uniform guess). Thresholds were fixed before the first run.
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/criterion.h"
#include "harness/stats.h"
#include "reference/protparam/protparam.h"
#include "suites/cbplm/cb_experiment.h"

namespace cb::cbplm {
namespace {

namespace h = cb::harness;
namespace pp = cb::ref::protparam;

CB_CLAIM_DEFAULTS({.paper = "CB-pLM (Ismail et al., ICLR 2025)",
                   .paper_setting = "24M-3B concept-bottleneck masked protein LMs, 718 concepts (14 Biopython)"});

constexpr char kDoctestProtein[] =
    "MAEGEITTFTALTEKFNLPPGNYKKPKLLYCSNGGHFLRILPDGTVDGTRDRSDQHIQLQLSAESVGEVYIKSTETGQYLAMDTSGLLYGSQTPSEEC"
    "LFLERLEENHYNTYTSKKHAEKNWFVGLKKNGSCKRGPRTHYGQKAILFLPLPV";

// One printed doctest value: what Biopython printed, and ours printed alike.
struct Printed {
  std::string what, format, biopython;
  double ours;
};

std::string Format(const std::string& format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format.c_str(), v);
  return buf;
}

// ---------------------------------------------------------------------------
// P1: Biopython parity on its doctests (Bio/SeqUtils/ProtParam.py and
// IsoelectricPoint.py at biopython-184, 9ac2729).

h::Outcome BiopythonDoctestParity(h::ClaimContext& ctx) {
  const std::string p = kDoctestProtein;
  const auto ss182 = pp::SecondaryStructureFraction(p, pp::SecondaryStructure::kBiopython182);
  const auto ss181 = pp::SecondaryStructureFraction(p, pp::SecondaryStructure::kBiopython181);
  const auto ext = pp::MolarExtinctionCoefficient(p);
  const std::vector<Printed> values = {
      {"molecular_weight", "%0.2f", "17103.16", pp::MolecularWeight(p)},
      {"aromaticity", "%0.2f", "0.10", pp::Aromaticity(p)},
      {"instability_index", "%0.2f", "41.98", pp::InstabilityIndex(p)},
      {"isoelectric_point", "%0.2f", "7.72", pp::IsoelectricPoint(p)},
      {"helix_fraction (1.82+)", "%0.2f", "0.33", ss182[0]},
      {"turn_structure_fraction (1.82+)", "%0.2f", "0.29", ss182[1]},
      {"sheet_structure_fraction (1.82+)", "%0.2f", "0.37", ss182[2]},
      {"helix_fraction (1.81)", "%0.2f", "0.28", ss181[0]},
      {"molar_extinction_coefficient_reduced", "%.0f", "17420", static_cast<double>(ext[0])},
      {"molar_extinction_coefficient_oxidized", "%.0f", "17545", static_cast<double>(ext[1])},
      {"INGAR isoelectric_point", "%.2f", "9.75", pp::IsoelectricPoint("INGAR")},
      {"INGAR charge_at_pH7", "%.2f", "0.76", pp::ChargeAtPH("INGAR", 7.0)},
      {"PETER isoelectric_point", "%.2f", "4.53", pp::IsoelectricPoint("PETER")},
      {"PETER charge_at_pH 4.53", "%.2f", "0.00", pp::ChargeAtPH("PETER", 4.53)},
  };
  int differ = 0;
  for (const Printed& v : values) {
    const bool same = Format(v.format, v.ours) == v.biopython;
    differ += same ? 0 : 1;
    ctx.RecordExact({.case_name = "biopython_doctest", .backend = "cpu",
                     .params = {{"value", v.what}, {"biopython_printed", v.biopython}, {"format", v.format}},
                     .metric = "value", .unit = "1", .direction = "none", .value = v.ours, .n = 1});
  }
  ctx.RecordExact({.case_name = "biopython_doctest", .backend = "cpu", .metric = "printed values that differ",
                   .unit = "count", .direction = "lower", .value = double(differ),
                   .n = static_cast<int64_t>(values.size())});
  return ctx.Judge({h::Estimate::Exact(double(differ))},
                   std::to_string(values.size()) + " printed doctest values (Biopython 1.84; helix also 1.81)");
}

// P1 is parity of our reimplementation with Biopython: a prerequisite.
CB_REGISTER_CLAIM(kP1, {.id = "cbplm.P1", .kind = h::ClaimKind::kPrerequisite,
                        .section = "§3 concepts; Biopython ProtParam doctests",
                        .statement = "the 14 Biopython concepts equal Biopython's on its doctest vectors",
                        .paper_value = "MW 17103.16, pI 7.72, instability 41.98, helix/turn/sheet 0.33/0.29/0.37 "
                                       "(1.81: helix 0.28), extinction 17420/17545; INGAR pI 9.75, charge(7) 0.76; "
                                       "PETER pI 4.53",
                        .paper_setting = "Biopython 1.84 (lobster's pin), to the printed precision",
                        .metric = "printed values that differ",
                        .criterion = h::Equals(0, "printed values that differ")},
                  BiopythonDoctestParity);

// ---------------------------------------------------------------------------
// The model experiment (P2-P4): scale and seeds by profile.

CbScale ScaleFor(const h::ClaimContext& ctx) {
  CbScale s;
  // smoke is a plumbing check (every smoke run repeats it several times in
  // CI, ASan included): its verdicts say nothing; quick is the measurement.
  s.train_count = ctx.ByProfile(64, 512, 2048);
  s.test_count = ctx.ByProfile(8, 32, 200);
  s.length = ctx.ByProfile(24, 40, 64);
  s.shape = {.hidden = ctx.ByProfile(16, 32, 64), .layers = 2, .heads = ctx.ByProfile(2, 4, 4),
             .intermediate = ctx.ByProfile(32, 64, 128), .seq = s.length + 1};
  s.train = {.steps = ctx.ByProfile(60, 800, 5000), .batch = 16, .lr = 3e-3};
  s.edits = ctx.ByProfile(3, 4, 6);
  return s;
}

std::vector<const CbSeedRun*> Runs(h::ClaimContext& ctx, CbScale* scale) {
  *scale = ScaleFor(ctx);
  const int seeds = ctx.ByProfile(1, 2, 5);
  std::vector<const CbSeedRun*> runs;
  for (int i = 0; i < seeds; ++i) {
    ctx.Progress(double(i) / seeds, "training seed " + std::to_string(i + 1));
    runs.push_back(&CachedCbSeed(*scale, ctx.seed() + uint64_t(i)));
  }
  return runs;
}

std::string Setting(const CbScale& s, size_t seeds) {
  return s.Describe() + "; " + std::to_string(seeds) + " seed(s); CB head fp64 on the fp32 encoder";
}

// Paired bootstrap of a statistic over units: the statistic gets the indices drawn.
h::Interval IndexBootstrap(size_t n, const std::function<double(std::span<const double>)>& stat, uint64_t seed) {
  std::vector<double> idx(n);
  std::iota(idx.begin(), idx.end(), 0.0);
  return h::BootstrapCi(idx, stat, 0.95, 2000, seed);
}

// ---------------------------------------------------------------------------
// P2: intervention efficiency, CB against the pre_encoder baseline.

h::Outcome InterventionsBeatConditioning(h::ClaimContext& ctx) {
  CbScale sc;
  const std::vector<const CbSeedRun*> runs = Runs(ctx, &sc);
  std::vector<InterventionUnit> units;
  // Units of one (seed, held-out sequence) share a model and a sequence: the
  // bootstrap draws those clusters, not single units.
  std::vector<std::vector<size_t>> clusters;
  for (const CbSeedRun* r : runs) {
    std::vector<std::vector<size_t>> of_seed(sc.test_count);
    for (const InterventionUnit& u : r->units) {
      of_seed[u.sequence].push_back(units.size());
      units.push_back(u);
    }
    for (auto& c : of_seed)
      if (!c.empty()) clusters.push_back(std::move(c));
  }
  if (units.empty()) return h::Unmeasurable("no intervention unit had a non-zero optimum");
  auto eff = [](double d, double star) { return d / star; };
  // statistic: mean eff_CB - 3 mean eff_pre over the units of the drawn clusters.
  auto margin = [&](std::span<const double> drawn) {
    double a = 0, b = 0, n = 0;
    for (double c : drawn)
      for (size_t i : clusters[size_t(c)]) {
        const InterventionUnit& u = units[i];
        a += eff(u.delta_cb, u.delta_star), b += eff(u.delta_pre, u.delta_star), ++n;
      }
    return (a - 3.0 * b) / n;
  };
  std::vector<double> all(clusters.size());
  std::iota(all.begin(), all.end(), 0.0);
  const double m = margin(all);
  const h::Interval ci = IndexBootstrap(clusters.size(), margin, ctx.seed());
  for (const CbSeedRun* r : runs) {
    double a = 0, b = 0;
    for (const InterventionUnit& u : r->units) a += eff(u.delta_cb, u.delta_star), b += eff(u.delta_pre, u.delta_star);
    ctx.RecordExact({.case_name = "intervention", .backend = "cpu", .params = {{"k", sc.edits}, {"seed", r->seed}},
                     .metric = "efficiency ratio cbm / pre_encoder (one seed)", .unit = "1", .direction = "higher",
                     .value = b != 0 ? a / b : NAN, .n = static_cast<int64_t>(r->units.size())});
  }
  // Per method: mean efficiency with its CI, and mean raw Δ per concept.
  struct Method { const char* name; double InterventionUnit::*delta; };
  const Method methods[] = {{"cbm_attribution", &InterventionUnit::delta_cb},
                            {"pre_encoder_random", &InterventionUnit::delta_pre},
                            {"cbm_random_positions", &InterventionUnit::delta_cb_random},
                            {"unconstrained_random", &InterventionUnit::delta_none}};
  double mean_cb = 0, mean_pre = 0;
  h::Interval ci_cb;
  for (const Method& me : methods) {
    std::vector<double> e;
    for (const InterventionUnit& u : units) e.push_back(eff(u.*me.delta, u.delta_star));
    const double mean = h::Mean(e);
    const h::Interval c = IndexBootstrap(
        clusters.size(),
        [&](std::span<const double> drawn) {
          double sum = 0, n = 0;
          for (double k : drawn)
            for (size_t i : clusters[size_t(k)]) sum += e[i], ++n;
          return sum / n;
        },
        ctx.seed() + 1);
    if (me.delta == &InterventionUnit::delta_cb) mean_cb = mean, ci_cb = c;
    if (me.delta == &InterventionUnit::delta_pre) mean_pre = mean;
    ctx.RecordEstimate({.case_name = "intervention", .backend = "cpu",
                        .params = {{"method", me.name}, {"k", sc.edits}, {"seeds", runs.size()}},
                        .metric = "mean efficiency delta/delta*", .unit = "1", .direction = "higher", .value = mean,
                        .ci_low = c.low, .ci_high = c.high, .n = static_cast<int64_t>(e.size())});
    for (int j = 0; j < kNumAdditive; ++j)
      for (bool raise : {true, false}) {
        double sum = 0;
        int n = 0;
        for (const InterventionUnit& u : units)
          if (u.concept_index == j && u.raise == raise) sum += u.*me.delta, ++n;
        if (n == 0) continue;
        ctx.RecordExact({.case_name = "intervention_delta", .backend = "cpu",
                         .params = {{"method", me.name}, {"concept", std::string(kCbConcepts[j])},
                                    {"direction", raise ? "raise" : "lower"}, {"k", sc.edits}},
                         .metric = "mean raw delta", .unit = "concept units", .direction = "none",
                         .value = sum / n, .n = n});
      }
  }
  double changed_cb = 0, changed_pre = 0;
  for (const InterventionUnit& u : units) changed_cb += u.changed_cb, changed_pre += u.changed_pre;
  ctx.RecordExact({.case_name = "intervention", .backend = "cpu", .params = {{"k", sc.edits}},
                   .metric = "mean residues changed (cbm / pre_encoder)", .unit = "residues", .direction = "none",
                   .value = changed_cb / units.size(), .n = static_cast<int64_t>(units.size()),
                   .samples = {changed_cb / units.size(), changed_pre / units.size()}});
  ctx.RecordExact({.case_name = "intervention", .backend = "cpu", .params = {{"k", sc.edits}},
                   .metric = "efficiency ratio cbm / pre_encoder", .unit = "1", .direction = "higher",
                   .value = mean_pre != 0 ? mean_cb / mean_pre : NAN, .n = static_cast<int64_t>(units.size())});
  ctx.RecordEstimate({.case_name = "intervention", .backend = "cpu", .params = {{"k", sc.edits}},
                      .metric = "mean eff_cbm - 3 mean eff_pre", .unit = "1", .direction = "higher", .value = m,
                      .ci_low = ci.low, .ci_high = ci.high, .n = static_cast<int64_t>(units.size())});
  char buf[160];
  std::snprintf(buf, sizeof buf, "; mean efficiency CB %.3f, pre_encoder %.3f (ratio %.2f), %zu units",
                mean_cb, mean_pre, mean_pre != 0 ? mean_cb / mean_pre : NAN, units.size());
  // The bootstrap draws clusters: those are its trials.
  const int64_t n = static_cast<int64_t>(clusters.size());
  return ctx.Judge({h::Estimate::Ci(m, ci.low, ci.high, h::IntervalMethod::kPercentileBootstrap, n),
                    h::Estimate::Ci(mean_cb, ci_cb.low, ci_cb.high, h::IntervalMethod::kPercentileBootstrap, n)},
                   Setting(sc, runs.size()) + buf);
}

CB_REGISTER_CLAIM(kP2, {.id = "cbplm.P2", .section = "§4.2 interventions (Fig. 3)",
                        .statement = "concept interventions move the target concept at least 3x more than the "
                                     "conditional (pre_encoder) baseline at the same edit budget",
                        .paper_value = "~3x larger concept change than conditional models (24M-3B CB-pLMs); "
                                       "+16% intervention accuracy (secondary source, aggregation unverified)",
                        .metric = "mean eff_cbm - 3 x mean eff_pre (eff = delta / exact optimum delta*)",
                        // The absolute leaf: the CB intervention itself moves
                        // the concept the intended way (else beating 3x a
                        // baseline that moves it backwards proves nothing).
                        .criterion = h::AllOf({h::AtLeast(0, "mean eff_cbm - 3 mean eff_pre CI"),
                                               h::Above(0, "mean eff_cbm CI")}),
                        .criterion_reason = "2026-12-08, issue 49: added the absolute leaf mean eff_cbm CI > 0 "
                                            "(0 = no effect, fixed by the task, not by a result); written "
                                            "before this change's first run; the 3x leaf is unchanged"},
                  InterventionsBeatConditioning);

// ---------------------------------------------------------------------------
// P3: the concept-to-token map is linear and is the logit change.

h::Outcome ConceptMapIsTheLogitChange(h::ClaimContext& ctx) {
  CbScale sc;
  const std::vector<const CbSeedRun*> runs = Runs(ctx, &sc);
  double worst = 0, scale = 0;
  for (const CbSeedRun* r : runs) {
    worst = std::max(worst, r->map_max_abs_error), scale = std::max(scale, r->map_scale);
    for (int j = 0; j < kNumAdditive; ++j)
      ctx.RecordExact({.case_name = "concept_token_map", .backend = "cpu",
                       .params = {{"concept", std::string(kCbConcepts[j])}, {"seed", r->seed}},
                       .metric = "spearman(M[concept], residue value)", .unit = "1", .direction = "higher",
                       .value = r->map_spearman[j], .n = 20});
  }
  const double rel = worst / std::max(scale, 1e-300);
  ctx.RecordExact({.case_name = "concept_token_map", .backend = "cpu", .params = {{"seeds", runs.size()}},
                   .metric = "max |logit change - delta M| / max |delta M|", .unit = "1", .direction = "lower",
                   .value = rel});
  return ctx.Judge({h::Estimate::Exact(rel)},
                   Setting(sc, runs.size()) + "; every held-out sequence, concept, position and token");
}

// P3 holds by construction of our linear decoder: a prerequisite.
CB_REGISTER_CLAIM(kP3, {.id = "cbplm.P3", .kind = h::ClaimKind::kPrerequisite,
                        .section = "§3 (linear decoder), §4.3 interpretability",
                        .statement = "the concept-to-token map is linear: setting a concept neuron moves every "
                                     "logit by exactly the decoder's concept weight times the change",
                        .paper_value = "linear decoder over concept embeddings; weights read as concept-token "
                                       "contributions",
                        .metric = "max relative deviation of the logit change from delta M[j]",
                        .criterion = h::AtMost(1e-12, "max relative deviation")},
                  ConceptMapIsTheLogitChange);

// ---------------------------------------------------------------------------
// P4: CB perplexity against the unconstrained masked LM.

h::Outcome PerplexityComparable(h::ClaimContext& ctx) {
  CbScale sc;
  const std::vector<const CbSeedRun*> runs = Runs(ctx, &sc);
  struct Unit { double cb_pred, cb_true, pre, none; int n; };
  std::vector<Unit> units;
  for (const CbSeedRun* r : runs)
    for (size_t i = 0; i < r->masked.size(); ++i)
      units.push_back({r->nll_cb_pred[i], r->nll_cb_true[i], r->nll_pre[i], r->nll_none[i], r->masked[i]});
  auto ppl = [&](std::span<const double> idx, double Unit::*f) {
    double s = 0, n = 0;
    for (double i : idx) s += units[size_t(i)].*f, n += units[size_t(i)].n;
    return std::exp(s / n);
  };
  auto ratio = [&](std::span<const double> idx) { return ppl(idx, &Unit::cb_pred) / ppl(idx, &Unit::none); };
  std::vector<double> all(units.size());
  std::iota(all.begin(), all.end(), 0.0);
  const double r = ratio(all);
  const h::Interval ci = IndexBootstrap(units.size(), ratio, ctx.seed());
  const std::pair<const char*, double Unit::*> models[] = {
      {"cbm_predicted_concepts", &Unit::cb_pred}, {"cbm_true_concepts", &Unit::cb_true},
      {"pre_encoder_true_concepts", &Unit::pre}, {"unconstrained", &Unit::none}};
  h::Interval ci_cb;
  for (const auto& [name, f] : models) {
    const auto fn = f;
    const h::Interval c = IndexBootstrap(units.size(), [&](std::span<const double> idx) { return ppl(idx, fn); },
                                         ctx.seed() + 2);
    if (f == &Unit::cb_pred) ci_cb = c;
    ctx.RecordEstimate({.case_name = "masked_perplexity", .backend = "cpu", .params = {{"model", name}},
                        .metric = "perplexity", .unit = "1", .direction = "lower", .value = ppl(all, f),
                        .ci_low = c.low, .ci_high = c.high, .n = static_cast<int64_t>(units.size())});
  }
  for (const CbSeedRun* run : runs) {
    ctx.RecordExact({.case_name = "model", .backend = "cpu", .params = {{"seed", run->seed}},
                     .metric = "parameters cbm / pre_encoder / unconstrained", .unit = "count", .direction = "none",
                     .value = double(run->params_cb),
                     .samples = {double(run->params_cb), double(run->params_pre), double(run->params_none)}});
    ctx.RecordExact({.case_name = "model", .backend = "cpu", .params = {{"seed", run->seed}},
                     .metric = "held-out concept mse (normalised)", .unit = "1", .direction = "lower",
                     .value = run->concept_mse});
    ctx.RecordTiming({.case_name = "model", .backend = "cpu", .params = {{"seed", run->seed}},
                      .metric = "training seconds (3 models)", .unit = "s", .direction = "lower",
                      .value = run->train_seconds});
  }
  ctx.RecordEstimate({.case_name = "masked_perplexity", .backend = "cpu", .params = {{"seeds", runs.size()}},
                      .metric = "perplexity ratio cbm / unconstrained", .unit = "1", .direction = "lower",
                      .value = r, .ci_low = ci.low, .ci_high = ci.high, .n = static_cast<int64_t>(units.size())});
  // The bootstrap draws units (held-out sequences of each seed): its trials.
  const int64_t n = static_cast<int64_t>(units.size());
  return ctx.Judge({h::Estimate::Ci(r, ci.low, ci.high, h::IntervalMethod::kPercentileBootstrap, n),
                    h::Estimate::Ci(ppl(all, &Unit::cb_pred), ci_cb.low, ci_cb.high,
                                    h::IntervalMethod::kPercentileBootstrap, n)},
                   Setting(sc, runs.size()) + "; 15% of residues masked, CB reads its predicted concepts");
}

CB_REGISTER_CLAIM(kP4, {.id = "cbplm.P4", .section = "§4.1 (perplexity, Table 1)",
                        .statement = "the CB model's masked-token perplexity is comparable to an unconstrained "
                                     "masked LM's of the same encoder (within 10%)",
                        .paper_value = "CB-pLM perplexity comparable to unconstrained pLMs of equal size",
                        .metric = "perplexity ratio CB (predicted concepts) / unconstrained",
                        // The absolute leaf: the CB model beats guessing
                        // uniformly over the 20 residues (perplexity 20); a
                        // ratio near 1 between two models that learnt nothing
                        // would otherwise pass.
                        .criterion = h::AllOf({h::AtMost(1.10, "perplexity ratio CI"),
                                               h::Below(20, "CB masked perplexity CI (uniform over 20 "
                                                            "residues: 20)")}),
                        .criterion_reason = "2026-12-08, issue 49: added the absolute leaf CB perplexity "
                                            "CI < 20 (a uniform guess over 20 residues, fixed by the task, "
                                            "not by a result); written before this change's first run; the "
                                            "1.10 ratio leaf is unchanged"},
                  PerplexityComparable);

}  // namespace
}  // namespace cb::cbplm

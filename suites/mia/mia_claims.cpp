// File: suites/mia/mia_claims.cpp
// -----------------------------------------------------------------------------
// Claims of Min-K%++ (Zhang et al., ICLR 2025) and FSD (Zhang et al., ICLR
// 2025) at mechanism scale, on the synthetic corpora with the Kneser-Ney
// substrate (suites/mia/README.md lists each claim, criterion and setting):
//   mia.K1-wikimia, mia.K1-mimir  Min-K%++ beats Min-K% (k = 0.2), mean over
//                                 seeds, paired bootstrap CI wholly above 0
//   mia.K2                        token scores invariant to a logit shift
//                                 (prerequisite: holds by construction)
//   mia.F1                        FSD raises Loss's and Min-K%'s AUROC (shifted split)
//   mia.F2                        fine-tuning lowers non-members' NLL more: the
//                                 AUROC of the drop, 98% CI above 0.5
//   mia.F3                        the gain vanishes (|delta| <= 0.03) with an
//                                 out-of-domain fine-tuning set
// Every AUROC of every method and seed is recorded, including the iid
// (MIMIR-like) FSD results, which are reported and not asserted (brief §2 iv).
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "harness/claim.h"
#include "harness/random.h"
#include "harness/strings.h"
#include "reference/common/roc.h"
#include "reference/mia/mia.h"
#include "suites/mia/drop_auroc.h"
#include "suites/mia/experiment.h"
#include "suites/mia/score_kernel.h"

namespace cb::mia {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "Min-K%++ (Zhang et al., ICLR 2025)"});
constexpr const char* kFsd = "FSD (Zhang et al., ICLR 2025)";

// ---------------------------------------------------------------------------
// Experiments, cached per (split, repeats, profile, seed) within one process
// so that K1, F1, F2 and F3 share them.

enum class Split { kWikiMia, kMimir };

struct Sizes {
  int seeds, background_docs, background_words, per_class, aux_docs;
};

Sizes SizesFor(const h::ClaimContext& ctx) {
  return ctx.ByProfile(Sizes{3, 120, 400, 80, 60}, Sizes{5, 400, 500, 200, 100},
                       Sizes{10, 2000, 500, 500, 250});
}

ExperimentParams ParamsFor(const h::ClaimContext& ctx, Split split, int repeats, uint64_t seed) {
  const Sizes s = SizesFor(ctx);
  ExperimentParams p;
  p.corpus.kind = split == Split::kWikiMia ? cb::gen::SplitKind::kWikiMia : cb::gen::SplitKind::kMimir;
  p.corpus.seed = seed;
  p.corpus.background_docs = s.background_docs;
  p.corpus.background_words = s.background_words;
  p.corpus.per_class = s.per_class;
  p.corpus.aux_docs = s.aux_docs;
  p.corpus.ood_docs = s.aux_docs;
  p.corpus.member_repeats = repeats;
  p.corpus.length = 64;
  if (split == Split::kWikiMia && ctx.profile() != h::Profile::kSmoke) p.sweep_weights = {1.0, 10.0};
  return p;
}

const std::vector<ExperimentResult>& Experiments(h::ClaimContext& ctx, Split split, int repeats) {
  static std::mutex mu;
  static std::map<std::string, std::vector<ExperimentResult>> cache;
  const std::string key = std::to_string(int(split)) + "/" + std::to_string(repeats) + "/" +
                          h::ProfileName(ctx.profile()) + "/" + std::to_string(ctx.seed());
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<ExperimentResult> runs;
  const int seeds = SizesFor(ctx).seeds;
  for (int i = 0; i < seeds; ++i) {
    ctx.Progress(double(i) / seeds, (split == Split::kWikiMia ? "wikimia seed " : "mimir seed ") +
                                        std::to_string(i));
    runs.push_back(RunExperiment(ParamsFor(ctx, split, repeats, ctx.seed() + 1000003ull * i)));
  }
  return cache.emplace(key, std::move(runs)).first->second;
}

std::string SettingOf(const h::ClaimContext& ctx, const std::vector<ExperimentResult>& runs) {
  const Sizes s = SizesFor(ctx);
  return h::StrFormat("%s, pruned KN 4-gram, %zu seeds x %d+%d texts", runs.front().split.c_str(), runs.size(),
                      s.per_class, s.per_class);
}

// Records every method's AUROC (with a bootstrap CI) and TPR@5%FPR for each
// seed. TPR@5%FPR is Min-K%++'s tpr[last fpr <= 0.05] read, as its run.py
// reads it, off sklearn's roc_curve with the default drop_intermediate; the
// full-curve value is recorded beside it (they differ only when tie groups
// line up; reference/common/roc.h).
void RecordAll(h::ClaimContext& ctx, const std::vector<ExperimentResult>& runs, const std::string& tag) {
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    auto record = [&](const cb::ref::mia::MethodScores& m, const std::string& method) {
      const auto ci = cb::ref::BootstrapAurocCi(m.scores, r.labels, 200, ctx.seed() + i);
      const auto curve = cb::ref::RocCurve(m.scores, r.labels, cb::ref::RocPoints::kSklearnDefault);
      const auto full = cb::ref::RocCurve(m.scores, r.labels, cb::ref::RocPoints::kAll);
      const nlohmann::json params = {{"split", r.split}, {"method", method}, {"seed_index", i},
                                     {"corpus_hash", r.corpus_hash}, {"setting", tag}};
      ctx.RecordEstimate({.case_name = "auroc", .backend = "cpu", .params = params, .metric = "auroc",
                          .unit = "1", .direction = "higher", .value = cb::ref::Auroc(m.scores, r.labels),
                          .ci_low = ci.low, .ci_high = ci.high, .n = int64_t(r.labels.size()),
                          .input_hash = r.corpus_hash, .output_hash = r.model_hash});
      ctx.RecordExact({.case_name = "tpr_at_5_fpr", .backend = "cpu", .params = params,
                       .metric = "tpr_at_fpr_le_0.05", .unit = "1", .direction = "higher",
                       .value = cb::ref::TprAtFpr(curve, 0.05, false), .n = int64_t(r.labels.size())});
      ctx.RecordExact({.case_name = "tpr_at_5_fpr", .backend = "cpu", .params = params,
                       .metric = "tpr_at_fpr_le_0.05_all_points", .unit = "1", .direction = "higher",
                       .value = cb::ref::TprAtFpr(full, 0.05, false), .n = int64_t(r.labels.size())});
    };
    for (const auto& m : r.methods) record(m, m.method);
    for (const auto& m : r.fsd_ood) record(m, m.method + "_ood");
  }
}

// The paired bootstrap of mean_seeds AUROC(a) - AUROC(b).
cb::ref::PairedDiff Paired(const h::ClaimContext& ctx, const std::vector<ExperimentResult>& runs,
                           const std::string& a, bool a_ood, const std::string& b) {
  std::vector<cb::ref::PairedScores> groups;
  for (const auto& r : runs) groups.push_back({r.Scores(a, a_ood), r.Scores(b), r.labels});
  return cb::ref::PairedAurocDiff(groups, ctx.ByProfile(300, 1000, 2000), ctx.seed());
}

void RecordDiff(h::ClaimContext& ctx, const std::string& case_name, const nlohmann::json& params,
                const cb::ref::PairedDiff& d) {
  ctx.RecordEstimate({.case_name = case_name, .backend = "cpu", .params = params, .metric = "auroc_difference",
                      .unit = "1", .direction = "higher", .value = d.mean_diff, .ci_low = d.ci.low,
                      .ci_high = d.ci.high, .n = int64_t(d.per_group.size()), .samples = d.per_group});
}

// The paired bootstrap resamples texts within each group: its trials are
// every text of every group.
h::Estimate CiOf(const cb::ref::PairedDiff& d, const std::vector<ExperimentResult>& runs) {
  int64_t texts = 0;
  for (const auto& r : runs) texts += int64_t(r.labels.size());
  return h::Estimate::Ci(d.mean_diff, d.ci.low, d.ci.high, h::IntervalMethod::kPercentileBootstrap, texts);
}

// ---------------------------------------------------------------------------
// K1

h::Outcome K1(h::ClaimContext& ctx, Split split, int repeats) {
  const auto& runs = Experiments(ctx, split, repeats);
  RecordAll(ctx, runs, "K1");
  const nlohmann::json split_params = {{"split", runs.front().split}};
  const auto d = Paired(ctx, runs, "minkpp_0.2", false, "mink_0.2");
  RecordDiff(ctx, "minkpp_minus_mink_k0.2", split_params, d);
  // Also the best k of each method (the MIMIR fork's "upper bound"), recorded only.
  double best_pp = 0, best_k = 0;
  for (double k : cb::ref::mia::KGrid()) {
    const std::string a = h::StrFormat("minkpp_%.1f", k), b = h::StrFormat("mink_%.1f", k);
    double pp = 0, mk = 0;
    for (const auto& r : runs) {
      pp += cb::ref::Auroc(r.Scores(a), r.labels) / runs.size();
      mk += cb::ref::Auroc(r.Scores(b), r.labels) / runs.size();
    }
    best_pp = std::max(best_pp, pp);
    best_k = std::max(best_k, mk);
  }
  ctx.RecordExact({.case_name = "best_k_minkpp_minus_mink", .backend = "cpu", .params = split_params,
                   .metric = "auroc_difference", .unit = "1", .direction = "higher", .value = best_pp - best_k,
                   .n = int64_t(runs.size())});
  if (split == Split::kMimir && ctx.profile() != h::Profile::kSmoke) {
    // Members seen twice (brief: e >= 2): recorded, not asserted, because a
    // pruned KN model memorises them completely (every AUROC is 1 there).
    const auto& twice = Experiments(ctx, split, 2);
    RecordAll(ctx, twice, "K1 e=2");
    RecordDiff(ctx, "minkpp_minus_mink_k0.2_e2", {{"split", twice.front().split}},
               Paired(ctx, twice, "minkpp_0.2", false, "mink_0.2"));
  }
  if (split == Split::kMimir) {
    // The iid report (brief §1 c, §2 iv): Ref vs Min-K%++ and FSD gains, not asserted.
    RecordDiff(ctx, "minkpp_minus_ref", split_params, Paired(ctx, runs, "minkpp_0.2", false, "ref"));
    RecordDiff(ctx, "fsd_loss_gain_iid", split_params, Paired(ctx, runs, "fsd_loss", false, "loss"));
    RecordDiff(ctx, "fsd_mink_gain_iid", split_params, Paired(ctx, runs, "fsd_mink", false, "mink_0.2"));
  }
  return ctx.Judge({CiOf(d, runs)}, SettingOf(ctx, runs));
}

// ---------------------------------------------------------------------------
// K2: s_t invariant to z -> z + c (exact in fp64: only rounding remains).

h::Outcome K2(h::ClaimContext& ctx) {
  const int rows = ctx.ByProfile(16, 64, 256), v = ctx.ByProfile(1024, 8192, 32768);
  h::Rng rng(ctx.seed(), 21);
  double worst_ref = 0, worst_cpu = 0;
  std::vector<float> logits(size_t(rows) * v);
  std::vector<int32_t> targets(rows);
  for (int r = 0; r < rows; ++r) {
    const double scale = r % 4 == 0 ? 0.01 : r % 4 == 1 ? 8.0 : 1.0;  // flat, peaked, normal
    for (int i = 0; i < v; ++i) logits[size_t(r) * v + i] = float(scale * rng.Normal());
    targets[r] = static_cast<int32_t>(rng.UniformInt(0, v - 1));
  }
  for (const double c : {-37.5, 0.25, 1000.0}) {
    for (int r = 0; r < rows; ++r) {
      std::vector<double> z(logits.begin() + size_t(r) * v, logits.begin() + size_t(r + 1) * v), zc = z;
      for (double& x : zc) x += c;
      const auto a = cb::ref::mia::StatsFromLogits(z, targets[r]);
      const auto b = cb::ref::mia::StatsFromLogits(zc, targets[r]);
      const double sa = (a.logp - a.mu) / std::max(std::sqrt(a.sigma2), cb::ref::mia::kSigmaFloor);
      const double sb = (b.logp - b.mu) / std::max(std::sqrt(b.sigma2), cb::ref::mia::kSigmaFloor);
      worst_ref = std::max(worst_ref, std::abs(sa - sb));
    }
    // The fp32 kernels (CPU fast path, and CUDA when selected): z + c is
    // rounded to fp32, so the shifted input differs from the original by up
    // to half an ulp of |z + c| per logit and exact invariance cannot be
    // expected; recorded, not asserted.
    std::vector<float> shifted(logits);
    for (float& x : shifted) x = float(double(x) + c);
    for (const h::Backend backend : ctx.backends()) {
      const auto pa = ScorePositions(backend, {logits.data(), rows, v, LogitType::kF32}, targets);
      const auto pb = ScorePositions(backend, {shifted.data(), rows, v, LogitType::kF32}, targets);
      double worst = 0;
      for (int r = 0; r < rows; ++r) {
        const double sa = (pa.logp[r] - pa.mu[r]) / std::max(std::sqrt(double(pa.sigma2[r])), 1e-8);
        const double sb = (pb.logp[r] - pb.mu[r]) / std::max(std::sqrt(double(pb.sigma2[r])), 1e-8);
        worst = std::max(worst, std::abs(sa - sb));
      }
      // The CPU's vector path (AVX-512, AVX2, portable) rounds differently:
      // it is part of what the row measures, so it is a param.
      nlohmann::json params = {{"shift", c}, {"path", "fp32_kernel"}, {"vocab", v}};
      if (backend == h::Backend::kCpu) params["cpu_path"] = CpuPathName(BestCpuPath());
      ctx.RecordExact({.case_name = "shift_invariance", .backend = std::string(h::BackendName(backend)),
                       .params = params,
                       .metric = "max_abs_token_score_change", .unit = "1", .direction = "lower", .value = worst,
                       .n = rows});
      if (c == 0.25 && backend == h::Backend::kCpu) worst_cpu = worst;
    }
  }
  ctx.RecordExact({.case_name = "shift_invariance", .backend = "cpu", .params = {{"path", "fp64_reference"}, {"vocab", v}},
                   .metric = "max_abs_token_score_change", .unit = "1", .direction = "lower", .value = worst_ref,
                   .n = rows * 3});
  return ctx.Judge({h::Estimate::Exact(worst_ref)},
                   h::StrFormat("fp64 reference, %d rows (flat/peaked/normal) x V=%d, shifts -37.5/0.25/1000; "
                                "fp32 path %.2g at 0.25",
                                rows, v, worst_cpu));
}

// ---------------------------------------------------------------------------
// F1-F3 on the shifted split.


h::Outcome F1(h::ClaimContext& ctx) {
  const auto& runs = Experiments(ctx, Split::kWikiMia, 1);
  RecordAll(ctx, runs, "F1");
  const nlohmann::json split_params = {{"split", runs.front().split}};
  const auto loss = Paired(ctx, runs, "fsd_loss", false, "loss");
  const auto mink = Paired(ctx, runs, "fsd_mink", false, "mink_0.2");
  RecordDiff(ctx, "fsd_loss_gain", split_params, loss);
  RecordDiff(ctx, "fsd_mink_gain", split_params, mink);
  for (const char* base : {"zlib", "lowercase"}) {
    RecordDiff(ctx, std::string("fsd_") + base + "_gain", split_params,
               Paired(ctx, runs, std::string("fsd_") + base, false, base));
  }
  // The fine-tune strength ablation (FSD Table 17's learning rates), recorded only.
  for (size_t k = 0; k < runs.front().sweep.size(); ++k) {
    for (const char* base : {"loss", "mink"}) {
      std::vector<cb::ref::PairedScores> groups;
      for (const auto& r : runs) {
        const auto& pt = r.sweep[k];
        groups.push_back({std::string(base) == "loss" ? pt.fsd_loss : pt.fsd_mink,
                          r.Scores(std::string(base) == "loss" ? "loss" : "mink_0.2"), r.labels});
      }
      RecordDiff(ctx, std::string("fsd_") + base + "_gain_by_weight",
                 {{"split", runs.front().split}, {"ft_weight", runs.front().sweep[k].weight}},
                 cb::ref::PairedAurocDiff(groups, ctx.ByProfile(300, 1000, 2000), ctx.seed()));
    }
  }
  // Both gains must be > 0; the smaller is the headline.
  const bool loss_smaller = loss.mean_diff <= mink.mean_diff;
  return ctx.Judge({CiOf(loss_smaller ? loss : mink, runs), CiOf(loss_smaller ? mink : loss, runs)},
                   SettingOf(ctx, runs));
}

h::Outcome F2(h::ClaimContext& ctx) {
  const auto& runs = Experiments(ctx, Split::kWikiMia, 1);
  std::vector<double> member, nonmember;
  for (const auto& r : runs) {
    for (size_t i = 0; i < r.labels.size(); ++i) (r.labels[i] ? member : nonmember).push_back(r.nll_drop[i]);
  }
  const auto up = cb::ref::MannWhitneyGreater(nonmember, member);
  const double diff = h::Mean(nonmember) - h::Mean(member);
  const std::string split = runs.front().split;
  for (const auto& [cls, drops] : {std::pair{"member", &member}, {"nonmember", &nonmember}}) {
    ctx.RecordExact({.case_name = "nll_drop", .backend = "cpu", .params = {{"split", split}, {"class", cls}},
                     .metric = "mean_nll_drop", .unit = "nats/token", .value = h::Mean(*drops),
                     .n = int64_t(drops->size())});
  }
  ctx.RecordExact({.case_name = "nll_drop_test", .backend = "cpu", .params = {{"split", split}, {"test", "mann_whitney_one_sided"}},
                   .metric = "p_value", .unit = "1", .direction = "lower", .value = up.p_value,
                   .n = int64_t(member.size() + nonmember.size())});
  // The verdict: the AUROC of the NLL drop as a score for non-membership
  // (the Mann-Whitney U / (n1 n0) of the test above), its stratified
  // bootstrap interval at 98%: lower bound > 0.5 is the one-sided 1% level
  // the test used; an interval wholly at or below 0.5 refutes; one that
  // straddles it is INCONCLUSIVE, as "neither direction significant" was.
  const auto ci = cb::mia::DropAurocCi(ctx, member, nonmember);
  return ctx.Judge({ci}, SettingOf(ctx, runs) + h::StrFormat(", one-sided Mann-Whitney p = %.3g; mean drop "
                                                             "non-members - members %.4f nats/token",
                                                             up.p_value, diff));
}

h::Outcome F3(h::ClaimContext& ctx) {
  const auto& runs = Experiments(ctx, Split::kWikiMia, 1);
  const auto loss = Paired(ctx, runs, "fsd_loss", true, "loss");
  const auto mink = Paired(ctx, runs, "fsd_mink", true, "mink_0.2");
  const nlohmann::json split_params = {{"split", runs.front().split}};
  RecordDiff(ctx, "fsd_loss_gain_ood", split_params, loss);
  RecordDiff(ctx, "fsd_mink_gain_ood", split_params, mink);
  // Both gains must be near 0; the larger |gain| is the headline.
  const bool loss_larger = std::abs(loss.mean_diff) >= std::abs(mink.mean_diff);
  return ctx.Judge({CiOf(loss_larger ? loss : mink, runs), CiOf(loss_larger ? mink : loss, runs)},
                   SettingOf(ctx, runs));
}

// ---------------------------------------------------------------------------
// Registration

// "Paired bootstrap 95% CI > 0", strictly: a CI that starts at 0 is
// INCONCLUSIVE, one wholly at or below 0 NOT_REPRODUCED.
h::Criterion GainAbove0(const std::string& gain) { return h::Above(0, gain + ", paired bootstrap 95% CI"); }
// Why GainAbove0 (K1) and F1 read as they do; the decision is unchanged.
constexpr const char* kAboveReason =
    "'CI >= 0 and excludes 0' (a soft INCONCLUSIVE leaf) restated as one strict interval leaf CI > 0 "
    "(issue 49); same decision, but a CI wholly at or below 0 is now NOT_REPRODUCED";
constexpr const char* kF2Reason =
    "the p < 0.01 test leaf (failure INCONCLUSIVE) became its interval: the AUROC of the NLL drop "
    "(= Mann-Whitney U / n1 n0), 98% bootstrap CI > 0.5 (the same one-sided 1% level; issue 49)";

CB_REGISTER_CLAIM(k1w, {.id = "mia.K1-wikimia",
                        .section = "Table 1 (WikiMIA)",
                        .statement = "Min-K%++ has a higher AUROC than Min-K% on WikiMIA-like (shifted) data",
                        .paper_value = "+6.2 to +10.5 AUROC points (avg of 5 models; len32: 78.3 vs 67.8)",
                        .paper_setting = "WikiMIA, Mamba-1.4B/Pythia-6.9B/LLaMA-13B/30B/65B",
                        .metric = "mean over seeds of AUROC(Min-K%++ k=0.2) - AUROC(Min-K% k=0.2)",
                        .criterion = GainAbove0("AUROC gain"),
                        .criterion_reason = kAboveReason},
                  [](h::ClaimContext& ctx) { return K1(ctx, Split::kWikiMia, 1); });
CB_REGISTER_CLAIM(k1m, {.id = "mia.K1-mimir",
                        .section = "Table 2 (MIMIR)",
                        .statement = "Min-K%++ has a higher AUROC than Min-K% on MIMIR-like (iid) data (members seen once)",
                        .paper_value = "best reference-free method on MIMIR; all AUROCs near chance",
                        .paper_setting = "MIMIR ngram_13_0.8, Pythia 160M-12B",
                        .metric = "mean over seeds of AUROC(Min-K%++ k=0.2) - AUROC(Min-K% k=0.2)",
                        .criterion = GainAbove0("AUROC gain"),
                        .criterion_reason = kAboveReason},
                  [](h::ClaimContext& ctx) { return K1(ctx, Split::kMimir, 1); });
// K2 holds by construction of the score (log-softmax is shift invariant): it
// checks our implementation, so it is a prerequisite, not the paper's claim.
CB_REGISTER_CLAIM(k2, {.id = "mia.K2",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§3 (score definition)",
                       .statement = "The Min-K%++ token score is invariant to adding a constant to the logits",
                       .paper_value = "exact (by construction)",
                       .paper_setting = "any model",
                       .metric = "max |s_t(z + c) - s_t(z)| over rows and shifts, fp64 reference",
                       .criterion = h::AtMost(1e-9, "max |s_t change| (rounding only)")},
                  K2);
CB_REGISTER_CLAIM(f1, {.id = "mia.F1",
                       .paper = kFsd,
                       .section = "Table 1",
                       .statement = "Fine-tuning on a few non-members (FSD) raises the AUROC of Loss and of Min-K%",
                       .paper_value = "Min-K% AUROC 0.62 -> 0.91 (WikiMIA, OPT-6.7B)",
                       .paper_setting = "WikiMIA, OPT-6.7B, LoRA fine-tune",
                       .metric = "smaller of the mean AUROC gains FSD(Loss)-Loss and FSD(Min-K%)-Min-K%",
                       .criterion = h::AllOf({h::Above(0, "smaller gain, paired bootstrap 95% CI"),
                                              h::Above(0, "larger gain, paired bootstrap 95% CI")}),
                       .criterion_reason = kAboveReason},
                  F1);
CB_REGISTER_CLAIM(f2, {.id = "mia.F2",
                       .paper = kFsd,
                       .section = "§3 (Figure 2)",
                       .statement = "After fine-tuning on non-members, non-members' scores drop more than members'",
                       .paper_value = "non-members' perplexity drops much more (qualitative)",
                       .paper_setting = "WikiMIA, LLaMA-7B",
                       .metric = "AUROC of the per-text NLL drop as a non-membership score (P(non-member's drop > "
                                 "member's)), pooled over seeds",
                       .criterion = h::Above(0.5, "drop AUROC, stratified bootstrap 98% CI"),
                       .criterion_reason = kF2Reason,
                       .confidence = 0.98},
                  F2);
CB_REGISTER_CLAIM(f3, {.id = "mia.F3",
                       .paper = kFsd,
                       .section = "Table 16 (domain mismatch)",
                       .statement = "With an out-of-domain fine-tuning set the FSD gain vanishes",
                       .paper_value = "no improvement under domain mismatch (WikiMIA -> ArXivTection)",
                       .paper_setting = "WikiMIA target, ArXivTection fine-tuning data",
                       .metric = "AUROC gain of FSD with the ood fine-tune (the larger |gain| of Loss, Min-K%)",
                       .criterion = h::AllOf({h::Within(-0.03, 0.03, "larger |gain|, 95% CI"),
                                              h::Within(-0.03, 0.03, "smaller |gain|, 95% CI")})},
                  F3);

}  // namespace
}  // namespace cb::mia

// File: suites/mia/mia_neural_claims.cpp
// -----------------------------------------------------------------------------
// The Min-K%++ and FSD claims of mia_claims.cpp again, on trained
// transformers of the substrate (issue 20) instead of the Kneser-Ney model.
// Each keeps its own id and is a check (check_of) of its n-gram twin, whose
// paper fields and criterion it shares; mia.K2-lm, like mia.K2, is a
// prerequisite (the invariance holds by construction):
//   mia.K1-wikimia-lm, mia.K1-mimir-lm  AUROC(Min-K%++ k=0.2) - AUROC(Min-K% k=0.2) > 0
//   mia.K2-lm                           s_t invariant to a logit shift, on the model's logits
//   mia.F1-lm                           FSD (LoRA fine-tune) raises Loss's and Min-K%'s AUROC
//   mia.F2-lm                           non-members' NLL drops more than members' (AUROC of
//                                       the drop, 98% CI > 0.5)
//   mia.F3-lm                           the gain vanishes with an out-of-domain fine-tune
// Models (fixtures/lm, found by lm_fixtures.h; without them every claim is
// UNMEASURABLE): WikiMIA-like, the substrate's models trained on the default
// corpus's TrainingSet() (smoke: fixtures/lm/smoke, quick: draft, full:
// target); MIMIR-like, fixtures/lm/mia-mimir (draft preset, `claimbench mia
// train-target --split mimir`; fixtures/lm/mia-mimir-e2, members twice per
// pass, for rows recorded beside K1-mimir-lm). Each model is checked to have
// been trained on the corpus it is evaluated on (neural_experiment.h).
// Recorded only, beside F1-lm: FSD's learning-rate ablation and LoRA on all
// seven projections; beside K1-mimir-lm: FSD on the iid split.
//
// One trained model per split, so the CIs of K1 are over texts (a paired
// stratified bootstrap of one group), not over training seeds; FSD's CIs pool
// `fsd_seeds` LoRA fine-tunes (init and batch order), each a group.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "harness/claim.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/common/roc.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/lm/transformer.h"
#include "reference/mia/mia.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/lm_fixtures.h"
#include "suites/mia/drop_auroc.h"
#include "suites/mia/neural_experiment.h"
#include "suites/mia/neural_stats.h"

namespace cb::mia {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "Min-K%++ (Zhang et al., ICLR 2025)"});

enum class Split { kWikiMia, kMimir };

struct LmSizes {
  const char* wikimia_model;  // folder under fixtures/lm
  int per_class, aux_docs, fsd_seeds, mimir_fsd_seeds;
};

// Smoke: the 22K-parameter smoke model and a handful of texts (seconds, also
// under ASan); no FSD on the MIMIR-like draft there.
LmSizes SizesFor(const h::ClaimContext& ctx) {
  return ctx.ByProfile(LmSizes{"smoke", 12, 16, 1, 0}, LmSizes{"draft", 200, 100, 3, 1},
                       LmSizes{"target", 200, 100, 5, 3});
}

// The MIMIR-like target with members seen `repeats` times per pass.
std::string MimirModel(int repeats) { return repeats == 1 ? "mia-mimir" : "mia-mimir-e" + std::to_string(repeats); }

NeuralExperimentParams ParamsFor(const h::ClaimContext& ctx, Split split, int repeats, const std::string& fixtures) {
  const LmSizes s = SizesFor(ctx);
  NeuralExperimentParams p;
  p.model_dir = fixtures + "/" + (split == Split::kWikiMia ? s.wikimia_model : MimirModel(repeats));
  // The corpora the models were trained on: the defaults (seed 1), the split's kind.
  p.corpus.kind = split == Split::kWikiMia ? cb::gen::SplitKind::kWikiMia : cb::gen::SplitKind::kMimir;
  p.corpus.member_repeats = repeats;
  p.per_class = s.per_class;
  p.aux_docs = s.aux_docs;
  p.fsd_seeds = split == Split::kWikiMia ? s.fsd_seeds : repeats == 1 ? s.mimir_fsd_seeds : 0;
  p.ft.seed = ctx.seed();
  // Recorded only: FSD's learning-rate ablation (Table 17) at 10x and 30x the
  // paper's 1e-3, and adapters on all seven projections at 1e-3 (FSD's
  // adapter ablations vary the adapter; this varies where it sits).
  if (split == Split::kWikiMia && ctx.profile() != h::Profile::kSmoke) {
    for (const double lr : {1e-2, 3e-2}) {
      p.sweep.push_back(p.ft);
      p.sweep.back().lr = lr;
    }
    p.sweep.push_back(p.ft);
    p.sweep.back().lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  }
  return p;
}

// Cached per (split, repeats, profile, seed) so that K1, F1, F2 and F3 share
// one run. Throws std::runtime_error (no fixtures, or a model/corpus mismatch).
const NeuralExperimentResult& Experiment(h::ClaimContext& ctx, Split split, int repeats = 1) {
  static std::mutex mu;
  static std::map<std::string, NeuralExperimentResult> cache;
  const std::string key = std::to_string(int(split)) + "/" + std::to_string(repeats) + "/" +
                          h::ProfileName(ctx.profile()) + "/" + std::to_string(ctx.seed());
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const std::string fixtures = cb::lm_suite::LmFixturesDir();
  if (fixtures.empty()) throw std::runtime_error(cb::lm_suite::MissingLmFixtures());
  ctx.Progress(0, split == Split::kWikiMia ? "wikimia transformer" : "mimir transformer");
  return cache.emplace(key, RunNeuralExperiment(ParamsFor(ctx, split, repeats, fixtures))).first->second;
}

std::string SettingOf(const h::ClaimContext& ctx, const NeuralExperimentResult& r, Split split) {
  const LmSizes s = SizesFor(ctx);
  return h::StrFormat("%s, transformer %s (%lld params, trained on B + members), %d+%d texts, %zu LoRA "
                      "fine-tune(s) on %d aux texts",
                      r.split.c_str(), split == Split::kWikiMia ? s.wikimia_model : "mia-mimir",
                      static_cast<long long>(r.parameters), s.per_class, s.per_class, r.runs.size(), s.aux_docs);
}

// Every method's AUROC (bootstrap CI) and TPR@5%FPR (sklearn's default curve,
// as the authors read it); FSD methods once per fine-tune seed.
void RecordAll(h::ClaimContext& ctx, const NeuralExperimentResult& r, int repeats = 1) {
  auto record = [&](const cb::ref::mia::MethodScores& m, const std::string& method, int64_t seed_index) {
    const auto ci = cb::ref::BootstrapAurocCi(m.scores, r.labels, 200, ctx.seed());
    const auto curve = cb::ref::RocCurve(m.scores, r.labels, cb::ref::RocPoints::kSklearnDefault);
    nlohmann::json params = {{"split", r.split}, {"method", method}, {"model", "transformer"},
                             {"corpus_hash", r.corpus_hash}};
    if (seed_index >= 0) params["fsd_seed_index"] = seed_index;
    if (repeats != 1) params["member_repeats"] = repeats;
    ctx.RecordEstimate({.case_name = "auroc_lm", .backend = "cpu", .params = params, .metric = "auroc",
                        .unit = "1", .direction = "higher", .value = cb::ref::Auroc(m.scores, r.labels),
                        .ci_low = ci.low, .ci_high = ci.high, .n = int64_t(r.labels.size()),
                        .input_hash = r.corpus_hash, .output_hash = r.model_hash});
    ctx.RecordExact({.case_name = "tpr_at_5_fpr_lm", .backend = "cpu", .params = params,
                     .metric = "tpr_at_fpr_le_0.05", .unit = "1", .direction = "higher",
                     .value = cb::ref::TprAtFpr(curve, 0.05, false), .n = int64_t(r.labels.size())});
  };
  for (const auto& m : r.methods) record(m, m.method, -1);
  for (size_t i = 0; i < r.runs.size(); ++i) {
    for (const auto& m : r.runs[i].fsd) record(m, m.method, int64_t(i));
    for (const auto& m : r.runs[i].fsd_ood) record(m, m.method + "_ood", int64_t(i));
  }
}

// Paired bootstrap of AUROC(a) - AUROC(b): one group per FSD run when `a` is
// an FSD method, else the single group of the texts.
cb::ref::PairedDiff Paired(const h::ClaimContext& ctx, const NeuralExperimentResult& r, const std::string& a,
                           bool ood, const std::string& b) {
  std::vector<cb::ref::PairedScores> groups;
  if (a.rfind("fsd_", 0) == 0) {
    for (size_t i = 0; i < r.runs.size(); ++i) groups.push_back({r.Scores(a, i, ood), r.Scores(b), r.labels});
  } else {
    groups.push_back({r.Scores(a), r.Scores(b), r.labels});
  }
  return cb::ref::PairedAurocDiff(groups, ctx.ByProfile(300, 1000, 2000), ctx.seed());
}

void RecordDiff(h::ClaimContext& ctx, const std::string& case_name, const NeuralExperimentResult& r,
                const cb::ref::PairedDiff& d) {
  ctx.RecordEstimate({.case_name = case_name, .backend = "cpu",
                      .params = {{"split", r.split}, {"model", "transformer"}}, .metric = "auroc_difference",
                      .unit = "1", .direction = "higher", .value = d.mean_diff, .ci_low = d.ci.low,
                      .ci_high = d.ci.high, .n = int64_t(d.per_group.size()), .samples = d.per_group});
}

// The paired bootstrap resamples texts within each group (one per FSD run,
// or the one group of texts): its trials are every text of every group.
h::Estimate CiOf(const cb::ref::PairedDiff& d, const NeuralExperimentResult& r) {
  const int64_t texts = int64_t(d.per_group.size() * r.labels.size());
  return h::Estimate::Ci(d.mean_diff, d.ci.low, d.ci.high, h::IntervalMethod::kPercentileBootstrap, texts);
}


// Runs `body` on the split's experiment; a missing fixture or a model that
// was not trained on the corpus is UNMEASURABLE with the reason.
template <typename Body>
h::Outcome WithExperiment(h::ClaimContext& ctx, Split split, Body body) {
  const NeuralExperimentResult* r = nullptr;
  try {
    r = &Experiment(ctx, split);
  } catch (const std::runtime_error& e) {
    return h::Unmeasurable(e.what());
  }
  return body(*r);
}

void RecordTimings(h::ClaimContext& ctx, const NeuralExperimentResult& r) {
  for (const auto& [what, s] : {std::pair{"scoring", r.seconds_scoring}, {"lora_finetune", r.seconds_finetune}}) {
    ctx.RecordTiming({.case_name = "experiment_seconds", .backend = "cpu",
                      .params = {{"split", r.split}, {"stage", what}, {"positions_per_pass", r.positions}},
                      .metric = "seconds", .unit = "s", .direction = "lower", .value = s, .n = 1});
  }
}

// ---------------------------------------------------------------------------
// K1 on the transformer.

h::Outcome K1(h::ClaimContext& ctx, Split split) {
  return WithExperiment(ctx, split, [&](const NeuralExperimentResult& r) {
    RecordAll(ctx, r);
    RecordTimings(ctx, r);
    const auto d = Paired(ctx, r, "minkpp_0.2", false, "mink_0.2");
    RecordDiff(ctx, "lm_minkpp_minus_mink_k0.2", r, d);
    double best_pp = 0, best_k = 0;  // the MIMIR fork's best-k "upper bound", recorded only
    for (double k : cb::ref::mia::KGrid()) {
      best_pp = std::max(best_pp, cb::ref::Auroc(r.Scores(h::StrFormat("minkpp_%.1f", k)), r.labels));
      best_k = std::max(best_k, cb::ref::Auroc(r.Scores(h::StrFormat("mink_%.1f", k)), r.labels));
    }
    ctx.RecordExact({.case_name = "lm_best_k_minkpp_minus_mink", .backend = "cpu",
                     .params = {{"split", r.split}, {"model", "transformer"}}, .metric = "auroc_difference",
                     .unit = "1", .direction = "higher", .value = best_pp - best_k, .n = 1});
    if (split == Split::kMimir && !r.runs.empty()) {  // the iid FSD report (brief §2 iv), not asserted
      RecordDiff(ctx, "lm_fsd_loss_gain_iid", r, Paired(ctx, r, "fsd_loss", false, "loss"));
      RecordDiff(ctx, "lm_fsd_mink_gain_iid", r, Paired(ctx, r, "fsd_mink", false, "mink_0.2"));
    }
    std::string note;
    if (split == Split::kMimir && ctx.profile() != h::Profile::kSmoke) {
      // Members seen twice per pass (brief §1 b: e >= 2), recorded, not
      // asserted: the claim mirrors the n-gram one (e = 1). Without the
      // fixture the setting says so.
      try {
        const auto& twice = Experiment(ctx, split, 2);
        RecordAll(ctx, twice, 2);
        RecordDiff(ctx, "lm_minkpp_minus_mink_k0.2_e2", twice, Paired(ctx, twice, "minkpp_0.2", false, "mink_0.2"));
      } catch (const std::runtime_error& e) {
        note = std::string("; e=2 row not recorded: ") + e.what();
      }
    }
    return ctx.Judge({CiOf(d, r)}, SettingOf(ctx, r, split) + note);
  });
}

// ---------------------------------------------------------------------------
// K2 on the model's logits: fp64 exactness of the invariance, plus each
// selected backend's statistics (forward + kernel) against the fp64 reference
// forward and StatsFromLogits on the same texts, recorded.

h::Outcome K2(h::ClaimContext& ctx) {
  const std::string fixtures = cb::lm_suite::LmFixturesDir();
  if (fixtures.empty()) return h::Unmeasurable(cb::lm_suite::MissingLmFixtures());
  const std::string name = SizesFor(ctx).wikimia_model;
  const std::string dir = fixtures + "/" + name;
  const cb::ref::lm::HfCheckpoint ck = cb::ref::lm::LoadCheckpoint(dir);
  const cb::ref::lm::BpeTokenizer tok = cb::ref::lm::BpeTokenizer::Load(dir);
  const cb::lm_suite::CpuTransformer fast(ck.config, ck.tensors);
  const cb::ref::lm::Transformer reference(ck.config, ck.tensors);
  const cb::gen::MiaCorpus corpus = cb::gen::MakeMiaCorpus({});
  const int texts = ctx.ByProfile(2, 4, 8);
  const int V = ck.config.vocab_size;
  double worst_shift = 0;
  std::map<std::string, double> worst_backend;  // max |s_t(backend) - s_t(fp64)|
  int64_t rows = 0;
  for (int i = 0; i < texts; ++i) {
    const cb::gen::Document& doc = i % 2 ? corpus.nonmembers[i / 2] : corpus.members[i / 2];
    const std::vector<int> ids = tok.Encode(corpus.lexicon.Render(doc));
    const std::vector<double> z = reference.Forward(ids).data;  // [T, V] fp64
    std::vector<double> s_ref;
    for (size_t t = 0; t + 1 < ids.size(); ++t) {
      const std::span<const double> row(z.data() + t * V, size_t(V));
      const auto a = cb::ref::mia::StatsFromLogits(row, ids[t + 1]);
      const double sa = (a.logp - a.mu) / std::max(std::sqrt(a.sigma2), cb::ref::mia::kSigmaFloor);
      s_ref.push_back(sa);
      for (const double c : {-37.5, 0.25, 1000.0}) {
        std::vector<double> zc(row.begin(), row.end());
        for (double& x : zc) x += c;
        const auto b = cb::ref::mia::StatsFromLogits(zc, ids[t + 1]);
        const double sb = (b.logp - b.mu) / std::max(std::sqrt(b.sigma2), cb::ref::mia::kSigmaFloor);
        worst_shift = std::max(worst_shift, std::abs(sa - sb));
      }
      ++rows;
    }
    for (const h::Backend backend : ctx.backends()) {
      const TokenStats st = NeuralScorer(fast, backend).Score(ids);
      double& w = worst_backend[std::string(h::BackendName(backend))];
      for (size_t t = 0; t < st.ll.size(); ++t) {
        const double s = (st.ll[t] - st.mu[t]) / std::max(std::sqrt(st.sigma2[t]), 1e-8);
        w = std::max(w, std::abs(s - s_ref[t]));
      }
    }
  }
  ctx.RecordExact({.case_name = "lm_shift_invariance", .backend = "cpu",
                   .params = {{"path", "fp64_reference"}, {"model", name}, {"vocab", V}},
                   .metric = "max_abs_token_score_change", .unit = "1", .direction = "lower",
                   .value = worst_shift, .n = rows * 3});
  std::string paths;
  for (const auto& [backend, w] : worst_backend) {
    ctx.RecordExact({.case_name = "lm_token_score_vs_fp64", .backend = backend,
                     .params = {{"path", "fp32_forward_and_kernel"}, {"model", name}, {"vocab", V}},
                     .metric = "max_abs_token_score_error", .unit = "1", .direction = "lower", .value = w,
                     .n = rows});
    paths += h::StrFormat("; %s fp32 forward + kernel vs fp64: max |ds_t| %.2g", backend.c_str(), w);
  }
  return ctx.Judge({h::Estimate::Exact(worst_shift)},
                   h::StrFormat("fp64 reference forward of transformer %s (V=%d) on %d corpus texts, %lld rows, "
                                "shifts -37.5/0.25/1000%s",
                                name.c_str(), V, texts, static_cast<long long>(rows), paths.c_str()));
}

// ---------------------------------------------------------------------------
// F1-F3 on the shifted split.

h::Outcome F1(h::ClaimContext& ctx) {
  return WithExperiment(ctx, Split::kWikiMia, [&](const NeuralExperimentResult& r) {
    if (r.runs.empty()) return h::Unmeasurable("no FSD fine-tune in this profile");
    RecordAll(ctx, r);
    const auto loss = Paired(ctx, r, "fsd_loss", false, "loss");
    const auto mink = Paired(ctx, r, "fsd_mink", false, "mink_0.2");
    RecordDiff(ctx, "lm_fsd_loss_gain", r, loss);
    RecordDiff(ctx, "lm_fsd_mink_gain", r, mink);
    RecordDiff(ctx, "lm_fsd_zlib_gain", r, Paired(ctx, r, "fsd_zlib", false, "zlib"));
    for (size_t i = 0; i < r.runs.size(); ++i) {
      for (const auto& [set, rep] : {std::pair{"in_domain", &r.runs[i].in_domain}, {"ood", &r.runs[i].ood}}) {
        const nlohmann::json params = {{"split", r.split}, {"set", set}, {"fsd_seed_index", i},
                                       {"steps", rep->steps}, {"stream_tokens", rep->stream_tokens},
                                       {"lora_params", rep->lora_params}};
        ctx.RecordExact({.case_name = "lm_lora_finetune", .backend = "cpu", .params = params,
                         .metric = "first_batch_loss", .unit = "nats/token", .value = rep->first_loss, .n = 1});
        ctx.RecordExact({.case_name = "lm_lora_finetune", .backend = "cpu", .params = params,
                         .metric = "last_batch_loss", .unit = "nats/token", .value = rep->last_loss, .n = 1});
        ctx.RecordExact({.case_name = "lm_lora_finetune", .backend = "cpu", .params = params,
                         .metric = "finetune_set_loss_before", .unit = "nats/token", .value = rep->loss_before, .n = 8});
        ctx.RecordExact({.case_name = "lm_lora_finetune", .backend = "cpu", .params = params,
                         .metric = "finetune_set_loss_after", .unit = "nats/token", .value = rep->loss_after, .n = 8});
      }
    }
    for (const auto& pt : r.sweep) {  // the learning-rate and adapter ablations, recorded only
      std::string targets;
      for (const auto& t : pt.options.lora.targets) targets += (targets.empty() ? "" : ",") + t;
      const nlohmann::json params = {{"split", r.split}, {"model", "transformer"}, {"lr", pt.options.lr},
                                     {"lora_targets", targets}, {"steps", pt.report.steps}};
      for (const char* base : {"loss", "mink"}) {
        const bool is_loss = std::string(base) == "loss";
        const std::vector<cb::ref::PairedScores> g = {
            {is_loss ? pt.fsd_loss : pt.fsd_mink, r.Scores(is_loss ? "loss" : "mink_0.2"), r.labels}};
        const auto d = cb::ref::PairedAurocDiff(g, ctx.ByProfile(300, 1000, 2000), ctx.seed());
        ctx.RecordEstimate({.case_name = std::string("lm_fsd_") + base + "_gain_ablation", .backend = "cpu",
                            .params = params,
                            .metric = "auroc_difference", .unit = "1", .direction = "higher",
                            .value = d.mean_diff, .ci_low = d.ci.low, .ci_high = d.ci.high, .n = 1});
      }
      for (const auto& [metric, v] : {std::pair{"finetune_set_loss_before", pt.report.loss_before},
                                      {"finetune_set_loss_after", pt.report.loss_after}}) {
        ctx.RecordExact({.case_name = "lm_lora_finetune_ablation", .backend = "cpu", .params = params,
                         .metric = metric, .unit = "nats/token", .value = v, .n = 8});
      }
    }
    const bool loss_smaller = loss.mean_diff <= mink.mean_diff;
    return ctx.Judge({CiOf(loss_smaller ? loss : mink, r), CiOf(loss_smaller ? mink : loss, r)},
                     SettingOf(ctx, r, Split::kWikiMia));
  });
}

h::Outcome F2(h::ClaimContext& ctx) {
  return WithExperiment(ctx, Split::kWikiMia, [&](const NeuralExperimentResult& r) {
    if (r.runs.empty()) return h::Unmeasurable("no FSD fine-tune in this profile");
    std::vector<double> member, nonmember;
    for (const auto& run : r.runs) {
      for (size_t i = 0; i < r.labels.size(); ++i) (r.labels[i] ? member : nonmember).push_back(run.nll_drop[i]);
    }
    const auto up = cb::ref::MannWhitneyGreater(nonmember, member);
    for (const auto& [cls, drops] : {std::pair{"member", &member}, {"nonmember", &nonmember}}) {
      ctx.RecordExact({.case_name = "lm_nll_drop", .backend = "cpu",
                       .params = {{"split", r.split}, {"class", cls}}, .metric = "mean_nll_drop",
                       .unit = "nats/token", .value = h::Mean(*drops), .n = int64_t(drops->size())});
    }
    ctx.RecordExact({.case_name = "lm_nll_drop_test", .backend = "cpu",
                     .params = {{"split", r.split}, {"test", "mann_whitney_one_sided"}}, .metric = "p_value",
                     .unit = "1", .direction = "lower", .value = up.p_value,
                     .n = int64_t(member.size() + nonmember.size())});
    // The verdict as mia.F2's: the drop's AUROC, 98% bootstrap CI above 0.5.
    return ctx.Judge({cb::mia::DropAurocCi(ctx, member, nonmember)},
                     SettingOf(ctx, r, Split::kWikiMia) +
                         h::StrFormat(", one-sided Mann-Whitney p = %.3g; mean drop members %.4f, "
                                      "non-members %.4f nats/token",
                                      up.p_value, h::Mean(member), h::Mean(nonmember)));
  });
}

h::Outcome F3(h::ClaimContext& ctx) {
  return WithExperiment(ctx, Split::kWikiMia, [&](const NeuralExperimentResult& r) {
    if (r.runs.empty()) return h::Unmeasurable("no FSD fine-tune in this profile");
    const auto loss = Paired(ctx, r, "fsd_loss", true, "loss");
    const auto mink = Paired(ctx, r, "fsd_mink", true, "mink_0.2");
    RecordDiff(ctx, "lm_fsd_loss_gain_ood", r, loss);
    RecordDiff(ctx, "lm_fsd_mink_gain_ood", r, mink);
    const bool loss_larger = std::abs(loss.mean_diff) >= std::abs(mink.mean_diff);
    return ctx.Judge({CiOf(loss_larger ? loss : mink, r), CiOf(loss_larger ? mink : loss, r)},
                     SettingOf(ctx, r, Split::kWikiMia));
  });
}

// ---------------------------------------------------------------------------
// Registration. Each claim is another check of its n-gram twin in
// mia_claims.cpp (check_of): the paper's fields and the criterion are that
// claim's; the metric says it is the trained transformer.

h::Criterion GainAbove0(const std::string& gain) { return h::Above(0, gain + ", paired bootstrap 95% CI"); }
constexpr const char* kAboveReason =
    "'CI >= 0 and excludes 0' (a soft INCONCLUSIVE leaf) restated as one strict interval leaf CI > 0 "
    "(issue 49); same decision, but a CI wholly at or below 0 is now NOT_REPRODUCED";
constexpr const char* kF2Reason =
    "the p < 0.01 test leaf (failure INCONCLUSIVE) became its interval: the AUROC of the NLL drop "
    "(= Mann-Whitney U / n1 n0), 98% bootstrap CI > 0.5 (the same one-sided 1% level; issue 49)";

CB_REGISTER_CLAIM(k1w_lm, {.id = "mia.K1-wikimia-lm",
                           .check_of = "mia.K1-wikimia",
                           .metric = "AUROC(Min-K%++ k=0.2) - AUROC(Min-K% k=0.2), trained transformer target",
                           .criterion = GainAbove0("AUROC gain"),
                           .criterion_reason = kAboveReason},
                  [](h::ClaimContext& ctx) { return K1(ctx, Split::kWikiMia); });
CB_REGISTER_CLAIM(k1m_lm, {.id = "mia.K1-mimir-lm",
                           .check_of = "mia.K1-mimir",
                           .metric = "AUROC(Min-K%++ k=0.2) - AUROC(Min-K% k=0.2), trained transformer target "
                                     "(members once per epoch)",
                           .criterion = GainAbove0("AUROC gain"),
                           .criterion_reason = kAboveReason},
                  [](h::ClaimContext& ctx) { return K1(ctx, Split::kMimir); });
// A check of the prerequisite mia.K2 (by construction) on the trained
// transformer's logits.
CB_REGISTER_CLAIM(k2_lm, {.id = "mia.K2-lm",
                          .check_of = "mia.K2",
                          .metric = "max |s_t(z + c) - s_t(z)| over the trained transformer's rows and shifts, fp64",
                          .criterion = h::AtMost(1e-9, "max |s_t change| (rounding only)")},
                  K2);
CB_REGISTER_CLAIM(f1_lm, {.id = "mia.F1-lm",
                          .check_of = "mia.F1",
                          .metric = "smaller of the mean AUROC gains FSD(Loss)-Loss and FSD(Min-K%)-Min-K%, "
                                    "LoRA r=16 fine-tune of the trained transformer target",
                          .criterion = h::AllOf({h::Above(0, "smaller gain, paired bootstrap 95% CI"),
                                                 h::Above(0, "larger gain, paired bootstrap 95% CI")}),
                          .criterion_reason = kAboveReason},
                  F1);
CB_REGISTER_CLAIM(f2_lm, {.id = "mia.F2-lm",
                          .check_of = "mia.F2",
                          .metric = "AUROC of the per-text NLL drop as a non-membership score, trained transformer "
                                    "target, pooled over LoRA fine-tunes",
                          .criterion = h::Above(0.5, "drop AUROC, stratified bootstrap 98% CI"),
                          .criterion_reason = kF2Reason,
                          .confidence = 0.98},
                  F2);
CB_REGISTER_CLAIM(f3_lm, {.id = "mia.F3-lm",
                          .check_of = "mia.F3",
                          .metric = "AUROC gain of FSD with the ood fine-tune (the larger |gain| of Loss, Min-K%), "
                                    "trained transformer target",
                          .criterion = h::AllOf({h::Within(-0.03, 0.03, "larger |gain|, 95% CI"),
                                                 h::Within(-0.03, 0.03, "smaller |gain|, 95% CI")})},
                  F3);

}  // namespace
}  // namespace cb::mia

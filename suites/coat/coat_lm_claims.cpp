// File: suites/coat/coat_lm_claims.cpp
// -----------------------------------------------------------------------------
// COAT's claims on the substrate's real transformer (issue 20; coat_lm.h for
// the emulation; the MLP versions of C1, C4 and C5 are in coat_claims.cpp).
// C1-lm and C4-lm are checks of the paper claims coat.C1 and coat.C4
// (check_of: the paper's words live there once):
//   C1-lm  DRE lowers the FP8 error of AdamW's first moment, on the
//          transformer's own moments captured at several points of an fp32
//          training run (worst capture judged)
//   C4-lm  training with FP8 optimizer states and FP8 saved activations ends
//          within 2% of the fp32 run's held-out loss (mean relative
//          difference, 95% t-interval over >= 3 paired seeds)
//   C5-lm  [prerequisite, as coat.C5] optimizer-state bytes per parameter of
//          this model's COAT state (2 + 24/128 by the storage format), with
//          the saved-activation bytes per token and the predicted end-to-end
//          ratio of this model recorded beside the paper's 1.54x
// The model, data and schedule per profile are in LmSetupFor(). OpenBLAS runs
// on one thread inside these claims (harness/blas_threads.h): the GEMMs are small, and
// a fixed thread count makes each run bit-identical run to run. Thresholds
// were fixed before the first run (the 2% band and the 1/1.1 ratio are
// coat.C4's and coat.C1's).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cblas.h>

#include "harness/blas_threads.h"
#include "harness/claim.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/coat/memory.h"
#include "reference/coat/quant.h"
#include "suites/coat/coat_lm.h"
#include "suites/lm/model_presets.h"
#include "suites/lm/substrate_data.h"

namespace cb::coat {
namespace {

namespace h = cb::harness;
namespace rc = cb::ref::coat;
namespace lm = cb::lm_suite;
using ref::fp8::Format;

CB_CLAIM_DEFAULTS({.paper = "COAT (Xi et al., ICLR 2025)"});

// The transformer, data and schedule of every claim here, by profile:
//   smoke  the substrate's "smoke" preset (d 32, 1 layer), vocab 384, 6 steps
//          of 2 x 32 tokens: seconds, also under ASan;
//   quick  d 64, 2 layers, 4 heads of 16 (2 KV heads), SwiGLU 176, tied
//          head, vocab 384: 0.12M parameters, 300 steps of 8 x 64 tokens
//          (about 10 s per run on one core);
//   full   the substrate's "draft" preset (0.62M parameters, vocab 2048) with
//          its recipe: 400 steps of 8 x 256 tokens, 5 seeds.
struct LmSetup {
  std::string name;
  ref::lm::TransformerConfig config;
  lm::TrainOptions options;
  int seeds = 3;
  int eval_batches = 16;
  std::string Describe(int64_t params) const {
    return h::StrFormat("%s transformer (d %d, %d layers, vocab %d, %lld params), %d steps x %d x %d tokens",
                        name.c_str(), config.hidden_size, config.num_hidden_layers, config.vocab_size,
                        (long long)params, options.steps, options.batch, options.seq);
  }
};

LmSetup LmSetupFor(const h::ClaimContext& ctx) {
  LmSetup s;
  lm::TrainOptions& o = s.options;
  o.weight_decay = 0.1;
  o.clip = 1.0;
  switch (ctx.profile()) {
    case h::Profile::kSmoke:
      s.name = "smoke";
      s.config = lm::PresetConfig("smoke", 384);
      o.steps = 6, o.warmup = 1, o.batch = 2, o.seq = 32, o.lr = 5e-3;
      s.eval_batches = 2;
      break;
    case h::Profile::kQuick:
      s.name = "coat-lm";
      s.config = lm::PresetConfig("smoke", 384);
      s.config.hidden_size = 64;
      s.config.num_hidden_layers = 2;
      s.config.num_attention_heads = 4;
      s.config.intermediate_size = 176;
      o.steps = 300, o.warmup = 20, o.batch = 8, o.seq = 64, o.lr = 5e-3;
      break;
    case h::Profile::kFull:
      s.name = "draft";
      s.config = lm::PresetConfig("draft");
      o.steps = 400, o.warmup = 20, o.batch = 8, o.seq = 256, o.lr = 4e-3;
      s.seeds = 5;
      break;
  }
  return s;
}

// The substrate's streams at a vocabulary size, built once per process (a
// pure function of the vocabulary size, substrate_data.h).
const lm::SubstrateData& Data(int vocab) {
  static std::mutex mu;
  static std::map<int, lm::SubstrateData> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(vocab);
  if (it == cache.end()) it = cache.emplace(vocab, lm::MakeSubstrateData(vocab)).first;
  return it->second;
}

LmRun MakeRun(const LmSetup& s, uint64_t seed, bool fp8_optimizer, bool fp8_activations) {
  LmRun r;
  r.config = s.config;
  r.options = s.options;
  r.options.seed = seed;  // batch order
  r.init_seed = seed;
  r.fp8_optimizer = fp8_optimizer;
  r.fp8_activations = fp8_activations;
  r.eval_batches = s.eval_batches;
  return r;
}

// Student t quantiles t_{0.975, df} for df = 1..10 (a table of constants).
double T975(int df) {
  static const double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
  return kT[std::clamp(df, 1, 10) - 1];
}

// ---------------------------------------------------------------------------
// C4-lm: paired fp32 / COAT training runs.

h::Outcome TrainingParityLm(h::ClaimContext& ctx) {
  const h::OpenBlasOneThread one_thread;
  const LmSetup s = LmSetupFor(ctx);
  const lm::SubstrateData& data = Data(s.config.vocab_size);
  std::vector<double> rel;
  int64_t params = 0;
  double fp32_seconds = 0, coat_seconds = 0;
  std::string ablation;
  std::vector<double> fp32_losses;  // the seed-to-seed spread: a yardstick for the difference
  double worst_coat_loss = 0;       // for the absolute leaf
  for (int k = 0; k < s.seeds; ++k) {
    const uint64_t seed = ctx.seed() + 7919 * uint64_t(k);
    ctx.Progress(double(k) / s.seeds, "seed " + std::to_string(k));
    const LmRunResult fp32 = TrainLm(MakeRun(s, seed, false, false), data.train_stream, data.heldout_stream);
    const LmRunResult coat = TrainLm(MakeRun(s, seed, true, true), data.train_stream, data.heldout_stream);
    params = fp32.params;
    fp32_seconds += fp32.seconds;
    coat_seconds += coat.seconds;
    const double r = (coat.heldout_loss - fp32.heldout_loss) / fp32.heldout_loss;
    rel.push_back(r);
    fp32_losses.push_back(fp32.heldout_loss);
    worst_coat_loss = std::max(worst_coat_loss, coat.heldout_loss);
    const nlohmann::json p = {{"seed", seed}, {"model", s.name}, {"params", params},
                              {"steps", s.options.steps}, {"tokens_per_step", s.options.batch * s.options.seq},
                              {"eval_batches", s.eval_batches}, {"threads", openblas_get_num_threads()}};
    for (const auto& [metric, v] : {std::pair{"heldout_loss_fp32", fp32.heldout_loss},
                                    {"heldout_loss_coat", coat.heldout_loss},
                                    {"last_train_loss_fp32", fp32.last_train_loss},
                                    {"last_train_loss_coat", coat.last_train_loss}}) {
      ctx.RecordExact({.case_name = "lm_training", .backend = "cpu", .params = p, .metric = metric,
                       .unit = "nats/token", .direction = "lower", .value = v});
    }
    ctx.RecordExact({.case_name = "lm_training", .backend = "cpu", .params = p,
                     .metric = "relative_heldout_loss_difference", .unit = "ratio", .direction = "lower", .value = r});
    if (k == 0) {  // which part costs what: each alone, on the first seed (recorded, not judged)
      for (const auto& [part, opt, act] : {std::tuple{"fp8_optimizer_only", true, false},
                                           {"fp8_activations_only", false, true}}) {
        const LmRunResult one = TrainLm(MakeRun(s, seed, opt, act), data.train_stream, data.heldout_stream);
        nlohmann::json q = p;
        q["part"] = part;
        ctx.RecordExact({.case_name = "lm_training_ablation", .backend = "cpu", .params = q,
                         .metric = "relative_heldout_loss_difference", .unit = "ratio", .direction = "lower",
                         .value = (one.heldout_loss - fp32.heldout_loss) / fp32.heldout_loss});
        ablation += h::StrFormat("%s%s %.3g%%", ablation.empty() ? "" : ", ", part,
                                 100 * (one.heldout_loss - fp32.heldout_loss) / fp32.heldout_loss);
      }
    }
    for (const auto& [which, secs] : {std::pair{"fp32", fp32.seconds}, {"coat_emulated", coat.seconds}}) {
      ctx.RecordTiming({.case_name = "lm_training", .backend = "cpu", .params = {{"seed", seed}, {"run", which}},
                        .metric = "train_seconds", .unit = "s", .direction = "lower", .value = secs});
    }
  }
  const double mean = h::Mean(rel);
  double var = 0;
  for (double r : rel) var += (r - mean) * (r - mean);
  const double se = std::sqrt(var / (rel.size() - 1) / rel.size());
  const double half = T975(int(rel.size()) - 1) * se;
  const auto [lo, hi] = std::minmax_element(rel.begin(), rel.end());
  const double fp32_mean = h::Mean(fp32_losses);
  double fp32_var = 0;
  for (double l : fp32_losses) fp32_var += (l - fp32_mean) * (l - fp32_mean);
  const double fp32_cv = std::sqrt(fp32_var / (fp32_losses.size() - 1)) / fp32_mean;
  ctx.RecordExact({.case_name = "lm_training", .backend = "cpu", .params = {{"seeds", s.seeds}, {"model", s.name}},
                   .metric = "fp32_heldout_loss_seed_cv", .unit = "ratio", .direction = "lower", .value = fp32_cv,
                   .n = int64_t(fp32_losses.size())});
  ctx.RecordEstimate({.case_name = "lm_training", .backend = "cpu", .params = {{"seeds", s.seeds}, {"model", s.name}},
                      .metric = "mean_relative_heldout_loss_difference", .unit = "ratio", .direction = "lower",
                      .value = mean, .ci_low = mean - half, .ci_high = mean + half, .n = int64_t(rel.size())});
  const double uniform_loss = std::log(double(s.config.vocab_size));
  return ctx.Judge({h::Estimate::Ci(mean, mean - half, mean + half, h::IntervalMethod::kStudentT,
                                    int64_t(rel.size())),
                    h::Estimate::Exact(worst_coat_loss / uniform_loss)},
                   s.Describe(params) +
                       h::StrFormat("; worst COAT held-out loss %.4g vs ln V = %.4g (uniform guess)",
                                    worst_coat_loss, uniform_loss) +
                       h::StrFormat("; %d paired seeds (same init and batches); COAT = E4M3+DRE moments + FP8 saved "
                                    "activations, fp32 forward; per-seed rel. diff in [%.3g%%, %.3g%%] (fp32 loss "
                                    "%.4g, seed-to-seed sd %.3g%% of it); "
                                    "first seed, each part alone: %s; train time fp32 %.3g s, emulated COAT "
                                    "%.3g s in all",
                                    s.seeds, 100 * *lo, 100 * *hi, fp32_mean, 100 * fp32_cv, ablation.c_str(),
                                    fp32_seconds, coat_seconds));
}

// ---------------------------------------------------------------------------
// C1-lm: DRE vs plain FP8 on the transformer's moments over training.

// Per 1x128 group (within each tensor) squared errors of DRE and of plain
// per-group max scaling, fp64.
struct GroupErrors {
  std::vector<double> dre, dre_paper, plain, zeros;  // zeros: sum of squares (the error of storing zeros)
  float k_min = INFINITY, k_max = -INFINITY;
};

GroupErrors MomentGroupErrors(const std::vector<float>& x, const std::vector<lm::ParamSlot>& slots) {
  GroupErrors e;
  rc::DreOptions paper;
  paper.target = rc::DreTarget::kPaper;
  for (const lm::ParamSlot& s : slots) {
    const std::span<const float> t(x.data() + s.offset, s.size);
    const rc::DreTensor q = rc::DreQuantize(t, {});
    const std::vector<float> dre = rc::DreDequantize(q);
    const std::vector<float> dre_p = rc::DreDequantize(rc::DreQuantize(t, paper));
    const std::vector<float> plain = rc::Dequantize(rc::MaxScaleQuantize(t, rc::kDreGroupSize, Format::kE4M3));
    for (const rc::DreGroup& g : q.groups) e.k_min = std::min(e.k_min, g.k), e.k_max = std::max(e.k_max, g.k);
    for (size_t begin = 0; begin < s.size; begin += rc::kDreGroupSize) {
      double a = 0, b = 0, c = 0, z = 0;
      for (size_t i = begin; i < std::min(s.size, begin + rc::kDreGroupSize); ++i) {
        a += std::pow(double(dre[i]) - t[i], 2);
        b += std::pow(double(dre_p[i]) - t[i], 2);
        c += std::pow(double(plain[i]) - t[i], 2);
        z += double(t[i]) * t[i];
      }
      e.dre.push_back(a);
      e.dre_paper.push_back(b);
      e.plain.push_back(c);
      e.zeros.push_back(z);
    }
  }
  return e;
}

// sum(a) / sum(b) with a paired bootstrap 95% CI over groups.
h::Estimate SumRatio(const std::vector<double>& a, const std::vector<double>& b, uint64_t seed) {
  const double sa = std::accumulate(a.begin(), a.end(), 0.0), sb = std::accumulate(b.begin(), b.end(), 0.0);
  std::vector<double> idx(a.size());
  std::iota(idx.begin(), idx.end(), 0.0);
  const auto ci = h::BootstrapCi(
      idx,
      [&](std::span<const double> pick) {
        double x = 0, y = 0;
        for (const double i : pick) x += a[size_t(i)], y += b[size_t(i)];
        return y > 0 ? x / y : 1.0;
      },
      0.95, 1000, seed);
  return h::Estimate::Ci(sb > 0 ? sa / sb : 1.0, ci.low, ci.high, h::IntervalMethod::kPercentileBootstrap,
                         int64_t(a.size()));
}

h::Outcome DreOnTransformerMoments(h::ClaimContext& ctx) {
  const h::OpenBlasOneThread one_thread;
  const LmSetup s = LmSetupFor(ctx);
  const lm::SubstrateData& data = Data(s.config.vocab_size);
  LmRun run = MakeRun(s, ctx.seed(), false, false);
  const int n = s.options.steps;
  run.capture_steps = {std::max(1, n / 10), std::max(1, n / 4), std::max(1, n / 2), n};
  run.capture_steps.erase(std::unique(run.capture_steps.begin(), run.capture_steps.end()), run.capture_steps.end());
  const LmRunResult r = TrainLm(run, data.train_stream, data.heldout_stream);
  std::string steps;
  for (int c : run.capture_steps) steps += (steps.empty() ? "" : ",") + std::to_string(c);
  h::Estimate worst = h::Estimate::Exact(-1);
  double worst_vs_zeros = 1;  // MSE(DRE) / MSE(zeros) at the judged capture
  int worst_step = 0;
  std::string per_capture;
  for (const MomentCapture& c : r.captures) {
    for (const char* which : {"m", "v"}) {
      const GroupErrors e = MomentGroupErrors(which[0] == 'm' ? c.m : c.v, r.slots);
      const nlohmann::json p = {{"moment", which}, {"step", c.step}, {"model", s.name}, {"groups", e.dre.size()},
                                {"k_min", e.k_min}, {"k_max", e.k_max}};
      const h::Estimate authors = SumRatio(e.dre, e.plain, ctx.seed());
      const h::Estimate paper = SumRatio(e.dre_paper, e.plain, ctx.seed());
      for (const auto& [metric, est] : {std::pair{"mse_dre_authors_over_plain_e4m3", authors},
                                        {"mse_dre_paper_over_plain_e4m3", paper}}) {
        ctx.RecordEstimate({.case_name = "lm_moments", .backend = "cpu", .params = p, .metric = metric,
                            .unit = "ratio", .direction = "lower", .value = est.value, .ci_low = est.ci_low,
                            .ci_high = est.ci_high, .n = int64_t(e.dre.size())});
      }
      per_capture += h::StrFormat("%s%s@%d %.3g (k %.3g..%.3g)", per_capture.empty() ? "" : ", ", which, c.step,
                                  authors.value, e.k_min, e.k_max);
      if (which[0] == 'm' && authors.value > worst.value) {
        worst = authors, worst_step = c.step;
        const double zeros = std::accumulate(e.zeros.begin(), e.zeros.end(), 0.0);
        worst_vs_zeros = zeros > 0 ? std::accumulate(e.dre.begin(), e.dre.end(), 0.0) / zeros : 1.0;
      }
    }
  }
  return ctx.Judge({worst, h::Estimate::Exact(worst_vs_zeros)},
                   s.Describe(r.params) +
                       h::StrFormat("; fp32 AdamW moments captured after steps %s; judged: the worst m capture "
                                    "(step %d; MSE(DRE)/MSE(zeros) %.3g); MSE(DRE)/MSE(max scaling) per capture: %s",
                                    steps.c_str(), worst_step, worst_vs_zeros, per_capture.c_str()));
}

// ---------------------------------------------------------------------------
// C5-lm: memory of this model.

h::Outcome MemoryOfTransformer(h::ClaimContext& ctx) {
  const h::OpenBlasOneThread one_thread;
  LmSetup s = LmSetupFor(ctx);
  s.options.steps = 3;  // state and activation sizes do not depend on the step count
  s.options.warmup = 1;
  s.eval_batches = 1;
  const lm::SubstrateData& data = Data(s.config.vocab_size);
  const LmRunResult r = TrainLm(MakeRun(s, ctx.seed(), true, true), data.train_stream, data.heldout_stream);
  const double opt_bpp = double(r.state_bytes) / double(r.params);
  const int64_t tokens = int64_t(s.options.batch) * s.options.seq;
  const SavedBytes& a = r.saved_per_step;
  // The logits [tokens, V] are alive during the backward pass in both
  // schemes, bf16 (memory.h's accounting); p is left out (FlashAttention).
  const double logits = 2.0 * double(tokens) * s.config.vocab_size;
  const double act_bf16 = double(a.Bf16Bytes(false)) + logits, act_coat = double(a.CoatBytes(false)) + logits;
  const rc::BytesPerParam bf16 = rc::Bf16BytesPerParam();
  rc::BytesPerParam coat = rc::CoatBytesPerParam();
  coat.optimizer = opt_bpp;  // measured, in place of 2 + 24/128
  const double total_bf16 = double(r.params) * bf16.Total() + act_bf16;
  const double total_coat = double(r.params) * coat.Total() + act_coat;
  const nlohmann::json p = {{"model", s.name}, {"params", r.params}, {"tokens_per_step", tokens}};
  auto rec = [&](const char* metric, const char* unit, const char* dir, double v) {
    ctx.RecordExact({.case_name = "lm_memory", .backend = "cpu", .params = p, .metric = metric, .unit = unit,
                     .direction = dir, .value = v});
  };
  rec("coat_optimizer_bytes_per_param", "B", "lower", opt_bpp);
  rec("fp32_over_coat_optimizer", "ratio", "higher", 8.0 / opt_bpp);
  rec("saved_activation_bytes_per_token_bf16", "B", "lower", act_bf16 / double(tokens));
  rec("saved_activation_bytes_per_token_coat", "B", "lower", act_coat / double(tokens));
  rec("saved_activation_bf16_over_coat", "ratio", "higher", act_bf16 / act_coat);
  // Per saved value (p left out, no logits): 2 B in bf16; COAT's mix of FP8
  // codes with their scales and the tensors it keeps in bf16.
  const double values = double(a.Elements() - a.attention_probs);
  rec("saved_activation_bytes_per_value_bf16", "B", "lower", double(a.Bf16Bytes(false)) / values);
  rec("saved_activation_bytes_per_value_coat", "B", "lower", double(a.CoatBytes(false)) / values);
  rec("saved_activation_bf16_over_coat_with_probs", "ratio", "higher",
      (double(a.Bf16Bytes(true)) + logits) / (double(a.CoatBytes(true)) + logits));
  rec("predicted_end_to_end_bf16_over_coat", "ratio", "higher", total_bf16 / total_coat);
  return ctx.Judge({h::Estimate::Exact(opt_bpp)},
                   s.Describe(r.params) +
                       h::StrFormat("; measured COAT state %.4g B/param (fp32 AdamW 8: %.3gx); recorded, not "
                                    "judged: saved activations "
                                    "per token bf16 %.4g B vs COAT %.4g B (%.3gx, logits bf16 in both, p left out "
                                    "as FlashAttention recomputes it; %.3g vs %.3g B per saved value); predicted "
                                    "end-to-end at %lld tokens per step, one GPU: %.3gx (paper 1.54x for "
                                    "OLMo/Llama on 8xH100)",
                                    opt_bpp, 8.0 / opt_bpp, act_bf16 / tokens, act_coat / tokens,
                                    act_bf16 / act_coat, double(a.Bf16Bytes(false)) / values,
                                    double(a.CoatBytes(false)) / values, (long long)tokens, total_bf16 / total_coat));
}

CB_REGISTER_CLAIM(kC1Lm, {.id = "coat.C1-lm", .check_of = "coat.C1",
                          .metric = "MSE(DRE, authors' kernel) / MSE(per-group max scaling), first moment of a "
                                    "transformer's AdamW run, worst of its captures",
                          .criterion = h::AllOf({h::AtMost(1.0 / 1.1, "MSE ratio, bootstrap 95% CI over groups"),
                                                 h::Below(1, "MSE(DRE) / MSE(storing zeros), judged capture")}),
                          .criterion_reason = "issue 49: a comparison claim carries an absolute leaf (error below "
                                              "that of storing zeros), added to the unchanged comparison leaf"},
                  DreOnTransformerMoments);
// A harsher check of coat.C4: besides the FP8 optimizer states (E4M3 +
// DRE), the saved activations are FP8 too (mixed granularity).
CB_REGISTER_CLAIM(kC4Lm, {.id = "coat.C4-lm", .check_of = "coat.C4",
                          .metric = "mean over seeds of (L_coat - L_fp32) / L_fp32, held-out loss of a transformer "
                                    "pre-trained with FP8 optimizer states and FP8 saved activations",
                          .criterion = h::AllOf({h::Within(-0.02, 0.02,
                                                           "mean relative loss difference, 95% t-interval over seeds"),
                                                 h::Below(1, "worst COAT held-out loss / ln(vocab)")}),
                          .criterion_reason = "issue 49: a parity claim carries an absolute leaf (COAT's model beats "
                                              "a uniform guess), added to the unchanged parity leaf"},
                  TrainingParityLm);
// A check of the prerequisite coat.C5 on the transformer: the bytes per
// parameter are fixed by the storage format.
CB_REGISTER_CLAIM(kC5Lm, {.id = "coat.C5-lm", .check_of = "coat.C5",
                          .metric = "measured COAT state bytes per parameter of the transformer (its saved-"
                                    "activation bytes and end-to-end ratio recorded, not judged)",
                          .criterion = h::Within(2.15, 2.25, "state bytes per parameter"),
                          .criterion_reason = "restated (issue 49): it checked bytes per parameter that the storage "
                                              "format fixes, not the end-to-end memory its statement named"},
                  MemoryOfTransformer);

}  // namespace
}  // namespace cb::coat

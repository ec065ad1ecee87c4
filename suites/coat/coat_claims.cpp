// File: suites/coat/coat_claims.cpp
// -----------------------------------------------------------------------------
// Claims of COAT (Xi et al., "COAT: Compressing Optimizer states and
// Activation for memory-efficient FP8 Training", ICLR 2025), checked on the
// CPU reference (and the GPU where lent). README: suites/coat/README.md.
//   C1  DRE lowers the quantization MSE of AdamW's first moment (>= 1.1x)
//   C2  k in (1/16)Z and each group's max maps to +-448 [prerequisite]
//   C3  1x16 activation groups beat per-tensor scaling with outlier channels
//   C4  CoatAdamW trains to within 2% of fp32 AdamW's final loss (3 seeds)
//   C5  CoatAdamW's state takes ~2.19 bytes/param, as its storage format
//       fixes [prerequisite]; the end-to-end memory model is recorded beside
//   C5s the 1.43x end-to-end speedup (GPU: FP8 vs BF16 linear-layer GEMMs)
//   E1  GPU FP8 encodes equal the CPU emulator bit for bit (GPU) [prerequisite]
//   P1  CUDA DRE quantize/dequantize at >= 70% of the copy bandwidth (GPU)
//       [prerequisite: our own target]
// The transformer's checks of C1, C3 and C4 (coat.*-lm) are in
// coat_lm_claims.cpp and coat_lm_act_claim.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "generators/coat_tasks.h"
#include "harness/ceilings.h"
#include "harness/claim.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/coat/adamw.h"
#include "reference/coat/memory.h"
#include "reference/coat/mlp.h"
#include "reference/coat/quant.h"
#include "suites/coat/coat.h"
#include "suites/coat/coat_cuda.h"

namespace cb::coat {
namespace {

namespace h = cb::harness;
namespace rc = cb::ref::coat;
using ref::fp8::Format;

CB_CLAIM_DEFAULTS({.paper = "COAT (Xi et al., ICLR 2025)"});

// The small model and task every optimizer claim uses, sized by profile.
struct Setup {
  rc::MlpShape shape;
  gen::ClassificationTask train, eval;
  rc::TrainConfig cfg;
  std::string Describe() const {
    return "MLP " + std::to_string(shape.in) + "-" + std::to_string(shape.hidden) + "-" +
           std::to_string(shape.hidden) + "-" + std::to_string(shape.out) + " (" +
           std::to_string(shape.NumParams()) + " params), teacher task, " +
           std::to_string(cfg.steps) + " steps x batch " + std::to_string(cfg.batch);
  }
};

Setup MakeSetup(const h::ClaimContext& ctx, uint64_t seed) {
  Setup s;
  s.shape = ctx.ByProfile(rc::MlpShape{16, 48, 4}, rc::MlpShape{32, 128, 8}, rc::MlpShape{64, 256, 16});
  s.train = gen::TeacherClassification(seed, seed, ctx.ByProfile<int64_t>(1024, 8192, 32768), s.shape.in, s.shape.out);
  s.eval = gen::TeacherClassification(seed, seed + 1000003, ctx.ByProfile<int64_t>(512, 2048, 8192), s.shape.in, s.shape.out);
  s.cfg.steps = ctx.ByProfile(60, 500, 2000);
  s.cfg.batch = ctx.ByProfile<int64_t>(32, 64, 128);
  s.cfg.init_seed = seed;
  return s;
}

// Sum of squared errors per 128-group (fp64).
std::vector<double> GroupSse(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<double> sse((x.size() + 127) / 128, 0.0);
  for (size_t i = 0; i < x.size(); ++i) sse[i / 128] += std::pow(double(x[i]) - y[i], 2);
  return sse;
}

// Ratio sum(a) / sum(b) with a bootstrap CI over groups (paired resampling).
struct RatioCi {
  double value, low, high;
  int64_t n;  // groups (or rows) resampled
  h::Estimate AsEstimate() const {
    return h::Estimate::Ci(value, low, high, h::IntervalMethod::kPercentileBootstrap, n);
  }
};

double Sum(const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0); }

// Per-group sums of squares: the error of storing zeros, the trivial
// baseline of the absolute leaves (issue 49: a comparison also says the
// winner is better than doing nothing).
std::vector<double> GroupSumSquares(const std::vector<float>& x) {
  return GroupSse(x, std::vector<float>(x.size(), 0.0f));
}
RatioCi GroupRatio(const std::vector<double>& a, const std::vector<double>& b, uint64_t seed) {
  const double sa = std::accumulate(a.begin(), a.end(), 0.0), sb = std::accumulate(b.begin(), b.end(), 0.0);
  std::vector<double> idx(a.size());
  std::iota(idx.begin(), idx.end(), 0.0);
  const auto ci = h::BootstrapCi(
      idx,
      [&](std::span<const double> pick) {
        double x = 0, y = 0;
        for (const double i : pick) {
          x += a[size_t(i)];
          y += b[size_t(i)];
        }
        return y > 0 ? x / y : 1.0;
      },
      0.95, 1000, seed);
  return {sb > 0 ? sa / sb : 1.0, ci.low, ci.high, int64_t(a.size())};
}

// ---------------------------------------------------------------------------
// C1 (and the data of C2): moments captured from a real fp32 AdamW run.

struct CapturedMoments {
  std::vector<float> m, v;
  std::string setting;
};

CapturedMoments Capture(h::ClaimContext& ctx) {
  Setup s = MakeSetup(ctx, ctx.seed());
  s.cfg.steps = ctx.ByProfile(60, 300, 2000);
  const rc::TrainResult r = rc::TrainMlp(s.shape, s.train, s.eval, rc::OptimizerKind::kFp32AdamW, s.cfg);
  return {r.m, r.v, s.Describe() + ", fp32 AdamW moments after the last step"};
}

h::Outcome DreLowersMomentError(h::ClaimContext& ctx) {
  const CapturedMoments cap = Capture(ctx);
  RatioCi m_ratio{};
  double m_vs_zeros = 0;  // MSE(DRE) / MSE(zeros), first moment
  std::string setting = cap.setting;
  for (const char* which : {"m", "v"}) {
    const std::vector<float>& x = which[0] == 'm' ? cap.m : cap.v;
    const auto dre = rc::DreDequantize(rc::DreQuantize(x, {}));
    rc::DreOptions paper;
    paper.target = rc::DreTarget::kPaper;
    const auto dre_paper = rc::DreDequantize(rc::DreQuantize(x, paper));
    rc::DreOptions vila;  // the VILA copy of the kernel: min over all |x|, zeros included
    vila.min_includes_zeros = true;
    vila.min_val = 1e-20f;
    const auto dre_vila = rc::DreDequantize(rc::DreQuantize(x, vila));
    const auto plain = rc::Dequantize(rc::MaxScaleQuantize(x, 128, Format::kE4M3));
    const auto plain_e5m2 = rc::Dequantize(rc::MaxScaleQuantize(x, 128, Format::kE5M2));
    const auto sse_plain = GroupSse(x, plain);
    const RatioCi r = GroupRatio(GroupSse(x, dre), sse_plain, ctx.seed());
    const RatioCi rp = GroupRatio(GroupSse(x, dre_paper), sse_plain, ctx.seed());
    const RatioCi r5 = GroupRatio(GroupSse(x, plain_e5m2), sse_plain, ctx.seed());
    const RatioCi rv = GroupRatio(GroupSse(x, dre_vila), sse_plain, ctx.seed());
    const auto zeros = std::count(x.begin(), x.end(), 0.0f);
    const auto t = rc::DreQuantize(x, {});
    float k_lo = INFINITY, k_hi = -INFINITY;
    for (const auto& g : t.groups) {
      k_lo = std::min(k_lo, g.k);
      k_hi = std::max(k_hi, g.k);
    }
    const nlohmann::json params = {{"moment", which}, {"elements", x.size()}, {"groups", t.groups.size()},
                                   {"k_min", k_lo}, {"k_max", k_hi}, {"exact_zeros", zeros}};
    auto rec = [&](const std::string& metric, const RatioCi& v) {
      ctx.RecordEstimate({.case_name = "captured_moments", .backend = "cpu", .params = params, .metric = metric,
                          .unit = "ratio", .direction = "lower", .value = v.value, .ci_low = v.low,
                          .ci_high = v.high, .n = int64_t(t.groups.size())});
    };
    rec("mse_dre_authors_over_plain_e4m3", r);
    rec("mse_dre_paper_over_plain_e4m3", rp);
    rec("mse_plain_e5m2_over_plain_e4m3", r5);
    rec("mse_dre_vila_kernel_over_plain_e4m3", rv);
    ctx.RecordExact({.case_name = "captured_moments", .backend = "cpu", .params = params,
                     .metric = "mse_plain_e4m3", .unit = "1", .direction = "lower",
                     .value = rc::Mse(x, plain), .n = int64_t(x.size())});
    if (which[0] == 'm') {
      m_ratio = r;
      const double zeros_sse = Sum(GroupSumSquares(x));
      m_vs_zeros = zeros_sse > 0 ? Sum(GroupSse(x, dre)) / zeros_sse : 1.0;
      setting += h::StrFormat("; m: k in [%.4g, %.4g]", k_lo, k_hi);
    } else {
      setting += h::StrFormat("; v: MSE ratio %.4g [%.4g, %.4g], k in [%.4g, %.4g]", r.value, r.low, r.high,
                              k_lo, k_hi);
    }
  }
  return ctx.Judge({m_ratio.AsEstimate(), h::Estimate::Exact(m_vs_zeros)},
                   setting + h::StrFormat("; m: MSE(DRE) / MSE(zeros) %.3g", m_vs_zeros));
}

// ---------------------------------------------------------------------------
// C2: k in (1/16)Z and every group's max maps to +-448.

h::Outcome KGridAndMaxMapping(h::ClaimContext& ctx) {
  const CapturedMoments cap = Capture(ctx);
  // Plus synthetic lognormal groups over a wide range of spreads.
  h::Rng rng(ctx.seed(), 21);
  std::vector<float> synth(128 * ctx.ByProfile<int64_t>(256, 4096, 65536));
  for (size_t i = 0; i < synth.size(); ++i) {
    const double sigma = 0.25 + 4.0 * double((i / 128) % 16) / 15.0;
    synth[i] = static_cast<float>((rng.Uniform() < 0.5 ? -1 : 1) * 1e-3 * std::exp(sigma * rng.Normal()));
  }
  int64_t groups = 0, off_grid = 0, max_not_448 = 0, min_flushed = 0;
  const std::vector<float>* sets[] = {&cap.m, &cap.v, &synth};
  for (const std::vector<float>* x : sets) {
    const auto t = rc::DreQuantize(*x, {});
    for (size_t g = 0; g < t.groups.size(); ++g) {
      ++groups;
      off_grid += t.groups[g].k * 16.0f != std::floor(t.groups[g].k * 16.0f);
      const size_t begin = g * 128, end = std::min(x->size(), begin + 128);
      size_t arg_max = begin, arg_min = end;
      for (size_t i = begin; i < end; ++i) {
        if (std::fabs((*x)[i]) > std::fabs((*x)[arg_max])) arg_max = i;
        if ((*x)[i] != 0.0f && (arg_min == end || std::fabs((*x)[i]) < std::fabs((*x)[arg_min]))) arg_min = i;
      }
      if ((*x)[arg_max] == 0.0f) continue;  // all-zero group: nothing to map
      max_not_448 += (t.codes[arg_max] & 0x7F) != 0x7E;
      min_flushed += arg_min != end && (t.codes[arg_min] & 0x7F) == 0;
    }
  }
  const nlohmann::json params = {{"groups", groups}};
  for (const auto& [metric, count] : {std::pair{"k_off_grid", off_grid}, {"max_not_448", max_not_448},
                                      {"nonzero_min_flushed_to_zero", min_flushed}}) {
    ctx.RecordExact({.case_name = "dre_groups", .backend = "cpu", .params = params, .metric = metric,
                     .unit = "count", .direction = "lower", .value = double(count), .n = groups});
  }
  return ctx.Judge({h::Estimate::Exact(double(off_grid + max_not_448))},
                   std::to_string(groups) + " groups: captured m, v (" + cap.setting + ") + synthetic lognormal");
}

// ---------------------------------------------------------------------------
// C3: 1x16 groups vs per-tensor scaling with outlier channels.

h::Outcome Group16BeatsPerTensor(h::ClaimContext& ctx) {
  const int64_t tokens = ctx.ByProfile<int64_t>(256, 2048, 8192);
  const int64_t channels = ctx.ByProfile<int64_t>(512, 2048, 4096);
  const auto a = gen::OutlierActivations(ctx.seed(), tokens, channels, channels / 256, 100.0f);
  const auto control = gen::OutlierActivations(ctx.seed(), tokens, channels, 0, 1.0f);
  RatioCi with_outliers{}, without{};
  double group_vs_zeros = 0;  // MSE(1x16) / MSE(zeros), outlier activations
  for (const auto* t : {&a, &control}) {
    const auto group = rc::Dequantize(rc::QuantizePerGroup16(t->x, Format::kE4M3));
    const auto tensor = rc::Dequantize(rc::QuantizePerTensor(t->x, Format::kE4M3));
    // Per-token (row) squared errors, so the bootstrap resamples tokens.
    std::vector<double> eg(tokens, 0.0), et(tokens, 0.0);
    for (size_t i = 0; i < t->x.size(); ++i) {
      eg[i / channels] += std::pow(double(group[i]) - t->x[i], 2);
      et[i / channels] += std::pow(double(tensor[i]) - t->x[i], 2);
    }
    const RatioCi r = GroupRatio(eg, et, ctx.seed());
    const bool outliers = t == &a;
    ctx.RecordEstimate({.case_name = outliers ? "outlier_channels" : "no_outliers", .backend = "cpu",
                        .params = {{"tokens", tokens}, {"channels", channels},
                                   {"outlier_channels", t->outliers.size()}, {"outlier_scale", outliers ? 100.0 : 1.0},
                                   {"input_hash", gen::ContentHash(*t)}},
                        .metric = "mse_group16_over_per_tensor", .unit = "ratio", .direction = "lower",
                        .value = r.value, .ci_low = r.low, .ci_high = r.high, .n = tokens});
    (outliers ? with_outliers : without) = r;
    if (outliers) {
      double zeros = 0;
      for (const float v : t->x) zeros += double(v) * v;
      group_vs_zeros = zeros > 0 ? Sum(eg) / zeros : 1.0;
    }
  }
  // Group scaling's two-stage max equals the one-stage max bit for bit.
  const float one = rc::AbsMaxOneStage(a.x), two = rc::AbsMaxTwoStage(a.x, 16);
  ctx.RecordExact({.case_name = "group_scaling_max", .backend = "cpu", .params = {{"elements", a.x.size()}},
                   .metric = "two_stage_max_bits_differ", .unit = "bool", .direction = "lower",
                   .value = double(std::bit_cast<uint32_t>(one) != std::bit_cast<uint32_t>(two))});
  return ctx.Judge({with_outliers.AsEstimate(), h::Estimate::Exact(group_vs_zeros)},
                   h::StrFormat("(%lld, %lld) N(0,1) activations, %zu channels x100, E4M3; without outliers the "
                                "ratio is %.4g; MSE(1x16) / MSE(zeros) %.3g",
                                (long long)tokens, (long long)channels, a.outliers.size(), without.value,
                                group_vs_zeros));
}

// ---------------------------------------------------------------------------
// C4: training parity over 3 seeds.

h::Outcome TrainingParity(h::ClaimContext& ctx) {
  std::vector<double> rel;
  std::string setting;
  double worst_coat_loss = 0, chance_loss = 0;
  for (uint64_t k = 0; k < 3; ++k) {
    ctx.Progress(double(k) / 3.0, "seed " + std::to_string(k));
    const uint64_t seed = ctx.seed() + 7919 * k;
    const Setup s = MakeSetup(ctx, seed);
    setting = s.Describe();
    const auto fp32 = rc::TrainMlp(s.shape, s.train, s.eval, rc::OptimizerKind::kFp32AdamW, s.cfg);
    const auto coat = rc::TrainMlp(s.shape, s.train, s.eval, rc::OptimizerKind::kCoatAdamW, s.cfg);
    const double r = (coat.eval_loss - fp32.eval_loss) / fp32.eval_loss;
    rel.push_back(r);
    worst_coat_loss = std::max(worst_coat_loss, coat.eval_loss);
    chance_loss = std::log(double(s.shape.out));
    const nlohmann::json params = {{"seed", seed}, {"steps", s.cfg.steps}, {"params", s.shape.NumParams()}};
    for (const auto& [metric, loss] : {std::pair{"eval_loss_fp32_adamw", fp32.eval_loss}, {"eval_loss_coat_adamw", coat.eval_loss}}) {
      ctx.RecordExact({.case_name = "mlp_training", .backend = "cpu", .params = params, .metric = metric,
                       .unit = "nats", .direction = "lower", .value = loss, .input_hash = gen::ContentHash(s.train)});
    }
    ctx.RecordExact({.case_name = "mlp_training", .backend = "cpu", .params = params,
                     .metric = "relative_loss_difference", .unit = "ratio", .direction = "lower", .value = r});
  }
  // Every seed must be within 2%: the 3 runs are deterministic, and their
  // [min, max] is no confidence interval, so the worst seed is judged as
  // measured.
  double worst = 0;
  for (const double r : rel) worst = std::max(worst, std::fabs(r));
  const auto [lo, hi] = std::minmax_element(rel.begin(), rel.end());
  return ctx.Judge({h::Estimate::Exact(worst), h::Estimate::Exact(worst_coat_loss / chance_loss)},
                   setting + h::StrFormat(", 3 seeds; value = max |rel. diff|, signed %.3g..%.3g; worst CoatAdamW "
                                          "held-out loss %.4g vs %.4g of a uniform guess",
                                          *lo, *hi, worst_coat_loss, chance_loss));
}

// ---------------------------------------------------------------------------
// C5: memory.

h::Outcome MemoryRatio(h::ClaimContext& ctx) {
  Setup s = MakeSetup(ctx, ctx.seed());
  s.cfg.steps = 5;  // state memory does not depend on the number of steps
  const int64_t n = s.shape.NumParams();
  const auto fp32 = rc::TrainMlp(s.shape, s.train, s.eval, rc::OptimizerKind::kFp32AdamW, s.cfg);
  const auto coat = rc::TrainMlp(s.shape, s.train, s.eval, rc::OptimizerKind::kCoatAdamW, s.cfg);
  const double fp32_bpp = double(fp32.state_peak_bytes) / double(n);
  const double coat_bpp = double(coat.state_peak_bytes) / double(n);
  const nlohmann::json small = {{"params", n}, {"model", "mlp"}};
  ctx.RecordExact({.case_name = "optimizer_state_peak", .backend = "cpu", .params = small,
                   .metric = "fp32_adamw_bytes_per_param", .unit = "B", .direction = "lower", .value = fp32_bpp});
  ctx.RecordExact({.case_name = "optimizer_state_peak", .backend = "cpu", .params = small,
                   .metric = "coat_adamw_bytes_per_param", .unit = "B", .direction = "lower", .value = coat_bpp});
  ctx.RecordExact({.case_name = "optimizer_state_peak", .backend = "cpu", .params = small,
                   .metric = "fp32_over_coat", .unit = "ratio", .direction = "higher", .value = fp32_bpp / coat_bpp});
  std::string e2e;
  for (const auto& c : rc::PaperConfigs()) {
    const auto bf16 = rc::EstimateBf16(c), fp8 = rc::EstimateCoat(c);
    const double ratio = bf16.Total() / fp8.Total();
    ctx.RecordExact({.case_name = "end_to_end_memory_model", .backend = "analytic",
                     .params = {{"model", c.name}, {"params", bf16.params}, {"gpus", c.gpus},
                                {"micro_batch", c.micro_batch}, {"seq_len", c.seq_len},
                                {"bf16_gib_per_gpu", bf16.Total() / (1 << 30)},
                                {"coat_gib_per_gpu", fp8.Total() / (1 << 30)}, {"paper_ratio", 1.54}},
                     .metric = "predicted_bf16_over_coat", .unit = "ratio", .direction = "higher", .value = ratio});
    e2e += h::StrFormat("%s%s %.3gx", e2e.empty() ? "" : ", ", c.name.c_str(), ratio);
  }
  return ctx.Judge({h::Estimate::Exact(coat_bpp)},
                   h::StrFormat("measured state bytes of the two optimizers on the %lld-param MLP: fp32 %.4g B/param "
                                "(ratio %.3gx); recorded, not judged: predicted end-to-end (our analytic "
                                "accounting, paper 1.54x): %s",
                                (long long)n, fp32_bpp, fp32_bpp / coat_bpp, e2e.c_str()));
}

// ---------------------------------------------------------------------------
// C5s and P1: GPU only (the runner makes them UNMEASURABLE without one).

h::Outcome LinearLayerSpeedup(h::ClaimContext& ctx) {
#if CB_HAVE_CUDA
  const int64_t tokens = ctx.ByProfile<int64_t>(1024, 4096, 8192);
  struct Shape { const char* name; int64_t n, k; };
  // Llama-2-7B linear layers: D (tokens, n) = X (tokens, k) W (k, n).
  const Shape shapes[] = {{"qkv_proj", 3 * 4096, 4096}, {"o_proj", 4096, 4096},
                          {"gate_up_proj", 2 * 11008, 4096}, {"down_proj", 4096, 11008}};
  std::vector<double> speedups;
  for (const Shape& s : shapes) {
    const GemmComparison c = CompareGemmCuda(tokens, s.n, s.k, ctx.ByProfile(5, 15, 30));
    const double sp = c.bf16_seconds / c.fp8_seconds;
    speedups.push_back(sp);
    ctx.RecordTiming({.case_name = std::string("gemm_") + s.name, .backend = "cuda",
                      .params = {{"m", tokens}, {"n", s.n}, {"k", s.k}}, .metric = "bf16_over_fp8_time",
                      .unit = "ratio", .direction = "higher", .value = sp, .n = int64_t(c.fp8_samples.size())});
    for (const auto& [type, seconds, samples] : {std::tuple{"fp8_e4m3", c.fp8_seconds, &c.fp8_samples},
                                                 {"bf16", c.bf16_seconds, &c.bf16_samples}}) {
      ctx.RecordTiming({.case_name = std::string("gemm_") + s.name, .backend = "cuda",
                        .params = {{"m", tokens}, {"n", s.n}, {"k", s.k}, {"type", type}},
                        .metric = "time", .unit = "s", .direction = "lower", .value = seconds,
                        .n = int64_t(samples->size()), .samples = *samples});
    }
  }
  // The median over the 4 shapes, as the metric says; their [min, max] is
  // recorded in the setting (it is no confidence interval).
  const auto [lo, hi] = std::minmax_element(speedups.begin(), speedups.end());
  return ctx.Judge({h::Estimate::Exact(h::Median(speedups))},
                   "cuBLASLt FP8 E4M3 vs BF16 GEMM at Llama-2-7B linear shapes, " + std::to_string(tokens) +
                       h::StrFormat(" tokens; %.3gx..%.3gx over the 4 layers; linear layers only: the end-to-end "
                                    "1.43x (8xH100 FSDP training) is not measured here",
                                    *lo, *hi));
#else
  (void)ctx;
  return h::Unmeasurable("built without CUDA");
#endif
}

h::Outcome DreKernelBandwidth(h::ClaimContext& ctx) {
#if CB_HAVE_CUDA
  const int64_t n = ctx.ByProfile<int64_t>(1 << 22, 1 << 26, 1 << 28);
  const DreKernelTiming t = TimeDreCuda(n, ctx.ByProfile(5, 15, 30));
  const auto ceilings = h::MeasureGpuCeilings(/*quick=*/true);
  double copy = 0;
  for (const auto& c : ceilings) if (c.name == "gpu_copy_bandwidth") copy = c.value;
  const double groups = double((n + 127) / 128);
  // Bytes moved: quantize reads fp32, writes E4M3 + 12 B/group; dequantize the reverse.
  const double bytes = 5.0 * double(n) + 12.0 * groups;
  // The copy ceiling is read off a clock: its own timing row, never a param.
  ctx.RecordTiming({.case_name = "dre_kernel_copy_ceiling", .backend = "cuda", .params = {{"n", n}},
                    .metric = "copy_bandwidth", .unit = "GB/s", .direction = "higher", .value = copy});
  std::vector<double> fractions;
  for (const auto* samples : {&t.quantize_samples, &t.dequantize_samples}) {
    const bool q = samples == &t.quantize_samples;
    const double gbps = bytes / h::Median(*samples) / 1e9;
    fractions.push_back(copy > 0 ? gbps / copy : 0.0);
    ctx.RecordTiming({.case_name = q ? "dre_quantize_kernel" : "dre_dequantize_kernel", .backend = "cuda",
                      .params = {{"n", n}}, .metric = "bandwidth", .unit = "GB/s", .direction = "higher",
                      .value = gbps, .n = int64_t(samples->size()), .samples = *samples});
  }
  return ctx.Judge({h::Estimate::Exact(std::min(fractions[0], fractions[1]))},
                   h::StrFormat("%lld fp32 elements, cold L2; fraction of the measured device copy bandwidth "
                                "(%.4g GB/s), the lower of quantize and dequantize",
                                (long long)n, copy));
#else
  (void)ctx;
  return h::Unmeasurable("built without CUDA");
#endif
}

// ---------------------------------------------------------------------------
// E1: the device's FP8 conversions equal the emulator bit for bit (GPU only).

h::Outcome DeviceEncodesMatchEmulator(h::ClaimContext& ctx) {
  const int64_t n = ctx.ByProfile<int64_t>(1 << 20, 1 << 24, 1 << 26);
  h::Rng rng(ctx.seed(), 31);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = std::bit_cast<float>(rng.NextU32());
  // Every FP8 value, midpoint and midpoint neighbour of both formats, both signs.
  for (const Format f : {Format::kE4M3, Format::kE5M2}) {
    for (int c = 0; c < ref::fp8::Info(f).max_finite_code; ++c) {
      const float lo = ref::fp8::Decode(uint8_t(c), f), hi = ref::fp8::Decode(uint8_t(c + 1), f);
      const float mid = (lo + hi) / 2;
      for (const float v : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        x.push_back(v);
        x.push_back(-v);
      }
    }
  }
  int64_t mismatches = 0;
  for (const Format f : {Format::kE4M3, Format::kE5M2}) {
    const auto gpu = EncodeFp8(h::Backend::kCuda, x, f);
    std::vector<uint8_t> cpu(x.size());
    ref::fp8::EncodeSpan(x, cpu, f);
    int64_t bad = 0;
    for (size_t i = 0; i < x.size(); ++i) bad += gpu[i] != cpu[i];
    mismatches += bad;
    ctx.RecordExact({.case_name = std::string("encode_") + ref::fp8::FormatName(f), .backend = "cuda",
                     .params = {{"inputs", x.size()}}, .metric = "mismatches_vs_cpu_emulator", .unit = "count",
                     .direction = "lower", .value = double(bad), .n = int64_t(x.size())});
  }
  return ctx.Judge({h::Estimate::Exact(double(mismatches))},
                   std::to_string(x.size()) + " inputs (random fp32 bit patterns + every rounding boundary), both formats");
}

constexpr char kAbsoluteLeafReason[] =
    "issue 49: a comparison claim carries an absolute leaf (error below that of storing zeros), added to the "
    "unchanged comparison leaf";

CB_REGISTER_CLAIM(kC1, {.id = "coat.C1", .section = "§4.2 (DRE); torchao issue #2306",
                        .statement = "Dynamic Range Expansion lowers the FP8 quantization error of AdamW's first moment",
                        .paper_value = "about 1.7x lower error than plain FP8 (first author)",
                        .paper_setting = "optimizer states of LLM training, E4M3, 1x128 groups",
                        .metric = "MSE(DRE, authors' kernel) / MSE(per-group max scaling), first moment",
                        .criterion = h::AllOf({h::AtMost(1.0 / 1.1, "MSE ratio, bootstrap 95% CI over groups"),
                                               h::Below(1, "MSE(DRE) / MSE(storing zeros)")}),
                        .criterion_reason = kAbsoluteLeafReason},
                  DreLowersMomentError);
CB_REGISTER_CLAIM(kC2, {.id = "coat.C2", .kind = h::ClaimKind::kPrerequisite, .section = "§4.2; fp8_adamw_expand kernel",
                        .statement = "the expansion exponent k is a multiple of 1/16 and each group's max maps to +-448",
                        .paper_value = "by construction (k floored to 1/16; s = (M/c)^k/448)",
                        .paper_setting = "authors' CUDA kernel, expand_min = 16",
                        .metric = "groups violating either property",
                        .criterion = h::Equals(0, "groups violating either property")},
                  KGridAndMaxMapping);
CB_REGISTER_CLAIM(kC3, {.id = "coat.C3", .section = "§5 (mixed granularity)",
                        .statement = "1x16 per-group FP8 activation scaling has lower error than per-tensor scaling when outlier channels are present",
                        .paper_value = "qualitative (motivates 1x16 groups for non-linear layers)",
                        .paper_setting = "LLM activations with outliers",
                        .metric = "MSE(1x16, bf16 scales) / MSE(per-tensor), E4M3",
                        .criterion = h::AllOf({h::AtMost(1, "MSE ratio, bootstrap 95% CI over tokens"),
                                               h::Below(1, "MSE(1x16) / MSE(storing zeros)")}),
                        .criterion_reason = kAbsoluteLeafReason},
                  Group16BeatsPerTensor);
CB_REGISTER_CLAIM(kC4, {.id = "coat.C4", .section = "§6 (near-lossless training)",
                        .statement = "training with CoatAdamW (E4M3 moments + DRE) reaches the fp32 AdamW loss",
                        .paper_value = "near-lossless (OLMo-1B/7B pre-training, fine-tuning, VILA)",
                        .paper_setting = "LLM pre-training on H100s",
                        .metric = "max over 3 seeds of |L_coat - L_fp32| / L_fp32 (held-out loss)",
                        .criterion = h::AllOf({h::AtMost(0.02, "max over 3 seeds of |relative loss difference|"),
                                               h::Below(1, "worst CoatAdamW held-out loss / ln(classes)")}),
                        .criterion_reason = "issue 49: [min, max] over 3 deterministic seeds is no confidence "
                                            "interval, so every seed's difference is judged (some but not all "
                                            "within 2% was INCONCLUSIVE, is NOT_REPRODUCED); plus an absolute "
                                            "leaf: CoatAdamW beats a uniform guess"},
                  TrainingParity);
// What C5 judges is fixed by the storage format (two E4M3 moments, 1 B each,
// and 24 B of DRE parameters per 128-group), so it is a prerequisite: our
// CoatAdamW stores what COAT stores. The paper's 1.54x end-to-end memory is
// not measured: our analytic accounting of it is recorded beside, not judged.
CB_REGISTER_CLAIM(kC5, {.id = "coat.C5", .kind = h::ClaimKind::kPrerequisite, .section = "§4 (memory)",
                        .statement = "CoatAdamW's optimizer state takes 2 + 24/128 = 2.19 bytes per parameter (fp32 "
                                     "AdamW: 8), as its storage format fixes; the end-to-end 1.54x is recorded "
                                     "from our accounting, not judged",
                        .paper_value = "2 + 24/128 = 2.19 B/param (3.66x), by construction of the storage format; "
                                       "1.54x end-to-end not judged here",
                        .paper_setting = "OLMo / Llama-2 training with FSDP on H100s",
                        .metric = "measured CoatAdamW state bytes per parameter (peak allocation)",
                        .criterion = h::Within(2.15, 2.25, "state bytes per parameter"),
                        .criterion_reason = "restated (issue 49): it checked bytes per parameter that the storage "
                                            "format fixes, not the 1.54x end-to-end memory its statement named"},
                  MemoryRatio);
CB_REGISTER_CLAIM(kC5s, {.id = "coat.C5s", .section = "§6 (speed)",
                         .statement = "COAT trains 1.43x faster than BF16 end to end; here: FP8 vs BF16 linear-layer GEMMs",
                         .paper_value = "1.43x end-to-end (README: up to 1.44x)",
                         .paper_setting = "8xH100, FSDP, OLMo SpeedBench",
                         .metric = "median over Llama-2-7B linear shapes of t_bf16 / t_fp8",
                         .criterion = h::AtLeast(1.43, "median over the 4 layers of t_bf16 / t_fp8"),
                         .criterion_reason = "issue 49: [min, max] over 4 layer shapes is no confidence interval; "
                                             "the median the metric names is judged",
                         .requirements = {.gpu = true},
                         .depends_on_clock = true},
                   LinearLayerSpeedup);
CB_REGISTER_CLAIM(kE1, {.id = "coat.E1", .kind = h::ClaimKind::kPrerequisite, .section = "FP8 formats (cuda_fp8.h)",
                        .statement = "the GPU's FP8 conversions (cvt.rn.satfinite) equal the CPU emulator bit for bit",
                        .paper_value = "n/a (prerequisite: the emulator is the spec)", .paper_setting = "n/a",
                        .metric = "codes that differ", .criterion = h::Equals(0, "codes that differ"),
                        .requirements = {.gpu = true}},
                  DeviceEncodesMatchEmulator);
CB_REGISTER_CLAIM(kP1, {.id = "coat.P1", .kind = h::ClaimKind::kPrerequisite, .section = "issue 8 performance target",
                        .statement = "the CUDA DRE quantize/dequantize kernels run at >= 70% of device memory bandwidth",
                        .paper_value = "n/a (our target)", .paper_setting = "n/a",
                        .metric = "achieved bandwidth / measured device copy bandwidth",
                        .criterion = h::AtLeast(0.7, "fraction of the copy bandwidth"),
                        .requirements = {.gpu = true}, .depends_on_clock = true},
                  DreKernelBandwidth);

}  // namespace
}  // namespace cb::coat

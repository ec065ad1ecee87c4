// File: suites/radar/radar_claims.cpp
// -----------------------------------------------------------------------------
// The Radar claims (Hao et al., ICLR 2025), checked in our setting; ids,
// statements and criteria are listed in suites/radar/README.md.
//   R1  phi is an unbiased estimator of exp(q.k / sqrt d)
//   R2  needle-segment recall against the exact oracle, and its trend in D
//   R3  exact fallback: equals dense attention when nothing is skipped
//   R4  output error at equal budget vs StreamingLLM, random and last
//       selection, and below that of returning zeros; falls with k, 0 when
//       k covers every segment
//   R5  per-step operation counts grow as t^0.5 (Radar) and t^1 (dense);
//       rebuilds grow as log t
//   R6  paired wall-time speedup dense / Radar per decode step on the CPU
//       (and GPU when lent), and the measured break-even t
//   R7  LongBench averages: UNMEASURABLE without a real LLM
// Criteria and settings were fixed before the first run; where one changed
// since, the claim's criterion_reason says why.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "generators/kv_cache.h"
#include "harness/claim.h"
#include "harness/complexity.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/rank_correlation.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "harness/timer.h"
#include "reference/radar.h"
#include "suites/radar/radar.h"

namespace cb::radar {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::radar;

CB_CLAIM_DEFAULTS({.paper = "Radar (Hao et al.)", .paper_setting = "-"});

double RelErr(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
  return std::sqrt(num / den);
}

// ---------------------------------------------------------------------------
// R1: E_Omega[phi(q).phi(k)] = exp(q.k / sqrt d) with s+- = 0.

h::Outcome Unbiased(h::ClaimContext& ctx) {
  // D = 64 features per draw: unbiasedness holds feature by feature, D only
  // divides the variance, and 2000 draws of a 64 x 1024 Omega cost 16x more.
  const int d = 64, D = 64, pairs = 4;
  const int draws = ctx.ByProfile(300, 2000, 5000);
  // |q| = |k| = 0.5 sqrt d (the brief's variance-safe range).
  std::vector<std::vector<double>> q(pairs), k(pairs);
  std::vector<double> exact(pairs);
  for (int p = 0; p < pairs; ++p) {
    h::Rng rng(ctx.seed(), 100 + p);
    for (auto* x : {&q[p], &k[p]}) {
      x->resize(d);
      double n2 = 0;
      for (double& v : *x) {
        v = rng.Normal();
        n2 += v * v;
      }
      for (double& v : *x) v *= 0.5 * std::sqrt(double(d)) / std::sqrt(n2);
    }
    exact[p] = std::exp(std::inner_product(q[p].begin(), q[p].end(), k[p].begin(), 0.0) / std::sqrt(double(d)));
  }
  std::vector<std::vector<double>> est(pairs);
  for (int r = 0; r < draws; ++r) {
    const auto f = ref::MakeFeatureMap(d, D, ctx.seed(), 1000 + r);
    for (int p = 0; p < pairs; ++p) {
      const auto a = ref::Phi(f, q[p].data(), 0, 0), b = ref::Phi(f, k[p].data(), 0, 0);
      est[p].push_back(std::inner_product(a.begin(), a.end(), b.begin(), 0.0));
    }
    if (r % 100 == 0) ctx.Progress(double(r) / draws);
  }
  double worst_z = 0;
  for (int p = 0; p < pairs; ++p) {
    const double mean = h::Mean(est[p]);
    double var = 0;
    for (double e : est[p]) var += (e - mean) * (e - mean);
    const double se = std::sqrt(var / (draws - 1) / draws);
    const double z = std::abs(mean - exact[p]) / se;
    worst_z = std::max(worst_z, z);
    ctx.RecordExact({.case_name = "phi_unbiased", .backend = "cpu",
                     .params = {{"d", d}, {"D", D}, {"draws", draws}, {"pair", p}},
                     .metric = "abs_error_in_standard_errors", .unit = "se", .direction = "lower",
                     .value = z, .n = draws, .input_hash = h::HashDoubles(exact).Hex(),
                     .output_hash = h::HashDoubles({mean, se}).Hex()});
  }
  return ctx.Judge({h::Estimate::Exact(worst_z)},
                   h::StrFormat("d = 64, D = 64, s+- = 0, %d Omega draws%s, 4 (q, k) pairs with |q| = |k| = 0.5 sqrt d",
                                draws, draws < 2000 ? " (smoke: fewer than the claim's 2000)" : ""));
}

// ---------------------------------------------------------------------------
// R2: needle recall. Per trial: a Gaussian cache with 2 planted needle spans
// (alpha = 6, |q| = sqrt(d)/2: each needle key's weight rises ~e^3 = 20x);
// needle segments = those whose exact mass is >= 10x the median segment's;
// recall = share of them in Radar's top-k (fp32 CPU path), per D.

struct RecallRow {
  int D;
  std::vector<double> hits;  // one 0/1 per needle segment, pooled
};

h::Outcome NeedleRecall(h::ClaimContext& ctx) {
  const int d = 64, topk = 8;
  const std::vector<int> Ds{64, 256, 1024};
  const std::vector<int64_t> ts = ctx.ByProfile(std::vector<int64_t>{16384}, std::vector<int64_t>{16384, 65536},
                                                std::vector<int64_t>{16384, 65536, 262144});
  const int trials = ctx.ByProfile(2, 3, 12);
  std::vector<RecallRow> rows;
  for (int D : Ds) rows.push_back({D, {}});
  std::string content;
  int done = 0;
  for (int64_t t : ts) {
    for (int tr = 0; tr < trials; ++tr) {
      const int64_t c_guess = static_cast<int64_t>(std::sqrt(double(t)) / 2);
      cb::gen::KvCacheParams p{.t = t, .d = d, .needles = 2, .needle_len = c_guess, .alpha = 6.0,
                               .needle_lo = 1, .needle_hi = t - 1100};
      const auto kv = cb::gen::GenerateKvCache(p, ctx.seed() * 1000 + tr + 7 * t);
      content += cb::gen::ContentHash(kv);
      const std::vector<float> kf(kv.keys.begin(), kv.keys.end()), vf(kv.values.begin(), kv.values.end());
      const std::vector<float> qf(kv.queries.begin(), kv.queries.begin() + d);
      for (auto& row : rows) {
        ref::Config cfg{.d = d, .D = row.D, .window = 1024, .aspect = 2, .topk = topk, .seed = ctx.seed() + tr};
        Cache cache(h::Backend::kCpu, cfg);
        cache.Append(kf.data(), vf.data(), t);
        std::vector<float> out(d);
        const auto spans = cache.Decode(qf.data(), out.data());
        const int64_t c = cache.segment_len(), n_seg = cache.segments();
        // Exact segment masses (the oracle), fp64.
        std::vector<double> logit(static_cast<size_t>(n_seg * c));
        for (int64_t i = 0; i < n_seg * c; ++i)
          logit[i] = std::inner_product(kv.Query(0), kv.Query(0) + d, kv.Keys(0) + (1 + i) * d, 0.0) / std::sqrt(double(d));
        const double mx = *std::max_element(logit.begin(), logit.end());
        std::vector<double> mass(static_cast<size_t>(n_seg), 0.0);
        for (int64_t i = 0; i < n_seg * c; ++i) mass[i / c] += std::exp(logit[i] - mx);
        const double med = h::Median(mass);
        for (int64_t j = 0; j < n_seg; ++j) {
          if (mass[j] < 10 * med) continue;
          const int64_t tok = 1 + j * c;
          bool hit = false;
          for (const auto& s : spans) hit |= tok >= s.first && tok < s.second;
          row.hits.push_back(hit ? 1.0 : 0.0);
        }
      }
      ctx.Progress(double(++done) / (ts.size() * trials));
    }
  }
  const std::string input = h::Xxh3_128(content).Hex();
  std::vector<double> means, ses;
  h::Interval ci;
  for (const auto& row : rows) {
    const double m = row.hits.empty() ? 0 : h::Mean(row.hits);
    const double se = row.hits.size() > 1 ? std::sqrt(m * (1 - m) / row.hits.size()) : 0;
    means.push_back(m), ses.push_back(se);
    // Wilson, not a bootstrap: recall is a share of 0/1 hits, and a bootstrap
    // of all-hits is the zero-width [1, 1] whatever the number of segments.
    ci = h::WilsonInterval(std::accumulate(row.hits.begin(), row.hits.end(), 0.0), double(row.hits.size()));
    ctx.RecordEstimate({.case_name = "needle_recall", .backend = "cpu",
                        .params = {{"d", d}, {"D", row.D}, {"topk", topk}, {"trials", trials}, {"t_max", ts.back()}},
                        .metric = "recall", .unit = "fraction", .direction = "higher", .value = m,
                        .ci_low = ci.low, .ci_high = ci.high, .n = static_cast<int64_t>(row.hits.size()),
                        .input_hash = input, .output_hash = h::HashDoubles(row.hits).Hex()});
  }
  bool monotone = true;
  for (size_t i = 1; i < means.size(); ++i)
    monotone &= means[i] >= means[i - 1] - 2 * std::hypot(ses[i], ses[i - 1]);
  const std::string setting = h::StrFormat(
      "d = 64, D in {64, 256, 1024 = 16d}, topk 8, a = 2, w = 1024, t up to %lld, %d trials per t, "
      "2 needles (alpha 6), needle segments = mass >= 10x median; recall at D = 64, 256, 1024: %.3f, %.3f, %.3f",
      static_cast<long long>(ts.back()), trials, means[0], means[1], means[2]);
  // No needle segment at all: nothing to judge the criterion on.
  if (rows.back().hits.empty()) return h::Unmeasurable("no segment reached 10x the median mass", setting);
  return ctx.Judge({h::Estimate::Ci(means.back(), ci.low, ci.high, h::IntervalMethod::kWilson,
                                    static_cast<int64_t>(rows.back().hits.size())),
                    h::Estimate::Check(monotone)},
                   setting);
}

// ---------------------------------------------------------------------------
// R3: exact fallback, fp32 CPU path vs fp64 dense.

h::Outcome ExactFallback(h::ClaimContext& ctx) {
  const int d = 64;
  const int trials = ctx.ByProfile(1, 3, 10);
  const std::string setting =
      "t ~ 4096, d = 64: below the threshold, topk = #segments, budget covering every segment; fp32 CPU path vs fp64 dense";
  double worst = 0, worst_ref = 0;
  std::string content;
  for (int tr = 0; tr < trials; ++tr) {
    cb::gen::KvCacheParams p{.t = 4162, .d = d, .needles = 2, .needle_len = 32, .alpha = 4.0};
    const auto kv = cb::gen::GenerateKvCache(p, ctx.seed() + 31 * tr);
    content += cb::gen::ContentHash(kv);
    std::vector<double> dense(d), rout(d);
    const std::vector<float> kf(kv.keys.begin(), kv.keys.end()), vf(kv.values.begin(), kv.values.end());
    const std::vector<float> qf(kv.queries.begin(), kv.queries.end());
    // (a) below the threshold: topk 200, a = 2 -> (100)^2 > n = 4030;
    // (b) topk mode, built: n = 4096, c = 32, 128 segments, topk 128;
    // (c) budget mode, built: n = 4040 > B, c = 31, 130 segments, B = 4030.
    struct Case {
      int64_t t;
      ref::Config cfg;
    };
    for (const Case& cs : {Case{4096, {.d = d, .window = 64, .aspect = 2, .topk = 200}},
                           Case{4162, {.d = d, .window = 64, .aspect = 2, .topk = 128}},
                           Case{4106, {.d = d, .window = 64, .aspect = 2, .budget = 4030}}}) {
      const ref::Config& cfg = cs.cfg;
      const int64_t tt = cs.t;
      ref::DenseDecode(kv.Query(0), kv.Keys(0), kv.Values(0), tt, d, dense.data());
      Cache cache(h::Backend::kCpu, cfg);
      cache.Append(kf.data(), vf.data(), tt);
      std::vector<float> out(d);
      cache.Decode(qf.data(), out.data());
      if (!cache.counters().exact || (cfg.topk != 200 && cache.segments() == 0)) {
        return ctx.Judge({h::Estimate::Exact(worst), h::Estimate::Exact(worst_ref), h::Estimate::Check(false)},
                         setting);
      }
      for (int i = 0; i < d; ++i) worst = std::max(worst, std::abs(double(out[i]) - dense[i]));
      ref::Cache rc(cfg);
      rc.Append(kv.Keys(0), kv.Values(0), tt);
      rc.Decode(kv.Query(0), rout.data());
      for (int i = 0; i < d; ++i) worst_ref = std::max(worst_ref, std::abs(rout[i] - dense[i]));
    }
  }
  for (const auto& [precision, value] : {std::pair{"fp32", worst}, std::pair{"fp64", worst_ref}}) {
    ctx.RecordExact({.case_name = "exact_fallback", .backend = "cpu",
                     .params = {{"d", d}, {"t", 4162}, {"trials", trials}, {"precision", precision}},
                     .metric = "max_abs_error_vs_fp64_dense", .unit = "abs", .direction = "lower",
                     .value = value, .n = trials, .input_hash = h::Xxh3_128(content).Hex(),
                     .output_hash = h::HashDoubles({value}).Hex()});
  }
  return ctx.Judge({h::Estimate::Exact(worst), h::Estimate::Exact(worst_ref), h::Estimate::Check(true)},
                   setting + h::StrFormat("; fp32 max |err| %.3g, fp64 reference max |err| %.3g", worst, worst_ref));
}

// ---------------------------------------------------------------------------
// R4: error at equal budget (fp64 reference, budget mode).
//
// The setting is the one first committed (a9a21c2): d = 16, D = 256, t = 8192,
// needles of alpha 5, k in {1, 2, 4, 8, 16}. be3b4b9 moved it to d = 32,
// D = 512, t = 4096, alpha 6, k in {1, 4, 16} with no reason recorded, and the
// claim passed there; restored, the verdict is what this setting gives.
constexpr double kR4Alpha = 5.0;

h::Outcome ErrorVsBaselines(h::ClaimContext& ctx) {
  const int d = 16, D = 16 * d, w = 32, budget = 256;
  const int64_t t = 8192;
  // 20 trials at quick (first committed: 12): the fewest a percentile
  // bootstrap CI needs (h::MinTrials); about 12 s here. Smoke's 3 read as
  // "too few trials".
  const int trials = ctx.ByProfile(3, 20, 40);
  const std::vector<ref::Selection> modes{ref::Selection::kRadar, ref::Selection::kOracle, ref::Selection::kRandom,
                                          ref::Selection::kLast};
  std::vector<std::vector<double>> err(modes.size() + 1);  // + streaming
  const std::vector<int> ks{1, 2, 4, 8, 16};
  std::vector<std::vector<double>> err_k(ks.size());
  std::vector<double> err_all;
  std::string content;
  for (int tr = 0; tr < trials; ++tr) {
    cb::gen::KvCacheParams p{.t = t, .d = d, .needles = 4, .needle_len = 32, .alpha = kR4Alpha, .needle_lo = 1,
                             .needle_hi = t - 200};
    const auto kv = cb::gen::GenerateKvCache(p, ctx.seed() * 7919 + tr);
    content += cb::gen::ContentHash(kv);
    std::vector<double> dense(d), out(d);
    ref::DenseDecode(kv.Query(0), kv.Keys(0), kv.Values(0), t, d, dense.data());
    for (size_t m = 0; m < modes.size(); ++m) {
      ref::Cache cache({.d = d, .D = D, .window = w, .aspect = 2, .budget = budget, .selection = modes[m],
                        .seed = ctx.seed() + tr});
      cache.Append(kv.Keys(0), kv.Values(0), t);
      cache.Decode(kv.Query(0), out.data());
      err[m].push_back(RelErr(out, dense));
    }
    ref::StreamingDecode(kv.Query(0), kv.Keys(0), kv.Values(0), t, d, 1, w + 1 + budget, out.data());
    err.back().push_back(RelErr(out, dense));
    int64_t n_seg = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
      ref::Cache cache({.d = d, .D = D, .window = w, .aspect = 2, .topk = ks[i], .seed = ctx.seed() + tr});
      cache.Append(kv.Keys(0), kv.Values(0), t);
      cache.Decode(kv.Query(0), out.data());
      err_k[i].push_back(RelErr(out, dense));
      n_seg = cache.segments();
    }
    ref::Cache all({.d = d, .D = D, .window = w, .aspect = 2, .topk = static_cast<int>(n_seg), .seed = 1});
    all.Append(kv.Keys(0), kv.Values(0), t);
    all.Decode(kv.Query(0), out.data());
    err_all.push_back(RelErr(out, dense));
    ctx.Progress(double(tr + 1) / trials);
  }
  const std::string input = h::Xxh3_128(content).Hex();
  const char* names[] = {"radar", "oracle", "random", "last", "streaming"};
  for (size_t m = 0; m < err.size(); ++m) {
    const auto ci = h::MeanBootstrapCi(err[m], ctx.seed());
    ctx.RecordEstimate({.case_name = std::string("error_at_budget_") + names[m], .backend = "cpu",
                        .params = {{"d", d}, {"D", D}, {"t", t}, {"budget", budget}, {"window", w}, {"trials", trials}},
                        .metric = "relative_output_error", .unit = "fraction", .direction = "lower",
                        .value = h::Mean(err[m]), .ci_low = ci.low, .ci_high = ci.high, .n = trials,
                        .input_hash = input, .output_hash = h::HashDoubles(err[m]).Hex()});
  }
  std::vector<double> kx, ky;
  for (size_t i = 0; i < ks.size(); ++i) {
    for (double e : err_k[i]) kx.push_back(ks[i]), ky.push_back(e);
    ctx.RecordExact({.case_name = "error_vs_topk", .backend = "cpu",
                     .params = {{"d", d}, {"D", D}, {"t", t}, {"topk", ks[i]}, {"trials", trials}},
                     .metric = "relative_output_error", .unit = "fraction", .direction = "lower",
                     .value = h::Mean(err_k[i]), .n = trials, .input_hash = input,
                     .output_hash = h::HashDoubles(err_k[i]).Hex()});
  }
  const double worst_all = *std::max_element(err_all.begin(), err_all.end());
  // Paired differences radar - baseline per trial (random, last, streaming).
  std::vector<h::Estimate> measured;
  std::string diffs;
  for (size_t m : {size_t{2}, size_t{3}, size_t{4}}) {
    std::vector<double> diff;
    for (int tr = 0; tr < trials; ++tr) diff.push_back(err[0][tr] - err[m][tr]);
    const auto ci = h::MeanBootstrapCi(diff, ctx.seed() + m);
    measured.push_back(h::Estimate::Ci(h::Mean(diff), ci.low, ci.high, h::IntervalMethod::kPercentileBootstrap, trials));
    diffs += h::StrFormat("radar - %s: mean %.3g [%.3g, %.3g]; ", names[m], h::Mean(diff), ci.low, ci.high);
  }
  // The absolute anchor: beating the baselines means little when every
  // method is further from dense attention than returning zeros (relative
  // error 1), as here with Gaussian values, whose dense average is small.
  const auto radar_ci = h::MeanBootstrapCi(err[0], ctx.seed());
  measured.push_back(h::Estimate::Ci(h::Mean(err[0]), radar_ci.low, radar_ci.high,
                                     h::IntervalMethod::kPercentileBootstrap, trials));
  std::string errors;
  for (size_t m = 0; m < err.size(); ++m) errors += h::StrFormat("%s%s %.3g", m ? ", " : "", names[m], h::Mean(err[m]));
  const double rho = h::SpearmanRho(kx, ky);
  measured.push_back(h::Estimate::Check(rho < 0));
  measured.push_back(h::Estimate::Exact(worst_all));
  return ctx.Judge(
      measured,
      "fp64 reference, t = 8192, d = 16, D = 256, a = 2, w = 32, budget 256 (StreamingLLM: window w + 1 + B), "
      "4 needles of 32 keys (alpha 5); relative L2 error vs dense; k in {1, 2, 4, 8, 16}; " +
          h::StrFormat("%d trials; ", trials) + diffs + "mean error " + errors +
          h::StrFormat("; Spearman(k, error) = %.3f; error at k = #segments: %.3g", rho, worst_all));
}

// ---------------------------------------------------------------------------
// R5: operation-count exponents over t in [2^11, 2^18] (fp64 reference,
// counters from its real decode path), and the rebuild count.

// The first size: 2^11 (first committed: 2^12), so that quick and full fit
// 8 sizes, the fewest the fit's bootstrap CI needs (h::MinTrials); 2^11
// costs little beside 2^18. Smoke (2^11..2^15, 5 sizes) reads as too few.
constexpr int kR5MinLog = 11;

h::Outcome Scaling(h::ClaimContext& ctx) {
  const int d = 16, D = 16 * d, w = 64, topk = 8;
  const int max_log = ctx.ByProfile(15, 18, 18);
  std::vector<double> ts, radar_macs, dense_macs, radar_secs, dense_secs;
  bool bounded = true;
  std::string content;
  for (int lg = kR5MinLog; lg <= max_log; ++lg) {
    const int64_t t = int64_t{1} << lg;
    cb::gen::KvCacheParams p{.t = t, .d = d};
    const auto kv = cb::gen::GenerateKvCache(p, ctx.seed() + lg);
    content += cb::gen::ContentHash(kv);
    ref::Cache cache({.d = d, .D = D, .window = w, .aspect = 2, .topk = topk, .seed = ctx.seed()});
    cache.Append(kv.Keys(0), kv.Values(0), t);
    std::vector<double> out(d);
    cache.Decode(kv.Query(0), out.data());  // builds
    const auto& ct = cache.counters();
    ts.push_back(double(t));
    radar_macs.push_back(double(ct.decode_macs));
    bounded &= ct.attended <= uint64_t(1 + topk * ct.segment_len + ct.segment_len + w + 1);
    dense_macs.push_back(double(ref::DenseDecode(kv.Query(0), kv.Keys(0), kv.Values(0), t, d, out.data())));
    const h::TimingOptions opt{.warmup = 0, .repetitions = 3, .min_batch_seconds = 0.005, .seed = ctx.seed()};
    radar_secs.push_back(h::MeasureCpu([&] { cache.Decode(kv.Query(0), out.data()); }, opt).summary.median);
    dense_secs.push_back(h::MeasureCpu([&] { ref::DenseDecode(kv.Query(0), kv.Keys(0), kv.Values(0), t, d, out.data()); }, opt).summary.median);
    ctx.RecordExact({.case_name = "decode_macs", .backend = "cpu",
                     .params = {{"t", t}, {"d", d}, {"D", D}, {"method", "radar"}, {"topk", topk}, {"window", w}},
                     .metric = "macs_per_step", .unit = "macs", .direction = "lower", .value = radar_macs.back(),
                     .input_hash = cb::gen::ContentHash(kv),
                     .output_hash = h::HashDoubles({radar_macs.back(), double(ct.attended), double(ct.segment_len)}).Hex()});
    ctx.RecordExact({.case_name = "decode_macs", .backend = "cpu", .params = {{"t", t}, {"d", d}, {"method", "dense"}},
                     .metric = "macs_per_step", .unit = "macs", .direction = "lower", .value = dense_macs.back(),
                     .input_hash = cb::gen::ContentHash(kv), .output_hash = h::HashDoubles({dense_macs.back()}).Hex()});
    ctx.Progress(double(lg - kR5MinLog + 1) / (max_log - kR5MinLog + 1));
  }
  const auto fr = h::FitPowerLaw(ts, radar_macs, ctx.seed());
  const auto fd = h::FitPowerLaw(ts, dense_macs, ctx.seed());
  const std::string input = h::Xxh3_128(content).Hex();
  auto fit_row = [&](const char* name, const char* metric, const h::PowerFit& f) {
    return h::Result{.case_name = std::string("exponent_") + name, .backend = "cpu",
                     .params = {{"t_min", ts.front()}, {"t_max", ts.back()}, {"d", d}, {"D", D}}, .metric = metric,
                     .unit = "exponent", .value = f.exponent, .ci_low = f.exponent_ci.low,
                     .ci_high = f.exponent_ci.high, .n = static_cast<int64_t>(ts.size())};
  };
  for (const auto& [name, f, y] : {std::tuple{"radar", &fr, &radar_macs}, std::tuple{"dense", &fd, &dense_macs}}) {
    h::Result row = fit_row(name, "macs_exponent", *f);
    row.input_hash = input;
    row.output_hash = h::HashDoubles(*y).Hex();
    ctx.RecordEstimate(std::move(row));
  }
  // A wall-time fit is a measurement: no hashes, so the gate does not hold
  // it to bitwise equality.
  ctx.RecordTiming(fit_row("radar", "wall_time_exponent", h::FitPowerLaw(ts, radar_secs, ctx.seed())));
  ctx.RecordTiming(fit_row("dense", "wall_time_exponent", h::FitPowerLaw(ts, dense_secs, ctx.seed())));
  // Rebuild count over a token-by-token run from the threshold (small d),
  // judged as first committed (a9a21c2): topk 4, within 1.5 of
  // log2(t_end / t0) + 1. 49ce575 moved topk to 8 and the check to
  // "recorded, not judged" after it failed; restored.
  const int64_t t_end = ctx.ByProfile(4096, 16384, 65536);
  const int small_topk = 4;
  ref::Config small{.d = 4, .D = 16, .window = 8, .aspect = 2, .topk = small_topk, .seed = ctx.seed()};
  ref::Cache grow(small);
  h::Rng rng(ctx.seed(), 77);
  std::vector<double> kv(4), out(4);
  for (int64_t i = 0; i < t_end; ++i) {
    for (double& x : kv) x = rng.Normal();
    grow.Append(kv.data(), kv.data(), 1);
    grow.Decode(kv.data(), out.data());
  }
  // Threshold t0 = (topk / a)^2 tokens past the sink and window.
  const double n_end = double(t_end - 1 - 8 - 1), t0 = std::pow(small_topk / 2.0, 2);
  const double predicted = std::log2(n_end / t0) + 1;
  const double rebuilds = double(grow.counters().rebuilds);
  ctx.RecordExact({.case_name = "rebuilds", .backend = "cpu",
                   .params = {{"t_end", t_end}, {"topk", small_topk}, {"aspect", 2}, {"predicted", predicted}},
                   .metric = "rebuild_count", .unit = "count", .value = rebuilds,
                   .output_hash = h::HashDoubles({rebuilds}).Hex()});
  // While floor(sqrt(n)/a) <= 2 the rule rebuilds on consecutive steps, so
  // the count runs above the prediction by a constant (README "Notes").
  // The wall-time exponents are rows of their own (exponent_*/wall_time_exponent):
  // kept out of the claim's text, which must not change between identical runs
  // (sharded and unsharded runs are compared by content hash).
  const auto sizes = static_cast<int64_t>(ts.size());
  return ctx.Judge({h::Estimate::Ci(fr.exponent, fr.exponent_ci.low, fr.exponent_ci.high,
                                    h::IntervalMethod::kFitBootstrap, sizes),
                    h::Estimate::Ci(fd.exponent, fd.exponent_ci.low, fd.exponent_ci.high,
                                    h::IntervalMethod::kFitBootstrap, sizes),
                    h::Estimate::Check(bounded), h::Estimate::Exact(std::abs(rebuilds - predicted))},
                   h::StrFormat("fp64 reference counters, t = 2^%d..2^%d, d = 16, D = 256, topk 8, a = 2, w = 64; "
                                "dense MAC exponent %.3f; rebuilds (d 4, topk 4, t_end %lld) %.0f vs "
                                "log2(t_end/t0)+1 = %.2f",
                                kR5MinLog, max_log, fd.exponent, static_cast<long long>(t_end), rebuilds,
                                predicted));
}

// ---------------------------------------------------------------------------
// R6: paired wall-time speedup per decode step, fp32 fast paths.

h::Outcome Speedup(h::ClaimContext& ctx) {
  const int d = 128;
  const std::vector<int> logs = ctx.ByProfile(std::vector<int>{12, 14}, std::vector<int>{10, 12, 14, 16, 18},
                                              std::vector<int>{10, 12, 14, 16, 18});
  const ref::Config cfg{.d = d, .window = 1024, .aspect = 2, .budget = 1024, .seed = ctx.seed()};
  const double predicted_break_even = std::pow(cfg.aspect * 16, 2);  // (a D / d)^2
  std::vector<std::pair<double, h::PairedRatio>> ratios;
  double break_even = -1;
  std::pair<double, h::PairedRatio> last_any;
  bool correct = true;
  for (auto backend : ctx.backends()) {
    for (size_t li = 0; li < logs.size(); ++li) {
      const int lg = logs[li];
      const int64_t t = int64_t{1} << lg;
      // fp32 Gaussian K, V straight from Philox (a 2^18 x 128 fp64 cache would
      // cost 0.5 GiB for nothing: this claim times, it does not check values
      // beyond the correctness gate below).
      std::vector<float> k(static_cast<size_t>(t) * d), v(k.size()), q(d);
      h::Rng rng(ctx.seed(), 500 + lg);
      for (float& x : k) x = static_cast<float>(rng.Normal());
      for (float& x : v) x = static_cast<float>(rng.Normal());
      for (float& x : q) x = static_cast<float>(0.5 * rng.Normal());
      Cache cache(backend, cfg);
      cache.Append(k.data(), v.data(), t);
      std::vector<float> out_r(d), out_d(d);
      const auto spans = cache.Decode(q.data(), out_r.data());  // builds
      cache.DecodeDense(q.data(), out_d.data());
      // Correctness gate: Radar's output vs fp64 attention over its own
      // selection, dense vs fp64 dense.
      std::vector<int64_t> sel;
      for (const auto& [a, b] : spans)
        for (int64_t i = a; i < b; ++i) sel.push_back(i);
      auto check = [&](const std::vector<int64_t>& tok, const std::vector<float>& got) {
        std::vector<double> want(d);
        double acc = 0;
        std::vector<double> qd(q.begin(), q.end());
        // fp64 attention straight from the fp32 arrays.
        std::vector<double> logit(tok.size());
        for (size_t i = 0; i < tok.size(); ++i) {
          double s = 0;
          for (int j = 0; j < d; ++j) s += qd[j] * k[tok[i] * d + j];
          logit[i] = s / std::sqrt(double(d));
        }
        const double mx = *std::max_element(logit.begin(), logit.end());
        for (double& l : logit) acc += (l = std::exp(l - mx));
        for (size_t i = 0; i < tok.size(); ++i)
          for (int j = 0; j < d; ++j) want[j] += logit[i] / acc * v[tok[i] * d + j];
        double worst = 0;
        for (int j = 0; j < d; ++j) worst = std::max(worst, std::abs(got[j] - want[j]) / (1e-4 + std::abs(want[j])));
        return worst <= 1e-3;
      };
      std::vector<int64_t> all(static_cast<size_t>(t));
      std::iota(all.begin(), all.end(), int64_t{0});
      correct = correct && check(sel, out_r) && check(all, out_d);
      // 20 pairs at quick, 30 at full (were 7 and 15): a percentile bootstrap
      // CI needs 20 (h::MinTrials); about a second more per t.
      const h::TimingOptions opt{.warmup = 1, .repetitions = ctx.ByProfile(3, 20, 30), .min_batch_seconds = 0.02,
                                 .seed = ctx.seed(), .threads = 2};
      const auto pr = h::MeasurePaired([&] { cache.DecodeDense(q.data(), out_d.data()); },
                                       [&] { cache.Decode(q.data(), out_r.data()); }, opt);
      ctx.RecordTiming({.case_name = "speedup_dense_over_radar", .backend = std::string(h::BackendName(backend)),
                        .params = {{"t", t}, {"d", d}, {"budget", cfg.budget}, {"window", cfg.window},
                                   {"aspect", cfg.aspect}},
                        .metric = "time_ratio", .unit = "ratio", .direction = "higher", .value = pr.median,
                        .ci_low = pr.ci.low, .ci_high = pr.ci.high, .n = static_cast<int64_t>(pr.ratios.size()),
                        .samples = pr.ratios, .threads = 2});
      last_any = {double(t), pr};
      if (backend == h::Backend::kCpu) {
        ratios.push_back({double(t), pr});
        if (break_even < 0 && pr.ci.low > 1) break_even = double(t);
      }
      ctx.Progress(double(li + 1) / logs.size());
    }
  }
  ctx.RecordTiming({.case_name = "break_even_t", .backend = "cpu",
                    .params = {{"d", d}, {"predicted", predicted_break_even}},
                    .metric = "smallest_t_with_speedup_ci_above_1", .unit = "tokens", .value = break_even});
  if (ratios.empty() && correct) return h::Unmeasurable("the CPU backend was not selected");
  // The CPU's largest t (or, when only another backend ran and failed, its).
  if (ratios.empty()) ratios.push_back(last_any);
  const auto& [t_last, last] = ratios.back();
  const std::string setting = h::StrFormat(
      "CPU fp32, 2 threads, d = 128, D = 2048, a = 2, w = 1024, budget 1024, t = 2^%.0f; break-even "
      "(CI > 1) at t = %.0f vs predicted (aD/d)^2 = %.0f",
      std::log2(t_last), break_even, predicted_break_even);
  // The criterion is set at t = 2^18, which quick and full reach: smoke's
  // verdict is UNMEASURABLE by the claim's min_profile.
  return ctx.Judge({h::Estimate::Ci(last.median, last.ci.low, last.ci.high, h::IntervalMethod::kPercentileBootstrap,
                                    static_cast<int64_t>(last.ratios.size())),
                    h::Estimate::Check(correct)},
                   setting);
}

// ---------------------------------------------------------------------------
// R7: LongBench.

h::Outcome LongBench(h::ClaimContext&) {
  return h::Unmeasurable("needs a real LLM (the paper's figure does not name it) and the LongBench tasks; no model "
                         "runs in this harness, so only the mechanism claims R1-R6 are checked",
                         "no model");
}

CB_REGISTER_CLAIM(kUnbiased,
                  {.id = "radar.R1",
                   .kind = h::ClaimKind::kPrerequisite,  // our phi; unbiased by construction
                   .section = "§3, random features (code: radar_cache.py)",
                   .statement = "phi(q).phi(k) is an unbiased estimator of exp(q.k / sqrt d) over Omega",
                   .paper_value = "E[phi(q).phi(k)] = exp(q.k / sqrt d) (by construction, s+- = 0)",
                   .paper_setting = "D = 16 d",
                   .metric = "max over pairs of |mean - exact| in standard errors (2000 draws of Omega; smoke 300)",
                   .criterion = h::AtMost(4, "max |mean - exact| in SE")},
                  Unbiased);

CB_REGISTER_CLAIM(kRecall,
                  {.id = "radar.R2",
                   .section = "§4, theorem (top segments recovered w.h.p.)",
                   .statement = "Radar's top-k contains the segments whose attention mass is >= 10x the "
                                "median's; recall does not fall as D grows",
                   .paper_value = "high-probability recovery (theorem)",
                   .metric = "needle-segment recall at D = 16 d [Wilson 95% CI over needle segments]",
                   .criterion = h::AllOf({h::AtLeast(0.95, "recall CI at D = 16 d"),
                                          h::Holds("recall non-decreasing in D within 2 SE")})},
                  NeedleRecall);

CB_REGISTER_CLAIM(kFallback,
                  {.id = "radar.R3",
                   .kind = h::ClaimKind::kPrerequisite,  // exactness of our fallback paths
                   .section = "code: Manager.reorganize / search",
                   .statement = "below the threshold, or when k covers every segment, Radar equals dense attention",
                   .paper_value = "exact (by construction)",
                   .metric = "max |Radar fp32 - dense fp64|",
                   .criterion = h::AllOf({h::AtMost(1e-5, "max |err| of the fp32 path"),
                                          h::AtMost(1e-12, "max |err| of the fp64 reference"),
                                          h::Holds("every case attends every token, the built ones with segments")})},
                  ExactFallback);

CB_REGISTER_CLAIM(kErrors,
                  {.id = "radar.R4",
                   .section = "§5, ablations",
                   .statement = "at equal budget Radar's output error is <= StreamingLLM's and <= random/last "
                                "selection's, and it falls as k grows, to 0 at k = #segments",
                   .paper_value = "Radar beats StreamingLLM and the ablations (LongBench, PG-19)",
                   .paper_setting = "real LLMs",
                   .metric = "mean(err_radar - err_random) over trials [bootstrap 95% CI]",
                   .criterion = h::AllOf({h::AtMost(0, "CI of err_radar - err_random"),
                                          h::AtMost(0, "CI of err_radar - err_last"),
                                          h::AtMost(0, "CI of err_radar - err_streaming"),
                                          h::Below(1, "CI of Radar's relative L2 error (returning zeros: 1)"),
                                          h::Holds("Spearman(k, err) < 0"),
                                          h::AtMost(1e-12, "err at k = #segments")}),
                   .criterion_setting = "fp64 reference, d 16, D 256, t 8192, w 32, a 2, budget 256, 4 needles of "
                                        "32 keys at alpha 5, k in {1, 2, 4, 8, 16}; trials 3 / 20 / 40",
                   .criterion_reason = "restored the first committed setting (a9a21c2: d 16, t 8192, alpha 5, "
                                       "k 1..16; be3b4b9 moved d, t, alpha, k with no reason recorded); "
                                       "added the absolute leaf error < 1 (issue 49); quick trials 12 -> 20 "
                                       "(bootstrap minimum)"},
                  ErrorVsBaselines);

CB_REGISTER_CLAIM(kScaling,
                  {.id = "radar.R5",
                   .section = "§3, complexity",
                   .statement = "the per-step cost is O(sqrt t) for Radar and O(t) for dense attention",
                   .paper_value = "O(sqrt t) per step, O(t^1.5) total",
                   .metric = "log-log exponent of decode MACs over t [bootstrap 95% CI]",
                   .criterion = h::AllOf({h::Within(0.4, 0.6, "Radar MAC exponent CI"),
                                          h::Within(0.95, 1.05, "dense MAC exponent CI"),
                                          h::Holds("attended <= sink + (k+1)c + w + 1"),
                                          h::AtMost(1.5, "|rebuilds - (log2(t_end/t0) + 1)|")}),
                   .criterion_setting = "fp64 reference, t 2^11..2^18 (smoke 2^15), d 16, D 256, topk 8, a 2, "
                                        "w 64; rebuilds: d 4, D 16, w 8, topk 4, a 2, t_end 2^12 / 2^14 / 2^16",
                   .criterion_reason = "restored the rebuild-count leaf and its topk 4 (a9a21c2; 49ce575 moved "
                                       "topk to 8 and the check to 'recorded' after it failed); t from 2^11 so "
                                       "the fit has the 8 sizes its CI needs"},
                  Scaling);

CB_REGISTER_CLAIM(kSpeedup,
                  {.id = "radar.R6",
                   .section = "§5, latency",
                   .statement = "a Radar decode step is faster than a dense one at long context",
                   .paper_value = "lower per-token latency than dense at long contexts (PG-19, Llama-3-8B)",
                   .paper_setting = "GPU, Meta-Llama-3-8B",
                   .metric = "paired median time ratio dense / Radar per step at the largest t [95% CI]",
                   .criterion = h::AllOf({h::AtLeast(5, "speedup CI at t = 2^18 (our performance target)"),
                                          h::Holds("every output passes its correctness gate")}),
                   .criterion_setting = "CPU fp32, 2 threads, d 128, D 2048, a 2, w 1024, budget 1024, t 2^18",
                   .criterion_reason = "'judged at t = 2^18 only' is now min_profile quick (the profile that "
                                       "reaches 2^18), not a hand-built INCONCLUSIVE; pairs 7 -> 20 at quick",
                   .requirements = {.min_profile = h::Profile::kQuick},
                   .depends_on_clock = true},
                  Speedup);

CB_REGISTER_CLAIM(kLongBench,
                  {.id = "radar.R7",
                   .section = "README figure, LongBench",
                   .statement = "Radar keeps LongBench quality close to full context at small budgets",
                   .paper_value = "16-task average 32.93 (budget 1024), 33.07 (2048); full 33.18; "
                                  "StreamingLLM 29.63 / 31.08; H2O 31.61 / 32.63; SnapKV 32.41 / 32.83",
                   .paper_setting = "unnamed LLM, residual 32, aspect 4, bf16, greedy",
                   .metric = "-",
                   // Never reached: the claim is UNMEASURABLE before any comparison.
                   .criterion = h::Holds("a real LLM runs the LongBench tasks")},
                  LongBench);

}  // namespace
}  // namespace cb::radar

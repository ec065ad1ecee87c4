// File: suites/odeformer/odeformer_claims.cpp
// -----------------------------------------------------------------------------
// Neural-ODE transformer claims (issue 23). Thresholds were fixed before the
// first run:
//   O1  Euler's global error is O(dt): fitted order of |X_L - X_2L| in 1/L
//       within [0.8, 1.2], on the fine grid L = 1024.. (where dt resolves the
//       time features' sin(1000 t); quick/full space it by sqrt 2); the
//       coarse grid of the trained step counts (L = 2..32) is recorded beside;
//   O2  the analytic Jacobian equals central differences (max relative error
//       <= 1e-6 over every row pair);
//   O3  the Lyapunov oracles: diagonal A exactly sum_i ln|1 + dt a| (<= 1e-12),
//       normal A: per-unit-time exponents within 1e-2 of Re eig(A);
//   O4  rank(W_Q^h W_K^hT) <= head size at every t of the trained model;
//   O5  held-out perplexity of the ODE model comparable to or better than the
//       vanilla substrate transformer at equal parameters: the loss gap
//       ODE - vanilla (nats per token), its whole t-CI over seeds <= 0.05;
//       and the ODE model's loss, t-CI, below ln V (the uniform guess);
//   O6  QK and OV eigenvalue magnitudes grow with t on the trained model:
//       slope of the mean spectral radius over t (forward grid), the whole
//       t-CI over seeds >= 0, for QK and for OV alike;
//   O7  inference at another step count L' without retraining: held-out loss
//       at L' = 2L minus that at L, the whole t-CI over seeds <= 0.05 (one
//       sided: a lower loss at 2L passes); the whole curve L' = 1..8L
//       recorded.
// O1-O4 are prerequisites (checks of our own code). t-CIs need 3 seeds
// (h::MinTrials): smoke trains 1, so O5-O7 are INCONCLUSIVE there.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/complexity.h"
#include "harness/criterion.h"
#include "harness/random.h"
#include "harness/seed_stats.h"
#include "reference/odeformer/jacobian.h"
#include "reference/odeformer/lyapunov.h"
#include "reference/odeformer/odeformer.h"
#include "reference/odeformer/spectral.h"
#include "suites/lm/trainer.h"
#include "suites/odeformer/trained_pair.h"

namespace cb::odeformer {
namespace {

namespace h = cb::harness;
namespace ro = cb::ref::odeformer;

CB_CLAIM_DEFAULTS({.paper = "Neural ODE Transformers (Tong et al., ICLR 2025)",
                   .paper_setting = "GPT-2 S/M/L and a 1B Llama-style model as neural ODEs, OpenWebText "
                                    "and WikiText-103 (SDML-KU/qkvflow)"});

// A random model whose block is far from the identity (so errors are visible).
ro::OdeTransformer RoughModel(const ro::OdeConfig& c, uint64_t seed) {
  return ro::OdeTransformer(c, ro::PerturbedParams(c, seed, 0.2));
}

std::vector<int> RandomTokens(int n, int vocab, uint64_t seed) {
  h::Rng rng(seed, 2);
  std::vector<int> t(n);
  for (int& x : t) x = int(rng.UniformInt(0, vocab - 1));
  return t;
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// ---------------------------------------------------------------------------
// O1

h::Outcome EulerOrder(h::ClaimContext& ctx) {
  const ro::OdeConfig c = TrainedOdeConfig(64, 16);
  const ro::OdeTransformer model = RoughModel(c, ctx.seed());
  const std::vector<int> tokens = RandomTokens(8, c.vocab_size, ctx.seed());
  const std::vector<double> x0 = model.Embed(tokens);
  std::map<int, std::vector<double>> final_state;  // each L integrated once (L and 2L pairs share them)
  auto at = [&](int L) -> const std::vector<double>& {
    auto it = final_state.find(L);
    if (it == final_state.end()) it = final_state.emplace(L, model.Trajectory(x0, 8, L).back()).first;
    return it->second;
  };
  auto fit = [&](const std::vector<int>& grid, const std::string& name) {
    std::vector<double> dts, errs;
    for (int L : grid) {
      const double err = MaxAbsDiff(at(L), at(2 * L));
      dts.push_back(1.0 / L);
      errs.push_back(err);
      ctx.RecordEstimate({.case_name = "euler_" + name, .backend = "cpu", .params = {{"L", L}},
                          .metric = "max_abs_x_L_minus_x_2L", .unit = "1", .direction = "lower",
                          .value = err, .n = 1});
    }
    const h::PowerFit f = h::FitPowerLaw(dts, errs, ctx.seed());
    ctx.RecordEstimate({.case_name = "euler_" + name, .backend = "cpu",
                        .params = {{"L_min", grid.front()}, {"L_max", grid.back()}}, .metric = "order",
                        .unit = "1", .direction = "none", .value = f.exponent, .ci_low = f.exponent_ci.low,
                        .ci_high = f.exponent_ci.high, .n = int64_t(grid.size())});
    return f;
  };
  fit({2, 4, 8, 16, 32}, "coarse");
  // The fit bootstrap's trials are the step counts: quick and full space them
  // by sqrt 2 (1024, 1448, 2048, 2896, ...; each 2L is on the grid too) to
  // reach the 8 a fit-bootstrap interval needs (h::MinTrials); smoke's 3 are
  // a plumbing check (INCONCLUSIVE).
  auto sqrt2_grid = [](int points) {
    std::vector<int> g;
    for (int k = 0; k < points; ++k) g.push_back((k % 2 ? 1448 : 1024) << (k / 2));
    return g;
  };
  const std::vector<int> fine =
      ctx.ByProfile(std::vector<int>{1024, 2048, 4096}, sqrt2_grid(8), sqrt2_grid(10));
  const h::PowerFit f = fit(fine, "fine");
  return ctx.Judge({h::Estimate::Ci(f.exponent, f.exponent_ci.low, f.exponent_ci.high,
                                    h::IntervalMethod::kFitBootstrap, static_cast<int64_t>(fine.size()))},
                   "random d = 32 ODE block (weights perturbed by N(0, 0.2^2)), 8 tokens, Richardson "
                   "differences |X_L - X_2L| at L = " + std::to_string(fine.front()) + ".." +
                       std::to_string(fine.back()));
}

// O1-O4 check our own code (the integrator, the Jacobians, the Lyapunov
// oracles, a rank bound that holds by construction): prerequisites.
CB_REGISTER_CLAIM(kO1, {.id = "odeformer.O1", .kind = h::ClaimKind::kPrerequisite,
                        .section = "§3 (Euler discretisation)",
                        .statement = "explicit Euler's global error is O(dt) as the step count L grows",
                        .paper_value = "first order by construction (x <- x + dt F)",
                        .paper_setting = "n/a (the integrator)",
                        .metric = "fitted order of |X_L - X_2L| in dt (pairs-bootstrap CI)",
                        .criterion = h::Within(0.8, 1.2, "order CI"),
                        .criterion_reason = "fine grid at quick/full spaced by sqrt 2 (8 / 10 step counts, "
                                            "was 4 / 5) to reach the fit-bootstrap minimum of 8 (issue 49)"},
                  EulerOrder);

// ---------------------------------------------------------------------------
// O2

h::Outcome JacobianMatchesDifferences(h::ClaimContext& ctx) {
  ro::OdeConfig c = TrainedOdeConfig(64, 16);
  c.hidden_size = ctx.ByProfile(8, 16, 32);
  c.mlp_size = 4 * c.hidden_size;
  const ro::OdeTransformer model = RoughModel(c, ctx.seed());
  const int n = ctx.ByProfile(4, 6, 8), D = c.hidden_size;
  h::Rng rng(ctx.seed(), 3);
  std::vector<double> x(size_t(n) * D);
  for (double& e : x) e = rng.Normal();
  const ro::BlockWeights w = model.WeightsAt(0.3);
  double worst = 0;
  int64_t entries = 0;
  for (int j = 0; j < n; ++j) {
    const std::vector<double> J = ro::RowJacobian(c, w, x, n, j);
    for (int k = 0; k < n; ++k)
      for (int b = 0; b < D; ++b) {
        std::vector<double> xp = x, xm = x;
        const double step = 1e-6;
        xp[size_t(k) * D + b] += step;
        xm[size_t(k) * D + b] -= step;
        const std::vector<double> fp = model.VectorField(w, xp, n), fm = model.VectorField(w, xm, n);
        for (int a = 0; a < D; ++a) {
          const double fd = (fp[size_t(j) * D + a] - fm[size_t(j) * D + a]) / (2 * step);
          worst = std::max(worst, std::abs(J[(size_t(k) * D + a) * D + b] - fd) / (1e-3 + std::abs(fd)));
          ++entries;
        }
      }
  }
  ctx.RecordExact({.case_name = "row_jacobian", .backend = "cpu", .params = {{"d", D}, {"tokens", n}},
                   .metric = "max_rel_error_vs_central_diff", .unit = "1", .direction = "lower",
                   .value = worst, .n = entries});
  return ctx.Judge({h::Estimate::Exact(worst)},
                   std::to_string(entries) + " entries dF_j/dx_k, d = " + std::to_string(D) +
                       ", central differences with step 1e-6, relative to 1e-3 + |fd|");
}

CB_REGISTER_CLAIM(kO2, {.id = "odeformer.O2", .kind = h::ClaimKind::kPrerequisite,
                        .section = "analysis/lyapunov.py (jax.jacrev)",
                        .statement = "the analytic Jacobians dF_j/dx_k of the parallel block equal finite differences",
                        .paper_value = "jacrev (automatic differentiation)",
                        .paper_setting = "n/a (prerequisite of the Lyapunov analysis)",
                        .metric = "max relative error over all row pairs",
                        .criterion = h::AtMost(1e-6, "max relative error")},
                  JacobianMatchesDifferences);

// ---------------------------------------------------------------------------
// O3

h::Outcome LyapunovOracles(h::ClaimContext& ctx) {
  const int D = 4, L = 1000;
  h::Rng rng(ctx.seed(), 4);
  std::vector<double> a(D), J(D * D, 0.0);
  for (int d = 0; d < D; ++d) J[d * D + d] = a[d] = 4.0 * rng.Uniform() - 2.0;
  const ro::LyapunovResult diag = ro::LyapunovQr(L, 1, D, 1.0 / L, [&](int) { return J; });
  double diag_err = 0;
  for (int d = 0; d < D; ++d) {
    double sum = 0;
    for (int i = 0; i < L; ++i) sum += diag.lambda[size_t(i) * D + d];
    diag_err = std::max(diag_err, std::abs(sum - L * std::log(std::abs(1.0 + a[d] / L))));
  }
  ctx.RecordExact({.case_name = "lyapunov_diagonal", .backend = "cpu", .params = {{"L", L}, {"d", D}},
                   .metric = "max_abs_error", .unit = "1", .direction = "lower", .value = diag_err, .n = D});

  // Normal A = U diag(real eigenvalues) U^T with distinct random eigenvalues.
  std::vector<double> eig(D), U(D * D), r;
  for (int d = 0; d < D; ++d) eig[d] = -1.5 + d + 0.3 * rng.Uniform();
  for (double& e : U) e = rng.Normal();
  ro::HouseholderQr(U, D, r);
  std::vector<double> A(D * D, 0.0);
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      for (int k = 0; k < D; ++k) A[i * D + j] += U[i * D + k] * eig[k] * U[j * D + k];
  const int horizon = 1000;  // the error falls as 1/horizon: ~0.03 at 100
  const ro::LyapunovResult normal = ro::LyapunovQr(L * horizon, 1, D, 1.0 / L, [&](int) { return A; });
  std::vector<double> rates(D, 0.0);
  for (int i = 0; i < L * horizon; ++i)
    for (int d = 0; d < D; ++d) rates[d] += normal.lambda[size_t(i) * D + d] / horizon;
  std::sort(rates.begin(), rates.end());
  double normal_err = 0;
  for (int d = 0; d < D; ++d) normal_err = std::max(normal_err, std::abs(rates[d] - eig[d]));
  ctx.RecordEstimate({.case_name = "lyapunov_normal", .backend = "cpu",
                      .params = {{"L", L}, {"d", D}, {"horizon", horizon}}, .metric = "max_abs_error",
                      .unit = "1", .direction = "lower", .value = normal_err, .n = D});
  return ctx.Judge({h::Estimate::Exact(diag_err), h::Estimate::Exact(normal_err)},
                   "one token, F = A x, dt = 1/1000; diagonal A over t in [0, 1]; normal A (random "
                   "orthogonal U, real eigenvalues ~1 apart) per unit time over " + std::to_string(horizon) +
                       " units (over [0, 1] only the sum over d is pinned: ln|det|, -> trace A)");
}

CB_REGISTER_CLAIM(kO3, {.id = "odeformer.O3", .kind = h::ClaimKind::kPrerequisite,
                        .section = "analysis/lyapunov.py (QR iteration)",
                        .statement = "the as-implemented Lyapunov QR iteration gives sum_i ln|1 + dt a| for diagonal "
                                     "A and Re eig(A) for normal A",
                        .paper_value = "by construction",
                        .paper_setting = "n/a (oracle of the Lyapunov analysis)",
                        .metric = "max abs error (diagonal; normal per unit time)",
                        .criterion = h::AllOf({h::AtMost(1e-12, "diagonal error"),
                                               h::AtMost(1e-2, "normal error")})},
                  LyapunovOracles);

// ---------------------------------------------------------------------------
// O4, O6: the trained ODE model's weights over t

h::Outcome QkRank(h::ClaimContext& ctx) {
  const TrainedSet& set = Trained(ctx);
  int worst = 0, head = 0, checked = 0;
  for (const TrainedPair& p : set.pairs) {
    const ro::OdeTransformer m = p.ode->Model();
    const ro::OdeConfig& c = m.config();
    head = c.HeadSize();
    for (int i = 0; i <= 16; ++i) {
      const ro::BlockWeights w = m.WeightsAt(i / 16.0);
      for (int hh = 0; hh < c.num_heads; ++hh) {
        worst = std::max(worst, ro::NumericalRank(ro::QkMatrix(c, w, hh), c.hidden_size, c.hidden_size));
        ++checked;
      }
    }
  }
  ctx.RecordExact({.case_name = "qk_rank", .backend = "cpu", .params = {{"head_size", head}},
                   .metric = "max_numerical_rank", .unit = "1", .direction = "none", .value = double(worst),
                   .n = checked});
  return ctx.Judge({h::Estimate::Exact(double(worst - head))},
                   std::to_string(checked) + " (seed, t, head) products W_Q^hT W_K^h of the trained d = 32 "
                   "ODE model(s), t = 0, 1/16, .., 1; rank = singular values > 1e-10 of the largest");
}

CB_REGISTER_CLAIM(kO4, {.id = "odeformer.O4", .kind = h::ClaimKind::kPrerequisite,
                        .section = "§4 (spectral analysis)",
                        .statement = "rank(W_Q^h W_K^hT) <= head size at every t",
                        .paper_value = "<= head size (a product through a d_head bottleneck)",
                        .metric = "max rank - head size",
                        .criterion = h::AtMost(0, "max rank - head size")},
                  QkRank);

// Mean over heads of the spectral radius (max |lambda|) at each t.
std::vector<double> MeanRadius(const std::vector<ro::StepSpectra>& spectra, bool qk) {
  std::vector<double> out;
  for (const ro::StepSpectra& s : spectra) {
    const std::vector<ro::Spectrum>& heads = qk ? s.qk : s.ov;
    double sum = 0;
    for (const ro::Spectrum& sp : heads) sum += *std::max_element(sp.magnitude.begin(), sp.magnitude.end());
    out.push_back(sum / heads.size());
  }
  return out;
}

double Slope(const std::vector<double>& t, const std::vector<double>& y) {
  const double mt = h::Mean(t), my = h::Mean(y);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    sxy += (t[i] - mt) * (y[i] - my);
    sxx += (t[i] - mt) * (t[i] - mt);
  }
  return sxy / sxx;
}

h::Outcome EigenGrowth(h::ClaimContext& ctx) {
  const TrainedSet& set = Trained(ctx);
  std::vector<double> qk_slopes, ov_slopes;
  for (const TrainedPair& p : set.pairs) {
    const ro::OdeTransformer m = p.ode->Model();
    const int L = m.config().num_steps;
    // The times the model integrates at (the forward grid, t = (i+1)/L) and,
    // recorded beside, spectral.py's grid t = i/L (t = 0 is never a training time).
    std::vector<ro::StepSpectra> fwd;
    std::vector<double> t_fwd;
    for (int i = 0; i < L; ++i) {
      const double t = ro::StepTime(ro::TimeGrid::kForward, i, 1.0 / L);
      ro::StepSpectra s;
      const ro::BlockWeights w = m.WeightsAt(t);
      for (int hh = 0; hh < m.config().num_heads; ++hh) {
        s.qk.push_back(ro::Eigenvalues(ro::QkMatrix(m.config(), w, hh), m.config().hidden_size));
        s.ov.push_back(ro::Eigenvalues(ro::OvMatrix(m.config(), w, hh), m.config().hidden_size));
      }
      fwd.push_back(std::move(s));
      t_fwd.push_back(t);
    }
    const std::vector<ro::StepSpectra> code = ro::ModelSpectra(m);
    std::vector<double> t_code;
    for (const ro::StepSpectra& s : code) t_code.push_back(s.t);
    for (bool qk : {true, false}) {
      const std::vector<double> r = MeanRadius(fwd, qk), rc = MeanRadius(code, qk);
      for (size_t i = 0; i < r.size(); ++i) {
        ctx.RecordEstimate({.case_name = qk ? "qk_radius" : "ov_radius", .backend = "cpu",
                            .params = {{"seed", p.seed}, {"t", t_fwd[i]}, {"grid", "forward"}},
                            .metric = "mean_spectral_radius", .unit = "1", .direction = "none",
                            .value = r[i], .n = m.config().num_heads});
        ctx.RecordEstimate({.case_name = qk ? "qk_radius" : "ov_radius", .backend = "cpu",
                            .params = {{"seed", p.seed}, {"t", t_code[i]}, {"grid", "spectral.py"}},
                            .metric = "mean_spectral_radius", .unit = "1", .direction = "none",
                            .value = rc[i], .n = m.config().num_heads});
      }
      (qk ? qk_slopes : ov_slopes).push_back(Slope(t_fwd, r));
    }
  }
  const h::MeanCi qk = h::TMeanCi(qk_slopes), ov = h::TMeanCi(ov_slopes);
  for (auto [name, ci] : {std::pair<const char*, h::MeanCi>{"qk", qk}, {"ov", ov}})
    ctx.RecordEstimate({.case_name = std::string(name) + "_radius_slope", .backend = "cpu",
                        .params = {{"grid", "forward"}}, .metric = "slope_per_unit_t", .unit = "1",
                        .direction = "none", .value = ci.mean, .ci_low = ci.low, .ci_high = ci.high, .n = ci.n});
  return ctx.Judge({h::Estimate::Ci(qk.mean, qk.low, qk.high, h::IntervalMethod::kStudentT, qk.n),
                    h::Estimate::Ci(ov.mean, ov.low, ov.high, h::IntervalMethod::kStudentT, ov.n)},
                   std::to_string(set.pairs.size()) + " trained d = 32, L = 4 ODE model(s), " +
                       std::to_string(set.options.steps) + " steps; OLS slope of the heads' mean spectral "
                       "radius over the forward grid t = (i+1)/L, t-CI over seeds");
}

CB_REGISTER_CLAIM(kO6, {.id = "odeformer.O6", .section = "§4, Figs. (QK / OV spectra over depth)",
                        .statement = "the magnitudes of the QK and OV eigenvalues grow with depth t in a trained model",
                        .paper_value = "growing with depth (figures only; the argument against weight sharing)",
                        .metric = "slope of the mean spectral radius in t (QK, OV)",
                        .criterion = h::AllOf({h::AtLeast(0.0, "QK slope CI"), h::AtLeast(0.0, "OV slope CI")})},
                  EigenGrowth);

// ---------------------------------------------------------------------------
// O5, O7: held-out loss

h::Outcome PerplexityVsVanilla(h::ClaimContext& ctx) {
  const TrainedSet& set = Trained(ctx);
  std::vector<double> gaps;
  for (const TrainedPair& p : set.pairs) {
    gaps.push_back(p.ode_loss - p.vanilla_loss);
    for (auto [model, loss, params] : {std::tuple<const char*, double, int64_t>{"ode", p.ode_loss, p.ode_params},
                                       {"vanilla", p.vanilla_loss, p.vanilla_params}})
      ctx.RecordEstimate({.case_name = "heldout_loss", .backend = "cpu",
                          .params = {{"model", model}, {"seed", p.seed}, {"params", params},
                                     {"steps", set.options.steps}},
                          .metric = "nats_per_token", .unit = "nats", .direction = "lower", .value = loss,
                          .n = int64_t(set.eval_batches) * set.options.batch * set.options.seq});
  }
  const h::MeanCi ci = h::TMeanCi(gaps);
  std::vector<double> ode_losses;
  for (const TrainedPair& p : set.pairs) ode_losses.push_back(p.ode_loss);
  const h::MeanCi ode = h::TMeanCi(ode_losses);
  ctx.RecordEstimate({.case_name = "heldout_loss_gap", .backend = "cpu", .params = {{"model", "ode - vanilla"}},
                      .metric = "nats_per_token", .unit = "nats", .direction = "lower", .value = ci.mean,
                      .ci_low = ci.low, .ci_high = ci.high, .n = ci.n});
  const TrainedPair& p0 = set.pairs.front();
  // The absolute leaf: the ODE model's loss against guessing uniformly over
  // the vocabulary (ln V nats per token).
  const double uniform = std::log(double(p0.ode->config().vocab_size));
  return ctx.Judge({h::Estimate::Ci(ci.mean, ci.low, ci.high, h::IntervalMethod::kStudentT, ci.n),
                    h::Estimate::Ci(ode.mean - uniform, ode.low - uniform, ode.high - uniform,
                                    h::IntervalMethod::kStudentT, ode.n)},
                   std::to_string(set.pairs.size()) + " seed(s); ODE d = 32, 2 heads, L = T = 4 (" +
                       std::to_string(p0.ode_params) + " params) vs Llama substrate, 4 layers (" +
                       std::to_string(p0.vanilla_params) + " params); " + std::to_string(set.options.steps) +
                       " AdamW steps of 8 x " + std::to_string(set.options.seq) +
                       " tokens on the substrate corpus (BPE 512); held-out stream");
}

CB_REGISTER_CLAIM(kO5, {.id = "odeformer.O5", .section = "§5 (language modelling), Figs. 3-4",
                        .statement = "the ODE transformer's held-out perplexity is comparable to or better than a "
                                     "vanilla transformer's at equal parameters",
                        .paper_value = "matches or beats GPT-2 S/M/L (OWT, WikiText-103) and a 1B Llama "
                                       "(figures only; no numbers in the repository)",
                        .metric = "held-out loss gap ODE - vanilla (nats/token), t-CI over seeds",
                        .criterion = h::AllOf({h::AtMost(0.05, "loss gap CI"),
                                               h::Below(0, "ODE loss - ln V (the uniform guess), t-CI")}),
                        .criterion_reason = "added the absolute leaf ODE held-out loss below ln V (issue 49: "
                                            "a comparison claim carries one)"},
                  PerplexityVsVanilla);

h::Outcome FlexibleSteps(h::ClaimContext& ctx) {
  const TrainedSet& set = Trained(ctx);
  std::vector<double> gaps;
  for (const TrainedPair& p : set.pairs) {
    const int L = p.ode->config().num_steps;
    double at_l = 0, at_2l = 0;
    for (int steps : {1, 2, L, 2 * L, 4 * L, 8 * L}) {
      p.ode->set_eval_steps(steps);
      lm_suite::TrainOptions o = set.options;
      double loss = 0;
      for (int b = 0; b < set.eval_batches; ++b)
        loss += p.ode->Loss(lm_suite::SampleBatch(set.heldout, o.batch, o.seq, 0xE7A1, b)) / set.eval_batches;
      if (steps == L) at_l = loss;
      if (steps == 2 * L) at_2l = loss;
      ctx.RecordEstimate({.case_name = "heldout_loss_vs_steps", .backend = "cpu",
                          .params = {{"seed", p.seed}, {"eval_steps", steps}, {"train_steps", L}},
                          .metric = "nats_per_token", .unit = "nats", .direction = "lower", .value = loss,
                          .n = int64_t(set.eval_batches) * o.batch * o.seq});
    }
    p.ode->set_eval_steps(0);
    gaps.push_back(at_2l - at_l);
  }
  const h::MeanCi ci = h::TMeanCi(gaps);
  return ctx.Judge({h::Estimate::Ci(ci.mean, ci.low, ci.high, h::IntervalMethod::kStudentT, ci.n)},
                   "the trained ODE model(s) evaluated at L' = 1, 2, 4, 8, 16, 32 Euler steps (trained at 4), "
                   "same held-out batches; judged at L' = 8");
}

CB_REGISTER_CLAIM(kO7, {.id = "odeformer.O7", .section = "§5.3 (flexible fine-tuning)",
                        .statement = "the model runs at another step count L' without retraining: held-out loss "
                                     "at L' = 2L is at most 0.05 nats above that at L",
                        .paper_value = "adapts by changing the step count (figures only)",
                        .metric = "held-out loss(L' = 2L) - loss(L), t-CI over seeds",
                        .criterion = h::AtMost(0.05, "loss gap CI")},
                  FlexibleSteps);

}  // namespace
}  // namespace cb::odeformer

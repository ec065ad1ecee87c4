// File: reference/odeformer/odeformer.cpp
// -----------------------------------------------------------------------------
// The neural-ODE transformer's forward pass, time embedding, hypernetworks and
// parameter bookkeeping (odeformer.h).
#include "reference/odeformer/odeformer.h"

#include <cmath>
#include <stdexcept>

#include "harness/random.h"
#include "reference/odeformer/block.h"
#include "reference/odeformer/hypernet.h"

namespace cb::ref::odeformer {

void OdeConfig::Validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("odeformer config: " + what); };
  if (vocab_size < 2) fail("vocab_size must be >= 2");
  if (hidden_size < 2 || num_heads < 1 || hidden_size % num_heads != 0)
    fail("hidden_size must be a positive multiple of num_heads");
  if (mlp_size < 1) fail("mlp_size must be >= 1");
  if (num_steps < 1) fail("num_steps must be >= 1");
  if (max_positions < 2) fail("max_positions must be >= 2");
  if (sinusoidal_dim < 2 || sinusoidal_dim % 2 != 0)
    fail("sinusoidal_dim must be even and >= 2 (SinusoidalPosEmb asserts it)");
  if (tembed_dim < 1) fail("tembed_dim must be >= 1");
  if (!(ln_eps > 0)) fail("ln_eps must be > 0");
}

double StepTime(TimeGrid grid, int i, double dt) {
  return grid == TimeGrid::kForward ? (i + 1) * dt : i * dt;
}

std::vector<double> TimeFeatures(double t, int S) {
  std::vector<double> s(2 * size_t(S) + 1);
  s[0] = t;
  for (int k = 0; k < S; ++k) {
    const double w = std::exp(-std::log(10000.0) * k / S);
    s[1 + k] = std::sin(1000.0 * t * w);
    s[1 + S + k] = std::cos(1000.0 * t * w);
  }
  return s;
}

double GeluTanh(double u) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * u * (1.0 + std::tanh(c * (u + 0.044715 * u * u * u)));
}

double GeluTanhGrad(double u) {
  const double c = std::sqrt(2.0 / M_PI);
  const double th = std::tanh(c * (u + 0.044715 * u * u * u));
  return 0.5 * (1.0 + th) + 0.5 * u * (1.0 - th * th) * c * (1.0 + 3.0 * 0.044715 * u * u);
}

// -----------------------------------------------------------------------------
// Parameters

namespace {

void SizeHyper(HyperNet& h, const OdeConfig& c) {
  const size_t T = c.tembed_dim, F = c.TimeFeatures();
  h.lin1_w.assign(T * F, 0.0);
  h.lin1_b.assign(T, 0.0);
  h.lin2_w.assign(T * T, 0.0);
  h.lin2_b.assign(T, 0.0);
}

void SizeLinear(TemporalLinear& l, const OdeConfig& c, int out, int in) {
  const size_t T = c.tembed_dim;
  l.out = out;
  l.in = in;
  SizeHyper(l.hyper, c);
  l.fw_w.assign(size_t(out) * in * T, 0.0);
  l.fw_b.assign(size_t(out) * in, 0.0);
  l.fb.assign(size_t(out) * T, 0.0);
}

void SizeNorm(TemporalLayerNorm& l, const OdeConfig& c) {
  SizeHyper(l.hyper, c);
  l.fw.assign(size_t(c.hidden_size) * c.tembed_dim, 0.0);
  l.fb.assign(size_t(c.hidden_size) * c.tembed_dim, 0.0);
}

void AddHyper(std::vector<ParamView>& v, const std::string& m, HyperNet& h, int64_t T, int64_t F) {
  v.push_back({m + ".lin1.weight", {T, F}, &h.lin1_w});
  v.push_back({m + ".lin1.bias", {T}, &h.lin1_b});
  v.push_back({m + ".lin2.weight", {T, T}, &h.lin2_w});
  v.push_back({m + ".lin2.bias", {T}, &h.lin2_b});
}

}  // namespace

OdeParams ZeroParams(const OdeConfig& c) {
  c.Validate();
  const int D = c.hidden_size;
  OdeParams p;
  p.wte.assign(size_t(c.vocab_size) * D, 0.0);
  p.wpe.assign(size_t(c.max_positions) * D, 0.0);
  SizeNorm(p.attn_ln, c);
  SizeNorm(p.mlp_ln, c);
  SizeLinear(p.c_attn, c, 3 * D, D);
  SizeLinear(p.attn_proj, c, D, D);
  SizeLinear(p.c_fc, c, c.mlp_size, D);
  SizeLinear(p.mlp_proj, c, D, c.mlp_size);
  p.lnf_w.assign(D, 0.0);
  p.lnf_b.assign(D, 0.0);
  return p;
}

std::vector<ParamView> ListParams(OdeParams& p) {
  std::vector<ParamView> v;
  const int64_t D = int64_t(p.lnf_w.size());
  const int64_t T = int64_t(p.attn_ln.hyper.lin2_b.size());
  const int64_t F = T ? int64_t(p.attn_ln.hyper.lin1_w.size()) / T : 0;
  v.push_back({"wte", {int64_t(p.wte.size()) / D, D}, &p.wte});
  v.push_back({"wpe", {int64_t(p.wpe.size()) / D, D}, &p.wpe});
  for (auto [name, ln] : {std::pair<const char*, TemporalLayerNorm*>{"attn_ln", &p.attn_ln},
                          {"mlp_ln", &p.mlp_ln}}) {
    AddHyper(v, name, ln->hyper, T, F);
    v.push_back({std::string(name) + ".f_weight", {D, T}, &ln->fw});
    v.push_back({std::string(name) + ".f_bias", {D, T}, &ln->fb});
  }
  for (auto [name, l] : {std::pair<const char*, TemporalLinear*>{"c_attn", &p.c_attn},
                         {"attn.c_proj", &p.attn_proj},
                         {"c_fc", &p.c_fc},
                         {"mlp.c_proj", &p.mlp_proj}}) {
    AddHyper(v, name, l->hyper, T, F);
    v.push_back({std::string(name) + ".f_W.weight", {int64_t(l->out) * l->in, T}, &l->fw_w});
    v.push_back({std::string(name) + ".f_W.bias", {int64_t(l->out) * l->in}, &l->fw_b});
    v.push_back({std::string(name) + ".f_b", {int64_t(l->out), T}, &l->fb});
  }
  v.push_back({"ln_f.weight", {D}, &p.lnf_w});
  v.push_back({"ln_f.bias", {D}, &p.lnf_b});
  return v;
}

int64_t CountParams(const OdeConfig& c) {
  OdeParams p = ZeroParams(c);
  int64_t n = 0;
  for (const ParamView& v : ListParams(p)) n += int64_t(v.data->size());
  return n;
}

OdeParams RandomParams(const OdeConfig& c, uint64_t seed) {
  OdeParams p = ZeroParams(c);
  harness::Rng rng(seed, 0);
  auto normal = [&](std::vector<double>& x, double sd) {
    for (double& v : x) v = sd * rng.Normal();
  };
  auto uniform = [&](std::vector<double>& x, double bound) {
    for (double& v : x) v = bound * (2.0 * rng.Uniform() - 1.0);
  };
  auto hyper = [&](HyperNet& h) {
    uniform(h.lin1_w, 1.0 / std::sqrt(double(c.TimeFeatures())));
    uniform(h.lin1_b, 1.0 / std::sqrt(double(c.TimeFeatures())));
    uniform(h.lin2_w, 1.0 / std::sqrt(double(c.tembed_dim)));
    uniform(h.lin2_b, 1.0 / std::sqrt(double(c.tembed_dim)));
  };
  normal(p.wte, 0.02);
  normal(p.wpe, 0.01);
  for (TemporalLayerNorm* ln : {&p.attn_ln, &p.mlp_ln}) hyper(ln->hyper);  // fw, fb stay 0
  for (TemporalLinear* l : {&p.c_attn, &p.attn_proj, &p.c_fc, &p.mlp_proj}) {
    hyper(l->hyper);
    normal(l->fw_w, 0.02);
    normal(l->fb, 1e-4);
  }
  std::fill(p.lnf_w.begin(), p.lnf_w.end(), 1.0);
  return p;
}

OdeParams PerturbedParams(const OdeConfig& c, uint64_t seed, double sd) {
  OdeParams p = RandomParams(c, seed);
  harness::Rng rng(seed, 1);
  for (ParamView& v : ListParams(p))
    for (double& x : *v.data) x += sd * rng.Normal();
  return p;
}

// -----------------------------------------------------------------------------
// The model

OdeTransformer::OdeTransformer(const OdeConfig& config, OdeParams params)
    : config_(config), params_(std::move(params)) {
  config_.Validate();
  OdeParams want = ZeroParams(config_);
  auto have = ListParams(params_);
  auto need = ListParams(want);
  for (size_t i = 0; i < need.size(); ++i)
    if (have[i].data->size() != need[i].data->size())
      throw std::invalid_argument("odeformer: parameter " + need[i].name + " has " +
                                  std::to_string(have[i].data->size()) + " values, expected " +
                                  std::to_string(need[i].data->size()));
  params_.c_attn.out = 3 * config_.hidden_size;
  params_.c_attn.in = config_.hidden_size;
  params_.attn_proj.out = params_.attn_proj.in = config_.hidden_size;
  params_.c_fc.out = config_.mlp_size;
  params_.c_fc.in = config_.hidden_size;
  params_.mlp_proj.out = config_.hidden_size;
  params_.mlp_proj.in = config_.mlp_size;
}

BlockWeights OdeTransformer::WeightsAt(double t) const {
  const std::vector<double> s = TimeFeatures(t, config_.sinusoidal_dim);
  BlockWeights w;
  internal::NormAt(params_.attn_ln, s, w.ln_a_g, w.ln_a_b);
  internal::NormAt(params_.mlp_ln, s, w.ln_m_g, w.ln_m_b);
  internal::LinearAt(params_.c_attn, s, w.w_qkv, w.b_qkv);
  internal::LinearAt(params_.attn_proj, s, w.w_o, w.b_o);
  internal::LinearAt(params_.c_fc, s, w.w_fc, w.b_fc);
  internal::LinearAt(params_.mlp_proj, s, w.w_p, w.b_p);
  return w;
}

std::vector<double> OdeTransformer::VectorField(const BlockWeights& w, std::span<const double> x,
                                                int n) const {
  return internal::BlockForward(config_, w, x, n, nullptr);
}

std::vector<double> OdeTransformer::Embed(std::span<const int> tokens) const {
  const int D = config_.hidden_size, n = int(tokens.size());
  if (n < 1 || n > config_.max_positions)
    throw std::invalid_argument("odeformer: " + std::to_string(n) + " tokens, expected 1.." +
                                std::to_string(config_.max_positions));
  std::vector<double> x(size_t(n) * D);
  for (int t = 0; t < n; ++t) {
    if (tokens[t] < 0 || tokens[t] >= config_.vocab_size)
      throw std::invalid_argument("odeformer: token " + std::to_string(tokens[t]) + " at position " +
                                  std::to_string(t) + " outside [0, " +
                                  std::to_string(config_.vocab_size) + ")");
    for (int i = 0; i < D; ++i)
      x[size_t(t) * D + i] = params_.wte[size_t(tokens[t]) * D + i] + params_.wpe[size_t(t) * D + i];
  }
  return x;
}

std::vector<std::vector<double>> OdeTransformer::Trajectory(std::span<const double> x0, int n,
                                                            int steps, TimeGrid grid) const {
  if (steps < 1) throw std::invalid_argument("odeformer: steps must be >= 1");
  if (n < 1 || x0.size() != size_t(n) * config_.hidden_size)
    throw std::invalid_argument("odeformer: a state of " + std::to_string(x0.size()) + " values is not [" +
                                std::to_string(n) + ", " + std::to_string(config_.hidden_size) + "]");
  const double dt = 1.0 / steps;
  std::vector<std::vector<double>> traj;
  std::vector<double> x(x0.begin(), x0.end());
  for (int i = 0; i < steps; ++i) {
    const std::vector<double> f = VectorField(WeightsAt(StepTime(grid, i, dt)), x, n);
    for (size_t j = 0; j < x.size(); ++j) x[j] += dt * f[j];
    traj.push_back(x);
  }
  return traj;
}

std::vector<double> OdeTransformer::Forward(std::span<const int> tokens, int steps) const {
  const int D = config_.hidden_size, V = config_.vocab_size, n = int(tokens.size());
  const std::vector<double> x = Trajectory(Embed(tokens), n, steps ? steps : config_.num_steps).back();
  std::vector<double> xf;
  internal::LayerNormForward(x, n, D, params_.lnf_w, params_.lnf_b, config_.ln_eps, xf, nullptr);
  std::vector<double> logits(size_t(n) * V);
  for (int t = 0; t < n; ++t)
    for (int v = 0; v < V; ++v) {
      double s = 0;
      for (int i = 0; i < D; ++i) s += xf[size_t(t) * D + i] * params_.wte[size_t(v) * D + i];
      logits[size_t(t) * V + v] = s;
    }
  return logits;
}

double OdeTransformer::Loss(std::span<const int> tokens, int steps) const {
  const int n = int(tokens.size()), V = config_.vocab_size;
  if (n < 2) throw std::invalid_argument("odeformer: a loss needs >= 2 tokens");
  const std::vector<double> logits = Forward(tokens, steps);
  double loss = 0;
  for (int t = 0; t + 1 < n; ++t) {
    const double* l = &logits[size_t(t) * V];
    double mx = l[0];
    for (int v = 1; v < V; ++v) mx = std::max(mx, l[v]);
    double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(l[v] - mx);
    loss += mx + std::log(z) - l[tokens[t + 1]];
  }
  return loss / (n - 1);
}

}  // namespace cb::ref::odeformer

// File: suites/odeformer/ode_backend.cpp
// -----------------------------------------------------------------------------
// Backend dispatch of the neural-ODE transformer (ode_backend.h).
#include "suites/odeformer/ode_backend.h"

#include <stdexcept>

#include "reference/odeformer/hypernet.h"
#include "suites/odeformer/ode_cuda.h"

namespace cb::odeformer {

namespace h = cb::harness;
namespace ro = cb::ref::odeformer;

namespace {

#if CB_HAVE_CUDA
cuda::Shape ShapeOf(const ro::OdeConfig& c, int n) {
  return {.n = n, .D = c.hidden_size, .H = c.num_heads, .I = c.mlp_size, .T = c.tembed_dim, .eps = c.ln_eps};
}

// The modules in ode_cuda.h's order; pointers into `p`.
void Tables(const ro::OdeParams& p, const ro::OdeConfig& c, cuda::ModuleTables (&m)[cuda::kModules]) {
  const int D = c.hidden_size;
  auto norm = [&](const ro::TemporalLayerNorm& l) {
    return cuda::ModuleTables{l.fw.data(), nullptr, l.fb.data(), D, D};
  };
  auto linear = [](const ro::TemporalLinear& l) {
    return cuda::ModuleTables{l.fw_w.data(), l.fw_b.data(), l.fb.data(), l.out * l.in, l.out};
  };
  m[0] = norm(p.attn_ln);
  m[1] = linear(p.c_attn);
  m[2] = linear(p.attn_proj);
  m[3] = norm(p.mlp_ln);
  m[4] = linear(p.c_fc);
  m[5] = linear(p.mlp_proj);
}

// h of the six modules at time t, [6 * T].
std::vector<double> HyperAt(const ro::OdeTransformer& model, double t) {
  const ro::OdeParams& p = model.params();
  const std::vector<double> s = ro::TimeFeatures(t, model.config().sinusoidal_dim);
  std::vector<double> out;
  for (const ro::HyperNet* net : {&p.attn_ln.hyper, &p.c_attn.hyper, &p.attn_proj.hyper, &p.mlp_ln.hyper,
                                  &p.c_fc.hyper, &p.mlp_proj.hyper}) {
    const std::vector<double> hv = ro::internal::HyperForward(*net, s);
    out.insert(out.end(), hv.begin(), hv.end());
  }
  return out;
}
#endif

}  // namespace

std::vector<std::vector<double>> Trajectory(h::Backend backend, const ro::OdeTransformer& model,
                                            std::span<const double> x0, int n, int steps, ro::TimeGrid grid) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    const ro::OdeConfig& c = model.config();
    if (steps < 1) throw std::invalid_argument("odeformer: steps must be >= 1");
    if (x0.size() != size_t(n) * c.hidden_size) throw std::invalid_argument("odeformer: x0 must be [n, D]");
    cuda::ModuleTables tables[cuda::kModules];
    Tables(model.params(), c, tables);
    const double dt = 1.0 / steps;
    std::vector<std::vector<double>> hyper;
    for (int i = 0; i < steps; ++i) hyper.push_back(HyperAt(model, ro::StepTime(grid, i, dt)));
    std::vector<double> x(x0.begin(), x0.end());
    std::vector<std::vector<double>> traj;
    cuda::IntegrateForward(ShapeOf(c, n), tables, hyper, dt, x, &traj);
    return traj;
  }
#endif
  return model.Trajectory(x0, n, steps, grid);
}

ro::LyapunovResult Lyapunov(h::Backend backend, const ro::OdeTransformer& model, std::span<const int> tokens, int j,
                            int steps) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    const ro::OdeConfig& c = model.config();
    const int n = int(tokens.size()), L = steps ? steps : c.num_steps;
    if (j < 0) j = n - 1;
    const double dt = 1.0 / L;
    cuda::ModuleTables tables[cuda::kModules];
    Tables(model.params(), c, tables);
    // The states after each step (forward grid), the Jacobians at t = i dt.
    const std::vector<std::vector<double>> states =
        Trajectory(backend, model, model.Embed(tokens), n, L, ro::TimeGrid::kForward);
    std::vector<std::vector<double>> hyper;
    for (int i = 0; i < L; ++i) hyper.push_back(HyperAt(model, ro::StepTime(ro::TimeGrid::kAnalysis, i, dt)));
    ro::LyapunovResult r{L, n, c.hidden_size, {}, std::vector<double>(n, 0.0)};
    cuda::Lyapunov(ShapeOf(c, n), tables, hyper, states, dt, j, r.lambda);
    r.score = ro::TokenScores(r);
    return r;
  }
#endif
  return ro::ModelLyapunov(model, tokens, j, steps);
}

}  // namespace cb::odeformer

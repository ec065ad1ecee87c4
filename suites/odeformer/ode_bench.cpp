// File: suites/odeformer/ode_bench.cpp
// -----------------------------------------------------------------------------
// The neural-ODE transformer's two heavy paths on each backend, named
// "odeformer/<backend>/forward" (the time-dependent forward: axes tokens,
// steps) and "odeformer/<backend>/lyapunov" (the as-implemented Lyapunov
// analysis of the last token: axes tokens, steps), at d = 32, 2 heads.
//
// Napkin math (d = 32, I = 128, T = 4, n tokens, L steps): a step makes the
// weights (12 d^2 T ~ 49 K multiply-adds) and runs the block (n (12 d^2 +
// 2 n d) ~ 12 K n), so the forward at n = 64, L = 64 is ~80 M multiply-adds;
// the Lyapunov analysis adds per step the Jacobians of all tokens (n d^2
// (H d + d) ~ 64 K n) and n QRs (~ 2 d^3 each ~ 64 K): ~0.8 G at n = 64,
// L = 64. Both are fp64 on both backends; the CPU reference is plain loops.
#include <benchmark/benchmark.h>

#include <tuple>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/odeformer/odeformer.h"
#include "suites/odeformer/ode_backend.h"
#include "suites/odeformer/trained_pair.h"

namespace cb::odeformer {
namespace {

namespace h = cb::harness;
namespace ro = cb::ref::odeformer;

ro::OdeTransformer BenchModel(int positions) {
  const ro::OdeConfig c = TrainedOdeConfig(512, positions);
  return ro::OdeTransformer(c, ro::PerturbedParams(c, 2025, 0.2));
}

std::vector<int> BenchTokens(int n) {
  h::Rng rng(2025, 7);
  std::vector<int> t(n);
  for (int& x : t) x = int(rng.UniformInt(0, 511));
  return t;
}

void ForwardBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const int n = int(state.range(0)), steps = int(state.range(1));
  const ro::OdeTransformer model = BenchModel(n);
  const std::vector<double> x0 = model.Embed(BenchTokens(n));
  for (auto _ : state) benchmark::DoNotOptimize(Trajectory(backend, model, x0, n, steps).back().data());
}

void LyapunovBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const int n = int(state.range(0)), steps = int(state.range(1));
  const ro::OdeTransformer model = BenchModel(n);
  const std::vector<int> tokens = BenchTokens(n);
  for (auto _ : state) benchmark::DoNotOptimize(Lyapunov(backend, model, tokens, -1, steps).score.data());
}

const bool kRegistered = [] {
  for (const auto& [backend, forward, lyapunov] :
       // The CPU paths run on the calling thread alone (threads in the name, issue 32).
       {std::tuple{h::Backend::kCpu, "odeformer/cpu/forward/threads:1", "odeformer/cpu/lyapunov/threads:1"},
        std::tuple{h::Backend::kCuda, "odeformer/cuda/forward", "odeformer/cuda/lyapunov"}}) {
    benchmark::RegisterBenchmark(forward, ForwardBench, backend)
        ->ArgNames({"tokens", "steps"})
        ->Args({64, 64})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(lyapunov, LyapunovBench, backend)
        ->ArgNames({"tokens", "steps"})
        ->Args({64, 16})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace cb::odeformer

// File: suites/m3/m3_bench.cpp
// -----------------------------------------------------------------------------
// The two passes of an M3 field, named "m3/<backend>/render" (splat a view:
// axes gaussians, channels) and "m3/<backend>/gma" (Gaussian memory
// attention: axes pixels, dim, memory).
//
// Napkin math: render walks every Gaussian per pixel (the plain form, no
// tiles): 48 x 48 pixels x 1156 Gaussians = 2.7 M conic tests (~10 flops
// each) plus ~40 hits x c multiply-adds per pixel; GMA is 2 P K D (logits)
// + 2 P K D (read) + 2 P c D (projection): P 2304, K 64, D 384, c 32 is
// ~0.3 GFLOP against < 2 MB of inputs: compute bound, so the "flops"
// counter gives the rate as a fraction of the SGEMM ceiling (the fp64
// reference loops reach a small fraction of it).
#include <benchmark/benchmark.h>

#include <tuple>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "suites/m3/m3.h"

namespace cb::m3 {
namespace {

namespace h = cb::harness;
namespace rm = cb::ref::m3;

std::vector<double> Normals(size_t n, uint64_t stream) {
  h::Rng rng(2025, stream);
  std::vector<double> v(n);
  for (double& x : v) x = rng.Normal();
  return v;
}

void RenderBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const int side = int(state.range(0)), c = int(state.range(1));
  h::Rng rng(2025, 1);
  std::vector<rm::Gaussian2D> g;
  for (int y = 0; y < side; y += 2)
    for (int x = 0; x < side; x += 2)
      g.push_back({.x = x + rng.Uniform(), .y = y + rng.Uniform(), .sx = 1.5, .sy = 2.0, .rot = rng.Uniform() * 3,
                   .opacity = 0.7});
  const rm::View view{0, 0, side, side};
  const std::vector<double> values = Normals(g.size() * c, 2);
  std::vector<double> out(size_t(view.Pixels()) * c);
  for (auto _ : state) {
    RenderValues(backend, g, view, values.data(), c, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["gaussians"] = double(g.size());
}

void GmaBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const rm::GmaShape s{state.range(0), 32, int(state.range(1)), int(state.range(2))};
  const auto q = Normals(size_t(s.pixels) * s.query, 3), w = Normals(size_t(s.query) * s.dim, 4),
             m = Normals(size_t(s.memory) * s.dim, 5);
  std::vector<double> out(size_t(s.pixels) * s.dim);
  for (auto _ : state) {
    Gma(backend, s, q.data(), w.data(), m.data(), rm::kGmaTemperature, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * double(s.pixels) * s.dim * (2.0 * s.memory + s.query);
  state.counters["flops"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  for (const auto& [backend, render, gma] :
       // The CPU paths run on the calling thread alone (threads in the name, issue 32).
       {std::tuple{h::Backend::kCpu, "m3/cpu/render/threads:1", "m3/cpu/gma/threads:1"},
        std::tuple{h::Backend::kCuda, "m3/cuda/render", "m3/cuda/gma"}}) {
    benchmark::RegisterBenchmark(render, RenderBench, backend)
        ->ArgNames({"side", "channels"})
        ->Args({48, 32})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(gma, GmaBench, backend)
        ->ArgNames({"pixels", "dim", "memory"})
        ->Args({2304, 384, 64})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace cb::m3

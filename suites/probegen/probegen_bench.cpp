// File: suites/probegen/probegen_bench.cpp
// -----------------------------------------------------------------------------
// The batched zoo forward (every model on every probe), named
// "probegen/<backend>/zoo_logits" with axes models and probes, and the fp64
// reference ("probegen/reference/zoo_logits") to show what the fast paths buy.
//
// Napkin math: the benchmark zoo alternates a CNN conv {8, 16} (k3 s2 on
// 32x32: 18.4 k + 36.9 k = 55 k multiply-adds per probe, plus 160 in the
// head) and an MLP 1024 -> 32 -> 10 (33 k): ~44 k MACs per probe-model on
// average, so 256 models x 64 probes is ~1.4 GFLOP per pass against ~4 MB of
// fp32 weights: compute bound; the "flops" counter lets the reporter give the
// rate as a fraction of the SGEMM ceiling (the direct loops reach a small
// fraction of it: they are the plain form, not an im2col GEMM).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend.h"
#include "harness/parallel.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/probegen/zoo_model.h"
#include "suites/probegen/probegen.h"

namespace cb::probegen {
namespace {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;

struct BenchZoo {
  std::vector<rp::ZooModel> models;
  std::vector<const rp::ZooModel*> pointers;
  std::vector<float> probes;
  double flops = 0;
};

BenchZoo MakeBenchZoo(int models, int probes) {
  BenchZoo z;
  for (int i = 0; i < models; ++i) {
    const rp::ZooArch arch = i % 2 == 0 ? rp::MakeCnnArch(1, 32, {8, 16}, 10) : rp::MakeMlpArch(1, 32, {32}, 10);
    z.models.push_back(rp::InitZooModel(arch, 2025 + i));
    z.flops += 2.0 * double(probes) * double(rp::ZooMacsPerImage(arch));
  }
  for (const auto& m : z.models) z.pointers.push_back(&m);
  h::Rng rng(2025, 5);
  z.probes.resize(size_t(probes) * 32 * 32);
  for (float& v : z.probes) v = float(2 * rng.Uniform() - 1);
  return z;
}

// The CPU runner's threads, in its name (issue 32): one part of the models per
// core, ParallelFor; checked against the parts each case really runs.
int ZooCpuThreads() { return h::HardwareThreads(); }

void ZooLogitsBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const int models = int(state.range(0)), probes = int(state.range(1));
  if (backend == h::Backend::kCpu && h::ParallelParts(models, ZooCpuThreads()) != ZooCpuThreads()) {
    return state.SkipWithError("probegen/cpu/zoo_logits: fewer models than the threads its name says");
  }
  const BenchZoo z = MakeBenchZoo(models, probes);
  ZooRunner runner(backend, z.pointers, backend == h::Backend::kCpu ? ZooCpuThreads() : 0);
  std::vector<float> out(size_t(models) * probes * 10);
  for (auto _ : state) {
    runner.Logits(z.probes.data(), probes, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["flops"] = benchmark::Counter(z.flops, benchmark::Counter::kIsIterationInvariantRate);
}

void ReferenceBench(benchmark::State& state) {
  const int models = int(state.range(0)), probes = int(state.range(1));
  const BenchZoo z = MakeBenchZoo(models, probes);
  const std::vector<double> x(z.probes.begin(), z.probes.end());
  std::vector<double> out(size_t(probes) * 10);
  for (auto _ : state) {
    for (const auto& m : z.models) rp::ZooForward(m, probes, x.data(), out.data(), nullptr);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["flops"] = benchmark::Counter(z.flops, benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  const std::string cpu_name = "probegen/cpu/zoo_logits/threads:" + std::to_string(ZooCpuThreads());
  for (const auto& [name, backend] : {std::pair{cpu_name, h::Backend::kCpu},
                                      std::pair{std::string("probegen/cuda/zoo_logits"), h::Backend::kCuda}}) {
    benchmark::RegisterBenchmark(name.c_str(), ZooLogitsBench, backend)
        ->ArgNames({"models", "probes"})
        ->Args({64, 64})
        ->Args({256, 64})
        ->Args({256, 128})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("probegen/reference/zoo_logits/threads:1", ReferenceBench)
      ->ArgNames({"models", "probes"})
      ->Args({64, 64})
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace cb::probegen

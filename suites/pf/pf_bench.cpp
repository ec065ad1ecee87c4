// File: suites/pf/pf_bench.cpp
// -----------------------------------------------------------------------------
// Benchmarks of suites/pf/pf.h, recorded by `claimbench bench --filter pf/`:
//   pf/cpu/sample_{greedy,pf,softmax}/V   one row of V fp32 logits (batch 1)
//   pf/cuda/sample_pf/V                   64 rows, device time only (events)
//   pf/cpu/detect_pf/n                    reference detection (dedup + Gamma tail)
// Napkin math: a row of V = 128k logits is 512 KiB; at the ~10-20 GB/s one
// core streams, one read is 25-50 us. Each token also needs its keyed uniform
// (half a Philox4x32-10 block, ~20 integer multiplies), which on this CPU
// costs more than the read, so the sampling rows report bytes_per_second
// (and its fraction of the copy ceiling) to show how far from the memory
// bound the keyed noise keeps the CPU. Greedy is the pure-read reference.
// Detection: one context hash (m Mix64), one Philox block, one log and one
// hash-set probe per token.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/pf/pf.h"
#include "suites/pf/pf.h"

namespace cb::pf {
namespace {

namespace h = cb::harness;

std::vector<float> Logits(int64_t batch, int64_t v) {
  h::Rng rng(2025, 1);
  std::vector<float> x(static_cast<size_t>(batch * v));
  for (float& f : x) f = static_cast<float>(2.0 * rng.Normal());
  return x;
}

void SampleCpuBench(benchmark::State& state, Noise noise) {
  const int64_t v = state.range(0);
  const auto x = Logits(1, v);
  std::vector<uint64_t> streams = {0};
  for (auto _ : state) {
    benchmark::DoNotOptimize(Sample(h::Backend::kCpu, {x.data(), 1, v}, 1.0, noise, 7, streams));
    ++streams[0];
  }
  state.SetBytesProcessed(state.iterations() * v * static_cast<int64_t>(sizeof(float)));
  state.counters["threads"] = static_cast<double>(std::min(2u, std::thread::hardware_concurrency()));
}
BENCHMARK_CAPTURE(SampleCpuBench, greedy, Noise::kNone)
    ->Name("pf/cpu/sample_greedy")->Arg(131072)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(SampleCpuBench, pf, Noise::kExponential)
    ->Name("pf/cpu/sample_pf")->Arg(8192)->Arg(131072)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(SampleCpuBench, softmax, Noise::kGumbel)
    ->Name("pf/cpu/sample_softmax")->Arg(131072)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The fp64 reference on the same row: what the fast path buys.
void SampleReferenceBench(benchmark::State& state) {
  const int64_t v = state.range(0);
  const auto xf = Logits(1, v);
  const std::vector<double> u(xf.begin(), xf.end());
  uint64_t stream = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cb::ref::pf::SamplePfNoise(u, 1.0, 7, stream++));
  state.SetBytesProcessed(state.iterations() * v * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(SampleReferenceBench)
    ->Name("pf/reference/sample_pf")->Arg(131072)->Unit(benchmark::kMicrosecond)->UseRealTime();

void DetectCpuBench(benchmark::State& state) {
  const int64_t n = state.range(0);
  h::Rng rng(9, 9);
  std::vector<int32_t> text(static_cast<size_t>(n));
  for (auto& t : text) t = static_cast<int32_t>(rng.UniformInt(0, 32000));
  const cb::ref::pf::WatermarkParams params{.key = 1, .context = 4};
  for (auto _ : state)
    benchmark::DoNotOptimize(cb::ref::pf::Detect(cb::ref::pf::Watermark::kPf, params, text));
  state.counters["tokens_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(DetectCpuBench)->Name("pf/cpu/detect_pf")->Arg(256)->Arg(65536)->UseRealTime();

#if CB_HAVE_CUDA
void SampleCudaBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const int64_t v = state.range(0), batch = 64;
  const auto x = Logits(batch, v);
  for (auto _ : state) {
    state.SetIterationTime(TimeSampleCuda({x.data(), batch, v}, 1.0, Noise::kExponential, 7, 20));
  }
  state.SetBytesProcessed(state.iterations() * batch * v * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(SampleCudaBench)
    ->Name("pf/cuda/sample_pf")->Arg(131072)->Arg(262144)->UseManualTime()->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
}  // namespace cb::pf

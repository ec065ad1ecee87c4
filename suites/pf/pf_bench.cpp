// File: suites/pf/pf_bench.cpp
// -----------------------------------------------------------------------------
// Benchmarks of suites/pf/pf.h, recorded by `claimbench bench --filter pf/`:
//   pf/cpu/sample_{greedy,pf,softmax}/V/batch/T100   flat Gaussian logits
//   pf/cpu/sample_pf_peaked/V/batch/T100            LLM-like peaked logits
//   pf/cuda/sample_pf/V                   64 rows, device time only (events)
//   pf/cpu/detect_pf/n                    DetectCpu (dedup + Gamma tail), one text
//   pf/reference/detect_pf/n              cb::ref::pf::Detect on the same text
// Napkin math: a row of V = 128k logits is 512 KiB, one read of it at the
// measured copy ceiling (~40-50 GB/s here) is 10-13 us. Each token also needs
// its keyed uniform, half a Philox4x32-10 block: 64k blocks per row, each 10
// rounds of two 32x32->64 multiplies. The AVX-512 kernel runs eight blocks per
// vector in ~6 instructions a round, about 1.8 cycles a block on one core here,
// i.e. ~23 us per row on each of two cores: the keyed noise, not the read,
// bounds the noisy samplers, so their flat rows also count Philox blocks per
// second, which the reporter divides by the measured cpu_philox4x32_10
// ceiling (the same vector Philox alone, harness/philox_rate.h); the read
// side is bytes_per_second against the read ceiling. Greedy is the pure-read
// reference.
// Detection: one context hash (m Mix64), one Philox block, one log and one
// hash-set probe per token.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/pf/pf.h"
#include "suites/pf/pf.h"
#include "suites/pf/pf_cuda.h"

namespace cb::pf {
namespace {

namespace h = cb::harness;

std::vector<float> Logits(int64_t batch, int64_t v) {
  h::Rng rng(2025, 1);
  std::vector<float> x(static_cast<size_t>(batch * v));
  for (float& f : x) f = static_cast<float>(2.0 * rng.Normal());
  return x;
}

// An LLM-like row: a Gaussian bulk (sd 2.5) and 20 tokens 10-25 above it (a
// peaked next-token distribution: the top token holds most of the mass).
std::vector<float> PeakedLogits(int64_t batch, int64_t v) {
  h::Rng rng(2025, 2);
  std::vector<float> x(static_cast<size_t>(batch * v));
  for (float& f : x) f = static_cast<float>(2.5 * rng.Normal());
  for (int64_t b = 0; b < batch; ++b)
    for (int k = 0; k < 20; ++k)
      x[b * v + static_cast<int64_t>(rng.UniformInt(0, v - 1))] = static_cast<float>(10 + 15 * rng.Uniform());
  return x;
}

// Args: V, batch, T in hundredths. One call samples every row.
void SampleCpuBench(benchmark::State& state, Noise noise, bool peaked) {
  const int64_t v = state.range(0), batch = state.range(1);
  const double temperature = static_cast<double>(state.range(2)) / 100;
  const auto x = peaked ? PeakedLogits(batch, v) : Logits(batch, v);
  std::vector<uint64_t> streams(static_cast<size_t>(batch), 0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        Sample(h::Backend::kCpu, {x.data(), batch, v}, temperature, noise, 7, streams));
    for (auto& s : streams) ++s;
  }
  state.SetBytesProcessed(state.iterations() * batch * v * static_cast<int64_t>(sizeof(float)));
  // Flat rows skip nothing: every pair of tokens costs one Philox block, so
  // the block rate is the sampler's rate against its Philox bound (the
  // reporter's philox_blocks_per_second_fraction_of_cpu_philox4x32_10 row).
  if (noise != Noise::kNone && !peaked) {
    state.counters["philox_blocks_per_second"] = benchmark::Counter(
        static_cast<double>(batch * ((v + 1) / 2)), benchmark::Counter::kIsIterationInvariantRate);
  }
}

// One benchmark per shape {V, batch, T%}, named with its access (logits
// read once, nothing large written) and the threads SampleCpu runs for that
// shape (issue 32), so its fraction rows divide by the read-only and Philox
// ceilings of that thread count. Rates use wall time.
void RegisterSampleCpu(const std::string& name, Noise noise, bool peaked,
                       std::initializer_list<std::array<int64_t, 3>> shapes) {
  for (const auto& shape : shapes) {
    const int threads = SampleCpuThreads(shape[1], shape[0], noise);
    benchmark::RegisterBenchmark(
        (name + "/access:read/threads:" + std::to_string(threads)).c_str(),
        [noise, peaked](benchmark::State& state) { SampleCpuBench(state, noise, peaked); })
        ->ArgNames({"vocab", "batch", "temperature_pct"})
        ->Args({shape[0], shape[1], shape[2]})
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

// Flat Gaussian rows (the worst case for skipping: every token needs its
// Philox block), batch 1 (512 KiB, cache-resident) and 64 (32 MiB, memory);
// LLM-like rows at T = 1 and T = 0.5 (where the top tokens sit more than
// 53 ln 2 above the bulk in a = u / T, so whole groups skip Philox).
const bool kSampleBenchmarksRegistered = [] {
  RegisterSampleCpu("pf/cpu/sample_greedy", Noise::kNone, false, {{131072, 1, 100}, {131072, 64, 100}});
  RegisterSampleCpu("pf/cpu/sample_pf", Noise::kExponential, false,
                    {{8192, 1, 100}, {131072, 1, 100}, {131072, 64, 100}});
  RegisterSampleCpu("pf/cpu/sample_softmax", Noise::kGumbel, false, {{131072, 1, 100}, {131072, 64, 100}});
  RegisterSampleCpu("pf/cpu/sample_pf_peaked", Noise::kExponential, true,
                    {{131072, 1, 100}, {131072, 64, 100}, {131072, 1, 50}, {131072, 64, 50}});
  return true;
}();

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
    ->Name("pf/reference/sample_pf/access:read/threads:1")->ArgNames({"vocab"})->Arg(131072)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Detection of one text of n random tokens (m = 4, de-duplicated contexts):
// the fast CPU path, and the fp64 reference for comparison.
constexpr int kDetectContext = 4;

void DetectBench(benchmark::State& state, bool reference) {
  const int64_t n = state.range(0);
  h::Rng rng(9, 9);
  std::vector<int32_t> text(static_cast<size_t>(n));
  for (auto& t : text) t = static_cast<int32_t>(rng.UniformInt(0, 32000));
  const cb::ref::pf::WatermarkParams params{.key = 1, .context = kDetectContext};
  for (auto _ : state) {
    benchmark::DoNotOptimize(reference ? cb::ref::pf::Detect(cb::ref::pf::Watermark::kPf, params, text)
                                       : DetectCpu(cb::ref::pf::Watermark::kPf, params, text));
  }
  state.counters["tokens_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
const bool kDetectCpuRegistered = [] {
  for (const int64_t n : {int64_t{256}, int64_t{65536}, int64_t{1} << 20}) {
    const std::string name =
        "pf/cpu/detect_pf/threads:" + std::to_string(DetectCpuThreads(n, kDetectContext));
    benchmark::RegisterBenchmark(name.c_str(), DetectBench, false)->ArgNames({"tokens"})->Arg(n)->UseRealTime();
  }
  return true;
}();
BENCHMARK_CAPTURE(DetectBench, reference, true)
    ->Name("pf/reference/detect_pf/threads:1")->ArgNames({"tokens"})->Arg(256)->Arg(65536)->UseRealTime();

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
    ->Name("pf/cuda/sample_pf")->ArgNames({"vocab"})->Arg(131072)->Arg(262144)->UseManualTime()->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
}  // namespace cb::pf

// File: suites/docs/docs_bench.cpp
// -----------------------------------------------------------------------------
// DOCS of a square (n, n) pair, named "docs/<backend>/<n>", recorded through
// the ledger reporter by `claimbench bench --filter docs/`.
//
// Napkin math (n x n pair): the GEMM X^T Y is 2 n^3 flops and dominates;
// normalisation reads each matrix twice (4 n^2 floats), the maxima read C
// once (n^2 floats), and the Gumbel fits are O(n) bisections. At n = 4096 that
// is 137 GFLOP against ~0.2 GB of traffic: compute bound, so the "flops"
// counter (2 n^3 per call, the GEMM only) compared with the SGEMM ceiling
// (the reporter adds flops_fraction_of_cpu_sgemm / _gpu_sgemm) says how much
// of the machine's GEMM speed the whole DOCS keeps.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/blas_threads.h"
#include "harness/parallel.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/docs.h"
#include "suites/docs/docs.h"
#include "suites/docs/docs_cuda.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;

std::vector<float> RandomSquare(int64_t n, uint64_t stream) {
  h::Rng rng(2025, stream);
  std::vector<float> a(static_cast<size_t>(n * n));
  for (float& v : a) v = static_cast<float>(rng.Normal());
  return a;
}

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["flops"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void DocsCpuBench(benchmark::State& state) {
  const int64_t n = state.range(0);
  const auto x = RandomSquare(n, 1), y = RandomSquare(n, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(Docs(h::Backend::kCpu, {x.data(), n, n, "X"}, {y.data(), n, n, "Y"}));
  }
  SetFlops(state, n);
}
// Threads in the name (issue 32): the GEMM runs on OpenBLAS's threads, the
// normalisation and maxima on ParallelFor over all cores.
const std::string kDocsCpuName =
    "docs/cpu/threads:" + std::to_string(std::max(h::BlasThreads(), h::HardwareThreads()));
BENCHMARK(DocsCpuBench)
    ->Name(kDocsCpuName)
    ->ArgNames({"n"})
    ->RangeMultiplier(2)
    ->Range(256, 8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The fp64 reference (plain triple loops): the oracle, not a contender; it
// shows what the fast path buys.
void DocsReferenceBench(benchmark::State& state) {
  const int64_t n = state.range(0);
  const auto xf = RandomSquare(n, 1), yf = RandomSquare(n, 2);
  cb::ref::Matrix x(n, n), y(n, n);
  for (size_t i = 0; i < xf.size(); ++i) x.data[i] = xf[i], y.data[i] = yf[i];
  for (auto _ : state) benchmark::DoNotOptimize(cb::ref::docs::Docs(x, y));
  SetFlops(state, n);
}
BENCHMARK(DocsReferenceBench)
    ->Name("docs/reference/threads:1")
    ->ArgNames({"n"})
    ->RangeMultiplier(2)
    ->Range(64, 512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#if CB_HAVE_CUDA
// Device work only (inputs resident, L2 flushed before each call): what is
// compared with the cuBLAS SGEMM ceiling.
void DocsCudaBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const int64_t n = state.range(0);
  const auto x = RandomSquare(n, 1), y = RandomSquare(n, 2);
  CudaDocsProblem problem({x.data(), n, n, "X"}, {y.data(), n, n, "Y"});
  problem.TimeOnce();  // warm-up: cuBLAS picks and loads its kernel
  for (auto _ : state) state.SetIterationTime(problem.TimeOnce());
  SetFlops(state, n);
}
BENCHMARK(DocsCudaBench)
    ->Name("docs/cuda")
    ->ArgNames({"n"})
    ->RangeMultiplier(2)
    ->Range(256, 8192)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// End to end from host memory: uploads, device work, maxima back, Gumbel fits.
void DocsCudaEndToEndBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const int64_t n = state.range(0);
  const auto x = RandomSquare(n, 1), y = RandomSquare(n, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(Docs(h::Backend::kCuda, {x.data(), n, n, "X"}, {y.data(), n, n, "Y"}));
  }
  SetFlops(state, n);
}
BENCHMARK(DocsCudaEndToEndBench)
    ->Name("docs/cuda/end_to_end")
    ->ArgNames({"n"})
    ->RangeMultiplier(2)
    ->Range(256, 8192)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

}  // namespace
}  // namespace cb::docs

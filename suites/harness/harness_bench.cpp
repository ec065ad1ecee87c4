// File: suites/harness/harness_bench.cpp
// Benchmarks of the self-check loops, named "<suite>/<case>/<n>". Recorded
// through the ledger reporter by `claimbench bench --filter harness/`.
#include <benchmark/benchmark.h>

#include "harness/random.h"
#include "suites/harness/loops.h"

namespace cb::harness_suite {
namespace {

void LinearLoopBench(benchmark::State& state) {
  cb::harness::Rng rng(1, 0);
  const auto x = RandomData(rng, state.range(0));
  for (auto _ : state) Sink(LinearLoop(x));
  // napkin math: one read of 8 bytes per element.
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(double)));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(LinearLoopBench)->Name("harness/linear_loop")->ArgNames({"n"})->RangeMultiplier(8)->Range(1 << 10, 1 << 19);

void QuadraticLoopBench(benchmark::State& state) {
  cb::harness::Rng rng(1, 0);
  const auto x = RandomData(rng, state.range(0));
  for (auto _ : state) Sink(QuadraticLoop(x));
  state.SetItemsProcessed(state.iterations() * state.range(0) * (state.range(0) - 1) / 2);
}
BENCHMARK(QuadraticLoopBench)->Name("harness/quadratic_loop")->ArgNames({"n"})->RangeMultiplier(4)->Range(1 << 6, 1 << 10);

}  // namespace
}  // namespace cb::harness_suite

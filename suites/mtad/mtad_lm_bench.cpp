// File: suites/mtad/mtad_lm_bench.cpp
// End-to-end decoding on the substrate's trained transformers
// (fixtures/lm/target, fixtures/lm/draft; suites/mtad/lm_pair.h): one
// 32-token generation per iteration for ancestral, speculative (g = 4) and
// MTAD (g = 4, B = 4, tau = 0.5) decoding, caches cleared per generation,
// with tokens/s and tokens per target call; and one decode step of each model
// (their ratio is the cost ratio the M3b-lm claim records). Skipped when the
// fixtures are not found.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/blas_threads.h"
#include "reference/mtad.h"
#include "suites/lm/lm_fixtures.h"
#include "suites/mtad/lm_pair.h"

namespace cb::mtad {
namespace {

constexpr int kTokens = 32;
const cb::ref::mtad::MtadParams kParams{.gamma = 4, .beams = 4, .tau = 0.5, .filter = {10, 0.9}};

struct Loaded {
  std::unique_ptr<LmPair> pair;
  std::vector<std::vector<int>> prompts;
};

const Loaded* Models() {
  static const std::unique_ptr<Loaded> m = [] {
    const std::string dir = cb::lm_suite::LmFixturesDir();
    if (dir.empty()) return std::unique_ptr<Loaded>();
    auto l = std::make_unique<Loaded>();
    l->pair = LoadPair(dir + "/target", dir + "/draft");
    l->prompts = SubstratePrompts(*l->pair, 8, 16);
    return l;
  }();
  return m.get();
}

// The transformer's steps are OpenBLAS calls: the names carry its thread
// count (issue 32) and every rate is from wall time.
const std::string kThreads = "/threads:" + std::to_string(cb::harness::BlasThreads());

void DecodeBench(benchmark::State& state, Decoder d) {
  const Loaded* m = Models();
  if (!m) return state.SkipWithError(cb::lm_suite::MissingLmFixtures().c_str());
  cb::ref::mtad::Costs total;
  uint64_t i = 0;
  for (auto _ : state) {
    const DecodeRuns r = RunDecoder(*m->pair, d, {m->prompts[i % m->prompts.size()]}, 1, kTokens, kParams, i, false);
    benchmark::DoNotOptimize(r.tokens.data());
    total += r.costs;
    ++i;
  }
  state.counters["tokens_per_call"] = total.TokensPerTargetCall();
  state.counters["tokens"] = benchmark::Counter(double(total.tokens), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(DecodeBench, ancestral, Decoder::kAncestral)->Name("mtad/lm_ancestral" + kThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(DecodeBench, speculative, Decoder::kSpeculative)->Name("mtad/lm_speculative" + kThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(DecodeBench, mtad, Decoder::kMtad)->Name("mtad/lm_mtad" + kThreads)->Unit(benchmark::kMillisecond)->UseRealTime();

// One decode step at position 16 from a copy of the prefilled cache.
void StepBench(benchmark::State& state, bool target) {
  const Loaded* m = Models();
  if (!m) return state.SkipWithError(cb::lm_suite::MissingLmFixtures().c_str());
  const cb::lm_suite::CpuTransformer& model = target ? *m->pair->target_tf : *m->pair->draft_tf;
  cb::lm_suite::CpuKvCache cache;
  model.Prefill(m->prompts[0], cache);
  for (auto _ : state) {
    cb::lm_suite::CpuKvCache c = cache;
    benchmark::DoNotOptimize(model.DecodeStep(m->prompts[0].back(), c).data());
  }
}
BENCHMARK_CAPTURE(StepBench, target, true)->Name("mtad/lm_decode_step_target" + kThreads)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(StepBench, draft, false)->Name("mtad/lm_decode_step_draft" + kThreads)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace cb::mtad

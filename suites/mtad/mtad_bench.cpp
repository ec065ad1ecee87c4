// File: suites/mtad/mtad_bench.cpp
// Benchmarks of the MTAD decoders on the n-gram substrate: one 64-token
// generation per iteration for ancestral, speculative and MTAD decoding
// (bigram draft, g = 4; MTAD with B beams), with the cost counters per
// generated token; and the batched steps on each backend.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/mtad.h"
#include "suites/mtad/mtad.h"
#include "suites/mtad/mtad_substrate.h"

namespace cb::mtad {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::mtad;

constexpr int kTokens = 64;

const Substrate& Models() {
  static const std::unique_ptr<Substrate> s = BuildSubstrate();
  return *s;
}

void SetCounters(benchmark::State& state, const ref::Costs& c) {
  const double t = double(c.tokens);
  state.counters["tokens_per_call"] = c.TokensPerTargetCall();
  state.counters["draft_evals_per_token"] = double(c.draft_evals) / t;
  state.counters["flop_proxy_per_token"] = c.flop_proxy / t;
  state.counters["tokens"] = benchmark::Counter(t, benchmark::Counter::kIsRate);
}

template <typename Decode>
void RunDecoder(benchmark::State& state, Decode decode) {
  const auto& m = Models();
  ref::Costs total;
  uint64_t i = 0;
  for (auto _ : state) {
    h::Rng rng(1, i);
    const auto g = decode(m, m.prompts[i % m.prompts.size()], rng);
    benchmark::DoNotOptimize(g.tokens.data());
    total += g.costs;
    ++i;
  }
  SetCounters(state, total);
}

void AncestralBench(benchmark::State& state) {
  RunDecoder(state, [](const Substrate& m, const auto& prompt, h::Rng& rng) {
    return ref::Ancestral(m.target, prompt, kTokens, {}, rng);
  });
}
BENCHMARK(AncestralBench)->Name("mtad/ancestral")->Unit(benchmark::kMicrosecond);

void SpeculativeBench(benchmark::State& state) {
  RunDecoder(state, [](const Substrate& m, const auto& prompt, h::Rng& rng) {
    return ref::Speculative(m.target, m.bigram, prompt, kTokens, {.gamma = 4}, rng);
  });
}
BENCHMARK(SpeculativeBench)->Name("mtad/speculative")->Unit(benchmark::kMicrosecond);

void MtadBench(benchmark::State& state) {
  const int beams = static_cast<int>(state.range(0));
  RunDecoder(state, [beams](const Substrate& m, const auto& prompt, h::Rng& rng) {
    return ref::Mtad(m.target, m.bigram, prompt, kTokens, {.gamma = 4, .beams = beams}, rng);
  });
}
BENCHMARK(MtadBench)->Name("mtad/mtad")->ArgNames({"beams"})->Arg(1)->Arg(4)->Arg(16)->Unit(benchmark::kMicrosecond);

// One beam-expansion step over the vocabulary, B x V, on a backend.
void ExpandBench(benchmark::State& state, h::Backend backend) {
  if (cb::ledger::SkipUnlessAvailable(state, backend)) return;
  const int beams = static_cast<int>(state.range(0));
  h::Rng rng(3, 0);
  std::vector<double> w(beams), q(beams * kVocab), out(q.size());
  for (double& x : w) x = rng.Uniform();
  for (double& x : q) x = rng.Uniform();
  for (auto _ : state) {
    ExpandScores(backend, w, q, kVocab, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK_CAPTURE(ExpandBench, cpu, h::Backend::kCpu)
    ->Name("mtad/expand_scores_cpu")->ArgNames({"beams"})->Arg(4)->Arg(64)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(ExpandBench, cuda, h::Backend::kCuda)
    ->Name("mtad/expand_scores_cuda")->ArgNames({"beams"})->Arg(4)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cb::mtad

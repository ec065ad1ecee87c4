// File: suites/lm/lm_bench.cpp
// -----------------------------------------------------------------------------
// The CPU transformer's speed on the substrate's model shapes
// (model_presets.h), recorded through the ledger reporter by
// `claimbench bench --filter lm/`:
//   lm/cpu/train_step/<preset>  one AdamW step of batch x seq tokens
//   lm/cpu/prefill/<preset>     a forward pass with a KV cache over T tokens
//   lm/cpu/decode/<preset>      one token at batch 1 from a cache of t tokens
//
// Napkin math. A training step costs 6 N per token in the weight GEMMs (N
// parameters: forward 2N, backward 4N) plus attention, 12 L T d_model per token
// for QK^T and PV forward and backward (counted on the full T x T square we
// compute, masked half included); the target (N = 5.2M) at T = 256 is ~36
// MFLOP per token, so the "flops" counter against the SGEMM ceiling
// (flops_fraction_of_cpu_sgemm, added by the reporter) says how much of the
// machine's GEMM rate training keeps. Decoding at batch 1 is bandwidth bound:
// every weight (4N bytes) and the cache (2 L t KV d 4 bytes) are read once per
// token, reported as "bytes".
// Every step is OpenBLAS calls, so the names carry its thread count
// ("threads:N", issue 32) and the rates are from wall time.
// The PyTorch peer of the same steps is suites/lm/lm_torch_peer.py.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "harness/blas_threads.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/model_presets.h"
#include "suites/lm/trainer.h"

namespace cb::lm_suite {
namespace {

namespace h = cb::harness;

const char* kPresets[] = {"target", "draft"};

std::vector<int> RandomTokens(int n, int vocab, uint64_t stream) {
  h::Rng rng(2025, stream);
  std::vector<int> t(n);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, uint64_t(vocab - 1)));
  return t;
}

double ParamCount(const CpuTransformer& m) { return static_cast<double>(m.num_params()); }

void TrainStepBench(benchmark::State& state) {
  const std::string preset = kPresets[state.range(0)];
  const int batch = static_cast<int>(state.range(1)), seq = static_cast<int>(state.range(2));
  CpuTransformer model(ref::lm::RandomInit(PresetConfig(preset), 1));
  TrainOptions o;
  o.steps = 1 << 30;
  o.warmup = 10;
  o.batch = batch;
  o.seq = seq;
  Trainer trainer(model, RandomTokens(batch * seq * 4, model.config().vocab_size, 1), o);
  trainer.Step();  // warm-up: allocations, OpenBLAS threads
  for (auto _ : state) benchmark::DoNotOptimize(trainer.Step().loss);
  const auto& c = model.config();
  const double tokens = double(batch) * seq;
  const double attention = 12.0 * c.num_hidden_layers * seq * c.num_attention_heads * c.HeadDim();
  state.counters["tokens"] = benchmark::Counter(tokens, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flops"] = benchmark::Counter(tokens * (6 * ParamCount(model) + attention),
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(TrainStepBench)
    ->Name("lm/cpu/train_step/threads:" + std::to_string(h::BlasThreads()))
    ->ArgNames({"preset", "batch", "seq"})
    ->Args({0, 8, 256})
    ->Args({1, 8, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void PrefillBench(benchmark::State& state) {
  const std::string preset = kPresets[state.range(0)];
  const int T = static_cast<int>(state.range(1));
  const CpuTransformer model(ref::lm::RandomInit(PresetConfig(preset), 1));
  const std::vector<int> tokens = RandomTokens(T, model.config().vocab_size, 2);
  for (auto _ : state) {
    CpuKvCache cache;
    benchmark::DoNotOptimize(model.Prefill(tokens, cache).data());
  }
  state.counters["tokens"] = benchmark::Counter(T, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(PrefillBench)
    ->Name("lm/cpu/prefill/threads:" + std::to_string(h::BlasThreads()))
    ->ArgNames({"preset", "T"})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void DecodeBench(benchmark::State& state) {
  const std::string preset = kPresets[state.range(0)];
  const int t = static_cast<int>(state.range(1));
  const CpuTransformer model(ref::lm::RandomInit(PresetConfig(preset), 1));
  const auto& c = model.config();
  const std::vector<int> tokens = RandomTokens(t, c.vocab_size, 3);
  CpuKvCache prefilled;
  model.Prefill(std::span<const int>(tokens).first(t - 1), prefilled);
  for (auto _ : state) {
    state.PauseTiming();
    CpuKvCache cache = prefilled;  // every step decodes at position t - 1
    state.ResumeTiming();
    benchmark::DoNotOptimize(model.DecodeStep(tokens[t - 1], cache).data());
  }
  const double cache_bytes = 2.0 * c.num_hidden_layers * t * c.num_key_value_heads * c.HeadDim() * 4;
  state.counters["tokens"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes"] = benchmark::Counter(4 * ParamCount(model) + cache_bytes,
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(DecodeBench)
    ->Name("lm/cpu/decode/threads:" + std::to_string(h::BlasThreads()))
    ->ArgNames({"preset", "t"})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace cb::lm_suite

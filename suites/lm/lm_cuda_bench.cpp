// File: suites/lm/lm_cuda_bench.cpp
// -----------------------------------------------------------------------------
// The CUDA transformer's speed (cuda_transformer.h) on the substrate's model
// shapes (model_presets.h), beside lm_bench.cpp's CPU rows, recorded through
// the ledger reporter by `claimbench bench --filter lm/`:
//   lm/cuda/train_step/<preset>  forward + cross-entropy + backward of batch x
//                                seq tokens (the gradient stays on the device;
//                                no optimizer: the AdamW trainer is CPU-only,
//                                and its update is one pass over 4N bytes)
//   lm/cuda/prefill/<preset>     a forward pass with a KV cache over T tokens
//   lm/cuda/decode/<preset>      one token at batch 1 from a cache of t tokens
// Device work only, inputs uploaded before the timed interval, timed by CUDA
// events (manual time), after one untimed warm-up call (cuBLAS picks and
// loads its kernels, the workspace is allocated).
//
// Napkin math (the counters are lm_bench.cpp's, so rows compare one to one):
// training costs 6 N FLOPs per token in the weight GEMMs plus 12 L T H d for
// attention (the full T x T square, masked half included); the target (N =
// 5.2M) at T = 256 is ~36 MFLOP per token, ~75 GFLOP a step of 8 x 256, which
// an H100/H200's ~50 TFLOP/s fp32 SGEMM would do in ~1.5 ms if the GEMMs were
// large, which at D = 256 they are not. Decoding at batch 1 reads every weight
// (4N bytes, 21 MB for the target) and the cache once per token: a few
// microseconds at HBM speed, so at these sizes launch latency (~13 launches a
// layer) dominates; "bytes" says how far from bandwidth-bound it is.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/lm/transformer.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/cuda_transformer.h"
#include "suites/lm/model_presets.h"

namespace cb::lm_suite {
namespace {

#if CB_HAVE_CUDA

namespace h = cb::harness;

const char* kCudaPresets[] = {"target", "draft"};

std::vector<int> BenchTokens(int n, int vocab, uint64_t stream) {
  h::Rng rng(2025, stream);
  std::vector<int> t(n);
  for (int& x : t) x = static_cast<int>(rng.UniformInt(0, uint64_t(vocab - 1)));
  return t;
}

void CudaTrainStepBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const std::string preset = kCudaPresets[state.range(0)];
  const int batch = static_cast<int>(state.range(1)), seq = static_cast<int>(state.range(2));
  const CpuTransformer cpu(ref::lm::RandomInit(PresetConfig(preset), 1));
  const CudaTransformer model(cpu);
  const auto& c = model.config();
  Batch b;
  b.batch = batch;
  b.seq = seq;
  b.tokens = BenchTokens(batch * seq + 1, c.vocab_size, 1);
  b.targets.assign(b.tokens.begin() + 1, b.tokens.end());  // next-token targets
  b.tokens.pop_back();
  b.weights.assign(b.tokens.size(), 1.0f);
  model.TimeLossAndGrad(b);  // warm-up
  for (auto _ : state) state.SetIterationTime(model.TimeLossAndGrad(b));
  const double tokens = double(batch) * seq;
  const double attention = 12.0 * c.num_hidden_layers * seq * c.num_attention_heads * c.HeadDim();
  const double params = static_cast<double>(model.num_params());
  state.counters["tokens"] = benchmark::Counter(tokens, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flops"] = benchmark::Counter(tokens * (6 * params + attention),
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(CudaTrainStepBench)
    ->Name("lm/cuda/train_step")
    ->ArgNames({"preset", "batch", "seq"})
    ->Args({0, 8, 256})
    ->Args({1, 8, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

void CudaPrefillBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const std::string preset = kCudaPresets[state.range(0)];
  const int T = static_cast<int>(state.range(1));
  const CudaTransformer model{CpuTransformer(ref::lm::RandomInit(PresetConfig(preset), 1))};
  const std::vector<int> tokens = BenchTokens(T, model.config().vocab_size, 2);
  CudaKvCache cache;
  model.TimePrefill(tokens, cache);  // warm-up
  for (auto _ : state) state.SetIterationTime(model.TimePrefill(tokens, cache));
  state.counters["tokens"] = benchmark::Counter(T, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(CudaPrefillBench)
    ->Name("lm/cuda/prefill")
    ->ArgNames({"preset", "T"})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

void CudaDecodeBench(benchmark::State& state) {
  if (cb::ledger::SkipUnlessAvailable(state, h::Backend::kCuda)) return;
  const std::string preset = kCudaPresets[state.range(0)];
  const int t = static_cast<int>(state.range(1));
  const CudaTransformer model{CpuTransformer(ref::lm::RandomInit(PresetConfig(preset), 1))};
  const auto& c = model.config();
  const std::vector<int> tokens = BenchTokens(t, c.vocab_size, 3);
  CudaKvCache cache;
  model.Prefill(std::span<const int>(tokens).first(t - 1), cache);
  model.TimeDecodeStep(tokens[t - 1], cache);  // warm-up
  for (auto _ : state) {
    cache.Truncate(t - 1);  // every step decodes at position t - 1 (host-side only)
    state.SetIterationTime(model.TimeDecodeStep(tokens[t - 1], cache));
  }
  const double cache_bytes = 2.0 * c.num_hidden_layers * t * c.num_key_value_heads * c.HeadDim() * 4;
  const double params = static_cast<double>(model.num_params());
  state.counters["tokens"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes"] = benchmark::Counter(4 * params + cache_bytes,
                                               benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(preset);
}
BENCHMARK(CudaDecodeBench)
    ->Name("lm/cuda/decode")
    ->ArgNames({"preset", "t"})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

#endif  // CB_HAVE_CUDA

}  // namespace
}  // namespace cb::lm_suite

// File: suites/radar/radar_lm_bench.cpp
// -----------------------------------------------------------------------------
// Whole decode steps of a model of the trained target's shape (d 256, 6
// layers, 8 query / 2 KV heads of d = 32, MLP 704, vocab 2048; random
// weights: the time does not depend on them) at context t, dense attention
// ("radar/cpu/lm_dense/<t>") vs Radar in every layer and head
// ("radar/cpu/lm_radar/<t>", budget 32, w 32, a 4: claim radar.PPL-lm's
// setting), one OpenBLAS thread. The KV cache is filled with Gaussian rows in
// the set-up (untimed; Radar's first build too). Each timed step appends one
// token (64 fixed iterations: t grows by < 0.5%). Performance target (issue
// 19): lm_radar >= 3x faster than lm_dense at the longest t; claim radar.R6-lm
// records the paired ratio in the ledger.
// Napkin math at t = 2^14: dense attention 48 heads x 2 t d = 50M MACs, the
// rest of the step ~5M; Radar scores 48 x 2D x n_seg (D = 512, c = 32,
// n_seg ~ 510) = 25M MACs plus ~48 x 2d x 130 attended: so at d = 32, with
// D = 16 d, the ceiling is ~2x, below the 3x target (break-even of the scores
// alone at (aD/d)^2 = 4096).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "harness/blas_threads.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/radar/radar_lm.h"
#include "suites/radar/radar_lm_experiment.h"

namespace cb::radar {
namespace {

namespace lm = cb::ref::lm;

lm::TransformerConfig TargetShape(int64_t t) {
  lm::TransformerConfig c;
  c.vocab_size = 2048;
  c.hidden_size = 256;
  c.intermediate_size = 704;
  c.num_hidden_layers = 6;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 32;
  c.max_position_embeddings = static_cast<int>(t) + 1024;
  return c;
}

// A cache of t Gaussian rows per layer (prefill of one token, then filled).
lm_suite::CpuKvCache FilledCache(const lm_suite::CpuTransformer& model, int64_t t) {
  lm_suite::CpuKvCache kv;
  model.Prefill(std::vector<int>{1}, kv);
  cb::harness::Rng rng(20250101, 19);
  const size_t row = size_t(model.config().num_key_value_heads) * model.config().HeadDim();
  for (int l = 0; l < model.config().num_hidden_layers; ++l)
    for (auto* buf : {&kv.keys[l], &kv.values[l]}) {
      buf->resize(size_t(t) * row);
      for (size_t i = row; i < buf->size(); ++i) (*buf)[i] = static_cast<float>(rng.Normal());
    }
  kv.length = static_cast<int>(t);
  return kv;
}

void LmDecodeBench(benchmark::State& state, bool radar) {
  const int64_t t = state.range(0);
  const cb::harness::OpenBlasOneThread one_thread;
  const lm::Transformer r = lm::RandomInit(TargetShape(t), 7, 0.02);
  lm_suite::CpuTransformer model(r);
  LmAttention attention(model.config(), {.method = LmMethod::kRadar,
                                         .radar = {.window = 32, .aspect = 4, .budget = 32, .seed = 1}});
  if (radar) model.set_decode_attention_hook(attention.Hook());
  lm_suite::CpuKvCache kv = FilledCache(model, t);
  model.DecodeStep(5, kv);  // Radar: copies the cache and builds, untimed
  int tok = 0;
  for (auto _ : state) {
    std::vector<float> logits = model.DecodeStep(tok++ % 2048, kv);
    benchmark::DoNotOptimize(logits.data());
  }
  if (radar) state.counters["attended_per_head"] = double(attention.last_attended()) / 48.0;
}
// One thread (issue 32: threads in the name): OpenBLAS is pinned to one above
// and Radar's few attended tokens (window + budget = 64) are one
// AttendThreads part.
BENCHMARK_CAPTURE(LmDecodeBench, dense, false)->Name("radar/cpu/lm_dense/threads:1")->ArgNames({"tokens"})
    ->RangeMultiplier(4)->Range(1 << 12, 1 << 14)->Iterations(64)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(LmDecodeBench, radar, true)->Name("radar/cpu/lm_radar/threads:1")->ArgNames({"tokens"})
    ->RangeMultiplier(4)->Range(1 << 12, 1 << 14)->Iterations(64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cb::radar

// File: suites/coat/coat_bench.cpp
// CPU benchmarks of COAT's quantizers, named "coat/<case>/<n>". Target
// (issue 8): quantize + dequantize >= 1 GB/s per core, counted as fp32
// input bytes per second (bytes_per_second). Single-threaded.
// Napkin math: a 128-group is 512 B of fp32; at 1 GB/s that is 0.5 us, i.e.
// ~4 ns per element for encode + decode together. DRE spends two powf per
// element (expand, then contract), which is why it is the slow one.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "harness/random.h"
#include "reference/coat/quant.h"
#include "reference/fp8.h"

namespace cb::coat {
namespace {

std::vector<float> MomentLike(int64_t n) {
  harness::Rng rng(1, 0);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(1e-3 * rng.Normal() * std::exp(rng.Normal()));
  return x;
}

void DreQuantDequant(benchmark::State& state) {
  const auto x = MomentLike(state.range(0));
  std::vector<float> out(x.size());
  for (auto _ : state) {
    const auto t = ref::coat::DreQuantize(x, {});
    ref::coat::DreDequantizeInto(t, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK(DreQuantDequant)->Name("coat/dre_quant_dequant_cpu")->Arg(1 << 20);

void MaxScaleQuantDequant(benchmark::State& state) {
  const auto x = MomentLike(state.range(0));
  for (auto _ : state) {
    const auto t = ref::coat::MaxScaleQuantize(x, 128, ref::fp8::Format::kE4M3);
    const auto back = ref::coat::Dequantize(t);
    benchmark::DoNotOptimize(back.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK(MaxScaleQuantDequant)->Name("coat/maxscale_quant_dequant_cpu")->Arg(1 << 20);

void Group16QuantDequant(benchmark::State& state) {
  const auto x = MomentLike(state.range(0));
  for (auto _ : state) {
    const auto t = ref::coat::QuantizePerGroup16(x, ref::fp8::Format::kE4M3);
    const auto back = ref::coat::Dequantize(t);
    benchmark::DoNotOptimize(back.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK(Group16QuantDequant)->Name("coat/group16_quant_dequant_cpu")->Arg(1 << 20);

void Fp8Encode(benchmark::State& state) {
  const auto x = MomentLike(state.range(0));
  std::vector<uint8_t> q(x.size());
  for (auto _ : state) {
    ref::fp8::EncodeSpan(x, q, ref::fp8::Format::kE4M3);
    benchmark::DoNotOptimize(q.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK(Fp8Encode)->Name("coat/fp8_encode_cpu")->Arg(1 << 20);

}  // namespace
}  // namespace cb::coat

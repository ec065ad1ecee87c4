// File: suites/coat/coat_bench.cpp
// CPU benchmarks of COAT's quantizers, named "coat/<case>/<n>". Target
// (issue 8): quantize + dequantize >= 1 GB/s per core, counted as fp32
// input bytes per second (bytes_per_second). Single-threaded, wall time;
// names carry access:read/threads:1 (issue 32): the counted bytes are the
// fp32 input read, so the fraction row divides by cpu_stream_read_1t (the
// outputs written are not counted; 1 Mi elements = 4 MiB fits in the LLC).
//   *_cpu  the CPU path (coat_cpu.cpp: AVX2 encode/decode, libmvec log2/exp2
//          for DRE), what coat.h's Backend::kCpu runs;
//   *_ref  the reference (reference/coat/quant.h), for comparison.
// Napkin math: a 128-group is 512 B of fp32; at 1 GB/s that is 0.5 us, i.e.
// ~4 ns per element for encode + decode together. The reference's DRE spends
// two powf per element (expand, then contract), which is why it is slow.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "harness/random.h"
#include "reference/coat/quant.h"
#include "reference/fp8.h"
#include "suites/coat/coat.h"

namespace cb::coat {
namespace {

std::vector<float> MomentLike(int64_t n) {
  harness::Rng rng(1, 0);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(1e-3 * rng.Normal() * std::exp(rng.Normal()));
  return x;
}

void DreQuantDequant(benchmark::State& state, bool reference) {
  const auto x = MomentLike(state.range(0));
  std::vector<float> out(x.size());
  for (auto _ : state) {
    if (reference) {
      const auto t = ref::coat::DreQuantize(x, {});
      ref::coat::DreDequantizeInto(t, out);
    } else {
      const auto t = DreQuantizeCpu(x, {});
      DreDequantizeCpu(t, out);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK_CAPTURE(DreQuantDequant, cpu, false)->Name("coat/dre_quant_dequant_cpu/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();
BENCHMARK_CAPTURE(DreQuantDequant, ref, true)->Name("coat/dre_quant_dequant_ref/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();

void MaxScaleQuantDequant(benchmark::State& state) {
  const auto x = MomentLike(state.range(0));
  for (auto _ : state) {
    const auto t = ref::coat::MaxScaleQuantize(x, 128, ref::fp8::Format::kE4M3);
    const auto back = ref::coat::Dequantize(t);
    benchmark::DoNotOptimize(back.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK(MaxScaleQuantDequant)->Name("coat/maxscale_quant_dequant_cpu/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();

void Group16QuantDequant(benchmark::State& state, bool reference) {
  const auto x = MomentLike(state.range(0));
  for (auto _ : state) {
    if (reference) {
      const auto t = ref::coat::QuantizePerGroup16(x, ref::fp8::Format::kE4M3);
      const auto back = ref::coat::Dequantize(t);
      benchmark::DoNotOptimize(back.data());
    } else {
      const auto t = QuantizeGroup16Cpu(x, ref::fp8::Format::kE4M3);
      const auto back = DequantizeCpu(t);
      benchmark::DoNotOptimize(back.data());
    }
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK_CAPTURE(Group16QuantDequant, cpu, false)->Name("coat/group16_quant_dequant_cpu/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();
BENCHMARK_CAPTURE(Group16QuantDequant, ref, true)->Name("coat/group16_quant_dequant_ref/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();

void Fp8Encode(benchmark::State& state, bool reference) {
  const auto x = MomentLike(state.range(0));
  std::vector<uint8_t> q(x.size());
  for (auto _ : state) {
    if (reference) {
      ref::fp8::EncodeSpan(x, q, ref::fp8::Format::kE4M3);
    } else {
      EncodeE4M3Cpu(x, q);
    }
    benchmark::DoNotOptimize(q.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * int64_t(sizeof(float)));
}
BENCHMARK_CAPTURE(Fp8Encode, cpu, false)->Name("coat/fp8_encode_cpu/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();
BENCHMARK_CAPTURE(Fp8Encode, ref, true)->Name("coat/fp8_encode_ref/access:read/threads:1")->ArgNames({"elements"})->Arg(1 << 20)->UseRealTime();

}  // namespace
}  // namespace cb::coat

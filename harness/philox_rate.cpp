// File: harness/philox_rate.cpp
// -----------------------------------------------------------------------------
// harness/philox_rate.h. Napkin math for the AVX-512 kernel: a round is six
// vector instructions per eight blocks (two multiplies, two masked xors, two
// shuffles), ten rounds, so ~8 instructions per block: ~1.6 Gblock/s per
// core measured on a Zen 5 EPYC, so a 2^25-block pass takes ~20 ms.
#if defined(__GNUC__) && !defined(__clang__)  // clang (the fuzz build) knows no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 on _mm512_undefined in the intrinsics headers
#endif
#include "harness/philox_rate.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "harness/parallel.h"
#include "harness/philox.h"
#include "harness/philox_avx512.h"

namespace cb::harness {

namespace {

constexpr uint64_t kKey = 0x243F6A8885A308D3ull;  // any fixed key: pi's fraction
constexpr int kChains = 8;                       // as the PF samplers (pf_cpu_avx512.cpp)
constexpr int64_t kStep = 8 * kChains;           // blocks per step

// Both kernels: blocks [0, blocks) of `stream`; returns the xor of every
// output word and writes the first kStep blocks' words (x, y per block, the
// philox_avx512.h layout) to `first` for the check.
uint64_t FoldScalar(uint64_t stream, int64_t blocks, uint64_t* first) {
  uint64_t fold = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const Philox4x32Block out =
        Philox4x32_10::Generate(PhiloxCounter(static_cast<uint64_t>(b), stream), PhiloxKey(kKey));
    const uint64_t x = out.v[0] | uint64_t{out.v[1]} << 32;
    const uint64_t y = out.v[2] | uint64_t{out.v[3]} << 32;
    if (b < kStep) first[2 * b] = x, first[2 * b + 1] = y;
    fold ^= x ^ y;
  }
  return fold;
}

#if CB_HAVE_AVX512_PHILOX
CB_TARGET_AVX512_PHILOX uint64_t FoldAvx512(uint64_t stream, int64_t blocks, uint64_t* first) {
  const avx512::PhiloxRoundKeys rk = avx512::MakeRoundKeys(kKey);
  const __m512i stream_v = _mm512_set1_epi64(static_cast<long long>(stream));
  __m512i fold = _mm512_setzero_si512();
  for (int64_t b0 = 0; b0 < blocks; b0 += kStep) {
    __m512i x[kChains], y[kChains];
    avx512::PhiloxConsecutive<kChains>(static_cast<uint64_t>(b0), stream_v, rk, x, y);
    if (b0 == 0) {
      // Lane j of chain g is block 8 g + j.
      alignas(64) uint64_t xs[8], ys[8];
      for (int g = 0; g < kChains; ++g) {
        _mm512_store_si512(xs, x[g]);
        _mm512_store_si512(ys, y[g]);
        for (int j = 0; j < 8; ++j) first[2 * (8 * g + j)] = xs[j], first[2 * (8 * g + j) + 1] = ys[j];
      }
    }
#pragma GCC unroll 8
    for (int g = 0; g < kChains; ++g) fold = _mm512_ternarylogic_epi64(fold, x[g], y[g], 0x96);
  }
  alignas(64) uint64_t lanes[8];
  _mm512_store_si512(lanes, fold);
  uint64_t out = 0;
  for (uint64_t l : lanes) out ^= l;
  return out;
}
#endif

uint64_t Fold(uint64_t stream, int64_t blocks, uint64_t* first) {
#if CB_HAVE_AVX512_PHILOX
  if (CpuRunsPhiloxAvx512()) return FoldAvx512(stream, blocks, first);
#endif
  return FoldScalar(stream, blocks, first);
}

}  // namespace

std::string PhiloxRateKernel() {
  return CpuRunsPhiloxAvx512() ? "avx512, 8 chains of 8 blocks (harness/philox_avx512.h)"
                               : "scalar (harness/philox.h)";
}

double PhiloxBlocksPerSecond(int threads, int64_t blocks_per_thread) {
  threads = std::max(1, threads);
  const int64_t blocks = std::max<int64_t>(kStep, (blocks_per_thread + kStep - 1) / kStep * kStep);
  std::vector<std::vector<uint64_t>> first(static_cast<size_t>(threads),
                                           std::vector<uint64_t>(2 * kStep));
  std::vector<uint64_t> folds(static_cast<size_t>(threads));
  const auto t0 = std::chrono::steady_clock::now();
  ParallelFor(threads, threads, [&](int part, int64_t, int64_t) {
    folds[static_cast<size_t>(part)] =
        Fold(static_cast<uint64_t>(part), blocks, first[static_cast<size_t>(part)].data());
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int t = 0; t < threads; ++t) {
    for (int64_t b = 0; b < kStep; ++b) {
      const uint64_t stream = static_cast<uint64_t>(t);
      if (first[t][2 * b] != PhiloxU64At(kKey, stream, 2 * static_cast<uint64_t>(b)) ||
          first[t][2 * b + 1] != PhiloxU64At(kKey, stream, 2 * static_cast<uint64_t>(b) + 1)) {
        throw std::runtime_error("CPU Philox ceiling: block " + std::to_string(b) + " of thread " +
                                 std::to_string(t) + " differs from harness/philox.h");
      }
    }
  }
  // The folds are the observable result; a zero fold over millions of
  // random words would mean the work did not happen.
  for (uint64_t f : folds) {
    if (f == 0) throw std::runtime_error("CPU Philox ceiling: the outputs fold to zero");
  }
  return static_cast<double>(blocks) * threads / seconds;
}

}  // namespace cb::harness

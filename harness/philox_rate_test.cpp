// File: harness/philox_rate_test.cpp
// -----------------------------------------------------------------------------
// harness/philox_avx512.h's eight-block Philox against harness/philox.h, bit
// for bit, on fresh random keys, streams and counters (the PF kernels and the
// Philox ceiling both rest on it); harness/philox_rate.h's measurement: a
// positive rate on one and several threads, and the kernel it names.
// GCC 12 on _mm512_undefined in the intrinsics headers, inlined here:
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "harness/philox_rate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fixtures/fresh_seed.h"
#include "harness/philox.h"
#include "harness/philox_avx512.h"
#include "harness/random.h"

namespace cb::harness {
namespace {

#if CB_HAVE_AVX512_PHILOX
// PhiloxConsecutive's blocks as words in philox_avx512.h's (x, y) layout.
template <int G>
CB_TARGET_AVX512_PHILOX void EightWide(uint64_t key, uint64_t stream, uint64_t first,
                                       uint64_t* words) {
  __m512i x[G], y[G];
  avx512::PhiloxConsecutive<G>(first, _mm512_set1_epi64(static_cast<long long>(stream)),
                               avx512::MakeRoundKeys(key), x, y);
  for (int g = 0; g < G; ++g) {
    alignas(64) uint64_t xs[8], ys[8];
    _mm512_store_si512(xs, x[g]);
    _mm512_store_si512(ys, y[g]);
    for (int j = 0; j < 8; ++j) words[2 * (8 * g + j)] = xs[j], words[2 * (8 * g + j) + 1] = ys[j];
  }
}

template <int G>
void ExpectEightWideEqualsScalar(Rng& rng) {
  for (int trial = 0; trial < 100; ++trial) {
    const uint64_t key = rng.NextU64(), stream = rng.NextU64();
    // Counters near 0, just below 2^32 (a carry into the second word) and anywhere.
    const uint64_t first = trial % 3 == 0 ? 0 : trial % 3 == 1 ? (uint64_t{1} << 32) - 3 : rng.NextU64() >> 1;
    uint64_t words[16 * G];
    EightWide<G>(key, stream, first, words);
    for (int b = 0; b < 8 * G; ++b) {
      ASSERT_EQ(words[2 * b], PhiloxU64At(key, stream, 2 * (first + b))) << "G " << G << " block " << b;
      ASSERT_EQ(words[2 * b + 1], PhiloxU64At(key, stream, 2 * (first + b) + 1)) << "G " << G << " block " << b;
    }
  }
}
#endif

TEST(PhiloxAvx512, EveryChainCountIsBitIdenticalToTheScalarGenerator) {
  if (!CpuRunsPhiloxAvx512()) GTEST_SKIP() << "this CPU lacks AVX-512 F/DQ/CD/VL/BW";
#if CB_HAVE_AVX512_PHILOX
  CB_FRESH_SEED(seed);
  Rng rng(seed, 1);
  ExpectEightWideEqualsScalar<1>(rng);
  ExpectEightWideEqualsScalar<3>(rng);
  ExpectEightWideEqualsScalar<8>(rng);
#endif
}

TEST(PhiloxRate, OneAndSeveralThreadsGiveAPositiveRate) {
  for (const int threads : {1, 2, 3}) {
    // 1000 blocks round up to 1024 per thread: a few microseconds.
    const double rate = PhiloxBlocksPerSecond(threads, 1000);
    EXPECT_TRUE(std::isfinite(rate)) << threads;
    EXPECT_GT(rate, 0) << threads;
  }
  EXPECT_GT(PhiloxBlocksPerSecond(0, 0), 0) << "at least one thread and one step";
}

TEST(PhiloxRate, NamesTheKernelItRuns) {
  const std::string kernel = PhiloxRateKernel();
  EXPECT_EQ(kernel.find("avx512") != std::string::npos, CpuRunsPhiloxAvx512()) << kernel;
}

}  // namespace
}  // namespace cb::harness

// File: harness/philox.h
// -----------------------------------------------------------------------------
// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw,
// "Parallel Random Numbers: As Easy as 1, 2, 3" (SC 2011), as shipped in the
// Random123 library. DESIGN §4: every random number in claimbench comes from
// this function, keyed by (seed, stream) and indexed by a counter, so a CUDA
// kernel can draw exactly the numbers the CPU reference draws.
//
// This header is usable from host and device code: everything in it is
// CB_HOST_DEVICE, uses plain structs (no std:: containers) and no exceptions.
// The stateful, host-only stream on top of it is cb::harness::Rng
// (harness/random.h); the free functions at the bottom let a kernel compute the
// same values as Rng from (seed, stream, position) without any state.
//
// Known-answer tests: fixtures/philox_kat.txt (Random123's kat_vectors).
#ifndef CB_HARNESS_PHILOX_H_
#define CB_HARNESS_PHILOX_H_

#include <cstdint>

#ifndef CB_HOST_DEVICE
#if defined(__CUDACC__)
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif
#endif

namespace cb::harness {

// The 128-bit counter (four 32-bit words, word 0 first as in Random123).
struct Philox4x32Counter {
  uint32_t v[4];
};

// The 64-bit key (two 32-bit words).
struct Philox4x32Key {
  uint32_t v[2];
};

// One output block: four independent-looking 32-bit words.
struct Philox4x32Block {
  uint32_t v[4];
};

namespace philox_internal {

// Multiplier and Weyl constants of Philox4x32 (Random123, philox.h): the
// multipliers were chosen by the authors for avalanche; the Weyl increments are
// the fractional parts of the golden ratio (0.618...) and of sqrt(3)
// (0.732...) in 0.32 fixed point.
inline constexpr uint32_t kMultiplier0 = 0xD2511F53u;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kWeyl0 = 0x9E3779B9u;
inline constexpr uint32_t kWeyl1 = 0xBB67AE85u;

// Philox4x32 with `rounds` rounds. Do not call directly: it exists so the
// known-answer tests can also check Random123's 7-round vectors, which catch
// a misplaced key bump that the 10-round vectors alone would not localise.
// A 32x32->64 product is exact in uint64_t, so mulhi/mullo need no intrinsics
// and the same code compiles for host and device.
CB_HOST_DEVICE constexpr Philox4x32Block Philox4x32Rounds(Philox4x32Counter ctr, Philox4x32Key key,
                                                          int rounds) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      // The key schedule bumps the key before every round but the first.
      key.v[0] += kWeyl0;
      key.v[1] += kWeyl1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * ctr.v[0];
    const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * ctr.v[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
    const uint32_t lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(p1);
    ctr = Philox4x32Counter{{hi1 ^ ctr.v[1] ^ key.v[0], lo1, hi0 ^ ctr.v[3] ^ key.v[1], lo0}};
  }
  return Philox4x32Block{{ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]}};
}

}  // namespace philox_internal

// Philox4x32_10: a keyed bijection on 128-bit counters; Generate() is a pure
// function, so any block can be computed in O(1) without generating the ones
// before it.
class Philox4x32_10 {
 public:
  using Counter = Philox4x32Counter;
  using Key = Philox4x32Key;
  using Block = Philox4x32Block;

  static constexpr int kRounds = 10;

  // Generate()
  //
  // Returns the block for counter `ctr` under key `key`; bit-identical to
  // Random123's philox4x32(ctr, key) with 10 rounds on every platform.
  CB_HOST_DEVICE static constexpr Block Generate(Counter ctr, Key key) {
    return philox_internal::Philox4x32Rounds(ctr, key, kRounds);
  }
};

// -----------------------------------------------------------------------------
// Stateless helpers shared by Rng (host) and kernels (device).
//
// Layout, fixed as part of the output format (changing it changes every
// generator's output and must bump their versions):
//   key     = { seed low 32 bits, seed high 32 bits }
//   counter = { block low, block high, stream low, stream high }
// where `block` is the 64-bit index of the block within the stream. Rng hands
// out the words of block 0 (v[0], v[1], v[2], v[3]), then block 1, ...

// Key words for a 64-bit seed.
CB_HOST_DEVICE constexpr Philox4x32Key PhiloxKey(uint64_t seed) {
  return Philox4x32Key{{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
}

// Counter words for block `block` of stream `stream`.
CB_HOST_DEVICE constexpr Philox4x32Counter PhiloxCounter(uint64_t block, uint64_t stream) {
  return Philox4x32Counter{{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                            static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)}};
}

// Uniform double in the open interval (0, 1) from 64 random bits:
//   k = bits >> 12 (the top 52 bits),  u = (k + 0.5) * 2^-52.
// Why 52 and not 53 bits: (k + 0.5) * 2^-53 with a 53-bit k needs 54
// significant bits, so for k >= 2^52 it rounds to the 2^-53 grid (to even) and
// k = 2^53 - 1 rounds to exactly 1.0, which breaks -log(1 - u) and
// -log(-log(u)). With 52 bits every value is exact, the smallest is 2^-53 and
// the largest 1 - 2^-53, and u and 1 - u have exactly the same distribution.
CB_HOST_DEVICE constexpr double UniformFromBits(uint64_t bits) {
  return (static_cast<double>(bits >> 12) + 0.5) * 0x1p-52;
}

// The `index`-th 64-bit value (0-based) of a fresh Rng(seed, stream) that only
// ever calls NextU64(): word 2*index is the low half, word 2*index + 1 the high
// half. A kernel thread t calls PhiloxU64At(seed, stream, t) and gets the same
// number as the t-th NextU64() on the CPU.
CB_HOST_DEVICE constexpr uint64_t PhiloxU64At(uint64_t seed, uint64_t stream, uint64_t index) {
  const Philox4x32Block b =
      Philox4x32_10::Generate(PhiloxCounter(index >> 1, stream), PhiloxKey(seed));
  const int w = static_cast<int>(index & 1) * 2;
  return static_cast<uint64_t>(b.v[w]) | (static_cast<uint64_t>(b.v[w + 1]) << 32);
}

// The `index`-th Uniform() of a fresh Rng(seed, stream) that only ever calls
// Uniform(): UniformFromBits(PhiloxU64At(seed, stream, index)).
CB_HOST_DEVICE constexpr double PhiloxUniformAt(uint64_t seed, uint64_t stream, uint64_t index) {
  return UniformFromBits(PhiloxU64At(seed, stream, index));
}

}  // namespace cb::harness

#endif  // CB_HARNESS_PHILOX_H_

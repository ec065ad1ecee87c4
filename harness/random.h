// File: harness/random.h
// -----------------------------------------------------------------------------
// Rng: the host-side random stream of claimbench (DESIGN §4). It is Philox4x32-10
// (harness/philox.h) read sequentially: keyed by `seed`, one independent stream
// per `stream` id, counter words 0..1 holding a 64-bit block index. Each block
// gives four 32-bit words, handed out in order.
//
// Every distribution here has its formula written down and uses only fp64
// arithmetic and <cmath>, never std::*_distribution or rand(), whose outputs
// differ between standard libraries. Integer draws and Uniform() are bit-exact
// across platforms and between CPU and GPU (see PhiloxU64At/PhiloxUniformAt).
// Draws that go through log/cos/sqrt (Normal, Exponential, Gumbel) are exact
// functions of the same uniforms but inherit the libm's rounding: expect
// agreement to a few ulp, not bitwise, across libms and devices.
//
// Consumption is part of the output format: which words a call uses is
// documented per method, so a kernel can reproduce any draw from its position.
#ifndef CB_HARNESS_RANDOM_H_
#define CB_HARNESS_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "harness/philox.h"

namespace cb::harness {

class Rng {
 public:
  // A stream of Philox4x32-10 output keyed by seed (key words {lo, hi}) and
  // numbered by stream (counter words 2..3), starting at word 0 of block 0.
  // Different (seed, stream) pairs give unrelated sequences.
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  uint64_t seed() const { return seed_; }
  uint64_t stream() const { return stream_; }

  // Position()
  //
  // The number of 32-bit words consumed so far. Words are numbered
  // 4 * block + lane.
  uint64_t Position() const { return block_ * 4 + lane_; }

  // Seek()
  //
  // Moves to 32-bit word `word` of the stream (the next NextU32() returns it);
  // O(1), since Philox computes any block directly.
  void Seek(uint64_t word);

  // NextU32()
  //
  // The next 32-bit word. Consumes 1 word.
  uint32_t NextU32();

  // NextU64()
  //
  // Two consecutive words w0, w1 (in stream order) as w0 | (w1 << 32).
  // Consumes 2 words.
  uint64_t NextU64();

  // Uniform()
  //
  // A double in the open interval (0, 1): u = (k + 0.5) * 2^-52 with
  // k = NextU64() >> 12 (UniformFromBits in philox.h, which explains why 52 bits
  // and not 53: it keeps every value exact and 1.0 unreachable).
  // Range [2^-53, 1 - 2^-53]. Consumes 2 words.
  double Uniform();

  // Normal()
  //
  // A standard normal by the Box-Muller transform in fp64, with u1 = Uniform(),
  // then u2 = Uniform():
  //   z = sqrt(-2 ln u1) * cos(2 pi u2).
  // The second Box-Muller value (the sine) is deliberately NOT cached: the i-th
  // normal of a stream is then a pure function of its position (words 4i..4i+3
  // when the stream only draws normals), which is what a CUDA kernel can
  // reproduce; it costs one extra log/sqrt per draw. Consumes 4 words.
  double Normal();

  // Exponential()
  //
  // Rate-1 exponential by inversion: e = -ln(u), u = Uniform(). Mean 1,
  // variance 1; always finite and > 0 since u is in (0, 1). Consumes 2 words.
  double Exponential();

  // Gumbel()
  //
  // Standard Gumbel (location 0, scale 1) by inversion: g = -ln(-ln(u)),
  // u = Uniform(). Mean is the Euler-Mascheroni constant, variance pi^2/6;
  // this is the noise of the Gumbel-max trick. Consumes 2 words.
  double Gumbel();

  // UniformInt()
  //
  // An integer uniform on [lo, hi], inclusive, without modulo bias, by plain
  // rejection: with m = hi - lo + 1, draw x = NextU64() until
  // x >= (2^64 - m) mod m (so the accepted range is a whole number of copies
  // of [0, m)), then return lo + x mod m. Rejection happens with probability
  // < m / 2^64. When [lo, hi] is all of uint64 it returns NextU64().
  // Consumes 2 words per attempt.
  // REQUIRES: lo <= hi (throws std::invalid_argument otherwise).
  uint64_t UniformInt(uint64_t lo, uint64_t hi);

  // Shuffle()
  //
  // Fisher-Yates (Durstenfeld) in place: for i = n-1 down to 1, swap items[i]
  // with items[UniformInt(0, i)]. Every permutation is equally likely.
  template <class T>
  void Shuffle(std::span<T> items) {
    for (size_t i = items.size(); i > 1; --i) {
      const size_t j = static_cast<size_t>(UniformInt(0, i - 1));
      using std::swap;
      swap(items[i - 1], items[j]);
    }
  }

 private:
  void Refill();

  uint64_t seed_;
  uint64_t stream_;
  Philox4x32Key key_;
  uint64_t block_ = 0;   // Index of the block in buffer_.
  uint32_t lane_ = 0;    // Next word of buffer_ to hand out, 0..4.
  bool filled_ = false;  // Whether buffer_ holds block_.
  Philox4x32Block buffer_{};
};

}  // namespace cb::harness

#endif  // CB_HARNESS_RANDOM_H_

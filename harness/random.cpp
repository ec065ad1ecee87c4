// File: harness/random.cpp
// -----------------------------------------------------------------------------
// Rng: sequential reads of Philox4x32-10 and the distributions built on them.
// The formulas are documented in harness/random.h; this file only implements
// them.
#include "harness/random.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace cb::harness {

Rng::Rng(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream), key_(PhiloxKey(seed)) {}

void Rng::Seek(uint64_t word) {
  block_ = word / 4;
  lane_ = static_cast<uint32_t>(word % 4);
  filled_ = false;
}

void Rng::Refill() {
  buffer_ = Philox4x32_10::Generate(PhiloxCounter(block_, stream_), key_);
  filled_ = true;
}

uint32_t Rng::NextU32() {
  if (lane_ == 4) {
    // The block index wraps after 2^64 blocks (2^68 bytes); no run gets there.
    ++block_;
    lane_ = 0;
    filled_ = false;
  }
  if (!filled_) Refill();
  return buffer_.v[lane_++];
}

uint64_t Rng::NextU64() {
  const uint64_t low = NextU32();
  const uint64_t high = NextU32();
  return low | (high << 32);
}

double Rng::Uniform() { return UniformFromBits(NextU64()); }

double Rng::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::Exponential() { return -std::log(Uniform()); }

double Rng::Gumbel() { return -std::log(-std::log(Uniform())); }

uint64_t Rng::UniformInt(uint64_t lo, uint64_t hi) {
  if (lo > hi) throw std::invalid_argument("Rng::UniformInt: lo > hi");
  const uint64_t span = hi - lo;
  if (span == UINT64_MAX) return NextU64();
  const uint64_t m = span + 1;
  // (2^64 - m) mod m, computed in 64 bits as (-m) mod m. Values below it are
  // the incomplete copy of [0, m) at the bottom of the range.
  const uint64_t threshold = (0 - m) % m;
  uint64_t x = NextU64();
  while (x < threshold) x = NextU64();
  return lo + x % m;
}

}  // namespace cb::harness

// File: reference/pf/prf.h
// -----------------------------------------------------------------------------
// The keyed pseudo-random function of the PF, Gumbel and KGW watermarks and
// the context hash that selects its stream (reference/pf/pf.h). Header-only
// and CB_HOST_DEVICE, like harness/philox.h, so the CPU reference and the CUDA
// kernels (suites/pf/pf.cu) compute bit-identical numbers:
//
//   r(key, stream, y) = UniformFromBits(PhiloxU64At(key, stream, y)) in (0, 1)
//   ContextHash       = splitmix64 chain: h = Mix(m), then h = Mix(h ^ tok)
//                       over tokens t-m .. t-1 (a missing token, t < m, is -1)
//
// Why a counter-based PRF and not the upstream torch.manual_seed(s) +
// torch.rand(V): r(y) of one token costs O(1) (detection never draws the
// other V - 1 values), and it can never be exactly 0.
#ifndef CB_REFERENCE_PF_PRF_H_
#define CB_REFERENCE_PF_PRF_H_

#include <cstdint>

#include "harness/philox.h"

namespace cb::ref::pf {

// splitmix64's finaliser (Steele, Lea, Flood 2014): a bijection on 64 bits
// with full avalanche.
CB_HOST_DEVICE constexpr uint64_t Mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Hash of tokens[t-m .. t-1]; `tokens` points at the text's first token.
CB_HOST_DEVICE constexpr uint64_t ContextHashAt(const int32_t* tokens, int64_t t, int m) {
  uint64_t h = Mix64(static_cast<uint64_t>(m));
  for (int64_t j = t - m; j < t; ++j) {
    const int32_t tok = j < 0 ? -1 : tokens[j];
    h = Mix64(h ^ static_cast<uint64_t>(static_cast<uint32_t>(tok)));
  }
  return h;
}

CB_HOST_DEVICE constexpr double KeyedUniformAt(uint64_t key, uint64_t stream, uint64_t y) {
  return cb::harness::UniformFromBits(cb::harness::PhiloxU64At(key, stream, y));
}

}  // namespace cb::ref::pf

#endif  // CB_REFERENCE_PF_PRF_H_

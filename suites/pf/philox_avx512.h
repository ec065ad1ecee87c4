// File: suites/pf/philox_avx512.h
// -----------------------------------------------------------------------------
// PF's use of the eight-block AVX-512 Philox4x32-10 (harness/philox_avx512.h,
// whose lane layout and contract apply here): the CPU switch with its
// CB_PF_NO_AVX512 override, and the two array forms the samplers and the
// detector's tests use. Sampling draws one block per pair of tokens,
// detection one block per position.
#ifndef CB_SUITES_PF_PHILOX_AVX512_H_
#define CB_SUITES_PF_PHILOX_AVX512_H_

#include <cstdint>

#include "harness/philox_avx512.h"

namespace cb::pf {

#if CB_HAVE_AVX512_PHILOX
namespace avx512 = cb::harness::avx512;
#endif

// True when this CPU runs AVX-512 F, DQ, CD, VL and BW (checked once).
// The environment variable CB_PF_NO_AVX512=1 forces false, so the scalar
// fallback can be measured and tested on an AVX-512 machine.
bool CpuHasAvx512();

// words[2 j] and words[2 j + 1] = PhiloxU64At(key, stream, 2 (first_pair + j))
// and (... + 1) for j < pairs: the per-token 64-bit words of tokens
// 2 first_pair .. 2 (first_pair + pairs) - 1. AVX-512 when `vector` (requires
// CpuHasAvx512()), else harness/philox.h. Exposed for the equality test.
void PhiloxPairWords(uint64_t key, uint64_t stream, uint64_t first_pair, int64_t pairs,
                     uint64_t* words, bool vector);

// words[i] = PhiloxU64At(key, streams[i], indices[i]) for i < n (one stream
// per element: detection's per-position keyed PRF). Same dispatch as above.
void PhiloxGatherWords(uint64_t key, const uint64_t* streams, const uint64_t* indices, int64_t n,
                       uint64_t* words, bool vector);

}  // namespace cb::pf

#endif  // CB_SUITES_PF_PHILOX_AVX512_H_

// File: suites/harness/philox_stream.cpp
// CPU path and backend dispatch of philox_stream.h.
#include "suites/harness/philox_stream.h"

#include <stdexcept>
#include <string>

#include "harness/random.h"

namespace cb::harness_suite {

std::vector<uint64_t> PhiloxStream(cb::harness::Backend backend, uint64_t seed, uint64_t stream,
                                   int64_t n) {
  if (n < 0) throw std::invalid_argument("PhiloxStream: n must be >= 0");
  cb::harness::RequireAvailable(backend);
  if (backend == cb::harness::Backend::kCpu) {
    cb::harness::Rng rng(seed, stream);
    std::vector<uint64_t> out(n);
    for (auto& v : out) v = rng.NextU64();
    return out;
  }
#if CB_HAVE_CUDA
  return PhiloxStreamCuda(seed, stream, n);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

}  // namespace cb::harness_suite

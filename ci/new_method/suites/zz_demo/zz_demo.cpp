// File: suites/zz_demo/zz_demo.cpp
// Dispatch: the CPU fast path (here simply the reference).
#include "suites/zz_demo/zz_demo.h"

#include <stdexcept>

#include "reference/zz_demo.h"

namespace cb::zz_demo {

double Dot(cb::harness::Backend backend, std::span<const float> a, std::span<const float> b) {
  cb::harness::RequireAvailable(backend);
  if (backend != cb::harness::Backend::kCpu) {
    throw std::runtime_error("zz_demo: no CUDA path");
  }
  return cb::ref::zz_demo::Dot(a, b);
}

}  // namespace cb::zz_demo

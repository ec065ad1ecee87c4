// File: suites/zz_demo/zz_demo.h
// -----------------------------------------------------------------------------
// The method's one public entry point: Fn(Backend, ...). A CUDA path would
// live in zz_demo.cu behind a private zz_demo_cuda.h.
#ifndef CB_SUITES_ZZ_DEMO_ZZ_DEMO_H_
#define CB_SUITES_ZZ_DEMO_ZZ_DEMO_H_

#include <span>

#include "harness/backend.h"

namespace cb::zz_demo {

// a . b on `backend`, fp32 inputs, fp64 sum. Throws when `backend` is
// unavailable here. REQUIRES: a.size() == b.size().
double Dot(cb::harness::Backend backend, std::span<const float> a, std::span<const float> b);

}  // namespace cb::zz_demo

#endif  // CB_SUITES_ZZ_DEMO_ZZ_DEMO_H_

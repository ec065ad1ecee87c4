// File: harness/philox_avx512.cpp
// -----------------------------------------------------------------------------
// The CPU check of harness/philox_avx512.h.
#include "harness/philox_avx512.h"

namespace cb::harness {

bool CpuRunsPhiloxAvx512() {
#if CB_HAVE_AVX512_PHILOX
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace cb::harness

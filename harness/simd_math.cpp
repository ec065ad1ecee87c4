// File: harness/simd_math.cpp
#include "harness/simd_math.h"

namespace cb::harness {

bool CpuHasAvx2Fma() {
#if CB_HAVE_SIMD_MATH
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

bool CpuHasAvx512F() {
#if CB_HAVE_SIMD_MATH
  static const bool has = CpuHasAvx2Fma() && __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

}  // namespace cb::harness

// File: harness/retain_freed_memory.cpp
#include "harness/retain_freed_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cb::harness {

bool RetainFreedMemory() {
#if defined(__GLIBC__)
  // A fixed threshold also ends glibc's adaptive one; -1 disables trimming.
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kRetainedBlockLimit)) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, -1) == 1;
  return mmap_ok && trim_ok;
#else
  return false;
#endif
}

}  // namespace cb::harness

// File: harness/target_clones.h
// -----------------------------------------------------------------------------
// CB_HASWELL_CLONES: build a plain C++ loop twice, for Haswell (AVX2 + FMA)
// and for the default x86-64 target, the copy picked once per process by
// the CPU. For loops GCC vectorises by itself, where intrinsics would add
// nothing but a second copy of the code (radar's attention kernels, DOCS's
// block maxima).
//
//   CB_HASWELL_CLONES void Scale(float* x, int64_t n, float s) {
//     for (int64_t i = 0; i < n; ++i) x[i] *= s;
//   }
//
// The pick is made by an ifunc resolver that the dynamic loader runs while it
// relocates the executable, before ThreadSanitizer's runtime is set up. GCC 12
// instruments that resolver as well, so a -fsanitize=thread binary died of
// SIGSEGV before main (radar_test under ci/tsan.sh). Under TSan only the
// default version is built; the code and its threads are the same.
#ifndef CB_HARNESS_TARGET_CLONES_H_
#define CB_HARNESS_TARGET_CLONES_H_

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define CB_HASWELL_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define CB_HASWELL_CLONES
#endif

#endif  // CB_HARNESS_TARGET_CLONES_H_

// File: suites/mia/score_kernel_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the Min-K%++ scoring kernel path, private to the suite: called by the
// dispatchers in score_kernel.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/mia/score_kernel.h. CUDA builds only.
#ifndef CB_SUITES_MIA_SCORE_KERNEL_CUDA_H_
#define CB_SUITES_MIA_SCORE_KERNEL_CUDA_H_

#include "suites/mia/score_kernel.h"

#if CB_HAVE_CUDA

namespace cb::mia {

// The CUDA path (mia.cu): copies host logits to the device, runs the fused
// kernel, copies the scores back.
PositionScores ScorePositionsCuda(const LogitsView& logits, std::span<const int32_t> targets);
// Device-resident form for benchmarks: all pointers on the device; returns
// the kernel time in milliseconds (CUDA events, `reps` launches averaged).
double TimeScorePositionsCuda(const void* d_logits, int64_t rows, int64_t vocab, LogitType type,
                              const int32_t* d_targets, float* d_logp, float* d_mu,
                              float* d_sigma2, int reps);

}  // namespace cb::mia

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_MIA_SCORE_KERNEL_CUDA_H_

// File: suites/mtad/mtad_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the MTAD path, private to the suite: called by the
// dispatchers in mtad.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/mtad/mtad.h. CUDA builds only.
#ifndef CB_SUITES_MTAD_MTAD_CUDA_H_
#define CB_SUITES_MTAD_MTAD_CUDA_H_

#include "suites/mtad/mtad.h"

#if CB_HAVE_CUDA

namespace cb::mtad {

// The CUDA paths (mtad.cu); call through the dispatchers, which check input.
void ExpandScoresCuda(std::span<const double> w, std::span<const double> q, int vocab_size,
                      std::span<double> out);
void AcceptDepthsCuda(std::span<const double> logp, std::span<const double> logq, int gamma,
                      double log_tau, std::span<int> depth);

}  // namespace cb::mtad

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_MTAD_MTAD_CUDA_H_

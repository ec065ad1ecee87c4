// File: harness/blas_threads.h
// -----------------------------------------------------------------------------
// BlasThreads(): how many threads OpenBLAS runs a large GEMM on now, for the
// "threads:N" axis of benchmarks whose work is BLAS calls (issue 32).
//
// OpenBLAS on one thread for a scope, the previous count restored after: a
// training run's values are then a function of (seed, build, CPU) whatever
// the machine's core count, which the CI gate's comparison of claim values
// against a baseline needs. Claims that train (coat, unip, odeformer) hold
// one while they train.
//
//   const cb::harness::OpenBlasOneThread pinned;  // until the end of the scope
#ifndef CB_HARNESS_BLAS_THREADS_H_
#define CB_HARNESS_BLAS_THREADS_H_

#include <cblas.h>

namespace cb::harness {

inline int BlasThreads() { return openblas_get_num_threads(); }

class OpenBlasOneThread {
 public:
  OpenBlasOneThread() : saved_(openblas_get_num_threads()) { openblas_set_num_threads(1); }
  ~OpenBlasOneThread() { openblas_set_num_threads(saved_); }
  OpenBlasOneThread(const OpenBlasOneThread&) = delete;
  OpenBlasOneThread& operator=(const OpenBlasOneThread&) = delete;

 private:
  int saved_;
};

}  // namespace cb::harness

#endif  // CB_HARNESS_BLAS_THREADS_H_

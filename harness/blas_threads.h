// File: harness/blas_threads.h
// -----------------------------------------------------------------------------
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

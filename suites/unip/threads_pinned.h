// File: suites/unip/threads_pinned.h
// -----------------------------------------------------------------------------
// OpenBLAS on one thread for a scope, the previous count restored after: a
// training run's values are then a function of (seed, build, CPU), which the
// CI's two-run comparison of claim values needs.
#ifndef CB_SUITES_UNIP_THREADS_PINNED_H_
#define CB_SUITES_UNIP_THREADS_PINNED_H_

#include <cblas.h>

namespace cb::unip {

class OpenBlasOneThread {
 public:
  OpenBlasOneThread() : saved_(openblas_get_num_threads()) { openblas_set_num_threads(1); }
  ~OpenBlasOneThread() { openblas_set_num_threads(saved_); }
  OpenBlasOneThread(const OpenBlasOneThread&) = delete;
  OpenBlasOneThread& operator=(const OpenBlasOneThread&) = delete;

 private:
  int saved_;
};

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_THREADS_PINNED_H_

// File: suites/docs/docs_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the DOCS path, private to the suite: called by the
// dispatchers in docs.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/docs/docs.h. CUDA builds only.
#ifndef CB_SUITES_DOCS_DOCS_CUDA_H_
#define CB_SUITES_DOCS_DOCS_CUDA_H_

#include "suites/docs/docs.h"

#if CB_HAVE_CUDA

namespace cb::docs {

// The CUDA path (docs.cu); call through AbsMaxima(). Copies x and y to the
// device, and only the two maxima vectors back. `block_rows` > 0 overrides
// the device's block height (at most 2^26 floats of C at a time), as above.
// REQUIRES: CheckDocsInput(x, y) passed.
cb::ref::docs::AbsMaxima AbsMaximaCuda(const MatrixView& x, const MatrixView& y,
                                       int64_t block_rows = 0);

// One DOCS problem uploaded once, so that the device work alone
// (normalisation, GEMM, maxima; no transfers) can be timed: what the
// benchmark compares with the cuBLAS SGEMM ceiling.
class CudaDocsProblem {
 public:
  CudaDocsProblem(const MatrixView& x, const MatrixView& y);  // checks input, uploads
  ~CudaDocsProblem();
  CudaDocsProblem(const CudaDocsProblem&) = delete;
  CudaDocsProblem& operator=(const CudaDocsProblem&) = delete;

  // Seconds of one run of the device work (CUDA events), L2 flushed before.
  double TimeOnce();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cb::docs

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_DOCS_DOCS_CUDA_H_

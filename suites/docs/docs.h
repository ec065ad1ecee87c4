// File: suites/docs/docs.h
// -----------------------------------------------------------------------------
// DOCS (Min & Wang, ICLR 2025) at production sizes: the fp32 fast paths
// beside the fp64 reference (reference/docs.h, the spec), dispatched by
// backend (DESIGN §3). Host-only header: never includes cuda_runtime.h.
//
//   X (m, n1), Y (m, n2), fp32, ROW-MAJOR; columns are the neurons compared
//   Xn, Yn       columns scaled to unit norm (norms accumulated in fp64)
//   C = Xn^T Yn  (n1, n2), fp32 GEMM: CBLAS sgemm on the CPU, cuBLAS on CUDA
//   s_x[j] = max_k |C_jk|, s_y[k] = max_j |C_jk|, taken from each block of
//                rows of C right after that block's GEMM (on the CPU while it
//                is in cache), so C is never held whole
//   (u, beta) = reference Gumbel MLE in fp64 on the host; S = (u_x + u_y) / 2
//
// Accuracy: an fp32 cosine of unit vectors of length m is typically within
// sqrt(m) * 2^-24 of the fp64 one (6e-8 at m = 64, 5.4e-6 at m = 8192), and
// S moves by no more than the maxima do; the tests hold the backends to
// AllClose(maxima, atol 1e-5) and |delta S| <= 1e-5 against the fp64 reference.
//
// Sizes: m, n1, n2 must each fit an int (the BLAS interfaces take int).
#ifndef CB_SUITES_DOCS_DOCS_H_
#define CB_SUITES_DOCS_DOCS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "reference/docs.h"

namespace cb::docs {

// A read-only (rows, cols) fp32 row-major matrix; `name` labels errors.
struct MatrixView {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  std::string name = "X";
};

// CheckDocsInput()
//
// Throws std::invalid_argument with one line naming the matrix when either is
// empty or has a dimension above INT_MAX, when the row counts differ, when an
// entry is NaN or infinite (naming its row and column), or when a column is
// all zeros (its cosine is undefined). Every backend calls it before any work.
void CheckDocsInput(const MatrixView& x, const MatrixView& y);

// CheckDocsInput's parts, which it runs in this order: Shape(x), Values(x),
// Shape(y), Values(y), Rows(x, y). Shape: empty or above INT_MAX. Values: a
// non-finite entry (the first in row-major order), then an all-zero column.
void CheckDocsShape(const MatrixView& a);
void CheckDocsValues(const MatrixView& a);
void CheckDocsRows(const MatrixView& x, const MatrixView& y);

// AbsMaxima()
//
// The row and column absolute maxima of the cosine matrix of x and y,
// computed on `backend` in fp32 and returned as doubles, each clamped to
// [0, 1]. Throws as CheckDocsInput(), std::runtime_error when the backend is
// unavailable (with its reason), cb::harness::CudaError on a CUDA failure.
cb::ref::docs::AbsMaxima AbsMaxima(cb::harness::Backend backend, const MatrixView& x,
                                   const MatrixView& y);

// Docs()
//
// The whole DOCS of x and y: AbsMaxima() on `backend`, then the fp64 Gumbel
// fits of the reference (cb::ref::docs::GumbelFit) on the host.
cb::ref::docs::DocsResult Docs(cb::harness::Backend backend, const MatrixView& x,
                               const MatrixView& y);

// The row-block height the CPU path uses for C (n1, n2): as many rows of C
// as fit in 16 MiB, at least 1. Memory stays bounded for any n, and each
// sgemm call is big enough that re-packing Yn per block costs little: at
// n = 4096, 4 MiB blocks (16 calls) measured about 5% slower end to end than
// 16 MiB (4 calls), and one 64 MiB block no faster (suites/docs/README.md).
int64_t CpuBlockRows(int64_t n2);

// The CPU path (docs_cpu.cpp); call through AbsMaxima(). `block_rows` > 0
// overrides CpuBlockRows() (tests use it to cut small problems into blocks).
// Throws as CheckDocsInput(), in its order, but reads the values only once:
// their check rides on the normalisation's sums of squares (a sum is
// non-finite iff an entry is, zero iff its column is; then CheckDocsValues
// names the entry).
cb::ref::docs::AbsMaxima AbsMaximaCpu(const MatrixView& x, const MatrixView& y,
                                      int64_t block_rows = 0);

}  // namespace cb::docs

#endif  // CB_SUITES_DOCS_DOCS_H_

// File: suites/docs/docs_cpu.cpp
// -----------------------------------------------------------------------------
// CPU path of suites/docs/docs.h: fp32 column normalisation, C = Xn^T Yn by
// CBLAS sgemm one block of rows at a time, and the row and column absolute
// maxima taken from each block while it is still in cache. The normalised
// copies and the block of C are per-call scratch on huge pages
// (harness/huge_pages.h): with 4 KiB pages their first-touch faults took
// longer than the GEMM at n = 1024.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/huge_pages.h"
#include "harness/parallel.h"
#include "suites/docs/docs.h"

namespace cb::docs {
namespace {

// Runs body(t, begin, end) over [0, rows) cut into one contiguous range per
// hardware thread (cb::harness::ParallelFor). The normalisation is memory
// bound and, left on one core, took 12% of a 4096^2 DOCS beside OpenBLAS's
// two-thread GEMM.
void ParallelRows(int64_t rows, const cb::harness::ParallelBody& body) {
  cb::harness::ParallelFor(rows, cb::harness::HardwareThreads(), body);
}

// Xn (m, n): each column of a divided by its norm. Norms are accumulated in
// fp64 so that no fp32 range issue (|v|^2 overflowing past 1.8e19) and no
// long-sum rounding enter; the product with the inverse norm is rounded once
// to fp32. The result is left uninitialised until the threads write it, so
// its pages are first touched (faulted in) in parallel too.
//
// Also the input check of CheckDocsInput (shape, then values): in fp64 a
// float's square cannot overflow, even summed over INT_MAX rows, and a
// nonzero float's square is never zero, so a column's sum is non-finite iff
// it holds a NaN or an infinity and zero iff it is all zeros; only then is
// the matrix scanned again, by CheckDocsValues, to name the first such entry.
cb::harness::HugePageArray<float> NormalizeColumns(const MatrixView& a) {
  CheckDocsShape(a);
  const int64_t m = a.rows, n = a.cols;
  const int64_t threads = cb::harness::HardwareThreads();
  std::vector<std::vector<double>> partial(threads, std::vector<double>(n, 0.0));
  ParallelRows(m, [&](int64_t t, int64_t begin, int64_t end) {
    double* sum_sq = partial[t].data();
    for (int64_t r = begin; r < end; ++r) {
      const float* row = a.data + r * n;
      for (int64_t c = 0; c < n; ++c) sum_sq[c] += double(row[c]) * double(row[c]);
    }
  });
  std::vector<double> inv_norm(n);
  bool bad = false;
  for (int64_t c = 0; c < n; ++c) {
    double sum_sq = 0;
    for (const auto& p : partial) sum_sq += p[c];
    bad |= !std::isfinite(sum_sq) || sum_sq == 0.0;
    inv_norm[c] = 1.0 / std::sqrt(sum_sq);
  }
  if (bad) {
    CheckDocsValues(a);  // throws, naming the entry or column
    throw std::logic_error("DOCS: a column's sum of squares is not finite and positive, yet " + a.name +
                           " passed CheckDocsValues");
  }
  cb::harness::HugePageArray<float> out(static_cast<size_t>(m * n));
  ParallelRows(m, [&](int64_t, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* row = a.data + r * n;
      float* dst = out.data() + r * n;
      for (int64_t c = 0; c < n; ++c) dst[c] = static_cast<float>(double(row[c]) * inv_norm[c]);
    }
  });
  return out;
}

}  // namespace

cb::ref::docs::AbsMaxima AbsMaximaCpu(const MatrixView& x, const MatrixView& y,
                                      int64_t block_rows) {
  const int64_t m = x.rows, n1 = x.cols, n2 = y.cols;
  const cb::harness::HugePageArray<float> xn = NormalizeColumns(x);  // (m, n1)
  const cb::harness::HugePageArray<float> yn = NormalizeColumns(y);  // (m, n2)
  CheckDocsRows(x, y);

  const int64_t block = std::min(n1, block_rows > 0 ? block_rows : CpuBlockRows(n2));
  // (block, n2) rows j0.. of C; sgemm with beta = 0 writes every entry.
  cb::harness::HugePageArray<float> c_block(static_cast<size_t>(block * n2));
  std::vector<float> col_max(n2, 0.0f);
  cb::ref::docs::AbsMaxima out;
  out.s_x.resize(n1);
  for (int64_t j0 = 0; j0 < n1; j0 += block) {
    const int64_t rows = std::min(block, n1 - j0);
    // C[j0 : j0+rows, :] = Xn[:, j0 : j0+rows]^T Yn; Xn's column slice is
    // read in place through lda = n1.
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(n2), static_cast<int>(m), 1.0f, xn.data() + j0,
                static_cast<int>(n1), yn.data(), static_cast<int>(n2), 0.0f, c_block.data(),
                static_cast<int>(n2));
    for (int64_t i = 0; i < rows; ++i) {
      const float* c_row = c_block.data() + i * n2;
      float row_max = 0.0f;
      for (int64_t k = 0; k < n2; ++k) {
        const float v = std::fabs(c_row[k]);
        row_max = std::max(row_max, v);
        col_max[k] = std::max(col_max[k], v);
      }
      out.s_x[j0 + i] = std::min(double(row_max), 1.0);  // rounding can pass 1 by an ulp
    }
  }
  out.s_y.resize(n2);
  for (int64_t k = 0; k < n2; ++k) out.s_y[k] = std::min(double(col_max[k]), 1.0);
  return out;
}

}  // namespace cb::docs

// File: suites/docs/docs_cpu.cpp
// -----------------------------------------------------------------------------
// CPU path of suites/docs/docs.h: fp64 column norms (which also check the
// input), C = X^T Y by CBLAS sgemm one block of rows at a time on the inputs
// as they are, each entry then scaled by its two inverse norms, and the row
// and column absolute maxima taken from each block while it is still in
// cache. Only when a column norm lies outside [2^-30, 2^30] are normalised
// copies formed first (on huge pages, harness/huge_pages.h). Writing those
// copies into fresh pages took ~5 ms per matrix at n = 2048 beside a ~50 ms
// GEMM, even on huge pages (suites/docs/README.md).
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/huge_pages.h"
#include "harness/parallel.h"
#include "harness/target_clones.h"
#include "suites/docs/docs.h"

namespace cb::docs {
namespace {

// sum_sq[c] += a[r][c]^2 in fp64 over rows [begin, end) of a (m, n), four
// rows per pass over sum_sq (a quarter of the loads and stores of it; with the
// Haswell copy 0.32 -> 0.22 ms per 1024^2 matrix, 3.5 -> 2.0 ms at 4096^2).
CB_HASWELL_CLONES void AddColumnSquares(const float* a, int64_t n, int64_t begin, int64_t end,
                                        double* sum_sq) {
  int64_t r = begin;
  for (; r + 4 <= end; r += 4) {
    const float* r0 = a + r * n;
    const float* r1 = r0 + n;
    const float* r2 = r1 + n;
    const float* r3 = r2 + n;
    for (int64_t c = 0; c < n; ++c) {
      sum_sq[c] += (double(r0[c]) * r0[c] + double(r1[c]) * r1[c]) +
                   (double(r2[c]) * r2[c] + double(r3[c]) * r3[c]);
    }
  }
  for (; r < end; ++r) {
    const float* row = a + r * n;
    for (int64_t c = 0; c < n; ++c) sum_sq[c] += double(row[c]) * double(row[c]);
  }
}

// 1 / ||column j|| of a (m, n), the norms accumulated in fp64 so that no
// fp32 range issue (|v|^2 overflowing past 1.8e19) and no long-sum rounding
// enter.
//
// Also the input check of CheckDocsInput (shape, then values): in fp64 a
// float's square cannot overflow, even summed over INT_MAX rows, and a
// nonzero float's square is never zero, so a column's sum is non-finite iff
// it holds a NaN or an infinity and zero iff it is all zeros; only then is
// the matrix scanned again, by CheckDocsValues, to name the first such entry.
std::vector<double> InverseColumnNorms(const MatrixView& a) {
  CheckDocsShape(a);
  const int64_t m = a.rows, n = a.cols;
  // One thread below 2^21 entries, where starting a second cost more than
  // it saved (n = 1024: 0.18 ms on one thread, 0.22 ms on two).
  const int threads = m * n < (int64_t{1} << 21) ? 1 : cb::harness::HardwareThreads();
  std::vector<std::vector<double>> partial(threads, std::vector<double>(n, 0.0));
  cb::harness::ParallelFor(m, threads, [&](int64_t t, int64_t begin, int64_t end) {
    AddColumnSquares(a.data, n, begin, end, partial[t].data());
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
  return inv_norm;
}

// Whether X^T Y may be formed from the inputs as they are, the cosines then
// being C[i][k] = (X^T Y)[i][k] / (||x_i|| ||y_k||): when every column norm
// lies in [2^-30, 2^30], each fp32 product and partial sum of a dot product
// is at most ||x_i|| ||y_k|| <= 2^60 (Cauchy-Schwarz), far from overflow, and
// a product small enough to underflow (< 2^-126) is below 2^-66 of
// ||x_i|| ||y_k||, so each dot product's fp32 error relative to
// ||x_i|| ||y_k|| is what it is on the normalised copies, which round each
// entry once, where the raw path rounds the two scales and their product
// instead. Otherwise (weights of 1e-12 or 1e20) the copies are formed first.
bool RawProductsAreSafe(const std::vector<double>& inv_x, const std::vector<double>& inv_y) {
  auto in_range = [](double inv) { return inv >= 0x1p-30 && inv <= 0x1p30; };
  return std::all_of(inv_x.begin(), inv_x.end(), in_range) &&
         std::all_of(inv_y.begin(), inv_y.end(), in_range);
}

// Xn (m, n): each column of a times its inverse norm, the product rounded
// once to fp32, on every core (memory bound: on one core it took 12% of a
// 4096^2 DOCS beside OpenBLAS's two-thread GEMM). Left uninitialised until
// the threads write it, so its pages are first touched (faulted in) in
// parallel too.
cb::harness::HugePageArray<float> NormalizedCopy(const MatrixView& a,
                                                 const std::vector<double>& inv_norm) {
  const int64_t m = a.rows, n = a.cols;
  cb::harness::HugePageArray<float> out(static_cast<size_t>(m * n));
  const int threads = cb::harness::HardwareThreads();
  cb::harness::ParallelFor(m, threads, [&](int64_t, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* row = a.data + r * n;
      float* dst = out.data() + r * n;
      for (int64_t c = 0; c < n; ++c) dst[c] = static_cast<float>(double(row[c]) * inv_norm[c]);
    }
  });
  return out;
}

// The block of C, kept per thread between calls (never shrunk; 16 MiB for
// the default CpuBlockRows unless one row of C is larger): fresh pages for
// it on every call cost ~3 ms at n = 2048 on the development VM (writing
// 16 MiB took 5.0 ms into fresh huge pages, 2.0 ms into reused ones; the
// GEMM took ~50 ms).
float* CBlockScratch(size_t floats) {
  thread_local std::unique_ptr<cb::harness::HugePageArray<float>> scratch;
  if (!scratch || scratch->size() < floats) {
    scratch.reset();  // the old block first: never both at once
    scratch = std::make_unique<cb::harness::HugePageArray<float>>(floats);
  }
  return scratch->data();
}

std::vector<float> ToFloats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// One block of C (rows, n2): v = |C[i][k]| * scale_col[k] * scale_row[i];
// row_max[i] = max_k v, col_max[k] = max(col_max[k], max_i v). The row
// maximum is kept in 16 lanes so that GCC vectorises the loop without
// -ffast-math (a plain running maximum is a float reduction, which it must
// not reorder); v >= 0, so lanes starting at 0 change nothing. 3.4x faster
// than the plain loop at n = 1024 on the development VM (0.89 -> 0.26 ms).
CB_HASWELL_CLONES void BlockMaxima(const float* c, int64_t rows, int64_t n2, const float* scale_row,
                                   const float* scale_col, float* row_max, float* col_max) {
  constexpr int kLanes = 16;
  for (int64_t i = 0; i < rows; ++i) {
    const float* c_row = c + i * n2;
    const float s = scale_row[i];
    float lanes[kLanes] = {};
    int64_t k = 0;
    for (; k + kLanes <= n2; k += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        const float v = std::fabs(c_row[k + l]) * scale_col[k + l] * s;
        lanes[l] = std::max(lanes[l], v);
        col_max[k + l] = std::max(col_max[k + l], v);
      }
    }
    float m = 0.0f;
    for (; k < n2; ++k) {
      const float v = std::fabs(c_row[k]) * scale_col[k] * s;
      m = std::max(m, v);
      col_max[k] = std::max(col_max[k], v);
    }
    for (const float lane : lanes) m = std::max(m, lane);
    row_max[i] = m;
  }
}

}  // namespace

cb::ref::docs::AbsMaxima AbsMaximaCpu(const MatrixView& x, const MatrixView& y,
                                      int64_t block_rows) {
  const int64_t m = x.rows, n1 = x.cols, n2 = y.cols;
  const std::vector<double> inv_x = InverseColumnNorms(x), inv_y = InverseColumnNorms(y);
  CheckDocsRows(x, y);

  // The GEMM's operands, and the scale of C's rows and columns after it:
  // the inputs and their inverse norms, or the normalised copies and 1.
  const bool raw = RawProductsAreSafe(inv_x, inv_y);
  std::optional<cb::harness::HugePageArray<float>> xn, yn;
  if (!raw) {
    xn.emplace(NormalizedCopy(x, inv_x));
    yn.emplace(NormalizedCopy(y, inv_y));
  }
  const float* a = raw ? x.data : xn->data();  // (m, n1)
  const float* b = raw ? y.data : yn->data();  // (m, n2)
  const std::vector<float> scale_x = raw ? ToFloats(inv_x) : std::vector<float>(n1, 1.0f);
  const std::vector<float> scale_y = raw ? ToFloats(inv_y) : std::vector<float>(n2, 1.0f);

  const int64_t block = std::min(n1, block_rows > 0 ? block_rows : CpuBlockRows(n2));
  // (block, n2) rows j0.. of C; sgemm with beta = 0 writes every entry.
  float* c_block = CBlockScratch(static_cast<size_t>(block * n2));
  std::vector<float> row_max(n1), col_max(n2, 0.0f);
  for (int64_t j0 = 0; j0 < n1; j0 += block) {
    const int64_t rows = std::min(block, n1 - j0);
    // C[j0 : j0+rows, :] = A[:, j0 : j0+rows]^T B; A's column slice is read
    // in place through lda = n1.
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(n2), static_cast<int>(m), 1.0f, a + j0, static_cast<int>(n1), b,
                static_cast<int>(n2), 0.0f, c_block, static_cast<int>(n2));
    BlockMaxima(c_block, rows, n2, scale_x.data() + j0, scale_y.data(), row_max.data() + j0,
                col_max.data());
  }
  // Clamped to 1, which rounding can pass by an ulp.
  cb::ref::docs::AbsMaxima out;
  for (const float v : row_max) out.s_x.push_back(std::min(double(v), 1.0));
  for (const float v : col_max) out.s_y.push_back(std::min(double(v), 1.0));
  return out;
}

}  // namespace cb::docs

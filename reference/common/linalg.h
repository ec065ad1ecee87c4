// File: reference/common/linalg.h
// -----------------------------------------------------------------------------
// Small dense fp64 linear algebra for the CPU references: a row-major Matrix,
// QR by modified Gram-Schmidt with one re-orthogonalisation pass, an
// orthonormal basis of a column space that drops dependent columns, and a thin
// SVD by one-sided (Hestenes) Jacobi rotations. Plain loops for small sizes
// (n <= a few hundred); the spec, not a fast path.
//
// Storage order: every Matrix is ROW-MAJOR, shape (rows, cols): entry (r, c)
// lives at data[r * cols + c]. generators/tensors.h produces this same type.
#ifndef CB_REFERENCE_COMMON_LINALG_H_
#define CB_REFERENCE_COMMON_LINALG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cb::ref {

// A dense fp64 matrix, row-major (rows, cols). Shared by the references and
// the generators (cb::gen::Generated wraps one with its provenance).
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> data;  // (rows, cols), row-major: (r, c) at r * cols + c

  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<size_t>(r * c), 0.0) {}

  double& operator()(int64_t r, int64_t c) { return data[static_cast<size_t>(r * cols + c)]; }
  double operator()(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * cols + c)]; }
};

// Transpose(): (cols, rows) from (rows, cols).
Matrix Transpose(const Matrix& a);

// MatMul(): (a.rows, b.cols) = a (m, k) times b (k, n), fp64 accumulation.
// REQUIRES: a.cols == b.rows (throws std::invalid_argument otherwise).
Matrix MatMul(const Matrix& a, const Matrix& b);

// CenterColumns(): subtracts from each column its mean over the rows.
Matrix CenterColumns(const Matrix& a);

// FrobeniusNorm(): sqrt(sum of squared entries).
double FrobeniusNorm(const Matrix& a);

struct QrResult {
  Matrix q;  // (m, n), orthonormal columns
  Matrix r;  // (n, n), upper triangular with r(j, j) > 0
};

// Qr()
//
// Thin QR of a (m, n) with m >= n by modified Gram-Schmidt, each column
// orthogonalised twice ("twice is enough", Giraud et al. 2005), so Q is
// orthonormal to ~1e-15 for any cond(A) well below 1/eps. R's diagonal is the
// residual norm, hence positive: this is the unique QR with diag(R) > 0 (the
// sign fix that makes Q of a Gaussian Haar-distributed, Mezzadri 2007).
// REQUIRES: m >= n >= 1 and A of full column rank (a column whose residual is
//           exactly zero throws std::invalid_argument).
QrResult Qr(const Matrix& a);

// OrthonormalBasis()
//
// An orthonormal basis (m, r) of the column space of a (m, n), by twice-applied
// modified Gram-Schmidt over the columns in order; a column whose residual
// norm is <= rel_tol times its own norm (or that is zero) is dropped as
// dependent. r is the numerical rank under that rule (r == 0 gives a (m, 0)
// matrix).
Matrix OrthonormalBasis(const Matrix& a, double rel_tol = 1e-10);

struct SvdResult {
  Matrix u;                   // (m, k), orthonormal columns where sigma > 0
  std::vector<double> sigma;  // k = min(m, n) singular values, descending
  Matrix v;                   // (n, k), orthonormal columns
};

// ThinSvd()
//
// A = U diag(sigma) V^T by one-sided Jacobi (Hestenes 1958): rotate pairs of
// columns of A (and of V = I) until every pair is orthogonal to 1e-15
// relative; sigma_j is the norm of column j, u_j = a_j / sigma_j (u_j = 0 when
// sigma_j == 0). If m < n the problem is solved on A^T and swapped back.
// Accurate to high relative precision for small sizes; O(sweeps * n^2 * m).
// REQUIRES: a non-empty, finite.
SvdResult ThinSvd(const Matrix& a);

}  // namespace cb::ref

#endif  // CB_REFERENCE_COMMON_LINALG_H_

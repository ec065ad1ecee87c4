// File: reference/common/linalg.cpp
// -----------------------------------------------------------------------------
// Small dense fp64 linear algebra (see linalg.h): MGS QR with
// re-orthogonalisation, column-space bases, one-sided Jacobi SVD.
#include "reference/common/linalg.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace cb::ref {
namespace {

// Dot product of column p of a and column q of b, fp64.
double ColumnDot(const Matrix& a, int64_t p, const Matrix& b, int64_t q) {
  double sum = 0.0;
  for (int64_t i = 0; i < a.rows; ++i) sum += a(i, p) * b(i, q);
  return sum;
}

// Removes from column j of w its components along columns 0..k-1 of q
// (modified Gram-Schmidt), twice; adds the coefficients to r_col when given.
void Orthogonalise(const Matrix& q, int64_t k, Matrix& w, int64_t j, std::vector<double>* r_col) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t p = 0; p < k; ++p) {
      const double coef = ColumnDot(q, p, w, j);
      for (int64_t i = 0; i < w.rows; ++i) w(i, j) -= coef * q(i, p);
      if (r_col != nullptr) (*r_col)[static_cast<size_t>(p)] += coef;
    }
  }
}

}  // namespace

Matrix Transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);  // (cols, rows)
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

Matrix MatMul(const Matrix& a, const Matrix& b) {
  if (a.cols != b.rows) {
    throw std::invalid_argument("MatMul: inner dimensions differ (" + std::to_string(a.cols) +
                                " vs " + std::to_string(b.rows) + ")");
  }
  Matrix c(a.rows, b.cols);  // (m, n)
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < b.cols; ++j) {
      double sum = 0.0;
      for (int64_t p = 0; p < a.cols; ++p) sum += a(i, p) * b(p, j);
      c(i, j) = sum;
    }
  }
  return c;
}

Matrix CenterColumns(const Matrix& a) {
  Matrix c = a;  // (rows, cols)
  for (int64_t j = 0; j < a.cols; ++j) {
    double mean = 0.0;
    for (int64_t i = 0; i < a.rows; ++i) mean += a(i, j);
    mean /= static_cast<double>(a.rows);
    for (int64_t i = 0; i < a.rows; ++i) c(i, j) -= mean;
  }
  return c;
}

double FrobeniusNorm(const Matrix& a) {
  double sum = 0.0;
  for (double v : a.data) sum += v * v;
  return std::sqrt(sum);
}

QrResult Qr(const Matrix& a) {
  if (a.cols < 1 || a.rows < a.cols) {
    throw std::invalid_argument("Qr: need rows >= cols >= 1, got (" + std::to_string(a.rows) +
                                ", " + std::to_string(a.cols) + ")");
  }
  QrResult out{a, Matrix(a.cols, a.cols)};  // q (m, n) starts as A; r (n, n)
  Matrix& q = out.q;
  for (int64_t j = 0; j < a.cols; ++j) {
    std::vector<double> r_col(static_cast<size_t>(a.cols), 0.0);
    Orthogonalise(q, j, q, j, &r_col);
    const double norm = std::sqrt(ColumnDot(q, j, q, j));
    if (norm == 0.0) {
      throw std::invalid_argument("Qr: column " + std::to_string(j) +
                                  " is linearly dependent on the previous ones");
    }
    for (int64_t i = 0; i < a.rows; ++i) q(i, j) /= norm;
    for (int64_t p = 0; p < j; ++p) out.r(p, j) = r_col[static_cast<size_t>(p)];
    out.r(j, j) = norm;
  }
  return out;
}

Matrix OrthonormalBasis(const Matrix& a, double rel_tol) {
  Matrix work = a;               // (m, n), columns orthogonalised in place
  std::vector<int64_t> kept;     // columns of work that entered the basis
  Matrix basis(a.rows, a.cols);  // (m, n), first kept.size() columns used
  for (int64_t j = 0; j < a.cols; ++j) {
    const double norm0 = std::sqrt(ColumnDot(work, j, work, j));
    if (norm0 == 0.0) continue;
    Orthogonalise(basis, static_cast<int64_t>(kept.size()), work, j, nullptr);
    const double norm = std::sqrt(ColumnDot(work, j, work, j));
    if (norm <= rel_tol * norm0) continue;
    const int64_t k = static_cast<int64_t>(kept.size());
    for (int64_t i = 0; i < a.rows; ++i) basis(i, k) = work(i, j) / norm;
    kept.push_back(j);
  }
  Matrix out(a.rows, static_cast<int64_t>(kept.size()));  // (m, r)
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t k = 0; k < out.cols; ++k) out(i, k) = basis(i, k);
  return out;
}

SvdResult ThinSvd(const Matrix& a) {
  if (a.rows < 1 || a.cols < 1) throw std::invalid_argument("ThinSvd: empty matrix");
  if (a.rows < a.cols) {
    SvdResult t = ThinSvd(Transpose(a));  // A^T = U' S V'^T  =>  A = V' S U'^T
    return SvdResult{t.v, t.sigma, t.u};
  }
  const int64_t m = a.rows;
  const int64_t n = a.cols;
  Matrix w = a;    // (m, n): converges to U diag(sigma)
  Matrix v(n, n);  // (n, n): accumulated rotations
  for (int64_t j = 0; j < n; ++j) v(j, j) = 1.0;
  constexpr double kTol = 1e-15;
  constexpr int kMaxSweeps = 100;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double alpha = ColumnDot(w, p, w, p);
        const double beta = ColumnDot(w, q, w, q);
        const double gamma = ColumnDot(w, p, w, q);
        if (gamma == 0.0 || std::abs(gamma) <= kTol * std::sqrt(alpha * beta)) continue;
        rotated = true;
        // The rotation that zeroes the (p, q) entry of W^T W (Golub & Van Loan §8.5).
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t);
        const double s = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const double wp = w(i, p);
          const double wq = w(i, q);
          w(i, p) = c * wp - s * wq;
          w(i, q) = s * wp + c * wq;
        }
        for (int64_t i = 0; i < n; ++i) {
          const double vp = v(i, p);
          const double vq = v(i, q);
          v(i, p) = c * vp - s * vq;
          v(i, q) = s * vp + c * vq;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> sigma(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) sigma[static_cast<size_t>(j)] = std::sqrt(ColumnDot(w, j, w, j));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return sigma[static_cast<size_t>(x)] > sigma[static_cast<size_t>(y)];
  });
  SvdResult out{Matrix(m, n), std::vector<double>(static_cast<size_t>(n)), Matrix(n, n)};
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = order[static_cast<size_t>(k)];
    const double s = sigma[static_cast<size_t>(j)];
    out.sigma[static_cast<size_t>(k)] = s;
    for (int64_t i = 0; i < m; ++i) out.u(i, k) = s > 0.0 ? w(i, j) / s : 0.0;
    for (int64_t i = 0; i < n; ++i) out.v(i, k) = v(i, j);
  }
  return out;
}

}  // namespace cb::ref

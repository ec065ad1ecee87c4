// File: reference/docs.cpp
// -----------------------------------------------------------------------------
// fp64 reference of DOCS (Min & Wang, ICLR 2025, Algorithm 1) and of the
// baseline indices linear CKA, regression R^2, CCA and SVCCA (see docs.h).
#include "reference/docs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::ref::docs {
namespace {

std::string Shape(const Matrix& a) {
  return "(" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + ")";
}

// Throws when `a` is empty or has a NaN/Inf entry; `name` is "X" or "Y".
void CheckMatrix(const Matrix& a, const char* name, const char* fn) {
  if (a.rows < 1 || a.cols < 1 || a.data.size() != static_cast<size_t>(a.rows * a.cols)) {
    throw std::invalid_argument(std::string(fn) + ": matrix " + name +
                                " is empty or malformed, shape " + Shape(a));
  }
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < a.cols; ++j) {
      if (!std::isfinite(a(i, j))) {
        throw std::invalid_argument(std::string(fn) + ": matrix " + name +
                                    " has a non-finite entry (" + std::to_string(a(i, j)) +
                                    ") at row " + std::to_string(i) + ", column " +
                                    std::to_string(j));
      }
    }
  }
}

void CheckPair(const Matrix& x, const Matrix& y, const char* fn) {
  CheckMatrix(x, "X", fn);
  CheckMatrix(y, "Y", fn);
  if (x.rows != y.rows) {
    throw std::invalid_argument(std::string(fn) +
                                ": X and Y must have the same number of rows, got X " + Shape(x) +
                                " and Y " + Shape(y));
  }
}

// Column j of a, scaled by 2^-e with e the binary exponent of its largest
// |entry| (exact), and its squared norm. Throws on a zero column.
std::vector<double> ScaledColumn(const Matrix& a, int64_t j, const char* name, double* norm2) {
  double max_abs = 0.0;
  for (int64_t i = 0; i < a.rows; ++i) max_abs = std::max(max_abs, std::abs(a(i, j)));
  if (max_abs == 0.0) {
    throw std::invalid_argument("ColumnCosine: column " + std::to_string(j) + " of matrix " + name +
                                " is all zeros (its cosine is undefined)");
  }
  const int exponent = std::ilogb(max_abs);
  std::vector<double> col(static_cast<size_t>(a.rows));  // (m)
  double sum = 0.0;
  for (int64_t i = 0; i < a.rows; ++i) {
    col[static_cast<size_t>(i)] = std::ldexp(a(i, j), -exponent);
    sum += col[static_cast<size_t>(i)] * col[static_cast<size_t>(i)];
  }
  *norm2 = sum;
  return col;
}

// Sum with Neumaier compensation (order-dependent only at the ~eps level).
double CompensatedSum(std::span<const double> v) {
  double sum = 0.0;
  double comp = 0.0;
  for (double x : v) {
    const double t = sum + x;
    comp += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  return sum + comp;
}

// For the shifted samples d (sorted ascending, d[0] == 0) and a scale beta:
// g(beta) = beta - mean(d) + sum d_i w_i / sum w_i, w_i = exp(-d_i/beta).
double GumbelScaleEquation(std::span<const double> d, double mean_d, double beta) {
  std::vector<double> w(d.size());
  std::vector<double> dw(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    w[i] = std::exp(-d[i] / beta);
    dw[i] = d[i] * w[i];
  }
  return beta - mean_d + CompensatedSum(dw) / CompensatedSum(w);
}

}  // namespace

Matrix ColumnCosine(const Matrix& x, const Matrix& y) {
  CheckPair(x, y, "ColumnCosine");
  std::vector<std::vector<double>> xs(static_cast<size_t>(x.cols));  // n1 columns of (m)
  std::vector<std::vector<double>> ys(static_cast<size_t>(y.cols));  // n2 columns of (m)
  std::vector<double> x_norm2(static_cast<size_t>(x.cols));          // (n1)
  std::vector<double> y_norm2(static_cast<size_t>(y.cols));          // (n2)
  for (int64_t j = 0; j < x.cols; ++j)
    xs[static_cast<size_t>(j)] = ScaledColumn(x, j, "X", &x_norm2[static_cast<size_t>(j)]);
  for (int64_t k = 0; k < y.cols; ++k)
    ys[static_cast<size_t>(k)] = ScaledColumn(y, k, "Y", &y_norm2[static_cast<size_t>(k)]);
  Matrix c(x.cols, y.cols);  // (n1, n2)
  for (int64_t j = 0; j < x.cols; ++j) {
    const std::vector<double>& xj = xs[static_cast<size_t>(j)];
    for (int64_t k = 0; k < y.cols; ++k) {
      const std::vector<double>& yk = ys[static_cast<size_t>(k)];
      double dot = 0.0;
      for (int64_t i = 0; i < x.rows; ++i)
        dot += xj[static_cast<size_t>(i)] * yk[static_cast<size_t>(i)];
      // One sqrt of the product (not a product of sqrts): bitwise-equal
      // columns give exactly 1, and the expression is symmetric in j, k.
      const double cosine =
          dot / std::sqrt(x_norm2[static_cast<size_t>(j)] * y_norm2[static_cast<size_t>(k)]);
      c(j, k) = std::clamp(cosine, -1.0, 1.0);
    }
  }
  return c;
}

AbsMaxima AbsMaximaOf(const Matrix& c) {
  if (c.rows < 1 || c.cols < 1) throw std::invalid_argument("AbsMaximaOf: empty cosine matrix");
  AbsMaxima out{std::vector<double>(static_cast<size_t>(c.rows), 0.0),
                std::vector<double>(static_cast<size_t>(c.cols), 0.0)};
  for (int64_t j = 0; j < c.rows; ++j) {
    for (int64_t k = 0; k < c.cols; ++k) {
      const double a = std::abs(c(j, k));
      out.s_x[static_cast<size_t>(j)] = std::max(out.s_x[static_cast<size_t>(j)], a);
      out.s_y[static_cast<size_t>(k)] = std::max(out.s_y[static_cast<size_t>(k)], a);
    }
  }
  return out;
}

GumbelParams GumbelFit(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("GumbelFit: no samples");
  std::vector<double> x(samples.begin(), samples.end());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw std::invalid_argument("GumbelFit: sample " + std::to_string(i) + " is not finite");
    }
  }
  std::sort(x.begin(), x.end());
  const double x_min = x.front();
  if (x.back() == x_min) return GumbelParams{x_min, 0.0};  // degenerate: all equal

  std::vector<double> d(x.size());  // shifted samples, d >= 0, d[0] == 0
  for (size_t i = 0; i < x.size(); ++i) d[i] = x[i] - x_min;
  const double mean_d = CompensatedSum(d) / static_cast<double>(d.size());

  // g(lo) < 0 (lo -> 0+), g(hi) >= 0: bisect until lo and hi are adjacent.
  double lo = 0.0;
  double hi = mean_d;
  for (int iter = 0; iter < 4000; ++iter) {
    const double mid = lo + 0.5 * (hi - lo);
    if (mid <= lo || mid >= hi) break;
    if (GumbelScaleEquation(d, mean_d, mid) < 0.0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double beta = hi;
  std::vector<double> w(d.size());
  for (size_t i = 0; i < d.size(); ++i) w[i] = std::exp(-d[i] / beta);
  const double mean_w = CompensatedSum(w) / static_cast<double>(w.size());
  return GumbelParams{x_min - beta * std::log(mean_w), beta};
}

DocsResult Docs(const Matrix& x, const Matrix& y) {
  const Matrix c = ColumnCosine(x, y);  // (n1, n2)
  AbsMaxima maxima = AbsMaximaOf(c);
  const GumbelParams fit_x = GumbelFit(maxima.s_x);
  const GumbelParams fit_y = GumbelFit(maxima.s_y);
  DocsResult out;
  out.s_x = std::move(maxima.s_x);
  out.s_y = std::move(maxima.s_y);
  out.u_x = fit_x.location;
  out.u_y = fit_y.location;
  out.beta_x = fit_x.scale;
  out.beta_y = fit_y.scale;
  out.score = (out.u_x + out.u_y) / 2.0;  // IEEE + commutes: symmetric bitwise
  return out;
}

double LinearCka(const Matrix& x, const Matrix& y, bool centered) {
  CheckPair(x, y, "LinearCka");
  const Matrix xc = centered ? CenterColumns(x) : x;    // (m, n1)
  const Matrix yc = centered ? CenterColumns(y) : y;    // (m, n2)
  const Matrix xt = Transpose(xc);                      // (n1, m)
  const Matrix yt = Transpose(yc);                      // (n2, m)
  const double cross = FrobeniusNorm(MatMul(yt, xc));   // |Y^T X|_F, (n2, n1)
  const double self_x = FrobeniusNorm(MatMul(xt, xc));  // |X^T X|_F, (n1, n1)
  const double self_y = FrobeniusNorm(MatMul(yt, yc));  // |Y^T Y|_F, (n2, n2)
  if (self_x == 0.0 || self_y == 0.0) {
    throw std::invalid_argument(std::string("LinearCka: matrix ") + (self_x == 0.0 ? "X" : "Y") +
                                (centered ? " is all zeros after centring" : " is all zeros"));
  }
  return cross * cross / (self_x * self_y);
}

double LinearRegressionR2(const Matrix& x, const Matrix& y) {
  CheckPair(x, y, "LinearRegressionR2");
  const double total = FrobeniusNorm(y);
  if (total == 0.0) throw std::invalid_argument("LinearRegressionR2: matrix Y is all zeros");
  const Matrix q = OrthonormalBasis(x);         // (m, r)
  const Matrix coef = MatMul(Transpose(q), y);  // (r, n2): |Q^T Y|_F = |Q Q^T Y|_F
  const double explained = FrobeniusNorm(coef);
  return (explained * explained) / (total * total);
}

std::vector<double> CanonicalCorrelations(const Matrix& x, const Matrix& y, bool centered) {
  CheckPair(x, y, "CanonicalCorrelations");
  const Matrix qx = OrthonormalBasis(centered ? CenterColumns(x) : x);  // (m, rx)
  const Matrix qy = OrthonormalBasis(centered ? CenterColumns(y) : y);  // (m, ry)
  if (qx.cols == 0 || qy.cols == 0) {
    throw std::invalid_argument(std::string("CanonicalCorrelations: matrix ") +
                                (qx.cols == 0 ? "X" : "Y") + " has rank 0");
  }
  const Matrix m = MatMul(Transpose(qx), qy);  // (rx, ry)
  std::vector<double> rho = ThinSvd(m).sigma;  // min(rx, ry), descending
  for (double& r : rho) r = std::min(r, 1.0);
  return rho;
}

double CcaMeanCorrelation(const Matrix& x, const Matrix& y, bool centered) {
  const std::vector<double> rho = CanonicalCorrelations(x, y, centered);
  double sum = 0.0;
  for (double r : rho) sum += r;
  return sum / static_cast<double>(rho.size());
}

namespace {

// U_k diag(sigma_k) (m, k) for the smallest k whose sigma^2 reach `kept` of
// the total.
Matrix TopSingularDirections(const Matrix& a, double kept) {
  const SvdResult svd = ThinSvd(a);
  double total = 0.0;
  for (double s : svd.sigma) total += s * s;
  int64_t k = 0;
  double running = 0.0;
  while (k < static_cast<int64_t>(svd.sigma.size())) {
    running += svd.sigma[static_cast<size_t>(k)] * svd.sigma[static_cast<size_t>(k)];
    ++k;
    if (running >= kept * total) break;
  }
  Matrix out(a.rows, k);  // (m, k)
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < k; ++j) out(i, j) = svd.u(i, j) * svd.sigma[static_cast<size_t>(j)];
  return out;
}

}  // namespace

double SvccaMeanCorrelation(const Matrix& x, const Matrix& y, bool centered, double variance_kept) {
  CheckPair(x, y, "SvccaMeanCorrelation");
  if (!(variance_kept > 0.0 && variance_kept <= 1.0)) {
    throw std::invalid_argument("SvccaMeanCorrelation: variance_kept must be in (0, 1], got " +
                                std::to_string(variance_kept));
  }
  const Matrix xr =
      TopSingularDirections(centered ? CenterColumns(x) : x, variance_kept);  // (m, kx)
  const Matrix yr =
      TopSingularDirections(centered ? CenterColumns(y) : y, variance_kept);  // (m, ky)
  return CcaMeanCorrelation(xr, yr, /*centered=*/false);
}

}  // namespace cb::ref::docs

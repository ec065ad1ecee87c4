// File: reference/docs.h
// -----------------------------------------------------------------------------
// fp64 CPU reference (the oracle and the spec) of DOCS, "Distribution of
// Cosine Similarity" (Min & Wang, ICLR 2025), Algorithm 1, and of the
// similarity indices the paper argues against.
//
//   C_jk   = X_j . Y_k / (|X_j| |Y_k|)            column cosine matrix (step 2)
//   s_X[j] = max_k |C_jk|, s_Y[k] = max_j |C_jk|   absolute maxima (step 3)
//   (u, beta) = Gumbel (maximum) MLE of s_X, s_Y   (step 4)
//   S_DOCS = (u_X + u_Y) / 2                       (step 5)
//
// Baselines (the paper's "orthogonally invariant" indices, which all give 1
// for any pair of square orthogonal matrices): linear CKA (Kornblith et al.
// 2019, HSIC form), least-squares regression R^2, CCA and SVCCA mean
// canonical correlation (Raghu et al. 2017).
//
// Orientation: X is (m, n1), Y is (m, n2), ROW-MAJOR (see
// reference/common/linalg.h). For DOCS the columns are the parameter vectors
// (neurons) being compared. For the baselines the m rows are the samples and
// the columns are the features, as in CKA/CCA on activations; "centred" means
// each column has its mean over the m rows subtracted.
//
// Bad input (every function here): throws std::invalid_argument with one line
// naming the matrix and what is wrong (empty, non-finite entry, row counts
// that differ, and for DOCS a zero column).
#ifndef CB_REFERENCE_DOCS_H_
#define CB_REFERENCE_DOCS_H_

#include <span>
#include <vector>

#include "reference/common/linalg.h"

namespace cb::ref::docs {

using ::cb::ref::Matrix;

// ColumnCosine()
//
// C (n1, n2) with C_jk = X_j . Y_k / sqrt(|X_j|^2 |Y_k|^2), clamped to [-1, 1].
// Each column is first scaled by an exact power of two (its largest entry's
// binary exponent), which leaves the cosine unchanged, keeps |.|^2 from
// overflowing or underflowing, and keeps bitwise-equal columns bitwise equal,
// so C_jk == 1 exactly when X_j == Y_k (sqrt(fl(a*a)) == |a| in IEEE fp64).
// REQUIRES: x (m, n1), y (m, n2), m, n1, n2 >= 1, all entries finite, no zero
//           column in either matrix.
Matrix ColumnCosine(const Matrix& x, const Matrix& y);

struct AbsMaxima {
  std::vector<double> s_x;  // (n1): s_x[j] = max_k |C_jk|, the row maxima
  std::vector<double> s_y;  // (n2): s_y[k] = max_j |C_jk|, the column maxima
};

// AbsMaximaOf()
//
// The row and column absolute maxima of a cosine matrix C (n1, n2).
// REQUIRES: c non-empty.
AbsMaxima AbsMaximaOf(const Matrix& c);

struct GumbelParams {
  double location = 0.0;  // u
  double scale = 0.0;     // beta; 0 only in the degenerate case
};

// GumbelFit()
//
// Maximum-likelihood fit of the Gumbel (maximum, right-skewed) distribution,
// density (1/beta) exp(-z - exp(-z)), z = (x - u)/beta, in fp64
// (scipy.stats.gumbel_r.fit's estimator). With d_i = x_i - x_min and
// w_i = exp(-d_i / beta), the scale solves
//   g(beta) = beta - mean(d) + sum d_i w_i / sum w_i = 0,
// where g is strictly increasing (its derivative is 1 + Var_w(d)/beta^2),
// g(0+) = -mean(d) < 0 and g(mean(d)) >= 0; so the unique root is found by
// bisection on (0, mean(d)] down to adjacent doubles. Then
//   u = x_min - beta ln(mean w_i).
// Samples are sorted first, so the result does not depend on their order
// (bitwise).
// Degenerate case: when all samples are equal (e.g. DOCS of X against a
// column permutation of X, where every maximum is exactly 1), or there is one
// sample, the likelihood has no maximum at beta > 0; we return
// location = that value, scale = 0.
// REQUIRES: samples non-empty and finite.
GumbelParams GumbelFit(std::span<const double> samples);

struct DocsResult {
  std::vector<double> s_x;  // (n1) row abs-maxima of C
  std::vector<double> s_y;  // (n2) column abs-maxima of C
  double u_x = 0.0;         // Gumbel location of s_x
  double u_y = 0.0;         // Gumbel location of s_y
  double beta_x = 0.0;      // Gumbel scale of s_x
  double beta_y = 0.0;      // Gumbel scale of s_y
  double score = 0.0;       // S_DOCS = (u_x + u_y) / 2
};

// Docs()
//
// DOCS similarity of X (m, n1) and Y (m, n2), Algorithm 1 steps 2-5.
// Symmetric bitwise: Docs(y, x) swaps the _x/_y fields and keeps score.
// REQUIRES: as ColumnCosine.
DocsResult Docs(const Matrix& x, const Matrix& y);

// LinearCka()
//
// Linear CKA (HSIC form): |Y^T X|_F^2 / (|X^T X|_F |Y^T Y|_F), on the
// column-centred matrices when `centered` (rows are samples), else on X, Y
// as given. 1 for any pair of square orthogonal matrices when uncentred.
// REQUIRES: x (m, n1), y (m, n2), non-empty, finite, and neither (centred)
//           matrix all zeros.
double LinearCka(const Matrix& x, const Matrix& y, bool centered);

// LinearRegressionR2()
//
// Uncentred fraction of Y's energy explained by least squares of Y on X:
// |P_X Y|_F^2 / |Y|_F^2, with P_X = Q Q^T and Q an orthonormal basis of X's
// column space (Gram-Schmidt QR, dependent columns dropped). 1 whenever X's
// columns span R^m, e.g. any square orthogonal X.
// REQUIRES: x (m, n1), y (m, n2), non-empty, finite, y not all zeros.
double LinearRegressionR2(const Matrix& x, const Matrix& y);

// CanonicalCorrelations()
//
// The canonical correlations of X and Y (rows are samples), descending:
// the singular values of Qx^T Qy, where Qx (m, rx), Qy (m, ry) are
// orthonormal bases of the column spaces (of the column-centred matrices
// when `centered`); min(rx, ry) values, each in [0, 1].
// REQUIRES: x (m, n1), y (m, n2), non-empty, finite, each of rank >= 1.
std::vector<double> CanonicalCorrelations(const Matrix& x, const Matrix& y, bool centered);

// CcaMeanCorrelation(): the mean of CanonicalCorrelations(x, y, centered).
double CcaMeanCorrelation(const Matrix& x, const Matrix& y, bool centered);

// SvccaMeanCorrelation()
//
// SVCCA (Raghu et al. 2017): for each matrix (column-centred when
// `centered`), keep the top-k left singular directions scaled by their
// singular values, U_k diag(sigma_k) (m, k), with k the smallest number whose
// sigma^2 sum reaches `variance_kept` of the total; then the CCA mean
// correlation of the two reduced matrices.
// REQUIRES: as CanonicalCorrelations; 0 < variance_kept <= 1.
double SvccaMeanCorrelation(const Matrix& x, const Matrix& y, bool centered,
                            double variance_kept = 0.99);

}  // namespace cb::ref::docs

#endif  // CB_REFERENCE_DOCS_H_

// File: reference/odeformer/spectral.cpp
// -----------------------------------------------------------------------------
// Spectra of the time-dependent weights (spectral.h). LAPACK comes with the
// OpenBLAS the project links (BLAS::BLAS); its Fortran symbols are declared
// here rather than through LAPACKE, which is a separate package.
#include "reference/odeformer/spectral.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

extern "C" {
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info);
void dgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, double* a,
             const int* lda, double* s, double* u, const int* ldu, double* vt, const int* ldvt,
             double* work, const int* lwork, int* info);
}

namespace cb::ref::odeformer {

Spectrum Eigenvalues(std::span<const double> m, int D) {
  // LAPACK is column-major: pass m^T, which has the same eigenvalues.
  std::vector<double> a(m.begin(), m.end()), wr(D), wi(D), work(std::max(1, 8 * D));
  const int lwork = int(work.size());
  int info = 0, one = 1;
  double dummy = 0;
  dgeev_("N", "N", &D, a.data(), &D, wr.data(), wi.data(), &dummy, &one, &dummy, &one, work.data(),
         &lwork, &info);
  if (info != 0) throw std::runtime_error("dgeev failed (info " + std::to_string(info) + ")");
  std::vector<int> order(D);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return wr[x] != wr[y] ? wr[x] < wr[y] : wi[x] < wi[y];
  });
  Spectrum s;
  for (int i : order) {
    s.real.push_back(wr[i]);
    s.imag.push_back(wi[i]);
    s.magnitude.push_back(std::hypot(wr[i], wi[i]));
  }
  return s;
}

std::vector<double> SingularValues(std::span<const double> a, int rows, int cols) {
  // Row-major a is column-major a^T [cols, rows]: same singular values.
  std::vector<double> t(a.begin(), a.end()), s(std::min(rows, cols));
  int m = cols, n = rows, info = 0, one = 1;
  std::vector<double> work(std::max(1, 5 * (m + n)));
  const int lwork = int(work.size());
  double dummy = 0;
  dgesvd_("N", "N", &m, &n, t.data(), &m, s.data(), &dummy, &one, &dummy, &one, work.data(), &lwork,
          &info);
  if (info != 0) throw std::runtime_error("dgesvd failed (info " + std::to_string(info) + ")");
  return s;
}

int NumericalRank(std::span<const double> a, int rows, int cols, double rel_tol) {
  const std::vector<double> s = SingularValues(a, rows, cols);
  if (s.empty() || s[0] == 0.0) return 0;
  return int(std::count_if(s.begin(), s.end(), [&](double x) { return x > rel_tol * s[0]; }));
}

namespace {

// out [D, D] = A^T B with A, B [d, D] row blocks (rows r0.. of two [*, D] matrices).
std::vector<double> RowsTransposedTimes(const double* A, const double* B, int d, int D) {
  std::vector<double> out(size_t(D) * D, 0.0);
  for (int e = 0; e < d; ++e)
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) out[size_t(a) * D + b] += A[size_t(e) * D + a] * B[size_t(e) * D + b];
  return out;
}

}  // namespace

std::vector<double> QkMatrix(const OdeConfig& c, const BlockWeights& w, int h) {
  const int D = c.hidden_size, d = c.HeadSize();
  return RowsTransposedTimes(&w.w_qkv[size_t(h) * d * D], &w.w_qkv[(size_t(D) + h * d) * D], d, D);
}

std::vector<double> OvMatrix(const OdeConfig& c, const BlockWeights& w, int h) {
  // (W_V^hT W_O^hT)[a, b] = sum_e W_V[h d + e, a] W_O[b, h d + e]
  const int D = c.hidden_size, d = c.HeadSize();
  std::vector<double> out(size_t(D) * D, 0.0);
  for (int e = 0; e < d; ++e)
    for (int a = 0; a < D; ++a) {
      const double wv = w.w_qkv[(size_t(2 * D) + h * d + e) * D + a];
      for (int b = 0; b < D; ++b) out[size_t(a) * D + b] += wv * w.w_o[size_t(b) * D + h * d + e];
    }
  return out;
}

std::vector<double> FfMatrix(const OdeConfig& c, const BlockWeights& w) {
  // (W_fc^T W_p^T)[a, b] = sum_i W_fc[i, a] W_p[b, i]
  const int D = c.hidden_size, I = c.mlp_size;
  std::vector<double> out(size_t(D) * D, 0.0);
  for (int i = 0; i < I; ++i)
    for (int a = 0; a < D; ++a) {
      const double f = w.w_fc[size_t(i) * D + a];
      for (int b = 0; b < D; ++b) out[size_t(a) * D + b] += f * w.w_p[size_t(b) * I + i];
    }
  return out;
}

std::vector<StepSpectra> ModelSpectra(const OdeTransformer& model, int steps) {
  const OdeConfig& c = model.config();
  const int L = steps ? steps : c.num_steps;
  std::vector<StepSpectra> out;
  for (int i = 0; i < L; ++i) {
    StepSpectra s;
    s.t = StepTime(TimeGrid::kAnalysis, i, 1.0 / L);
    const BlockWeights w = model.WeightsAt(s.t);
    for (int h = 0; h < c.num_heads; ++h) {
      s.qk.push_back(Eigenvalues(QkMatrix(c, w, h), c.hidden_size));
      s.ov.push_back(Eigenvalues(OvMatrix(c, w, h), c.hidden_size));
    }
    s.ff = Eigenvalues(FfMatrix(c, w), c.hidden_size);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cb::ref::odeformer

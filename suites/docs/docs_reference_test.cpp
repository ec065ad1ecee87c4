// File: suites/docs/docs_reference_test.cpp
// -----------------------------------------------------------------------------
// Tests of the fp64 DOCS reference (reference/docs.h; Min & Wang, ICLR 2025,
// Algorithm 1) and of its baselines: the hand-computed cosine matrix, the D1
// invariances, bad input, the Gumbel MLE against known parameters and its own
// likelihood equations, the D2 orthogonal-pair theorem and the D3 noise trend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/expect_invalid.h"
#include "fixtures/tolerance.h"
#include "generators/tensors.h"
#include "harness/random.h"
#include "reference/common/linalg.h"
#include "reference/docs.h"

namespace cb::ref::docs {
namespace {

using cb::testing::ExpectInvalid;

using ::cb::harness::Rng;

constexpr double kInvarianceTol = 1e-10;

// (rows, cols) with iid N(0, 1) entries from Rng(seed, stream).
Matrix Gaussian(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream) {
  Rng rng(seed, stream);
  Matrix a(rows, cols);  // (rows, cols)
  for (double& v : a.data) v = rng.Normal();
  return a;
}

// A Haar-random (n, n) orthogonal matrix from the shared generator (Householder
// QR of a Gaussian with Mezzadri's sign fix; generators/tensors.h).
Matrix HaarQ(int64_t n, uint64_t seed, uint64_t stream) {
  return ::cb::gen::HaarOrthogonal(n, seed, stream).matrix;
}

// Columns of a permuted by perm: out(:, j) = a(:, perm[j]).
Matrix PermuteColumns(const Matrix& a, const std::vector<int64_t>& perm) {
  Matrix out(a.rows, a.cols);  // (rows, cols)
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) out(i, j) = a(i, perm[static_cast<size_t>(j)]);
  return out;
}

std::vector<int64_t> RandomPermutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  Rng rng(seed, 7);
  rng.Shuffle(std::span<int64_t>(perm));
  return perm;
}

// Gumbel(u, beta) samples by inversion: x = u - beta ln(-ln U).
std::vector<double> GumbelSamples(double u, double beta, int n, uint64_t seed) {
  Rng rng(seed, 3);
  std::vector<double> x(static_cast<size_t>(n));
  for (double& v : x) v = u - beta * std::log(-std::log(rng.Uniform()));
  return x;
}

// An independent check of the MLE: the log-likelihood's gradient scaled to
// be dimensionless, (beta/n) dl/du and (beta/n) dl/dbeta, computed directly
// from l(u, beta) = -n ln beta - sum z_i - sum exp(-z_i), z = (x - u)/beta.
std::pair<double, double> ScaledScore(const std::vector<double>& x, double u, double beta) {
  double sum_e = 0.0, sum_z = 0.0, sum_ze = 0.0;
  for (double v : x) {
    const double z = (v - u) / beta;
    const double e = std::exp(-z);
    sum_e += e;
    sum_z += z;
    sum_ze += z * e;
  }
  const double n = static_cast<double>(x.size());
  return {(n - sum_e) / n, (-n + sum_z - sum_ze) / n};
}

double LogLikelihood(const std::vector<double>& x, double u, double beta) {
  double l = 0.0;
  for (double v : x) {
    const double z = (v - u) / beta;
    l += -std::log(beta) - z - std::exp(-z);
  }
  return l;
}

// ---------------------------------------------------------------- ColumnCosine

TEST(DocsReference, ColumnCosineHandComputed2x2) {
  // X columns (3, 4), (1, 0); Y columns (0, 2), (-1, -1).
  Matrix x(2, 2);
  x(0, 0) = 3;
  x(1, 0) = 4;
  x(0, 1) = 1;
  x(1, 1) = 0;
  Matrix y(2, 2);
  y(0, 0) = 0;
  y(1, 0) = 2;
  y(0, 1) = -1;
  y(1, 1) = -1;
  const Matrix c = ColumnCosine(x, y);
  ASSERT_EQ(c.rows, 2);
  ASSERT_EQ(c.cols, 2);
  const double r2 = std::sqrt(2.0);
  // C_00 = 8/(5*2), C_01 = -7/(5 sqrt 2), C_10 = 0/(1*2), C_11 = -1/sqrt 2.
  const std::vector<double> want = {0.8, -7.0 / (5.0 * r2), 0.0, -1.0 / r2};
  EXPECT_TRUE(cb::testing::AllClose(c.data, want, 1e-15, 1e-15));

  const AbsMaxima m = AbsMaximaOf(c);
  const std::vector<double> want_sx = {7.0 / (5.0 * r2), 1.0 / r2};
  const std::vector<double> want_sy = {0.8, 7.0 / (5.0 * r2)};
  EXPECT_TRUE(cb::testing::AllClose(m.s_x, want_sx, 1e-15, 1e-15));
  EXPECT_TRUE(cb::testing::AllClose(m.s_y, want_sy, 1e-15, 1e-15));
}

TEST(DocsReference, ColumnCosineSurvivesExtremeScales) {
  // Columns near the overflow and underflow limits still give exact cosines.
  Matrix x(2, 2);
  x(0, 0) = 3e300;
  x(1, 0) = 4e300;
  x(0, 1) = 3e-300;
  x(1, 1) = 4e-300;
  const Matrix c = ColumnCosine(x, x);
  const std::vector<double> want = {1.0, 1.0, 1.0, 1.0};
  EXPECT_TRUE(cb::testing::AllClose(c.data, want, 0.0, 1e-15));
}

// ---------------------------------------------------------------- D1 invariances

class DocsInvariance : public ::testing::Test {
 protected:
  static constexpr int64_t kM = 64;
  static constexpr int64_t kN = 48;
  Matrix x_ = Gaussian(kM, kN, 101, 0);  // (64, 48)
  Matrix y_ = Gaussian(kM, kN, 101, 1);  // (64, 48)
};

TEST_F(DocsInvariance, Symmetry) {
  const DocsResult xy = Docs(x_, y_);
  const DocsResult yx = Docs(y_, x_);
  EXPECT_NEAR(xy.score, yx.score, kInvarianceTol);
  EXPECT_EQ(xy.u_x, yx.u_y);
  EXPECT_EQ(xy.u_y, yx.u_x);
  // A non-degenerate fit: the score is a location in (0, 1), not a constant.
  EXPECT_GT(xy.score, 0.1);
  EXPECT_LT(xy.score, 0.9);
  EXPECT_GT(xy.beta_x, 0.0);
  EXPECT_GT(xy.beta_y, 0.0);
}

TEST_F(DocsInvariance, ColumnPermutationOfEither) {
  const double base = Docs(x_, y_).score;
  EXPECT_NEAR(Docs(PermuteColumns(x_, RandomPermutation(kN, 1)), y_).score, base, kInvarianceTol);
  EXPECT_NEAR(Docs(x_, PermuteColumns(y_, RandomPermutation(kN, 2))).score, base, kInvarianceTol);
}

TEST_F(DocsInvariance, ColumnSignFlips) {
  const double base = Docs(x_, y_).score;
  Matrix xf = x_;
  Matrix yf = y_;
  Rng rng(5, 0);
  for (int64_t j = 0; j < kN; ++j) {
    if (rng.Uniform() < 0.5)
      for (int64_t i = 0; i < kM; ++i) xf(i, j) = -xf(i, j);
    if (rng.Uniform() < 0.5)
      for (int64_t i = 0; i < kM; ++i) yf(i, j) = -yf(i, j);
  }
  EXPECT_NEAR(Docs(xf, yf).score, base, kInvarianceTol);
}

TEST_F(DocsInvariance, IsotropicScaling) {
  const double base = Docs(x_, y_).score;
  for (double a : {1e-3, 0.37, 5.0, 1e4}) {
    for (double b : {2.5e-2, 1.0, 123.0}) {
      Matrix xs = x_;
      Matrix ys = y_;
      for (double& v : xs.data) v *= a;
      for (double& v : ys.data) v *= b;
      EXPECT_NEAR(Docs(xs, ys).score, base, kInvarianceTol) << "a=" << a << " b=" << b;
    }
  }
}

TEST_F(DocsInvariance, ReflexivityIsExactlyOne) {
  const DocsResult self = Docs(x_, x_);
  EXPECT_EQ(self.score, 1.0);  // exact: every maximum is 1.0, degenerate fit
  EXPECT_EQ(self.beta_x, 0.0);
  EXPECT_EQ(self.beta_y, 0.0);
  // X against a permuted, sign-flipped copy of itself: still exactly 1.
  Matrix xp = PermuteColumns(x_, RandomPermutation(kN, 9));
  for (int64_t i = 0; i < kM; ++i) xp(i, 3) = -xp(i, 3);
  EXPECT_EQ(Docs(x_, xp).score, 1.0);
  // A scaled copy is 1 up to rounding of the cosines.
  Matrix xs = x_;
  for (double& v : xs.data) v *= 3.7;
  EXPECT_NEAR(Docs(x_, xs).score, 1.0, kInvarianceTol);
}

// ---------------------------------------------------------------- bad input

TEST(DocsReference, BadInputIsOneClearError) {
  const Matrix x = Gaussian(8, 4, 1, 0);
  const Matrix y = Gaussian(8, 5, 1, 1);
  ExpectInvalid([&] { Docs(x, Gaussian(7, 5, 1, 2)); }, "same number of rows");
  ExpectInvalid([&] { Docs(Matrix(), y); }, "matrix X is empty");
  ExpectInvalid([&] { Docs(x, Matrix(8, 0)); }, "matrix Y is empty");
  Matrix nan_y = y;
  nan_y(2, 3) = std::nan("");
  ExpectInvalid([&] { Docs(x, nan_y); }, "matrix Y has a non-finite entry");
  Matrix inf_x = x;
  inf_x(0, 1) = -INFINITY;
  ExpectInvalid([&] { Docs(inf_x, y); }, "row 0, column 1");
  Matrix zero_y = y;
  for (int64_t i = 0; i < zero_y.rows; ++i) zero_y(i, 2) = 0.0;
  ExpectInvalid([&] { Docs(x, zero_y); }, "column 2 of matrix Y is all zeros");
  Matrix zero_x = x;
  for (int64_t i = 0; i < zero_x.rows; ++i) zero_x(i, 0) = 0.0;
  ExpectInvalid([&] { Docs(zero_x, y); }, "column 0 of matrix X is all zeros");
  ExpectInvalid([&] { LinearCka(x, Gaussian(9, 5, 1, 2), true); }, "same number of rows");
  ExpectInvalid([&] { LinearRegressionR2(x, Matrix(8, 5)); }, "Y is all zeros");
  ExpectInvalid([&] { CcaMeanCorrelation(inf_x, y, false); }, "non-finite");
  ExpectInvalid([&] { GumbelFit(std::vector<double>{}); }, "no samples");
  ExpectInvalid([&] { GumbelFit(std::vector<double>{0.1, NAN}); }, "sample 1 is not finite");
}

// ---------------------------------------------------------------- Gumbel MLE

TEST(DocsReference, GumbelFitRecoversKnownParameters) {
  constexpr double kU = 0.3;
  constexpr double kBeta = 0.05;
  constexpr int kN = 20000;
  const std::vector<double> x = GumbelSamples(kU, kBeta, kN, 42);
  const GumbelParams fit = GumbelFit(x);
  const double se_u = 1.05 * kBeta / std::sqrt(kN);
  const double se_beta = 0.78 * kBeta / std::sqrt(kN);
  std::printf("Gumbel fit n=%d: u=%.6f (%+.2f se), beta=%.6f (%+.2f se)\n", kN, fit.location,
              (fit.location - kU) / se_u, fit.scale, (fit.scale - kBeta) / se_beta);
  EXPECT_NEAR(fit.location, kU, 4.0 * se_u);
  EXPECT_NEAR(fit.scale, kBeta, 4.0 * se_beta);
}

TEST(DocsReference, GumbelFitIsAStationaryMaximumOfTheLikelihood) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const std::vector<double> x = GumbelSamples(0.3 * static_cast<double>(seed), 0.05, 5000, seed);
    const GumbelParams fit = GumbelFit(x);
    const auto [du, dbeta] = ScaledScore(x, fit.location, fit.scale);
    std::printf("seed %u: scaled score (%.2e, %.2e)\n", static_cast<unsigned>(seed), du, dbeta);
    EXPECT_LT(std::abs(du), 1e-8) << "seed " << seed;
    EXPECT_LT(std::abs(dbeta), 1e-8) << "seed " << seed;
    // A maximum, not a saddle: small moves in either parameter lower l.
    const double l0 = LogLikelihood(x, fit.location, fit.scale);
    const double h = 1e-3 * fit.scale;
    EXPECT_LT(LogLikelihood(x, fit.location + h, fit.scale), l0);
    EXPECT_LT(LogLikelihood(x, fit.location - h, fit.scale), l0);
    EXPECT_LT(LogLikelihood(x, fit.location, fit.scale + h), l0);
    EXPECT_LT(LogLikelihood(x, fit.location, fit.scale - h), l0);
  }
}

TEST(DocsReference, GumbelFitIsOrderIndependentAndHandlesDegenerateSamples) {
  std::vector<double> x = GumbelSamples(0.0, 1.0, 1000, 11);
  const GumbelParams a = GumbelFit(x);
  Rng rng(12, 0);
  rng.Shuffle(std::span<double>(x));
  const GumbelParams b = GumbelFit(x);
  EXPECT_EQ(a.location, b.location);
  EXPECT_EQ(a.scale, b.scale);

  const GumbelParams same = GumbelFit(std::vector<double>(17, 0.625));
  EXPECT_EQ(same.location, 0.625);
  EXPECT_EQ(same.scale, 0.0);
  const GumbelParams one = GumbelFit(std::vector<double>{0.25});
  EXPECT_EQ(one.location, 0.25);
  EXPECT_EQ(one.scale, 0.0);
  // Two distinct values: a finite positive scale and u within the data.
  const GumbelParams two = GumbelFit(std::vector<double>{0.0, 1.0});
  EXPECT_GT(two.scale, 0.0);
  EXPECT_GT(two.location, 0.0);
  EXPECT_LT(two.location, 1.0);
}

// ---------------------------------------------------------------- D2: orthogonal pairs

TEST(DocsReference, QrGivesHaarOrthogonalWithPositiveDiagonal) {
  const Matrix a = Gaussian(64, 64, 3, 0);
  const QrResult qr = Qr(a);
  const Matrix qtq = MatMul(Transpose(qr.q), qr.q);  // (64, 64)
  Matrix eye(64, 64);
  for (int64_t j = 0; j < 64; ++j) eye(j, j) = 1.0;
  EXPECT_TRUE(cb::testing::AllClose(qtq.data, eye.data, 1e-13, 0.0));
  EXPECT_TRUE(cb::testing::AllClose(MatMul(qr.q, qr.r).data, a.data, 1e-12, 1e-12));
  for (int64_t j = 0; j < 64; ++j) {
    EXPECT_GT(qr.r(j, j), 0.0);
    for (int64_t i = j + 1; i < 64; ++i) EXPECT_EQ(qr.r(i, j), 0.0);
  }
}

TEST(DocsReference, OrthogonalPairsDocsDiscriminatesWhileBaselinesAreOne) {
  constexpr int64_t kN = 64;
  constexpr int kPairs = 20;
  std::vector<double> scores;
  for (int p = 0; p < kPairs; ++p) {
    const Matrix q1 = HaarQ(kN, 500 + static_cast<uint64_t>(p), 0);
    const Matrix q2 = HaarQ(kN, 500 + static_cast<uint64_t>(p), 1);
    const double s = Docs(q1, q2).score;
    scores.push_back(s);
    EXPECT_GT(s, 0.2) << "pair " << p;
    EXPECT_LT(s, 0.45) << "pair " << p;
    EXPECT_NEAR(LinearCka(q1, q2, /*centered=*/false), 1.0, 1e-10) << "pair " << p;
    EXPECT_NEAR(LinearRegressionR2(q1, q2), 1.0, 1e-10) << "pair " << p;
    EXPECT_NEAR(LinearRegressionR2(q2, q1), 1.0, 1e-10) << "pair " << p;
    EXPECT_NEAR(CcaMeanCorrelation(q1, q2, /*centered=*/false), 1.0, 1e-8) << "pair " << p;
    if (p < 3) {  // the slower variants on a few pairs
      EXPECT_NEAR(CcaMeanCorrelation(q1, q2, /*centered=*/true), 1.0, 1e-8) << "pair " << p;
      EXPECT_NEAR(SvccaMeanCorrelation(q1, q2, /*centered=*/false), 1.0, 1e-8) << "pair " << p;
      EXPECT_NEAR(SvccaMeanCorrelation(q1, q2, /*centered=*/true), 1.0, 1e-8) << "pair " << p;
    }
  }
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const double mean = std::accumulate(scores.begin(), scores.end(), 0.0) / kPairs;
  std::printf("DOCS of %d Haar pairs at n=%lld: mean %.5f, range [%.5f, %.5f]\n", kPairs,
              static_cast<long long>(kN), mean, *lo, *hi);
  EXPECT_GT(*hi - *lo, 1e-3) << "S should vary between orthogonal pairs";
}

TEST(DocsReference, BaselinesSeparateUnrelatedAndRelatedGaussians) {
  // The baselines are not constant functions: on independent Gaussians
  // (m = 64 samples, 8 features) they sit well below 1, on Y = X A they are 1.
  const Matrix x = Gaussian(64, 8, 77, 0);
  const Matrix y = Gaussian(64, 8, 77, 1);
  EXPECT_LT(LinearCka(x, y, true), 0.5);
  EXPECT_LT(LinearCka(x, y, false), 0.5);
  EXPECT_LT(LinearRegressionR2(x, y), 0.5);
  EXPECT_LT(CcaMeanCorrelation(x, y, true), 0.6);
  EXPECT_LT(SvccaMeanCorrelation(x, y, true), 0.6);
  const Matrix a = Gaussian(8, 8, 77, 2);
  const Matrix xa = MatMul(x, a);  // (64, 8), same column space as x
  EXPECT_NEAR(LinearRegressionR2(x, xa), 1.0, 1e-10);
  EXPECT_NEAR(CcaMeanCorrelation(x, xa, true), 1.0, 1e-8);
  EXPECT_NEAR(LinearCka(x, x, true), 1.0, 1e-12);
}

TEST(DocsReference, ThinSvdReconstructsBothOrientations) {
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{10, 6}, {6, 10}}) {
    const Matrix a = Gaussian(rows, cols, 31, static_cast<uint64_t>(rows));
    const SvdResult svd = ThinSvd(a);
    const int64_t k = std::min(rows, cols);
    ASSERT_EQ(static_cast<int64_t>(svd.sigma.size()), k);
    Matrix us(rows, k);  // U diag(sigma), (rows, k)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < k; ++j) us(i, j) = svd.u(i, j) * svd.sigma[static_cast<size_t>(j)];
    EXPECT_TRUE(cb::testing::AllClose(MatMul(us, Transpose(svd.v)).data, a.data, 1e-12, 1e-12));
    Matrix eye(k, k);
    for (int64_t j = 0; j < k; ++j) eye(j, j) = 1.0;
    EXPECT_TRUE(cb::testing::AllClose(MatMul(Transpose(svd.u), svd.u).data, eye.data, 1e-13, 0.0));
    EXPECT_TRUE(cb::testing::AllClose(MatMul(Transpose(svd.v), svd.v).data, eye.data, 1e-13, 0.0));
    EXPECT_TRUE(std::is_sorted(svd.sigma.rbegin(), svd.sigma.rend()));
    EXPECT_GT(svd.sigma.back(), 0.0);
  }
}

TEST(DocsReference, BaselinesHandleDependentColumns) {
  // X = [a, a + 0.1 b, -2 a] spans {a, b}: the nearly collinear second column
  // must be kept and the exactly dependent third one dropped (rank 2).
  const Matrix ab = Gaussian(32, 2, 41, 0);  // (32, 2): columns a, b
  Matrix x(32, 3);
  Matrix y(32, 1);  // y = b
  for (int64_t i = 0; i < 32; ++i) {
    x(i, 0) = ab(i, 0);
    x(i, 1) = ab(i, 0) + 0.1 * ab(i, 1);
    x(i, 2) = -2.0 * ab(i, 0);
    y(i, 0) = ab(i, 1);
  }
  EXPECT_EQ(OrthonormalBasis(x).cols, 2);
  EXPECT_NEAR(LinearRegressionR2(x, y), 1.0, 1e-10);
  EXPECT_NEAR(CcaMeanCorrelation(x, y, false), 1.0, 1e-8);
}

// ---------------------------------------------------------------- D3: noise trend

TEST(DocsReference, NoiseDecreasesTheScoreMonotonically) {
  constexpr int64_t kM = 64;
  constexpr int64_t kN = 48;
  constexpr int kDraws = 5;
  const std::vector<double> eps = {0.0, 0.01, 0.03, 0.1, 0.3, 1.0};
  const Matrix x = Gaussian(kM, kN, 900, 0);
  std::vector<double> mean_s(eps.size(), 0.0);
  for (int d = 0; d < kDraws; ++d) {
    const Matrix noise = Gaussian(kM, kN, 901, static_cast<uint64_t>(d));
    for (size_t e = 0; e < eps.size(); ++e) {
      Matrix xn = x;
      for (size_t i = 0; i < xn.data.size(); ++i) xn.data[i] += eps[e] * noise.data[i];
      mean_s[e] += Docs(x, xn).score / kDraws;
    }
  }
  EXPECT_EQ(mean_s[0], 1.0);
  for (size_t e = 1; e < eps.size(); ++e) {
    EXPECT_LT(mean_s[e], mean_s[e - 1]) << "eps " << eps[e];
  }
  std::printf("mean S(X, X + eps N):");
  for (size_t e = 0; e < eps.size(); ++e) std::printf(" eps=%g: %.6f", eps[e], mean_s[e]);
  std::printf("\n");
}

}  // namespace
}  // namespace cb::ref::docs

// File: generators/tensors_test.cpp
// -----------------------------------------------------------------------------
// Tests of generators/tensors.h: determinism and row-major fill order, Gaussian
// moments, orthogonality and Haar distribution of HaarOrthogonal (with a
// negative control: the same checks reject Q without Mezzadri's sign fix),
// layer-stack correlations rho^|i-j|, argument checks, and golden content
// hashes read from fixtures/generators/tensors_golden.txt.
#include "generators/tensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/golden.h"
#include "harness/random.h"
#include "harness/stats.h"

namespace cb::gen {
namespace {

using ::cb::ref::Matrix;

struct Moments {
  double mean = 0.0;
  double var = 0.0;  // unbiased
};

Moments MeanVar(const std::vector<double>& x) {
  Moments m;
  for (double v : x) m.mean += v;
  m.mean /= static_cast<double>(x.size());
  for (double v : x) m.var += (v - m.mean) * (v - m.mean);
  m.var /= static_cast<double>(x.size() - 1);
  return m;
}

double Pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const Moments mx = MeanVar(x);
  const Moments my = MeanVar(y);
  double sxy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx.mean) * (y[i] - my.mean);
  sxy /= static_cast<double>(x.size() - 1);
  return sxy / std::sqrt(mx.var * my.var);
}

// max_{i,j} |(Q^T Q - I)_ij| for Q (n, n).
double OrthogonalityError(const Matrix& q) {
  double worst = 0.0;
  for (int64_t i = 0; i < q.cols; ++i) {
    for (int64_t j = 0; j < q.cols; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < q.rows; ++k) s += q(k, i) * q(k, j);
      worst = std::max(worst, std::abs(s - (i == j ? 1.0 : 0.0)));
    }
  }
  return worst;
}

double UniformAngleCdf(double theta) {
  return std::clamp((theta + std::numbers::pi) / (2.0 * std::numbers::pi), 0.0, 1.0);
}

// ---------------------------------------------------------------------------
// GaussianMatrix

TEST(GaussianMatrix, DeterministicRowMajorAndStreamDependent) {
  const Generated ga = GaussianMatrix(7, 5, 42, 3, 1.5);
  const Generated gb = GaussianMatrix(7, 5, 42, 3, 1.5);
  const Matrix& a = ga.matrix;  // (7, 5)
  ASSERT_EQ(a.rows, 7);
  ASSERT_EQ(a.cols, 5);
  ASSERT_EQ(a.data.size(), 35u);
  EXPECT_EQ(a.data, gb.matrix.data);
  EXPECT_EQ(ContentHash(ga), ContentHash(gb));

  // Entry (r, c) is stddev * the (r * cols + c)-th normal of Rng(seed, stream).
  harness::Rng rng(42, 3);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t c = 0; c < a.cols; ++c) EXPECT_EQ(a(r, c), 1.5 * rng.Normal()) << r << "," << c;
  }

  const Generated other_seed = GaussianMatrix(7, 5, 43, 3, 1.5);
  const Generated other_stream = GaussianMatrix(7, 5, 42, 4, 1.5);
  EXPECT_NE(a.data, other_seed.matrix.data);
  EXPECT_NE(a.data, other_stream.matrix.data);
  EXPECT_NE(ContentHash(ga), ContentHash(other_seed));
  EXPECT_NE(ContentHash(ga), ContentHash(other_stream));
}

TEST(GaussianMatrix, MomentsAndDistribution) {
  const double sigma = 2.5;
  const Matrix g = GaussianMatrix(200, 300, 7, 0, sigma).matrix;  // (200, 300)
  const double n = static_cast<double>(g.data.size());
  const Moments m = MeanVar(g.data);
  const double se_mean = sigma / std::sqrt(n);
  const double se_var = sigma * sigma * std::sqrt(2.0 / (n - 1));
  EXPECT_LT(std::abs(m.mean), 5 * se_mean) << "mean " << m.mean;
  EXPECT_LT(std::abs(m.var - sigma * sigma), 5 * se_var) << "var " << m.var;

  const auto ks = harness::KsTest(g.data, [&](double x) { return harness::NormalCdf(x / sigma); });
  std::printf("Gaussian KS vs N(0, %.2f^2): d = %.5f, p = %.4g\n", sigma, ks.d, ks.p_value);
  EXPECT_GT(ks.p_value, 1e-4);
  // Negative control: a 5% wrong scale must be rejected by the same test.
  const auto wrong =
      harness::KsTest(g.data, [&](double x) { return harness::NormalCdf(x / (1.05 * sigma)); });
  std::printf("Gaussian KS vs N(0, (1.05*%.2f)^2): p = %.4g\n", sigma, wrong.p_value);
  EXPECT_LT(wrong.p_value, 1e-6);
}

TEST(GaussianMatrix, EmptyAndBadArguments) {
  EXPECT_TRUE(GaussianMatrix(0, 4, 1, 0).matrix.data.empty());
  EXPECT_THROW(GaussianMatrix(-1, 4, 1, 0), std::invalid_argument);
  EXPECT_THROW(GaussianMatrix(2, 2, 1, 0, -1.0), std::invalid_argument);
  EXPECT_THROW(GaussianMatrix(2, 2, 1, 0, std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------
// HaarOrthogonal

TEST(HaarOrthogonal, IsOrthogonalAndIsTheQOfAPositiveDiagonalQr) {
  for (int64_t n : {1, 2, 5, 64}) {
    const Matrix q = HaarOrthogonal(n, 11, 2).matrix;  // (n, n)
    ASSERT_EQ(q.rows, n);
    ASSERT_EQ(q.cols, n);
    EXPECT_LT(OrthogonalityError(q), 1e-12) << "n=" << n;
    const Matrix a = GaussianMatrix(n, n, 11, 2).matrix;  // (n, n)
    EXPECT_LT(OrthogonalityError(internal::QrOrthogonalFactor(a, false)), 1e-12) << "n=" << n;
    // R = Q^T A must be upper triangular with a positive diagonal.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double r_ij = 0.0;
        for (int64_t k = 0; k < n; ++k) r_ij += q(k, i) * a(k, j);
        if (i > j) {
          EXPECT_LT(std::abs(r_ij), 1e-10) << "n=" << n << " R(" << i << "," << j << ")";
        } else if (i == j) {
          EXPECT_GT(r_ij, 0.0) << "n=" << n << " R(" << i << "," << i << ")";
        }
      }
    }
  }
  EXPECT_THROW(HaarOrthogonal(0, 1, 0), std::invalid_argument);
}

TEST(HaarOrthogonal, Deterministic) {
  const Generated a = HaarOrthogonal(6, 5, 1);
  EXPECT_EQ(a.matrix.data, HaarOrthogonal(6, 5, 1).matrix.data);
  EXPECT_NE(a.matrix.data, HaarOrthogonal(6, 6, 1).matrix.data);
  EXPECT_NE(a.matrix.data, HaarOrthogonal(6, 5, 2).matrix.data);
  EXPECT_NE(ContentHash(a), ContentHash(HaarOrthogonal(6, 5, 2)));
}

// For n = 2, a Haar Q has its first column uniform on the circle, so the angle
// atan2(Q10, Q00) is uniform on (-pi, pi]; det = +1 (rotations) with
// probability 1/2, and a rotation's angle is uniform too. Without the sign fix
// the Householder convention (R_00 = -sign(A00)|a0|) pins Q00 <= 0 and makes
// every Q a reflection: the same KS test must reject.
struct TwoByTwoStats {
  std::vector<double> first_column_angle;
  std::vector<double> rotation_angle;  // only draws with det = +1
  int64_t draws = 0;
};

TwoByTwoStats CollectTwoByTwo(bool sign_fix, int64_t draws) {
  TwoByTwoStats s;
  s.draws = draws;
  for (int64_t i = 0; i < draws; ++i) {
    const Matrix q = internal::QrOrthogonalFactor(
        GaussianMatrix(2, 2, 2024, static_cast<uint64_t>(i)).matrix, sign_fix);
    const double angle = std::atan2(q(1, 0), q(0, 0));
    s.first_column_angle.push_back(angle);
    const double det = q(0, 0) * q(1, 1) - q(0, 1) * q(1, 0);
    if (det > 0) s.rotation_angle.push_back(angle);
  }
  return s;
}

TEST(HaarOrthogonal, TwoByTwoAnglesAreUniformWithSignFix) {
  const int64_t draws = 20000;
  const TwoByTwoStats s = CollectTwoByTwo(/*sign_fix=*/true, draws);
  // HaarOrthogonal(2, seed, stream) is exactly this construction.
  EXPECT_EQ(HaarOrthogonal(2, 2024, 17).matrix.data,
            internal::QrOrthogonalFactor(GaussianMatrix(2, 2, 2024, 17).matrix, true).data);

  const auto all = harness::KsTest(s.first_column_angle, UniformAngleCdf);
  std::printf("n=2 with sign fix: first-column angle KS d = %.5f, p = %.4g (%lld draws)\n", all.d,
              all.p_value, static_cast<long long>(draws));
  EXPECT_GT(all.p_value, 1e-4);

  const double frac = static_cast<double>(s.rotation_angle.size()) / static_cast<double>(draws);
  EXPECT_LT(std::abs(frac - 0.5), 5 * std::sqrt(0.25 / static_cast<double>(draws))) << frac;
  ASSERT_GT(s.rotation_angle.size(), 1000u);
  const auto rot = harness::KsTest(s.rotation_angle, UniformAngleCdf);
  std::printf("n=2 with sign fix: det=+1 fraction %.4f, rotation angle KS d = %.5f, p = %.4g\n",
              frac, rot.d, rot.p_value);
  EXPECT_GT(rot.p_value, 1e-4);
}

TEST(HaarOrthogonal, NegativeControlWithoutSignFixIsRejected) {
  const int64_t draws = 20000;
  const TwoByTwoStats s = CollectTwoByTwo(/*sign_fix=*/false, draws);
  const auto all = harness::KsTest(s.first_column_angle, UniformAngleCdf);
  std::printf("n=2 WITHOUT sign fix: first-column angle KS d = %.5f, p = %.4g\n", all.d,
              all.p_value);
  EXPECT_LT(all.p_value, 1e-6);
  const double frac = static_cast<double>(s.rotation_angle.size()) / static_cast<double>(draws);
  std::printf("n=2 WITHOUT sign fix: det=+1 fraction %.4f\n", frac);
  EXPECT_GT(std::abs(frac - 0.5), 5 * std::sqrt(0.25 / static_cast<double>(draws)));
}

// Haar on O(n): every entry has mean 0 and E[Q_ij^2] = 1/n.
TEST(HaarOrthogonal, EntryMomentsMatchHaar) {
  const int64_t n = 8;
  const int64_t draws = 4000;
  std::vector<double> q00, q00_sq, qnn, q00_unfixed;
  for (int64_t i = 0; i < draws; ++i) {
    const Matrix a = GaussianMatrix(n, n, 99, static_cast<uint64_t>(i)).matrix;  // (n, n)
    const Matrix q = internal::QrOrthogonalFactor(a, true);
    q00.push_back(q(0, 0));
    q00_sq.push_back(q(0, 0) * q(0, 0));
    qnn.push_back(q(n - 1, n - 1));
    q00_unfixed.push_back(internal::QrOrthogonalFactor(a, false)(0, 0));
  }
  const double d = static_cast<double>(draws);
  const Moments m00 = MeanVar(q00);
  const Moments msq = MeanVar(q00_sq);
  const Moments mnn = MeanVar(qnn);
  const Moments mun = MeanVar(q00_unfixed);
  std::printf(
      "n=8: mean Q00 %.5f, E[Q00^2] %.5f (1/n = %.5f), mean Qnn %.5f, unfixed mean Q00 %.5f\n",
      m00.mean, msq.mean, 1.0 / n, mnn.mean, mun.mean);
  EXPECT_LT(std::abs(m00.mean), 5 * std::sqrt(m00.var / d));
  EXPECT_LT(std::abs(mnn.mean), 5 * std::sqrt(mnn.var / d));
  EXPECT_LT(std::abs(msq.mean - 1.0 / n), 5 * std::sqrt(msq.var / d));
  // Negative control: without the fix Q00 <= 0 always, so its mean is far below 0.
  EXPECT_LT(mun.mean, -5 * std::sqrt(mun.var / d));
}

// ---------------------------------------------------------------------------
// LayerStack

TEST(LayerStack, CorrelationDecaysAsRhoToTheDistance) {
  const double rho = 0.6;
  const std::vector<Generated> w = LayerStack(5, 120, 100, rho, 31);  // 5 x (120, 100)
  ASSERT_EQ(w.size(), 5u);
  const double n = 120.0 * 100.0;
  for (const Generated& layer : w) {
    const Moments m = MeanVar(layer.matrix.data);
    EXPECT_LT(std::abs(m.var - 1.0), 5 * std::sqrt(2.0 / n)) << layer.params;
  }
  // SE of a Pearson r near r0 for bivariate normals: (1 - r0^2) / sqrt(n).
  for (size_t dist = 1; dist <= 2; ++dist) {
    const double expected = std::pow(rho, static_cast<double>(dist));
    const double se = (1 - expected * expected) / std::sqrt(n);
    for (size_t i = 0; i + dist < w.size(); ++i) {
      const double r = Pearson(w[i].matrix.data, w[i + dist].matrix.data);
      std::printf("layers %zu,%zu: r = %.4f (expected %.4f, 5 SE = %.4f)\n", i, i + dist, r,
                  expected, 5 * se);
      EXPECT_LT(std::abs(r - expected), 5 * se) << i << "," << i + dist;
    }
  }
  // Adjacent layers are more alike than distant ones.
  EXPECT_GT(Pearson(w[1].matrix.data, w[2].matrix.data),
            Pearson(w[0].matrix.data, w[4].matrix.data) + 0.2);
}

TEST(LayerStack, EdgeCasesDeterminismAndArguments) {
  const std::vector<Generated> independent = LayerStack(3, 4, 6, 0.0, 5);
  for (size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(independent[l].matrix.data, GaussianMatrix(4, 6, 5, l).matrix.data) << l;
  }
  const std::vector<Generated> identical = LayerStack(3, 4, 6, 1.0, 5);
  EXPECT_EQ(identical[2].matrix.data, identical[0].matrix.data);

  const std::vector<Generated> a = LayerStack(3, 4, 6, 0.5, 5);
  const std::vector<Generated> b = LayerStack(3, 4, 6, 0.5, 5);
  const std::vector<Generated> c = LayerStack(3, 4, 6, 0.5, 6);
  for (size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(a[l].matrix.data, b[l].matrix.data);
    EXPECT_EQ(ContentHash(a[l]), ContentHash(b[l]));
    EXPECT_NE(a[l].matrix.data, c[l].matrix.data);
  }
  EXPECT_NE(ContentHash(a[0]), ContentHash(a[1]));
  EXPECT_NE(ContentHash(a[1]), ContentHash(LayerStack(3, 4, 6, 0.25, 5)[1]));

  EXPECT_TRUE(LayerStack(0, 4, 6, 0.5, 5).empty());
  EXPECT_THROW(LayerStack(2, 4, 6, 1.5, 5), std::invalid_argument);
  EXPECT_THROW(LayerStack(2, 4, 6, -0.1, 5), std::invalid_argument);
  EXPECT_THROW(LayerStack(2, 4, 6, std::numeric_limits<double>::quiet_NaN(), 5),
               std::invalid_argument);
  EXPECT_THROW(LayerStack(-1, 4, 6, 0.5, 5), std::invalid_argument);
  EXPECT_THROW(LayerStack(2, -4, 6, 0.5, 5), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// ContentHash

TEST(ContentHash, CoversProvenanceAndEveryBit) {
  const Generated base = GaussianMatrix(3, 4, 1, 0);
  const std::string h = ContentHash(base);
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);

  Generated m = base;
  m.matrix.data[5] = std::nextafter(m.matrix.data[5], 10.0);  // one ulp
  EXPECT_NE(ContentHash(m), h);
  m = base;
  m.version += 1;
  EXPECT_NE(ContentHash(m), h);
  m = base;
  m.params += ";x=1";
  EXPECT_NE(ContentHash(m), h);
  m = base;
  m.generator = "other";
  EXPECT_NE(ContentHash(m), h);
  m = base;  // same bytes, other shape
  m.matrix.rows = 4;
  m.matrix.cols = 3;
  EXPECT_NE(ContentHash(m), h);
  m = base;
  m.matrix.data.pop_back();
  EXPECT_THROW(ContentHash(m), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Golden hashes: they pin generator output (fixtures/PROVENANCE.md). A change
// here on purpose must come with a bumped k*Version constant.

std::map<std::string, std::string> GoldenCalls() {
  std::map<std::string, std::string> actual;
  actual["gaussian_3x4_seed1_stream0"] = ContentHash(GaussianMatrix(3, 4, 1, 0));
  actual["gaussian_5x2_seed7_stream3_sd2.5"] = ContentHash(GaussianMatrix(5, 2, 7, 3, 2.5));
  actual["haar_4_seed1_stream0"] = ContentHash(HaarOrthogonal(4, 1, 0));
  actual["haar_16_seed123_stream9"] = ContentHash(HaarOrthogonal(16, 123, 9));
  const std::vector<Generated> stack = LayerStack(3, 4, 5, 0.8, 17);
  for (size_t l = 0; l < stack.size(); ++l) {
    actual["layer_stack_3x4x5_rho0.8_seed17_layer" + std::to_string(l)] = ContentHash(stack[l]);
  }
  return actual;
}

TEST(Golden, ContentHashesMatchFixture) {
  cb::testing::ExpectMatchesGolden("generators/tensors_golden.txt", GoldenCalls());
}

}  // namespace
}  // namespace cb::gen

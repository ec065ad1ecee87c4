// File: harness/simd_math_test.cpp
// libmvec's vector functions against the fp64 <cmath> results, lane by lane,
// over sweeps that cover the ranges the fast paths use (and a few edges).
#include "harness/simd_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace cb::harness {
namespace {

#if CB_HAVE_SIMD_MATH

constexpr int64_t kMaxUlp = 4;

// Distance in representable floats between two finite floats of one sign.
int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::llabs(static_cast<int64_t>(ia) - ib);
}

CB_TARGET_AVX2 std::vector<float> Apply8(const std::vector<float>& x, int which,
                                        float exponent) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i + 8 <= x.size(); i += 8) {
    const __m256 v = _mm256_loadu_ps(x.data() + i);
    const __m256 r = which == 0   ? simd::Exp(v)
                     : which == 1 ? simd::Exp2(v)
                     : which == 2 ? simd::Log(v)
                     : which == 3 ? simd::Log2(v)
                                  : simd::Pow(v, _mm256_set1_ps(exponent));
    _mm256_storeu_ps(out.data() + i, r);
  }
  return out;
}

// Evenly spaced points of [lo, hi], a multiple of 8 of them.
std::vector<float> Sweep(double lo, double hi, int n = 8 * 4096) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(lo + (hi - lo) * i / (n - 1));
  return x;
}

void ExpectWithinUlp(const std::vector<float>& x, const std::vector<float>& got,
                     const std::function<double(double)>& exact, const char* name) {
  int64_t worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(exact(x[i]));
    if (want == 0 || !std::isfinite(want)) continue;  // under/overflow edges
    const int64_t d = UlpDistance(got[i], want);
    if (d > worst) worst = d, worst_x = x[i];
  }
  EXPECT_LE(worst, kMaxUlp) << name << " worst at x = " << worst_x;
}

class SimdMathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CpuHasAvx2Fma()) GTEST_SKIP() << "this CPU has no AVX2+FMA";
  }
};

TEST_F(SimdMathTest, FloatFunctionsAreWithinFourUlpOfFp64) {
  auto e = Sweep(-87, 88);
  ExpectWithinUlp(e, Apply8(e, 0, 0), [](double v) { return std::exp(v); }, "exp");
  auto e2 = Sweep(-126, 127);
  ExpectWithinUlp(e2, Apply8(e2, 1, 0), [](double v) { return std::exp2(v); }, "exp2");
  auto l = Sweep(1e-30, 1e30);
  auto small = Sweep(1e-6, 4);
  l.insert(l.end(), small.begin(), small.end());
  ExpectWithinUlp(l, Apply8(l, 2, 0), [](double v) { return std::log(v); }, "log");
  ExpectWithinUlp(l, Apply8(l, 3, 0), [](double v) { return std::log2(v); }, "log2");
  for (float k : {0.37f, 1.0f, 2.5f, 9.0625f}) {
    auto p = Sweep(1e-4, 30);
    ExpectWithinUlp(p, Apply8(p, 4, k), [k](double v) { return std::pow(v, k); }, "pow");
  }
}

TEST_F(SimdMathTest, EdgeValuesFollowIeee) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, -0.0f, 1.0f, inf, -1.0f, -inf, 1e-40f, 100.0f};
  const auto ex = Apply8(x, 0, 0);
  EXPECT_EQ(ex[0], 1.0f);
  EXPECT_EQ(ex[5], 0.0f);                    // exp(-inf)
  EXPECT_EQ(ex[7], inf);                     // exp(100) overflows
  const auto lg = Apply8(x, 2, 0);
  EXPECT_EQ(lg[0], -inf);                    // log(0)
  EXPECT_EQ(lg[2], 0.0f);                    // log(1)
  EXPECT_EQ(lg[3], inf);                     // log(inf)
  EXPECT_TRUE(std::isnan(lg[4]));            // log(-1)
  EXPECT_NEAR(lg[6], std::log(1e-40), 1e-4);  // a subnormal input
}

CB_TARGET_AVX2 void DoubleLanes(const double* x, double* exp_out, double* log_out) {
  _mm256_storeu_pd(exp_out, simd::Exp(_mm256_loadu_pd(x)));
  _mm256_storeu_pd(log_out, simd::Log(_mm256_loadu_pd(x)));
}

TEST_F(SimdMathTest, DoubleExpAndLogAreWithinFourUlp) {
  double worst = 0;
  for (int i = 0; i < 4096; i += 4) {
    double x[4], e[4], l[4];
    for (int j = 0; j < 4; ++j) x[j] = 1e-3 + (i + j) * 0.01;
    DoubleLanes(x, e, l);
    for (int j = 0; j < 4; ++j) {
      worst = std::max(worst, std::fabs(e[j] - std::exp(x[j])) /
                                  (std::numeric_limits<double>::epsilon() * std::exp(x[j])));
      if (std::fabs(std::log(x[j])) > 1e-3)
        worst = std::max(worst, std::fabs(l[j] - std::log(x[j])) /
                                    (std::numeric_limits<double>::epsilon() * std::fabs(std::log(x[j]))));
    }
  }
  EXPECT_LE(worst, kMaxUlp);
}

#endif  // CB_HAVE_SIMD_MATH

// Exp2Reduced() in a portable 8-lane GCC vector type (no target needed; the
// calls are inlined, so the AVX argument-ABI note does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"
using V8f = float __attribute__((vector_size(32)));
using V8i = int32_t __attribute__((vector_size(32)));

TEST(Exp2Reduced, RelativeErrorBelowThreeMillionthsOverItsDomain) {
  double worst = 0;
  float worst_u = 0;
  std::vector<float> u(8 * 65536);  // evenly spaced over [-126, 127]
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<float>(-126.0 + 253.0 * i / (u.size() - 1));
  for (size_t i = 0; i < u.size(); i += 8) {
    V8f v;
    std::memcpy(&v, u.data() + i, sizeof v);
    const V8f r = simd::Exp2Reduced<V8f, V8i>(v);
    for (int l = 0; l < 8; ++l) {
      const double want = std::exp2(double(u[i + l]));
      const double rel = std::fabs(r[l] - want) / want;
      if (rel > worst) worst = rel, worst_u = u[i + l];
    }
  }
  EXPECT_LT(worst, 3e-6) << "worst at u = " << worst_u;
  // Below the domain, -inf and -FLT_MAX included: 0 (never a wrapped exponent).
  for (const float below : {-126.5f, -1000.0f, -3.4e38f, -INFINITY}) {
    const V8f r = simd::Exp2Reduced<V8f, V8i>(V8f{} + below);
    EXPECT_EQ(r[0], 0.0f) << "u = " << below;
  }
}

#if CB_HAVE_SIMD_MATH
CB_TARGET_AVX512 void Exp2Reduced16(const float* u, float* out) {
  _mm512_storeu_ps(out, simd::Exp2Reduced(_mm512_loadu_ps(u)));
}

// The AVX-512 form (vrndscaleps / vscalefps): the same bound, a clean
// underflow to 0 below the float range, NaN for NaN.
TEST(Exp2Reduced, Avx512FormWithinTheSameBound) {
  if (!CpuHasAvx512F()) GTEST_SKIP() << "this CPU has no AVX-512F";
  std::vector<float> u(16 * 32768);
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<float>(-126.0 + 253.0 * i / (u.size() - 1));
  std::vector<float> got(u.size());
  for (size_t i = 0; i < u.size(); i += 16) Exp2Reduced16(u.data() + i, got.data() + i);
  double worst = 0;
  for (size_t i = 0; i < u.size(); ++i) {
    const double want = std::exp2(double(u[i]));
    worst = std::max(worst, std::fabs(got[i] - want) / want);
  }
  EXPECT_LT(worst, 3e-6);
  float edge[16] = {0.0f, -1000.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f, -0.5f, 0.5f};
  float out[16];
  Exp2Reduced16(edge, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 2.0f);
}
#endif

#if !CB_HAVE_SIMD_MATH
TEST(SimdMathTest, NotX86) { GTEST_SKIP() << "libmvec's AVX2 entry points are x86-64 only"; }
#endif

}  // namespace
}  // namespace cb::harness

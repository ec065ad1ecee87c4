// File: suites/unip/unip_backend_test.cpp
// -----------------------------------------------------------------------------
// The backends of unip_backend.h against the fp64 reference (reference/unip)
// on fresh random attention maps and logits (kNmiAbsTolerance,
// kKlRelTolerance), and against the closed forms (circular windows, a
// collapsed map, identical logits) on every backend. Outputs are poisoned on
// the device before each run (unip.cu). On a machine without a GPU the CUDA
// instances skip (fail under CB_REQUIRE_GPU=1).
#include "suites/unip/unip_backend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/unip/distill.h"

namespace cb::unip {
namespace {

namespace ru = cb::ref::unip;

// rows rows of softmax(scale * N(0, 1)) over k keys: [rows, k].
std::vector<double> SoftmaxRows(harness::Rng& rng, int rows, int k, double scale) {
  std::vector<double> a(size_t(rows) * k);
  for (int r = 0; r < rows; ++r) {
    double* row = &a[size_t(r) * k];
    double sum = 0;
    for (int j = 0; j < k; ++j) sum += row[j] = std::exp(scale * rng.Normal());
    for (int j = 0; j < k; ++j) row[j] /= sum;
  }
  return a;
}

std::vector<double> Logits(harness::Rng& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng.Normal();
  return v;
}

class UnipBackendTest : public cb::testing::BackendTest {};

TEST_P(UnipBackendTest, BatchNmiMatchesTheReferenceOnFreshMaps) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 1);
  // Sharp (local-like), moderate and flat (global-like) maps, square and not,
  // q and k not multiples of the block size.
  for (const auto& [q, k, scale] : {std::tuple{49, 49, 4.0}, std::tuple{37, 50, 1.0}, std::tuple{300, 300, 0.2}}) {
    const int count = 5;
    const std::vector<double> maps = SoftmaxRows(rng, count * q, k, scale);
    for (double eps : {ru::kNmiEps, 0.0}) {
      const std::vector<double> got = BatchNmi(backend(), maps, count, q, k, eps);
      ASSERT_EQ(got.size(), size_t(count));
      for (int m = 0; m < count; ++m) {
        const double want = ru::Nmi(std::span<const double>(maps).subspan(size_t(m) * q * k, size_t(q) * k), q, k, eps);
        EXPECT_NEAR(got[m], want, kNmiAbsTolerance) << "map " << m << " q " << q << " k " << k << " eps " << eps;
      }
    }
  }
}

TEST_P(UnipBackendTest, BatchNmiHitsTheClosedForms) {
  // Circular windows (zeros off the window: the 0 ln 0 branch), eps = 0:
  // NMI = ln(n / w) / ln n exactly.
  const int n = 64;
  std::vector<double> maps;
  const std::vector<int> widths = {1, 2, 5, 16, 33, 64};
  for (int w : widths) {
    const std::vector<double> map = ru::CircularWindowMap(n, w);
    maps.insert(maps.end(), map.begin(), map.end());
  }
  // A collapsed map: every query on key 3; H(k) = 0, NMI 0 by convention.
  std::vector<double> collapsed(size_t(n) * n, 0.0);
  for (int i = 0; i < n; ++i) collapsed[size_t(i) * n + 3] = 1.0;
  maps.insert(maps.end(), collapsed.begin(), collapsed.end());
  const std::vector<double> got = BatchNmi(backend(), maps, int(widths.size()) + 1, n, n, 0.0);
  for (size_t i = 0; i < widths.size(); ++i)
    EXPECT_NEAR(got[i], std::log(double(n) / widths[i]) / std::log(double(n)), 1e-12) << "w " << widths[i];
  EXPECT_EQ(got.back(), 0.0);
}

TEST_P(UnipBackendTest, LayerNmiMatchesTheReference) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 2);
  const int images = 3, heads = 4, n = 50;  // CLS + 49 patches
  const std::vector<double> a = SoftmaxRows(rng, images * heads * n, n, 2.0);
  for (bool drop_cls : {true, false}) {
    EXPECT_NEAR(LayerNmi(backend(), a, images, heads, n, drop_cls), ru::LayerNmi(a, images, heads, n, drop_cls),
                kNmiAbsTolerance);
  }
}

TEST_P(UnipBackendTest, AttentionKlMatchesTheReferenceOnFreshLogits) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 3);
  // k below, at and above a warp, rows not a multiple of the rows per block.
  for (const auto& [rows, k, scale] : {std::tuple{13, 5, 3.0}, std::tuple{40, 32, 1.0}, std::tuple{2 * 3 * 50, 50, 2.0},
                                      std::tuple{7, 197, 0.5}}) {
    const std::vector<double> s = Logits(rng, size_t(rows) * k, scale), t = Logits(rng, size_t(rows) * k, scale);
    std::vector<double> got_grad(s.size(), std::numeric_limits<double>::quiet_NaN()), want_grad(s.size());
    const double got = AttentionKl(backend(), s, t, k, got_grad);
    const double want = ru::AttentionKl(s, t, k, want_grad);
    EXPECT_NEAR(got, want, kKlRelTolerance * std::max(want, 1e-3)) << "rows " << rows << " k " << k;
    double gmax = 0;
    for (double g : want_grad) gmax = std::max(gmax, std::abs(g));
    for (size_t i = 0; i < s.size(); ++i)
      ASSERT_NEAR(got_grad[i], want_grad[i], kKlRelTolerance * gmax) << "rows " << rows << " k " << k << " entry " << i;
    // Without a gradient buffer the loss is the same.
    EXPECT_NEAR(AttentionKl(backend(), s, t, k), got, kKlRelTolerance * std::max(want, 1e-3));
  }
}

TEST_P(UnipBackendTest, AttentionKlIsZeroForIdenticalLogits) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 4);
  const std::vector<double> s = Logits(rng, 24 * 40, 2.0);
  std::vector<double> t = s;
  for (size_t r = 0; r < 24; ++r)  // a per-row shift changes no softmax
    for (size_t j = 0; j < 40; ++j) t[r * 40 + j] += double(r) - 7.5;
  std::vector<double> grad(s.size(), 1.0);
  EXPECT_NEAR(AttentionKl(backend(), s, t, 40, grad), 0.0, 1e-14);
  for (double g : grad) ASSERT_NEAR(g, 0.0, 1e-16);
}

TEST_P(UnipBackendTest, BadInputIsRefusedOnEveryBackend) {
  std::vector<double> maps = ru::CircularWindowMap(8, 2);
  EXPECT_THROW(BatchNmi(backend(), maps, 2, 8, 8), std::invalid_argument);  // wrong size
  EXPECT_THROW(BatchNmi(backend(), maps, 1, 1, 64), std::invalid_argument);
  EXPECT_THROW(BatchNmi(backend(), maps, 1, 8, 8, -1.0), std::invalid_argument);
  maps[5] = -0.1;
  EXPECT_THROW(BatchNmi(backend(), maps, 1, 8, 8), std::invalid_argument);
  maps[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(BatchNmi(backend(), maps, 1, 8, 8), std::invalid_argument);
  std::vector<double> zero_row = ru::CircularWindowMap(8, 2);
  std::fill(zero_row.begin() + 16, zero_row.begin() + 24, 0.0);
  EXPECT_THROW(BatchNmi(backend(), zero_row, 1, 8, 8, 0.0), std::invalid_argument);
  EXPECT_NO_THROW(BatchNmi(backend(), zero_row, 1, 8, 8));  // eps rescues it, as in the notebook
  EXPECT_THROW(LayerNmi(backend(), std::vector<double>(2 * 2 * 4), 2, 2, 3), std::invalid_argument);
  const std::vector<double> s(12, 0.5), t(10, 0.5);
  EXPECT_THROW(AttentionKl(backend(), s, t, 2), std::invalid_argument);
  EXPECT_THROW(AttentionKl(backend(), s, s, 5), std::invalid_argument);
  std::vector<double> bad = s;
  bad[3] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(AttentionKl(backend(), bad, s, 4), std::invalid_argument);
  std::vector<double> small_grad(4);
  EXPECT_THROW(AttentionKl(backend(), s, s, 4, small_grad), std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(UnipBackendTest);

}  // namespace
}  // namespace cb::unip

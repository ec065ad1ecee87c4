// File: suites/ibedl/evidential_loss_test.cpp
// The batch evidential loss on every backend against the fp64 reference, on
// fresh random inputs with one shared eps buffer (evidential_loss.h). The CUDA
// case SKIPs without a device (and has never run on one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/ibedl/evidential.h"
#include "suites/ibedl/evidential_loss.h"

namespace cb::ibedl {
namespace {

namespace ri = cb::ref::ibedl;

class EvidentialLossTest : public cb::testing::BackendTest {};

double MaxRel(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 1e-12;
  for (size_t i = 0; i < got.size(); ++i) {
    num = std::max(num, std::abs(got[i] - want[i]));
    den = std::max(den, std::abs(want[i]));
  }
  return num / den;
}

TEST_P(EvidentialLossTest, MatchesTheFp64Reference) {
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 3);
  for (const ri::LossConfig c : {ri::LossConfig{.data = ri::DataTerm::kSs, .vib = true, .draws = 20, .beta = 1e-2},
                                 ri::LossConfig{.data = ri::DataTerm::kCe, .vib = true, .draws = 7, .beta = 0.3},
                                 ri::LossConfig{.data = ri::DataTerm::kSs, .vib = false, .reg_weight = 0.6}}) {
    const int B = 1 + int(rng.UniformInt(0, 300)), K = 2 + int(rng.UniformInt(0, 6));
    std::vector<float> mu(B * K), tail(B * K), eps(size_t(B) * (c.vib ? c.draws : 0) * K);
    std::vector<int> labels(B);
    for (float& v : mu) v = float(3 * rng.Normal());
    for (float& v : tail) v = float(rng.Normal());
    for (float& v : eps) v = float(rng.Normal());
    for (int& y : labels) y = int(rng.UniformInt(0, K - 1));
    const BatchLoss got = EvidentialLossAndGrad(backend(), c, B, K, mu, tail, labels, eps);
    const std::vector<double> m(mu.begin(), mu.end()), t(tail.begin(), tail.end()), e(eps.begin(), eps.end());
    std::vector<double> dmu(B * K), dtail(B * K);
    const double want = ri::EvidentialLoss(c, B, K, m, t, labels, e, dmu.data(), dtail.data());
    EXPECT_NEAR(got.loss, want, 1e-5 * std::abs(want)) << "B " << B << " K " << K;
    EXPECT_LE(MaxRel(got.dmu, dmu), 1e-4);
    if (c.vib) {
      EXPECT_LE(MaxRel(got.dtail, dtail), 1e-4);
    }
  }
}

TEST_P(EvidentialLossTest, RejectsBadInput) {
  const std::vector<float> mu(8, 0.0f), tail(8, 0.0f), eps(8 * 20, 0.0f);
  const ri::LossConfig c{};
  EXPECT_THROW(EvidentialLossAndGrad(backend(), c, 2, 4, mu, tail, std::vector<int>{0, 4}, eps),
               std::invalid_argument);
  EXPECT_THROW(EvidentialLossAndGrad(backend(), c, 2, 4, mu, tail, std::vector<int>{0, 1}, std::vector<float>(3)),
               std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(EvidentialLossTest);

}  // namespace
}  // namespace cb::ibedl

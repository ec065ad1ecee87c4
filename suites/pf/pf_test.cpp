// File: suites/pf/pf_test.cpp
// -----------------------------------------------------------------------------
// The fast paths of suites/pf/pf.h on every backend against the fp64
// reference: identical tokens (tolerance: exact) for greedy, PF and softmax
// noise on fresh random fp32 logits up to V = 256k, and identical scoring
// terms (tolerance 1e-15 relative, the logs may differ by an ulp on CUDA).
// The CUDA cases SKIP here without a GPU (CB_REQUIRE_GPU=1 makes them fail).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "fixtures/backend_test.h"
#include "harness/random.h"
#include "reference/pf/pf.h"
#include "suites/pf/pf.h"

namespace cb::pf {
namespace {

namespace ref = cb::ref::pf;

class PfBackendTest : public cb::testing::BackendTest {};

std::vector<float> RandomLogits(int64_t batch, int64_t v, uint64_t seed, double scale) {
  cb::harness::Rng rng(seed, 3);
  std::vector<float> x(static_cast<size_t>(batch * v));
  for (float& f : x) f = static_cast<float>(scale * rng.Normal());
  return x;
}

int64_t Reference(const float* row, int64_t v, double temperature, Noise noise, uint64_t key,
                  uint64_t stream) {
  std::vector<double> u(row, row + v);
  switch (noise) {
    case Noise::kNone: return ref::Greedy(u);
    case Noise::kExponential: return ref::SamplePfNoise(u, temperature, key, stream);
    case Noise::kGumbel: return ref::SampleSoftmaxGumbel(u, temperature, key, stream);
  }
  return -1;
}

TEST_P(PfBackendTest, SampleEqualsReferenceTokens) {
  struct Case {
    int64_t batch, v;
    double scale, temperature;
  };
  const Case cases[] = {{7, 5, 1.0, 1.0}, {5, 1001, 2.0, 0.7}, {3, 32768, 1.0, 1.0},
                        {2, 262144, 0.5, 1.3}, {1, 131072, 3.0, 1.0}};
  uint64_t seed = 100;
  for (const Case& c : cases) {
    const auto x = RandomLogits(c.batch, c.v, ++seed, c.scale);
    std::vector<uint64_t> streams(static_cast<size_t>(c.batch));
    for (size_t b = 0; b < streams.size(); ++b) streams[b] = seed * 1000 + b;
    for (Noise noise : {Noise::kNone, Noise::kExponential, Noise::kGumbel}) {
      const auto got = Sample(backend(), {x.data(), c.batch, c.v}, c.temperature, noise, seed,
                              streams);
      for (int64_t b = 0; b < c.batch; ++b) {
        EXPECT_EQ(got[b], Reference(x.data() + b * c.v, c.v, c.temperature, noise, seed,
                                    streams[b]))
            << "V=" << c.v << " row " << b << " noise " << static_cast<int>(noise);
      }
    }
  }
}

TEST_P(PfBackendTest, ExcludedTokensAndTies) {
  // Equal logits, greedy: the lowest id; -inf entries are never picked.
  std::vector<float> x = {-INFINITY, 2.0f, 2.0f, -INFINITY, 1.0f};
  const std::vector<uint64_t> streams = {9};
  EXPECT_EQ(Sample(backend(), {x.data(), 1, 5}, 1.0, Noise::kNone, 1, streams)[0], 1);
  for (uint64_t key = 0; key < 50; ++key) {
    const int32_t t = Sample(backend(), {x.data(), 1, 5}, 1.0, Noise::kExponential, key, streams)[0];
    EXPECT_TRUE(t == 1 || t == 2 || t == 4) << t;
  }
}

TEST_P(PfBackendTest, BadInput) {
  const std::vector<float> x = {0.0f, NAN};
  const std::vector<uint64_t> one = {0};
  EXPECT_THROW(Sample(backend(), {x.data(), 1, 2}, 1.0, Noise::kExponential, 1, one),
               std::invalid_argument);
  const std::vector<float> ok = {0.0f, 1.0f};
  EXPECT_THROW(Sample(backend(), {ok.data(), 1, 0}, 1.0, Noise::kExponential, 1, one),
               std::invalid_argument);
  EXPECT_THROW(Sample(backend(), {ok.data(), 1, 2}, 0.0, Noise::kExponential, 1, one),
               std::invalid_argument);
  // The CPU path checks values in its scan: the message still names the
  // first culprit (row 1 here, the first row being clean), for every noise.
  std::vector<float> rows(2 * 40000, 0.5f);
  rows[40000 + 39999] = INFINITY;
  rows[40000 + 7] = NAN;
  const std::vector<uint64_t> two_streams = {0, 1};
  for (Noise noise : {Noise::kNone, Noise::kExponential, Noise::kGumbel}) {
    try {
      Sample(backend(), {rows.data(), 2, 40000}, 1.0, noise, 1, two_streams);
      ADD_FAILURE() << "expected invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "logits: row 1 column 7 is NaN");
    }
  }
  std::vector<float> all_neg_inf(40000, -INFINITY);
  EXPECT_THROW(Sample(backend(), {all_neg_inf.data(), 1, 40000}, 1.0, Noise::kExponential, 1, one),
               std::invalid_argument);
  const std::vector<uint64_t> two = {0, 1};
  EXPECT_THROW(Sample(backend(), {ok.data(), 1, 2}, 1.0, Noise::kExponential, 1, two),
               std::invalid_argument);
}

TEST_P(PfBackendTest, ScoreTermsMatchReferenceDetection) {
  const int64_t count = 20, n = 300;
  cb::harness::Rng rng(31, 31);
  std::vector<int32_t> texts(static_cast<size_t>(count * n));
  for (int32_t& t : texts) t = static_cast<int32_t>(rng.UniformInt(0, 50000));
  const ref::WatermarkParams params{.key = 555, .context = 4};
  for (ref::Watermark w : {ref::Watermark::kPf, ref::Watermark::kGumbel, ref::Watermark::kKgw}) {
    const auto terms = ScoreTerms(backend(), w, params, texts, count, n);
    for (int64_t c = 0; c < count; ++c) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) sum += terms[c * n + t];
      // Random texts over 50k tokens: no repeated 4-token context, so the
      // de-duplicating reference sums the same terms.
      const auto d = ref::Detect(w, params, std::span<const int32_t>(texts.data() + c * n, n),
                                 ref::Dedup::kNone);
      EXPECT_NEAR(sum, d.score, 1e-12 * std::max(1.0, d.score)) << ref::WatermarkName(w);
    }
  }
}

CB_INSTANTIATE_BACKENDS(PfBackendTest);

}  // namespace
}  // namespace cb::pf

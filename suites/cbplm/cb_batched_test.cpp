// File: suites/cbplm/cb_batched_test.cpp
// -----------------------------------------------------------------------------
// cb_batched.h on every backend (CUDA skipped without a device, a failure
// with CB_REQUIRE_GPU=1) against the fp64 references on fresh random inputs:
// the batched additive concepts equal reference/protparam bit for bit (same
// summation order in fp64); the head's forward agrees with the fp64 head
// within fp32 rounding (sums of <= max(D, 2CE) O(1) products: atol 1e-4,
// rtol 1e-4), with the predicted and with given concepts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"
#include "suites/cbplm/cb_batched.h"

namespace cb::cbplm {
namespace {

namespace pp = cb::ref::protparam;
using cb::testing::AllClose;

class CbBatchedTest : public cb::testing::BackendTest {};

TEST_P(CbBatchedTest, AdditiveConceptsEqualTheReference) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 1);
  std::vector<std::string> seqs;
  for (int s = 0; s < 300; ++s) {
    std::string q(1 + rng.UniformInt(0, 200), 'A');
    for (char& c : q) c = pp::kStandardResidues[rng.UniformInt(0, 19)];
    seqs.push_back(q);
  }
  seqs.push_back("WYCC");  // one cystine pair
  const std::vector<AdditiveRow> got = AdditiveConceptsBatch(backend(), seqs);
  ASSERT_EQ(got.size(), seqs.size());
  for (size_t s = 0; s < seqs.size(); ++s) {
    const auto ext = pp::MolarExtinctionCoefficient(seqs[s]);
    const AdditiveRow want = {pp::Gravy(seqs[s]), pp::AverageHydrophilicity(seqs[s]),
                              pp::AverageSurfaceAccessibility(seqs[s]), pp::Aromaticity(seqs[s]), double(ext[0]),
                              double(ext[1])};
    ASSERT_EQ(got[s], want) << seqs[s];
  }
  EXPECT_EQ(got.back()[5], 5500 + 1490 + 125);
  EXPECT_THROW(AdditiveConceptsBatch(backend(), {"MKX"}), std::invalid_argument);
  EXPECT_THROW(AdditiveConceptsBatch(backend(), {""}), std::invalid_argument);
}

TEST_P(CbBatchedTest, HeadForwardAgreesWithFp64) {
  CB_FRESH_SEED(seed);
  const ref::cbplm::CbHeadConfig c{.hidden = 40, .concepts = 6, .concept_emb = 2, .vocab = 22};
  ref::cbplm::CbHead head(c, seed);
  harness::Rng rng(seed, 2);
  for (double& p : head.params()) p += 0.2 * rng.Normal();  // away from the 0.02 init: every path visible
  const int B = 3, T = 7;
  std::vector<float> xf(size_t(B) * T * c.hidden), c_in(size_t(B) * c.concepts);
  for (float& v : xf) v = float(rng.Normal());
  for (float& v : c_in) v = float(rng.Uniform());
  const std::vector<double> x(xf.begin(), xf.end());
  const std::vector<double> pred = head.Concepts(x, B, T);
  for (bool given : {false, true}) {
    SCOPED_TRACE(given ? "given concepts" : "predicted concepts");
    const HeadForwardResult r = CbHeadForward(backend(), head, xf, B, T, given ? c_in : std::vector<float>{});
    const std::vector<double> want_logits =
        head.Logits(x, B, T, given ? std::vector<double>(c_in.begin(), c_in.end()) : pred);
    EXPECT_TRUE(AllClose(std::span<const float>(r.pred), pred, 1e-4, 1e-4));
    EXPECT_TRUE(AllClose(std::span<const float>(r.logits), want_logits, 1e-4, 1e-4));
  }
  EXPECT_THROW(CbHeadForward(backend(), head, std::vector<float>(5), B, T, {}), std::invalid_argument);
}

TEST_P(CbBatchedTest, CbMlmForwardAgreesWithTheCpuPath) {
  CB_FRESH_SEED(seed);
  const CbShape shape{.hidden = 32, .layers = 2, .heads = 4, .intermediate = 64, .seq = 13};
  const CbMlm model(Conditioning::kCbm, shape, seed);
  harness::Rng rng(seed, 3);
  const int B = 3;
  std::vector<int> tokens(size_t(B) * shape.seq);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = i % shape.seq == 0 ? kClsToken : int(rng.UniformInt(0, 21));
  std::vector<float> c_in(size_t(B) * kNumCbConcepts);
  for (float& v : c_in) v = float(rng.Uniform());
  for (bool given : {false, true}) {
    SCOPED_TRACE(given ? "given concepts" : "predicted concepts");
    const std::vector<float> cin = given ? c_in : std::vector<float>{};
    const std::vector<double> want = model.Logits(tokens, B, std::vector<double>(cin.begin(), cin.end()));
    EXPECT_TRUE(AllClose(std::span<const float>(CbMlmLogits(backend(), model, tokens, B, cin)), want, 1e-4, 1e-4));
  }
  const CbMlm pre(Conditioning::kPreEncoder, shape, seed);
  EXPECT_THROW(CbMlmLogits(backend(), pre, tokens, B, {}), std::invalid_argument);
  EXPECT_THROW(CbMlmLogits(backend(), model, std::vector<int>(5, 0), B, {}), std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(CbBatchedTest);

}  // namespace
}  // namespace cb::cbplm

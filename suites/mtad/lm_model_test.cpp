// File: suites/mtad/lm_model_test.cpp
// The cached transformer as MTAD's next-token model (suites/mtad/lm_model.h):
// every distribution equals the softmax of a cache-free forward pass over the
// whole prefix, whatever the order of calls, forks and evictions; the cache
// is reused (one decode step per new token) and the draft beams share it;
// bad input throws; and LoadPair refuses mismatched pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fixtures/paths.h"
#include "harness/random.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/mtad.h"
#include "suites/mtad/lm_model.h"
#include "suites/mtad/lm_pair.h"

namespace cb::mtad {
namespace {

namespace lms = cb::lm_suite;

// fp32 logits through two paths (cache vs full forward): agreement bound on probabilities.
constexpr double kProbTol = 1e-5;

lms::CpuTransformer LoadModel(const char* name) {
  const auto ck = cb::ref::lm::LoadCheckpoint(cb::testing::FixturePath(std::string("lm/") + name));
  return lms::CpuTransformer(ck.config, ck.tensors);
}

std::vector<double> FullSoftmax(const lms::CpuTransformer& m, const std::vector<int>& prefix) {
  const std::vector<float> logits = m.Forward(prefix);
  const int V = m.config().vocab_size;
  const float* row = &logits[(prefix.size() - 1) * V];
  const double mx = *std::max_element(row, row + V);
  std::vector<double> p(V);
  double z = 0;
  for (int v = 0; v < V; ++v) z += p[v] = std::exp(double(row[v]) - mx);
  for (double& x : p) x /= z;
  return p;
}

double MaxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST(CachedLmModel, EveryDistributionEqualsAFullForwardAcrossForksAndEvictions) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const CachedLmModel cached(m, /*capacity=*/4);  // tiny: evictions happen
  const int V = m.config().vocab_size;
  cb::harness::Rng rng(3, 0);
  std::vector<int> base(5);
  for (int& t : base) t = static_cast<int>(rng.UniformInt(0, V - 1));
  std::vector<double> out(V);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<int> prefix = base;
    const int extra = static_cast<int>(rng.UniformInt(0, 4));
    for (int i = 0; i < extra; ++i) prefix.push_back(static_cast<int>(rng.UniformInt(0, V - 1)));
    if (trial % 5 == 4) prefix.resize(2);  // a shorter prefix than anything cached
    cached.Next(prefix, out);
    EXPECT_LT(MaxDiff(out, FullSoftmax(m, prefix)), kProbTol) << "trial " << trial;
    double sum = 0;
    for (double p : out) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(CachedLmModel, ReusesTheCacheOneDecodeStepPerNewToken) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const CachedLmModel cached(m);
  std::vector<int> prefix = {5, 9, 14};
  std::vector<double> out(m.config().vocab_size);
  cached.Next(prefix, out);
  EXPECT_EQ(cached.prefill_tokens(), 3);
  EXPECT_EQ(cached.decode_steps(), 0);
  cached.Next(prefix, out);  // a hit
  EXPECT_EQ(cached.decode_steps(), 0);
  for (int v : {1, 2, 3}) {  // three forks of one prefix: one step each
    std::vector<int> p = prefix;
    p.push_back(v);
    cached.Next(p, out);
  }
  EXPECT_EQ(cached.decode_steps(), 3);
  prefix.insert(prefix.end(), {7, 8});
  cached.Next(prefix, out);
  EXPECT_EQ(cached.decode_steps(), 5);
  EXPECT_EQ(cached.prefill_tokens(), 3);
  cached.Clear();
  cached.Next(prefix, out);
  EXPECT_EQ(cached.prefill_tokens(), 8);
}

TEST(CachedLmModel, DraftBeamsShareThePrefixCache) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const CachedLmModel cached(m);
  const std::vector<int> ctx = {40, 41, 42, 43};
  cb::harness::Rng rng(11, 0);
  cb::ref::mtad::Costs costs;
  const auto bd = cb::ref::mtad::DraftBeams(cached, ctx, 3, 4, {10, 0.9}, rng, &costs);
  ASSERT_EQ(bd.block.size(), 3u);
  // The context is prefilled once; every other distribution is one decode
  // step from a stored prefix, never a second prefill.
  EXPECT_EQ(cached.prefill_tokens(), 4);
  EXPECT_EQ(cached.decode_steps(), costs.draft_evals - 1);
}

TEST(CachedLmModel, BadInputThrows) {
  const lms::CpuTransformer m = LoadModel("smoke");
  EXPECT_THROW(CachedLmModel(m, 1), std::invalid_argument);
  const CachedLmModel cached(m);
  std::vector<double> out(m.config().vocab_size), short_out(3);
  EXPECT_THROW(cached.Next(std::vector<int>{}, out), std::invalid_argument);
  EXPECT_THROW(cached.Next(std::vector<int>{1, m.config().vocab_size}, out), std::invalid_argument);
  EXPECT_THROW(cached.Next(std::vector<int>{1}, short_out), std::invalid_argument);
}

TEST(LmPair, RefusesMismatchedVocabulariesAndMissingFolders) {
  const std::string draft = cb::testing::FixturePath("lm/draft"), smoke = cb::testing::FixturePath("lm/smoke");
  EXPECT_THROW(LoadPair(draft, smoke), std::invalid_argument);  // V 2048 vs 384
  EXPECT_THROW(LoadPair(draft, draft + "/missing"), std::invalid_argument);
  const auto pair = LoadPair(draft, draft);
  const auto prompts = SubstratePrompts(*pair, 3, 8);
  ASSERT_EQ(prompts.size(), 3u);
  for (const auto& p : prompts) EXPECT_EQ(p.size(), 8u);
}

TEST(LmPair, DecodersEmitEveryTokenAndMtadWithQEqualsPAtTauZeroAcceptsWholeBlocks) {
  const std::string draft = cb::testing::FixturePath("lm/draft");
  const auto pair = LoadPair(draft, draft);
  const auto prompts = SubstratePrompts(*pair, 2, 8);
  cb::ref::mtad::MtadParams p{.gamma = 3, .beams = 2, .tau = 0.0, .filter = {10, 0.9}};
  for (Decoder d : {Decoder::kAncestral, Decoder::kSpeculative, Decoder::kMtad}) {
    const DecodeRuns r = RunDecoder(*pair, d, prompts, 2, 7, p, 5);
    ASSERT_EQ(r.tokens.size(), 2u);
    for (const auto& t : r.tokens) EXPECT_EQ(t.size(), 7u) << DecoderName(d);
    for (double nll : r.nll) EXPECT_TRUE(std::isfinite(nll) && nll > 0) << DecoderName(d);
    if (d == Decoder::kMtad) {
      // tau = 0 (log tau = -inf): every block is accepted whole, g + 1 tokens per
      // call (the last call truncated): calls = ceil(7 / 4) = 2 per sequence.
      EXPECT_EQ(r.costs.target_calls, 4);
    }
  }
}

}  // namespace
}  // namespace cb::mtad

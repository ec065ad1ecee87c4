// File: suites/mtad/lm_model_test.cpp
// The cached transformer as MTAD's next-token model (suites/mtad/lm_model.h):
// every distribution equals the softmax of a cache-free forward pass over the
// whole prefix, whatever the order of calls, forks and evictions; the cache
// is reused (one decode step per new token, one batched forward per
// verification block) and the draft beams share it; bad input throws; the
// CUDA backend gives the CPU's distributions; and LoadPair refuses
// mismatched pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "fixtures/paths.h"
#include "fixtures/fresh_seed.h"
#include "harness/backend.h"
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
  const auto lm = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  const CachedLmModel cached(*lm, /*capacity=*/4);  // tiny: evictions happen
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
    // A verification block after the prefix: every row a full forward's.
    std::vector<int> block(static_cast<size_t>(rng.UniformInt(0, 3)));
    for (int& t : block) t = static_cast<int>(rng.UniformInt(0, V - 1));
    std::vector<double> rows((block.size() + 1) * V);
    cached.NextBlock(prefix, block, rows);
    std::vector<int> seq = prefix;
    for (size_t i = 0; i <= block.size(); ++i) {
      const std::vector<double> row(rows.begin() + i * V, rows.begin() + (i + 1) * V);
      EXPECT_LT(MaxDiff(row, FullSoftmax(m, seq)), kProbTol) << "trial " << trial << " block row " << i;
      if (i < block.size()) seq.push_back(block[i]);
    }
  }
}

TEST(CachedLmModel, ReusesTheCacheOneDecodeStepPerNewTokenOneForwardPerBlock) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const auto lm = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  const CachedLmModel cached(*lm);
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
  const std::vector<int> ctx = prefix;
  prefix.insert(prefix.end(), {7, 8});
  cached.Next(prefix, out);  // two new tokens: one batched forward
  EXPECT_EQ(cached.decode_steps(), 3);
  EXPECT_EQ(cached.block_calls(), 1);
  EXPECT_EQ(cached.block_tokens(), 2);
  // A verification of a 4-token block after a stored context: one forward.
  std::vector<double> rows(5 * out.size());
  cached.NextBlock(ctx, std::vector<int>{20, 21, 22, 23}, rows);
  EXPECT_EQ(cached.block_calls(), 2);
  EXPECT_EQ(cached.block_tokens(), 6);
  cached.NextBlock(ctx, std::vector<int>{20, 21, 22, 23}, rows);  // all stored now
  EXPECT_EQ(cached.block_calls(), 2);
  EXPECT_EQ(cached.prefill_tokens(), 3);
  cached.Clear();
  cached.Next(prefix, out);
  EXPECT_EQ(cached.prefill_tokens(), 8);
}

TEST(CachedLmModel, DraftBeamsShareThePrefixCache) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const auto lm = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  const CachedLmModel cached(*lm);
  const std::vector<int> ctx = {40, 41, 42, 43};
  cb::harness::Rng rng(11, 0);
  cb::ref::mtad::Costs costs;
  const auto bd = cb::ref::mtad::DraftBeams(cached, ctx, 3, 4, {10, 0.9}, rng, &costs);
  ASSERT_EQ(bd.block.size(), 3u);
  // The context is prefilled once; every other distribution is one decode
  // step from a stored prefix, never a second prefill.
  EXPECT_EQ(cached.prefill_tokens(), 4);
  EXPECT_EQ(cached.decode_steps(), costs.draft_evals - 1);
  EXPECT_EQ(cached.decode_batches(), 2);  // one batched call per step after the first (gamma = 3)
}

// The beams' batched call: every row a full forward's, repeated and
// not-yet-reachable prefixes included (they fall back to Next).
TEST(CachedLmModel, NextManyBatchesOneTokenExtensionsAndEqualsFullForwards) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const auto lm = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  const CachedLmModel cached(*lm);
  const int V = m.config().vocab_size;
  std::vector<double> out(V);
  cached.Next(std::vector<int>{4, 5, 6}, out);
  const std::vector<std::vector<int>> prefixes = {{4, 5, 6, 1}, {4, 5, 6, 2}, {4, 5, 6, 1}, {4, 5, 6, 7, 8}, {4, 5, 6}};
  std::vector<double> rows(prefixes.size() * V);
  cached.NextMany(prefixes, rows);
  for (size_t b = 0; b < prefixes.size(); ++b) {
    const std::vector<double> row(rows.begin() + b * V, rows.begin() + (b + 1) * V);
    EXPECT_LT(MaxDiff(row, FullSoftmax(m, prefixes[b])), kProbTol) << "row " << b;
  }
  EXPECT_EQ(cached.decode_batches(), 1);
  EXPECT_EQ(cached.decode_steps(), 2);  // {..,1} and {..,2} batched; the repeat copied
  EXPECT_EQ(cached.block_calls(), 1);   // {.., 7, 8}: two tokens past the stored prefix
  std::vector<double> short_rows(V);
  EXPECT_THROW(cached.NextMany(prefixes, short_rows), std::invalid_argument);
}

TEST(CachedLmModel, BadInputThrows) {
  const lms::CpuTransformer m = LoadModel("smoke");
  const auto lm = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  EXPECT_THROW(CachedLmModel(*lm, 1), std::invalid_argument);
  const CachedLmModel cached(*lm);
  std::vector<double> out(m.config().vocab_size), short_out(3);
  EXPECT_THROW(cached.Next(std::vector<int>{}, out), std::invalid_argument);
  EXPECT_THROW(cached.Next(std::vector<int>{1, m.config().vocab_size}, out), std::invalid_argument);
  EXPECT_THROW(cached.Next(std::vector<int>{1}, short_out), std::invalid_argument);
  EXPECT_THROW(cached.NextBlock(std::vector<int>{}, std::vector<int>{1}, out), std::invalid_argument);
  EXPECT_THROW(cached.NextBlock(std::vector<int>{1}, std::vector<int>{2}, out), std::invalid_argument);  // not 2V
}

// The CUDA backend (Prefill, fused decode step, batched Extend, device
// forks) gives the CPU path's distributions on fresh random prefixes; fp32
// on both sides, different summation orders: kProbTol.
TEST(CachedLmModel, CudaBackendMatchesTheCpuPath) {
  const auto status = cb::harness::Availability(cb::harness::Backend::kCuda);
  if (!status.ok) GTEST_SKIP() << "cuda: " << status.reason;
  const lms::CpuTransformer m = LoadModel("smoke");
  const auto cpu = lms::MakeIncrementalLm(m, cb::harness::Backend::kCpu);
  const auto gpu = lms::MakeIncrementalLm(m, cb::harness::Backend::kCuda);
  const CachedLmModel on_cpu(*cpu, 8), on_gpu(*gpu, 8);
  const int V = m.config().vocab_size;
  CB_FRESH_SEED(seed);
  cb::harness::Rng rng(seed, 0);
  std::vector<int> ctx(6);
  for (int& t : ctx) t = static_cast<int>(rng.UniformInt(0, V - 1));
  for (int round = 0; round < 6; ++round) {
    std::vector<int> block(static_cast<size_t>(rng.UniformInt(1, 4)));
    for (int& t : block) t = static_cast<int>(rng.UniformInt(0, V - 1));
    std::vector<double> a((block.size() + 1) * V), b(a.size());
    on_cpu.NextBlock(ctx, block, a);
    on_gpu.NextBlock(ctx, block, b);
    EXPECT_LT(MaxDiff(a, b), kProbTol) << "round " << round;
    ctx.insert(ctx.end(), block.begin(), block.begin() + rng.UniformInt(0, block.size()));  // a partial accept
    ctx.push_back(static_cast<int>(rng.UniformInt(0, V - 1)));
  }
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

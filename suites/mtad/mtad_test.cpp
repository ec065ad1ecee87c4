// File: suites/mtad/mtad_test.cpp
// Tests of the MTAD reference (reference/mtad.h) and of the batched backends
// (suites/mtad/mtad.h). The distribution checks are chi-square tests on
// fixed seeds: they can fail, and do when a decoder is not target-distributed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "fixtures/backend_test.h"
#include "harness/chi_square.h"
#include "harness/random.h"
#include "reference/mtad.h"
#include "suites/mtad/mtad.h"
#include "suites/mtad/mtad_substrate.h"

namespace cb::mtad {
namespace {

namespace h = cb::harness;
namespace ref = cb::ref::mtad;
using ref::Token;

constexpr double kAlpha = 1e-3;  // significance of every chi-square test here

const Substrate& Models() {
  static const std::unique_ptr<Substrate> s = [] {
    SubstrateParams p;
    p.train_docs = 200;
    p.prompts = 4;
    return BuildSubstrate(p);
  }();
  return *s;
}

// The exact distribution of the first two tokens of filtered-target sampling
// after `prompt`, over the V x V cells (x1 * V + x2).
std::vector<double> ExactPairDistribution(const ref::NextTokenModel& target,
                                          const std::vector<Token>& prompt,
                                          const ref::Filter& f) {
  const int v = target.vocab_size();
  std::vector<double> p1(v), p2(v), joint(v * v, 0.0);
  target.Next(prompt, p1);
  ref::ApplyFilter(p1, f);
  std::vector<Token> ctx = prompt;
  for (int a = 0; a < v; ++a) {
    if (p1[a] <= 0) continue;
    ctx.push_back(a);
    target.Next(ctx, p2);
    ref::ApplyFilter(p2, f);
    for (int b = 0; b < v; ++b) joint[a * v + b] = p1[a] * p2[b];
    ctx.pop_back();
  }
  return joint;
}

template <typename Decode>
h::ChiSquare PairGoodnessOfFit(const std::vector<Token>& prompt, const ref::Filter& f,
                                 int samples, Decode decode) {
  const auto& m = Models();
  std::vector<int64_t> counts(kVocab * kVocab, 0);
  for (int i = 0; i < samples; ++i) {
    h::Rng rng(2024, static_cast<uint64_t>(i));
    const ref::Generation g = decode(rng);
    ++counts[g.tokens[0] * kVocab + g.tokens[1]];
  }
  return h::ChiSquareGoodnessOfFit(counts, ExactPairDistribution(m.target, prompt, f));
}

TEST(MtadFilter, TopKThenTopP) {
  std::vector<double> p = {0.05, 0.4, 0.1, 0.3, 0.15};
  ref::ApplyFilter(p, {.top_k = 3, .top_p = 1.0});  // keeps 0.4, 0.3, 0.15
  EXPECT_NEAR(p[1], 0.4 / 0.85, 1e-15);
  EXPECT_NEAR(p[3], 0.3 / 0.85, 1e-15);
  EXPECT_NEAR(p[4], 0.15 / 0.85, 1e-15);
  EXPECT_EQ(p[0], 0.0);
  EXPECT_EQ(p[2], 0.0);
  std::vector<double> q = {0.05, 0.4, 0.1, 0.3, 0.15};
  ref::ApplyFilter(q, {.top_k = 0, .top_p = 0.7});  // 0.4 + 0.3 reaches 0.7
  EXPECT_NEAR(q[1], 0.4 / 0.7, 1e-15);
  EXPECT_NEAR(q[3], 0.3 / 0.7, 1e-15);
  EXPECT_EQ(q[4], 0.0);
}

TEST(MtadVerify, DeepestPassingDepthNotPrefixClosed) {
  const double lt = std::log(0.5);
  // margins: -1.0 (fails), -0.2 (passes), -1.2 (fails): L = 2.
  const std::vector<double> logp = {-2.0, -1.0, -3.0}, logq = {-1.0, -1.8, -2.0};
  std::vector<double> margins;
  EXPECT_EQ(ref::AcceptDepth(logp, logq, lt, &margins), 2);
  EXPECT_NEAR(margins[0], -1.0, 1e-15);
  EXPECT_NEAR(margins[1], -0.2, 1e-15);
  EXPECT_NEAR(margins[2], -1.2, 1e-15);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ref::AcceptDepth(logp, logq, -inf), 3);
  EXPECT_EQ(ref::AcceptDepth(logp, logq, inf), 0);
  EXPECT_EQ(ref::AcceptDepth(std::vector<double>{-inf, 0.0}, std::vector<double>{-1.0, -1.0}, -inf),
            0);
}

// Invariants of claim M1 on every block of real generations.
TEST(MtadInvariants, EveryAcceptedBlockPassesAndIsDeepest) {
  const auto& m = Models();
  for (double tau : {0.1, 0.5, 2.0}) {
    ref::MtadParams p{.gamma = 4, .beams = 4, .tau = tau, .filter = {10, 0.9}};
    std::vector<ref::BlockTrace> trace;
    h::Rng rng(11, 0);
    const auto g = ref::Mtad(m.target, m.bigram, m.prompts[0], 64, p, rng, &trace);
    ASSERT_EQ(g.tokens.size(), 64u);
    ASSERT_EQ(static_cast<int64_t>(trace.size()), g.costs.target_calls);
    for (const auto& b : trace) {
      if (b.accepted > 0) {
        EXPECT_GT(b.margin[b.accepted - 1], std::log(tau));
      }
      for (int i = b.accepted; i < p.gamma; ++i) EXPECT_LE(b.margin[i], std::log(tau));
    }
  }
}

TEST(MtadInvariants, TauLimits) {
  const auto& m = Models();
  // tau -> 0 on an unfiltered target (every token has mass): L = gamma.
  ref::MtadParams all{.gamma = 3, .beams = 2, .tau = 1e-300, .filter = {0, 1.0}};
  h::Rng rng(5, 0);
  const auto g0 = ref::Mtad(m.target, m.bigram, m.prompts[1], 40, all, rng);
  for (int l : g0.accepted) EXPECT_EQ(l, 3);
  // tau = infinity: L = 0, one token per target call.
  ref::MtadParams none{.gamma = 3, .beams = 2, .tau = INFINITY, .filter = {10, 0.9}};
  const auto g1 = ref::Mtad(m.target, m.bigram, m.prompts[1], 40, none, rng);
  for (int l : g1.accepted) EXPECT_EQ(l, 0);
  EXPECT_EQ(g1.costs.target_calls, 40);
}

TEST(MtadCosts, DraftEvaluationsCountBeams) {
  const auto& m = Models();
  ref::MtadParams p{.gamma = 4, .beams = 3, .tau = 0.5, .filter = {10, 0.9}};
  h::Rng rng(3, 0);
  const auto g = ref::Mtad(m.target, m.bigram, m.prompts[2], 50, p, rng);
  EXPECT_GT(g.costs.draft_evals, g.costs.target_calls * p.gamma);  // B > 1 is counted
  EXPECT_LE(g.costs.draft_evals, g.costs.target_calls * (1 + p.beams * (p.gamma - 1)));
  EXPECT_EQ(g.costs.target_positions, g.costs.target_calls * (p.gamma + 1));
  int64_t emitted = 0;
  for (int l : g.accepted) emitted += l + 1;
  EXPECT_GE(emitted, 50);
  EXPECT_LT(emitted, 50 + p.gamma + 1);  // only the last block is cut
}

TEST(MtadExact, EnumerationMatchesBruteForceOverAllBlocks) {
  const auto& m = Models();
  const auto mode = ref::ExactJointMode(m.target, m.prompts[0], 2);
  double best = -INFINITY;
  for (Token a = 0; a < kVocab; ++a) {
    for (Token b = 0; b < kVocab; ++b) {
      const std::vector<Token> block = {a, b};
      best = std::max(best, ref::JointLogProb(m.target, m.prompts[0], block));
    }
  }
  EXPECT_NEAR(mode.log_prob, best, 1e-12);
  EXPECT_NEAR(ref::JointLogProb(m.target, m.prompts[0], mode.block), best, 1e-12);
}

// M5 control: speculative decoding (bigram draft, far from the target) and
// ancestral sampling are target-distributed on the first two tokens.
TEST(MtadLossless, SpeculativeMatchesFilteredTarget) {
  const auto& m = Models();
  const ref::Filter f{10, 0.9};
  const auto chi = PairGoodnessOfFit(m.prompts[0], f, 20000, [&](h::Rng& rng) {
    return ref::Speculative(m.target, m.bigram, m.prompts[0], 2, {.gamma = 2, .filter = f}, rng);
  });
  EXPECT_GT(chi.p_value, kAlpha) << "chi2 = " << chi.statistic << ", df = " << chi.df;
  EXPECT_GE(chi.df, 5);
}

TEST(MtadLossless, AncestralMatchesFilteredTarget) {
  const auto& m = Models();
  const ref::Filter f{10, 0.9};
  const auto chi = PairGoodnessOfFit(m.prompts[1], f, 20000, [&](h::Rng& rng) {
    return ref::Ancestral(m.target, m.prompts[1], 2, f, rng);
  });
  EXPECT_GT(chi.p_value, kAlpha) << "chi2 = " << chi.statistic << ", df = " << chi.df;
}

// M5: MTAD is not lossless, the same test rejects it.
TEST(MtadLossless, MtadIsRejected) {
  const auto& m = Models();
  const ref::Filter f{10, 0.9};
  const ref::MtadParams p{.gamma = 4, .beams = 4, .tau = 0.5, .filter = f};
  const auto chi = PairGoodnessOfFit(m.prompts[0], f, 20000, [&](h::Rng& rng) {
    return ref::Mtad(m.target, m.bigram, m.prompts[0], 2, p, rng);
  });
  EXPECT_LT(chi.p_value, kAlpha) << "chi2 = " << chi.statistic << ", df = " << chi.df;
}

// A chi-square test that cannot fail would be useless: a wrong expected
// distribution must be rejected.
TEST(MtadLossless, ChiSquareRejectsAWrongDistribution) {
  std::vector<int64_t> observed = {600, 400};
  EXPECT_LT(h::ChiSquareGoodnessOfFit(observed, std::vector<double>{0.5, 0.5}).p_value, kAlpha);
  EXPECT_GT(h::ChiSquareGoodnessOfFit(observed, std::vector<double>{0.6, 0.4}).p_value, 0.5);
}

TEST(MtadErrors, BadParametersThrow) {
  const auto& m = Models();
  h::Rng rng(1, 0);
  const auto& pr = m.prompts[0];
  auto mtad = [&](ref::MtadParams p) { ref::Mtad(m.target, m.bigram, pr, 4, p, rng); };
  EXPECT_THROW(mtad({.gamma = 0}), std::invalid_argument);
  EXPECT_THROW(mtad({.beams = 0}), std::invalid_argument);
  EXPECT_THROW(mtad({.tau = -1}), std::invalid_argument);
  EXPECT_THROW(mtad({.tau = NAN}), std::invalid_argument);
  EXPECT_THROW(mtad({.filter = {-1, 0.9}}), std::invalid_argument);
  EXPECT_THROW(mtad({.filter = {10, 0.0}}), std::invalid_argument);
  EXPECT_THROW(mtad({.filter = {10, 1.5}}), std::invalid_argument);
  EXPECT_THROW(ref::Mtad(m.target, m.bigram, pr, -1, {}, rng), std::invalid_argument);
  const std::vector<Token> bad_prompt = {1, kVocab};
  EXPECT_THROW(ref::Speculative(m.target, m.bigram, bad_prompt, 4, {}, rng),
               std::invalid_argument);
  EXPECT_THROW(ref::Speculative(m.target, m.bigram, pr, 4, {.gamma = 0}, rng),
               std::invalid_argument);
  cb::ref::lm::KneserNeyLm other(2, kVocab + 1);
  other.Train(std::vector<cb::ref::lm::Document>{{1, 2, 3}});
  const ref::KnModel wrong(other);
  EXPECT_THROW(ref::Speculative(m.target, wrong, pr, 4, {}, rng), std::invalid_argument);
  EXPECT_THROW(ref::NoisyModel(m.target, 1.5, 1), std::invalid_argument);
  EXPECT_THROW(ref::ExactJointMode(m.target, pr, 5), std::invalid_argument);  // 64^5 > 2^24
}

// ---------------------------------------------------------------------------
// Backends: fresh random inputs per run, outputs poisoned first.

class MtadBackendTest : public cb::testing::BackendTest {};

TEST_P(MtadBackendTest, ExpandScoresMatchesReference) {
  h::Rng rng(static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 17, 0);
  for (int beams : {1, 4, 16}) {
    std::vector<double> w(beams), q(beams * kVocab);
    for (double& x : w) x = rng.Uniform();
    for (double& x : q) x = rng.Uniform() < 0.5 ? 0.0 : rng.Uniform();
    std::vector<double> want(q.size()), got(q.size(), NAN);
    ref::ExpandScores(w, q, kVocab, want);
    ExpandScores(backend(), w, q, kVocab, got);
    for (size_t i = 0; i < q.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], kScoreRelTol * std::abs(want[i]) + 1e-300) << i;
    }
  }
}

TEST_P(MtadBackendTest, AcceptDepthsMatchReference) {
  h::Rng rng(static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 29, 0);
  const int beams = 64, gamma = 5;
  std::vector<double> logp(beams * gamma), logq(beams * gamma);
  for (size_t i = 0; i < logp.size(); ++i) {
    logp[i] = rng.Uniform() < 0.05 ? -INFINITY : std::log(rng.Uniform());
    logq[i] = std::log(rng.Uniform());
  }
  // log tau on a grid the margins (sums of logs of 52-bit uniforms) miss.
  for (double log_tau : {-2.0312, -0.6931, 0.1234}) {
    std::vector<int> got(beams, -7);
    AcceptDepths(backend(), logp, logq, gamma, log_tau, got);
    for (int b = 0; b < beams; ++b) {
      EXPECT_EQ(got[b], ref::AcceptDepth(std::span(logp).subspan(b * gamma, gamma),
                                         std::span(logq).subspan(b * gamma, gamma), log_tau));
    }
  }
}

TEST_P(MtadBackendTest, BadInputThrows) {
  std::vector<double> w = {1.0}, q(kVocab, 0.0), out(kVocab);
  EXPECT_THROW(ExpandScores(backend(), w, q, kVocab, out), std::invalid_argument);  // zero mass
  q[3] = NAN;
  EXPECT_THROW(ExpandScores(backend(), w, q, kVocab, out), std::invalid_argument);
  std::vector<double> lp = {0.0, NAN}, lq = {0.0, 0.0};
  std::vector<int> d(1);
  EXPECT_THROW(AcceptDepths(backend(), lp, lq, 2, 0.0, d), std::invalid_argument);
  EXPECT_THROW(AcceptDepths(backend(), lq, lq, 3, 0.0, d), std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(MtadBackendTest);

}  // namespace
}  // namespace cb::mtad

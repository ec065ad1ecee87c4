// File: generators/teacher_predictive_test.cpp
// Tests of the corpus teacher's exact predictive law (issue 18, the Bayes
// limit): Teacher::PredictiveLogProbs / NextTokenDistribution /
// MeanPredictiveLogLoss in generators/corpora.h.
//   - against a brute force that sums the joint of every hidden topic path,
//     with the sentence lengths and the emitted words read forwards from
//     Sample()'s law (no filter, no inverse twin map);
//   - normalisation and agreement of the two code paths (full distribution vs
//     the observed token);
//   - chi-square of NextTokenDistribution against the next tokens of many
//     Sample() documents that share a prefix (the prefixes exercise the
//     bigram, trigram, sentence-end and twin branches), with a power check
//     against a teacher whose mixture weights are slightly off;
//   - a 100k-token document (no underflow) and the default corpus's Bayes
//     limit against a Kneser-Ney model's held-out cross-entropy.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <vector>

#include "generators/corpora.h"
#include "harness/chi_square.h"
#include "harness/random.h"
#include "reference/lm/kn_lm.h"

namespace {

using cb::gen::Document;
using cb::gen::Lexicon;
using cb::gen::Teacher;
using cb::gen::TeacherParams;
using cb::gen::Token;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A lexicon of 64 tokens: ".", 43 lowercase words, 12 twins, 8 entity tokens
// (4 names, so each half holds 2).
Lexicon TinyLexicon() { return Lexicon(64, 0.3, 8); }

TeacherParams TinyA() {  // 3 topics, fast switching, short sentences
  TeacherParams p;
  p.seed = 11;
  p.topics = 3;
  p.topic_stay = 0.6;
  p.bigram_weight = 0.4;
  p.trigram_weight = 0.3;
  p.successors = 4;
  p.mean_sentence_words = 3;
  p.entity_rate = 0.15;
  p.topic_weights = {0.5, 0.3, 0.2};
  return p;
}

TeacherParams TinyB() {  // 2 topics, the other entity half, more entities
  TeacherParams p;
  p.seed = 12;
  p.topics = 2;
  p.topic_stay = 0.9;
  p.successors = 6;
  p.mean_sentence_words = 2.5;
  p.entity_rate = 0.3;
  p.entity_half = 1;
  return p;
}

TeacherParams TinyChi() {  // peaked followers, so that 3-token prefixes recur often
  TeacherParams p;
  p.seed = 14;
  p.topics = 2;
  p.topic_stay = 0.8;
  p.zipf_exponent = 1.3;
  p.bigram_weight = 0.45;
  p.trigram_weight = 0.35;
  p.successors = 2;
  p.mean_sentence_words = 4;
  p.entity_rate = 0.1;
  p.topic_weights = {0.6, 0.4};
  return p;
}

TeacherParams TinyOneWordSentences() {  // mean_sentence_words = 1: q = 1
  TeacherParams p;
  p.seed = 13;
  p.topics = 2;
  p.topic_stay = 0.5;
  p.mean_sentence_words = 1;
  p.entity_rate = 0.1;
  return p;
}

// ---------------------------------------------------------------------------
// Brute force: p(doc) = P(sentence lengths) * sum over (z_0, ..., z_W) of
// pi(z_0) prod_j T(z_{j-1}, z_j) p(word_j | z_j, context_j).

// P(L = k) and P(L >= k) for L = 1 + floor(E (m - 1)), E ~ Exp(1).
double LengthPmf(double m, int k) {
  if (m == 1) return k == 1 ? 1.0 : 0.0;
  return std::exp(-(k - 1) / (m - 1)) - std::exp(-k / (m - 1));
}
double LengthSurvival(double m, int k) {
  if (k <= 1) return 1.0;
  if (m == 1) return 0.0;
  return std::exp(-(k - 1) / (m - 1));
}

// p(untwinned word w | topic z, prev, prev2): every draw of Sample()'s word
// step enumerated forwards, adding the probability of each draw that yields w.
double BruteWordProb(const Teacher& t, int z, Token prev, Token prev2, Token w) {
  const Lexicon& lex = t.lexicon();
  const TeacherParams& p = t.params();
  const int names = lex.entity_names();
  const double e = p.entity_rate > 0 && names >= 2 ? p.entity_rate : 0.0;
  double total = 0;
  for (Token name = lex.twin_end(); name < lex.vocab_size(); ++name) {
    if (name == w) total += e * t.EntityNameProb(name);
  }
  const bool word_before = prev >= 1 && prev < lex.lower_end();
  const double b = word_before ? p.bigram_weight : 0.0;
  const double tri = word_before ? p.trigram_weight : 0.0;
  for (int r = 0; r < p.successors; ++r) {
    if (word_before && t.Successor(uint64_t(prev), z, r) == w) total += (1 - e) * b * t.RankProb(r);
    if (word_before && t.Successor(Teacher::TrigramHistory(prev2, prev), z, r) == w) {
      total += (1 - e) * tri * t.RankProb(r);
    }
  }
  for (Token v = 1; v < lex.lower_end(); ++v) {
    if (v == w) total += (1 - e) * (1 - b - tri) * t.UnigramProb(z, v);
  }
  return total;
}

double BruteLogProb(const Teacher& t, const Document& doc) {
  const Lexicon& lex = t.lexicon();
  const TeacherParams& p = t.params();
  const double m = p.mean_sentence_words;
  // Sentence lengths: whole sentences end at each ".", the last one is open.
  double log_len = 0;
  int k = 0;
  for (Token o : doc) {
    if (o == 0) {
      if (k == 0) return -kInf;
      log_len += std::log(LengthPmf(m, k));
      k = 0;
    } else {
      ++k;
    }
  }
  log_len += std::log(LengthSurvival(m, k));
  // Word steps: find the word behind each token by mapping every word forwards.
  std::vector<std::vector<double>> emit;  // (W, topics)
  Token prev = 0, prev2 = 0;
  bool start = true;
  for (Token o : doc) {
    if (o == 0) {
      prev2 = prev;
      prev = 0;
      start = true;
      continue;
    }
    std::vector<Token> behind;
    for (Token w = 1; w < lex.vocab_size(); ++w) {
      if (w >= lex.lower_end() && w < lex.twin_end()) continue;  // twins are never drawn as words
      const Token shown = start && lex.TwinOf(w) >= 0 ? lex.TwinOf(w) : w;
      if (shown == o) behind.push_back(w);
    }
    EXPECT_LE(behind.size(), 1u) << "the twin map must be injective";
    if (behind.empty()) return -kInf;
    std::vector<double> row(p.topics);
    for (int z = 0; z < p.topics; ++z) row[z] = BruteWordProb(t, z, prev, prev2, behind[0]);
    emit.push_back(row);
    prev2 = prev;
    prev = behind[0];
    start = false;
  }
  const int W = int(emit.size()), Z = p.topics;
  int64_t paths = 1;
  for (int j = 0; j <= W; ++j) paths *= Z;
  double sum = 0;
  std::vector<int> path(W + 1);
  for (int64_t code = 0; code < paths; ++code) {
    int64_t c = code;
    for (int j = 0; j <= W; ++j, c /= Z) path[j] = int(c % Z);
    double joint = t.TopicWeight(path[0]);
    for (int j = 1; j <= W; ++j) {
      const double trans =
          p.topic_stay * (path[j] == path[j - 1]) + (1 - p.topic_stay) * t.TopicWeight(path[j]);
      joint *= trans * emit[j - 1][path[j]];
    }
    sum += joint;
  }
  return std::log(sum) + log_len;
}

TEST(TeacherPredictive, MatchesBruteForceJointOverTopicPaths) {
  const Lexicon lex = TinyLexicon();
  int dots = 0, twins = 0, entities = 0, trigram_ready = 0, checked = 0;
  for (const TeacherParams& params : {TinyA(), TinyB(), TinyOneWordSentences()}) {
    const Teacher teacher(lex, params);
    for (int d = 0; d < 24; ++d) {
      const Document doc = teacher.Sample(6 + d % 3, /*seed=*/5, /*stream=*/d);
      const std::vector<double> lp = teacher.PredictiveLogProbs(doc);
      ASSERT_EQ(lp.size(), doc.size());
      double cumulative = 0;
      for (size_t k = 1; k <= doc.size(); ++k) {
        cumulative += lp[k - 1];
        const Document prefix(doc.begin(), doc.begin() + k);
        const double brute = BruteLogProb(teacher, prefix);
        ASSERT_TRUE(std::isfinite(brute)) << "doc " << d << " prefix " << k;
        EXPECT_NEAR(cumulative, brute, 1e-12) << "doc " << d << " prefix " << k;
        ++checked;
      }
      for (size_t i = 0; i < doc.size(); ++i) {
        dots += doc[i] == 0;
        twins += doc[i] >= lex.lower_end() && doc[i] < lex.twin_end();
        entities += doc[i] >= lex.twin_end();
        trigram_ready += i >= 2 && doc[i - 1] >= 1 && doc[i - 1] < lex.lower_end() && doc[i - 2] != 0;
      }
    }
  }
  // The docs must exercise every branch of the law, or the check says little.
  EXPECT_GT(dots, 20);
  EXPECT_GT(twins, 5);
  EXPECT_GT(entities, 5);
  EXPECT_GT(trigram_ready, 20);
  EXPECT_EQ(checked, 3 * (8 * 6 + 8 * 7 + 8 * 8));
}

TEST(TeacherPredictive, ImpossibleTokensGetMinusInfinity) {
  const Lexicon lex = TinyLexicon();
  const Teacher teacher(lex, TinyA());
  const Token with_twin = 1;                 // the most frequent word has a twin
  const Token no_twin = lex.lower_end() - 1;  // the rarest has none
  ASSERT_GE(lex.TwinOf(with_twin), 0);
  ASSERT_LT(lex.TwinOf(no_twin), 0);
  const Token other_half_name = lex.twin_end() + lex.entity_names() / 2;  // TinyA uses half 0
  const std::vector<Document> impossible = {
      {with_twin, no_twin},                   // lowercase at a sentence start
      {0, no_twin},                           // "." opens the document
      {no_twin, lex.TwinOf(with_twin)},       // a twin mid-sentence
      {no_twin, other_half_name},             // the other teacher's entity name
      {no_twin, 0, 0},                        // an empty sentence
  };
  const std::vector<int> where = {0, 0, 1, 1, 2};
  for (size_t i = 0; i < impossible.size(); ++i) {
    const auto lp = teacher.PredictiveLogProbs(impossible[i]);
    for (int t = 0; t < int(lp.size()); ++t) {
      if (t == where[i]) {
        EXPECT_EQ(lp[t], -kInf) << "doc " << i;
        EXPECT_EQ(teacher.NextTokenDistribution(impossible[i], t)[impossible[i][t]], 0.0);
      } else {
        EXPECT_TRUE(std::isfinite(lp[t])) << "doc " << i << " t " << t;
      }
    }
    EXPECT_EQ(teacher.MeanPredictiveLogLoss({impossible[i]}), kInf);
  }
  // The same first word, capitalised, is possible.
  EXPECT_TRUE(std::isfinite(teacher.PredictiveLogProbs({lex.TwinOf(with_twin), no_twin})[0]));
  EXPECT_THROW(teacher.NextTokenDistribution({no_twin}, 2), std::out_of_range);
}

// ---------------------------------------------------------------------------

TEST(TeacherPredictive, NextTokenDistributionSumsToOneAndMatchesObserved) {
  const Lexicon tiny = TinyLexicon();
  const Lexicon mid(1024, 0.15, 128);
  TeacherParams mid_params;
  mid_params.entity_rate = 0.05;
  mid_params.mean_sentence_words = 6;
  cb::harness::Rng rng(/*seed=*/77, /*stream=*/0);
  int positions = 0;
  const std::vector<std::pair<const Lexicon*, TeacherParams>> cases = {
      {&tiny, TinyA()}, {&tiny, TinyB()}, {&mid, mid_params}};
  for (const auto& [lex, params] : cases) {
    const Teacher teacher(*lex, params);
    const double q = -std::expm1(-1.0 / (params.mean_sentence_words - 1));
    for (int d = 0; d < 4; ++d) {
      const Document doc = teacher.Sample(300, /*seed=*/9, /*stream=*/d);
      const std::vector<double> lp = teacher.PredictiveLogProbs(doc);
      for (int k = 0; k < 25; ++k) {
        const int t = k == 0 ? int(doc.size()) : int(rng.UniformInt(0, doc.size() - 1));
        const std::vector<double> dist = teacher.NextTokenDistribution(doc, t);
        ASSERT_EQ(dist.size(), size_t(lex->vocab_size()));
        EXPECT_NEAR(std::accumulate(dist.begin(), dist.end(), 0.0), 1.0, 1e-12);
        EXPECT_GE(*std::min_element(dist.begin(), dist.end()), 0.0);
        const bool start = t == 0 || doc[t - 1] == 0;
        EXPECT_NEAR(dist[0], start ? 0.0 : q, 1e-15) << "t " << t;
        if (t < int(doc.size())) {
          EXPECT_NEAR(std::log(dist[doc[t]]), lp[t], 1e-12) << "t " << t;
        }
        ++positions;
      }
    }
  }
  EXPECT_EQ(positions, 3 * 4 * 25);
}

// ---------------------------------------------------------------------------
// Chi-square: documents drawn by Sample() that begin with a given prefix have
// their next token distributed as NextTokenDistribution(prefix, |prefix|).

struct PrefixCounts {
  Document prefix;
  std::vector<int64_t> counts;
};

// The most probable non-"." next token after prefix.
Token ArgmaxWord(const Teacher& t, const Document& prefix) {
  const auto dist = t.NextTokenDistribution(prefix, int(prefix.size()));
  return Token(std::max_element(dist.begin() + 1, dist.end()) - dist.begin());
}

TEST(TeacherPredictive, ChiSquareAgainstSampledContinuations) {
  const Lexicon lex = TinyLexicon();
  const Teacher teacher(lex, TinyChi());
  const Token a = ArgmaxWord(teacher, {});
  const Token b = ArgmaxWord(teacher, {a});
  const Token c = ArgmaxWord(teacher, {a, b});
  const Token d = ArgmaxWord(teacher, {a, 0});
  ASSERT_GE(a, lex.lower_end());  // a twin: the sentence-start map is in play
  ASSERT_LT(b, lex.lower_end());  // b and c lowercase: bigram and trigram in play
  ASSERT_LT(c, lex.lower_end());
  std::vector<PrefixCounts> cells;
  for (Document prefix : std::vector<Document>{{}, {a}, {a, b}, {a, b, c}, {a, 0}, {a, 0, d}}) {
    cells.push_back({prefix, std::vector<int64_t>(lex.vocab_size(), 0)});
  }
  // Sample() is prefix-consistent, so one 4-token draw serves every prefix.
  constexpr int kDraws = 4'000'000;
  for (int i = 0; i < kDraws; ++i) {
    const Document doc = teacher.Sample(4, /*seed=*/2024, /*stream=*/uint64_t(i));
    for (PrefixCounts& cell : cells) {
      const size_t k = cell.prefix.size();
      if (std::equal(cell.prefix.begin(), cell.prefix.end(), doc.begin())) ++cell.counts[doc[k]];
    }
  }
  // The power check: the same teacher with the bigram weight 0.45 -> 0.40.
  TeacherParams off = TinyChi();
  off.bigram_weight = 0.40;
  const Teacher wrong(lex, off);
  int power_checks = 0;
  for (const PrefixCounts& cell : cells) {
    const int64_t n = std::accumulate(cell.counts.begin(), cell.counts.end(), int64_t{0});
    ASSERT_GE(n, 10'000) << "prefix length " << cell.prefix.size();
    const auto expected = teacher.NextTokenDistribution(cell.prefix, int(cell.prefix.size()));
    const auto chi = cb::harness::ChiSquareGoodnessOfFit(cell.counts, expected);
    EXPECT_GT(chi.p_value, 1e-4) << "prefix length " << cell.prefix.size() << " n " << n
                                 << " chi2 " << chi.statistic << " df " << chi.df;
    std::printf("prefix length %zu (ends %d): n %lld chi2 %.1f df %d p %.3g\n", cell.prefix.size(),
                cell.prefix.empty() ? -1 : int(cell.prefix.back()), static_cast<long long>(n),
                chi.statistic, chi.df, chi.p_value);
    const Token prev = cell.prefix.empty() ? 0 : lex.Lower(cell.prefix.back());
    if (prev >= 1 && prev < lex.lower_end() && n >= 50'000) {  // the bigram branch is live
      const auto bad = wrong.NextTokenDistribution(cell.prefix, int(cell.prefix.size()));
      const double p_bad = cb::harness::ChiSquareGoodnessOfFit(cell.counts, bad).p_value;
      std::printf("  power: against bigram_weight 0.40, p %.3g\n", p_bad);
      EXPECT_LT(p_bad, 1e-6) << "prefix length " << cell.prefix.size()
                             << ": the test cannot see an 11% weight error";
      ++power_checks;
    }
  }
  EXPECT_GE(power_checks, 2);
}

// ---------------------------------------------------------------------------

TEST(TeacherPredictive, HundredThousandTokensStayFinite) {
  const cb::gen::CorpusParams cp;
  const Lexicon lex(cp.vocab_size, cp.capitalized_fraction, cp.entity_tokens);
  const Teacher teacher(lex, cb::gen::MiaTeachers(cp).drift);  // entity names included
  const Document doc = teacher.Sample(100'000, /*seed=*/3, /*stream=*/0);
  const std::vector<double> lp = teacher.PredictiveLogProbs(doc);
  double total = 0;
  for (double x : lp) {
    ASSERT_TRUE(std::isfinite(x));
    ASSERT_LE(x, 0.0);
    total -= x;
  }
  EXPECT_NEAR(teacher.MeanPredictiveLogLoss({doc}), total / double(doc.size()), 1e-12);
  // The first and the last tokens' distributions are proper.
  for (int t : {1, int(doc.size())}) {
    const auto dist = teacher.NextTokenDistribution(doc, t);
    EXPECT_NEAR(std::accumulate(dist.begin(), dist.end(), 0.0), 1.0, 1e-12);
  }
}

// The Bayes limit of the default corpus: the base teacher's loss on its own
// background documents, which no model can beat in expectation; a 3-gram
// Kneser-Ney model trained on that background must score worse on fresh text
// from the same teacher.
TEST(TeacherPredictive, DefaultCorpusBayesLimitIsBelowKneserNey) {
  const cb::gen::CorpusParams cp;
  const auto start = std::chrono::steady_clock::now();
  const cb::gen::MiaCorpus corpus = cb::gen::MakeMiaCorpus(cp);
  const auto made = std::chrono::steady_clock::now();
  const Teacher teacher(corpus.lexicon, cb::gen::MiaTeachers(cp).base);
  const double bayes_background = teacher.MeanPredictiveLogLoss(corpus.background);
  const auto scored = std::chrono::steady_clock::now();
  int64_t tokens = 0;
  for (const auto& d : corpus.background) tokens += int64_t(d.size());
  std::printf("default corpus: Bayes limit %.6f nats/token on %lld background tokens "
              "(corpus %.2f s, scoring %.2f s)\n",
              bayes_background, static_cast<long long>(tokens),
              std::chrono::duration<double>(made - start).count(),
              std::chrono::duration<double>(scored - made).count());
  ::testing::Test::RecordProperty("bayes_nats_per_token", std::to_string(bayes_background));
  ASSERT_TRUE(std::isfinite(bayes_background));
  EXPECT_LT(bayes_background, std::log(double(cp.vocab_size)));

  std::vector<Document> fresh;  // the same law, streams the corpus never uses
  for (int i = 0; i < 50; ++i) {
    fresh.push_back(teacher.Sample(cp.background_words, cp.seed, (uint64_t{99} << 40) | uint64_t(i)));
  }
  const double bayes_fresh = teacher.MeanPredictiveLogLoss(fresh);
  cb::ref::lm::KneserNeyLm kn(/*order=*/3, cp.vocab_size);
  kn.Train(corpus.background);
  double kn_total = 0;
  int64_t kn_tokens = 0;
  for (const auto& d : fresh) {
    std::vector<double> lp(d.size());
    kn.LogProbs(d, lp);
    for (double x : lp) kn_total -= x;
    kn_tokens += int64_t(d.size());
  }
  const double kn_fresh = kn_total / double(kn_tokens);
  std::printf("fresh text: Bayes %.4f, KN-3 %.4f nats/token\n", bayes_fresh, kn_fresh);
  // Same law, 25k vs 200k tokens: the two Bayes estimates agree to sampling noise.
  EXPECT_NEAR(bayes_fresh, bayes_background, 0.1);
  EXPECT_GT(kn_fresh, bayes_fresh + 0.05);
}

}  // namespace

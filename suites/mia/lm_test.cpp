// File: suites/mia/lm_test.cpp
// Tests of the Kneser-Ney substrate (reference/lm/kn_lm.h): normalisation to
// 1e-12, agreement with an independent brute-force count computation on a
// tiny corpus, the fast moments against brute-force sums, save/load with its
// content hash, fine-tuning, and held-out perplexity falling with the order.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "generators/corpora.h"
#include "harness/random.h"
#include "reference/lm/kn_lm.h"
#include "reference/mia/mia.h"

namespace {

using cb::ref::lm::Document;
using cb::ref::lm::KneserNeyLm;
using cb::ref::lm::Token;

std::vector<Document> RandomDocs(int v, int docs, int len, uint64_t seed) {
  cb::harness::Rng rng(seed, 0);
  std::vector<Document> out(docs);
  for (auto& d : out) {
    for (int i = 0; i < len; ++i) {
      // Skewed so that counts of 1..4 all occur (discount estimates defined).
      const uint64_t a = rng.UniformInt(0, v - 1), b = rng.UniformInt(0, v - 1);
      d.push_back(static_cast<Token>(std::min(a, b)));
    }
  }
  return out;
}

// An independent implementation of the formulas in kn_lm.h, over std::map.
class BruteKn {
 public:
  using Gram = std::vector<int>;
  BruteKn(int order, int v, const std::vector<Document>& docs) : n_(order), v_(v) {
    std::vector<std::set<Gram>> distinct(order + 1);
    std::map<Gram, double> raw;
    for (const auto& d : docs) {
      std::vector<int> padded(order - 1, v);  // BOS = v
      padded.insert(padded.end(), d.begin(), d.end());
      for (size_t t = order - 1; t < padded.size(); ++t) {
        for (int k = 1; k <= order; ++k) {
          Gram g(padded.begin() + (t - k + 1), padded.begin() + t + 1);
          distinct[k].insert(g);
          if (k == order) raw[g] += 1;
        }
      }
    }
    a_.resize(order + 1);
    a_[order] = raw;
    for (int k = 1; k < order; ++k) {
      for (const auto& g : distinct[k + 1]) a_[k][Gram(g.begin() + 1, g.end())] += 1;
    }
    d_.resize(order + 1);
    for (int k = 1; k <= order; ++k) {
      double nr[5] = {0, 0, 0, 0, 0};
      for (const auto& [g, a] : a_[k]) if (a <= 4) nr[int(a)] += 1;
      const double y = nr[1] / (nr[1] + 2 * nr[2]);
      for (int r = 1; r <= 3; ++r) {
        double d = 0.5 * r;
        if (nr[1] > 0 && nr[2] > 0 && nr[r] > 0 && nr[r + 1] > 0) {
          const double e = r - (r + 1) * y * nr[r + 1] / nr[r];
          if (e > 0 && e <= r) d = e;
        }
        d_[k][r - 1] = d;
      }
    }
  }
  double D(int k, double a) const {
    if (a <= 0) return 0;
    return std::min(a, a <= 1 ? d_[k][0] : a <= 2 ? d_[k][1] : d_[k][2]);
  }
  // p_k(w | h), h of length k - 1 (possibly containing BOS).
  double P(int k, const Gram& h, int w) const {
    if (k == 0) return 1.0 / v_;
    const Gram shorter = h.empty() ? Gram{} : Gram(h.begin() + 1, h.end());
    double total = 0, mass = 0, a_hw = 0;
    for (const auto& [g, a] : a_[k]) {
      if (!std::equal(h.begin(), h.end(), g.begin())) continue;
      total += a;
      mass += D(k, a);
      if (g.back() == w) a_hw = a;
    }
    const double lower = P(k - 1, shorter, w);
    if (total == 0) return lower;
    return std::max(a_hw - D(k, a_hw), 0.0) / total + mass / total * lower;
  }
  double Prob(const Document& doc, size_t t) const {
    Gram h;
    for (int j = n_ - 1; j >= 1; --j) h.push_back(t >= size_t(j) ? doc[t - j] : v_);
    return P(n_, h, doc[t]);
  }

 private:
  int n_, v_;
  std::vector<std::map<Gram, double>> a_;
  std::vector<std::array<double, 3>> d_;
};

TEST(KneserNeyLm, MatchesBruteForceCountsOnTinyCorpus) {
  for (int order = 1; order <= 4; ++order) {
    const auto docs = RandomDocs(6, 12, 30, 11 + order);
    KneserNeyLm lm(order, 6);
    lm.Train(docs);
    BruteKn brute(order, 6, docs);
    const auto probe = RandomDocs(6, 3, 20, 99);
    for (const auto& d : probe) {
      for (size_t t = 0; t < d.size(); ++t) {
        EXPECT_NEAR(std::exp(lm.LogProb(d, t)), brute.Prob(d, t), 1e-13) << "order " << order << " t " << t;
      }
    }
  }
}

TEST(KneserNeyLm, DistributionsSumToOneAndMatchLogProb) {
  const auto train = RandomDocs(50, 40, 80, 3);
  const auto probe = RandomDocs(60, 4, 40, 4);  // tokens >= 50 are unseen contexts
  for (int order = 1; order <= 5; ++order) {
    KneserNeyLm lm(order, 60);
    lm.Train(train);
    std::vector<double> p(60);
    for (const auto& d : probe) {
      for (size_t t = 0; t < d.size(); ++t) {
        lm.Distribution(d, t, p);
        double sum = 0;
        for (double q : p) {
          EXPECT_GT(q, 0.0);
          sum += q;
        }
        EXPECT_NEAR(sum, 1.0, 1e-12) << "order " << order;
        EXPECT_NEAR(std::log(p[d[t]]), lm.LogProb(d, t), 1e-12);
      }
    }
  }
}

TEST(KneserNeyLm, PrunedModelStaysNormalisedAndForgetsSingletons) {
  const auto train = RandomDocs(40, 30, 60, 14);
  KneserNeyLm full(3, 40), pruned(3, 40);
  pruned.SetPruning(2.0);
  full.Train(train);
  pruned.Train(train);
  Document novel = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  KneserNeyLm once = pruned, twice = pruned;
  once.FineTune(std::vector<Document>{novel}, 1.0);
  twice.FineTune(std::vector<Document>{novel}, 2.0);
  std::vector<double> p(40);
  for (const auto* lm : {&pruned, &once, &twice}) {
    for (size_t t = 0; t < novel.size(); ++t) {
      lm->Distribution(novel, t, p);
      double sum = 0;
      for (double q : p) sum += q;
      EXPECT_NEAR(sum, 1.0, 1e-12);
      const auto m = lm->NextTokenMoments(novel, t);
      EXPECT_NEAR(m.log_prob, std::log(p[novel[t]]), 1e-12);
    }
  }
  // Seen twice, the novel document's own trigrams survive the pruning.
  double gain_once = 0, gain_twice = 0;
  for (size_t t = 2; t < novel.size(); ++t) {
    gain_once += once.LogProb(novel, t) - pruned.LogProb(novel, t);
    gain_twice += twice.LogProb(novel, t) - pruned.LogProb(novel, t);
  }
  EXPECT_GT(gain_twice, gain_once + 1.0);
  EXPECT_THROW(pruned.SetPruning(-1), std::invalid_argument);
  EXPECT_EQ(KneserNeyLm::Deserialize(twice.Serialize()).ContentHash(), twice.ContentHash());
}

TEST(KneserNeyLm, FastMomentsMatchBruteForceSums) {
  const auto train = RandomDocs(300, 30, 200, 5);
  KneserNeyLm lm(4, 300);
  lm.Train(train);
  lm.FineTune(RandomDocs(300, 5, 50, 6), 2.5);
  std::vector<double> p(300);
  for (const auto& d : RandomDocs(300, 3, 60, 7)) {
    for (size_t t = 0; t < d.size(); ++t) {
      lm.Distribution(d, t, p);
      const auto ref = cb::ref::mia::StatsFromDistribution(p, d[t]);
      const auto fast = lm.NextTokenMoments(d, t);
      EXPECT_NEAR(fast.log_prob, ref.logp, 1e-12);
      EXPECT_NEAR(fast.mu, ref.mu, 1e-10 * std::abs(ref.mu));
      const double sigma2 = fast.second - fast.mu * fast.mu;
      EXPECT_NEAR(sigma2, ref.sigma2, 1e-9 * ref.sigma2 + 1e-12);
    }
  }
}

TEST(KneserNeyLm, FineTuneWithIntegerWeightOnDisjointCorpusRaisesItsLikelihood) {
  const auto base_docs = RandomDocs(40, 20, 50, 8);
  Document novel;  // uses tokens 40..49 only: unseen by the base model
  for (int i = 0; i < 30; ++i) novel.push_back(40 + (i * 7) % 10);
  KneserNeyLm lm(3, 50);
  lm.Train(base_docs);
  const double before = lm.LogProb(novel, 10);
  const auto base_ll = lm.LogProb(base_docs[0], 10);
  lm.FineTune(std::vector<Document>{novel}, 1.0);
  EXPECT_GT(lm.LogProb(novel, 10), before + 1.0);
  EXPECT_LT(lm.LogProb(base_docs[0], 10), base_ll);  // mass moved away
  EXPECT_THROW(lm.Train(base_docs), std::logic_error);
  EXPECT_THROW(lm.FineTune(base_docs, 0.0), std::invalid_argument);
}

TEST(KneserNeyLm, SaveLoadRoundTripKeepsProbabilitiesAndHash) {
  KneserNeyLm lm(4, 30);
  lm.Train(RandomDocs(30, 10, 40, 9));
  lm.FineTune(RandomDocs(30, 2, 40, 10), 0.5);
  const auto path = (std::filesystem::temp_directory_path() / "cb_kn_lm_test.bin").string();
  lm.Save(path);
  const KneserNeyLm back = KneserNeyLm::Load(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.ContentHash(), lm.ContentHash());
  for (const auto& d : RandomDocs(30, 2, 30, 12)) {
    for (size_t t = 0; t < d.size(); ++t) EXPECT_EQ(back.LogProb(d, t), lm.LogProb(d, t));
  }
  KneserNeyLm other(4, 30);
  other.Train(RandomDocs(30, 10, 40, 13));
  EXPECT_NE(other.ContentHash(), lm.ContentHash());
  std::string bytes = lm.Serialize();
  EXPECT_THROW(KneserNeyLm::Deserialize(bytes.substr(0, bytes.size() - 3)), std::runtime_error);
  bytes[0] = 'X';
  EXPECT_THROW(KneserNeyLm::Deserialize(bytes), std::runtime_error);
}

TEST(KneserNeyLm, RejectsBadTokensAndOrders) {
  EXPECT_THROW(KneserNeyLm(0, 10), std::invalid_argument);
  EXPECT_THROW(KneserNeyLm(6, 10), std::invalid_argument);
  KneserNeyLm lm(2, 10);
  EXPECT_THROW(lm.Train(std::vector<Document>{{1, 2, 10}}), std::invalid_argument);
  EXPECT_THROW(lm.LogProb(Document{1, -1}, 1), std::invalid_argument);
}

TEST(KneserNeyLm, HeldOutPerplexityFallsWithOrderOnTeacherData) {
  cb::gen::CorpusParams p;
  p.vocab_size = 2048;
  p.background_docs = 300;
  p.background_words = 600;
  p.per_class = 40;
  p.aux_docs = 1;
  p.ood_docs = 1;
  p.length = 200;
  const auto corpus = cb::gen::MakeMiaCorpus(p);
  std::vector<double> ppl;
  for (int order = 1; order <= 4; ++order) {
    KneserNeyLm lm(order, p.vocab_size);
    lm.Train(corpus.background);
    double nll = 0;
    int64_t n = 0;
    for (const auto& d : corpus.members) {  // same teacher, not trained on
      for (size_t t = 0; t < d.size(); ++t, ++n) nll -= lm.LogProb(d, t);
    }
    ppl.push_back(std::exp(nll / n));
  }
  EXPECT_LT(ppl[1], 0.9 * ppl[0]);
  EXPECT_LT(ppl[2], ppl[1]);
  EXPECT_LT(ppl[3], ppl[2] * 1.001);  // the teacher has no structure beyond order 3
  RecordProperty("perplexity_by_order",
                 std::to_string(ppl[0]) + " " + std::to_string(ppl[1]) + " " +
                     std::to_string(ppl[2]) + " " + std::to_string(ppl[3]));
}

}  // namespace

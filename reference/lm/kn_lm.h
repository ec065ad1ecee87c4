// File: reference/lm/kn_lm.h
// -----------------------------------------------------------------------------
// The language-model substrate of claimbench: an interpolated modified
// Kneser-Ney n-gram model (Chen & Goodman 1998, "An Empirical Study of
// Smoothing Techniques for Language Modeling", §3 eq. (17)-(19)), orders 1-5,
// in fp64. Used by the pre-training-data-detection suite (suites/mia: Min-K%++,
// FSD) and meant for the later decoding issues (PF-decoding, MTAD): it gives
// log p(x_t | context) and the full next-token distribution over the vocabulary.
//
// Model. Tokens are ids 0..V-1. Every document is left-padded with N-1 copies
// of an internal BOS symbol (id V, never predicted), so the first token is
// predicted from the context (BOS, ..., BOS) and every n-gram of order < N has
// a left neighbour. With a(h w) the adjusted count of n-gram h w:
//   order N (highest):  a(h w) = c(h w), the raw count;
//   order k < N:        a(h w) = N1+(. h w), the number of distinct left
//                        extensions u (BOS included) with c_{k+1}(u h w) > 0.
// The interpolated estimate, with h' = h minus its oldest token:
//   p_k(w | h) = max(a(hw) - d(a(hw)), 0) / A(h) + gamma(h) * p_{k-1}(w | h')
//   A(h)       = sum_w a(h w),   gamma(h) = sum_w d(a(h w)) / A(h)
//   p_k(w | h) = p_{k-1}(w | h')          when A(h) = 0 (unseen context)
//   p_0(w)     = 1 / V                     (the floor: every token has mass)
// d(a) = min(a, D_k1) for 0 < a <= 1, min(a, D_k2) for 1 < a <= 2,
// min(a, D_k3+) for a > 2, d(0) = 0. On integer counts this is exactly Chen &
// Goodman's modified KN; the min() keeps fractional counts (after a weighted
// FineTune) non-negative, and gamma is the discounted mass itself, so every
// distribution sums to 1 by construction (checked to 1e-12 in the tests).
// Discounts per order from the count-of-counts n_r of that order's adjusted
// counts (Chen & Goodman eq. (26)): Y = n1/(n1 + 2 n2), D1 = 1 - 2Y n2/n1,
// D2 = 2 - 3Y n3/n2, D3+ = 3 - 4Y n4/n3. A discount that is undefined (some
// n_r = 0) or outside (0, r] falls back to 0.5, 1.0, 1.5 respectively.
//
// Continued training (FineTune) is the n-gram analogue of FSD's small
// fine-tune: the fine-tuning corpus's OWN adjusted counts (computed on it
// alone, as Train would) are multiplied by `weight` and added to the model's;
// the discounts stay those of the base training. weight = 1 on a corpus with
// no overlapping left contexts equals training on both; in general it is a
// documented approximation (continuation counts add instead of merging sets).
//
// Usage (see also suites/mia/experiment.cpp):
//
//   cb::ref::lm::KneserNeyLm lm(/*order=*/4, /*vocab_size=*/4096);
//   lm.SetPruning(2.0);                    // optional, before Train
//   lm.Train(docs);                        // std::vector<Document>
//   double lp = lm.LogProb(doc, t);        // log p(doc[t] | doc[<t])
//   std::vector<double> p(4096);
//   lm.Distribution(doc, t, p);            // p(. | doc[<t]), sums to 1
//   auto m = lm.NextTokenMoments(doc, t);  // log p, sum p log p, sum p log^2 p
//   KneserNeyLm tuned = lm;                // models are values: copy, then
//   tuned.FineTune(aux_docs, 3.0);         // continue training on a copy
//   lm.Save("target.knlm");                // KneserNeyLm::Load, ContentHash()
//
// Thread safety: const methods may be called concurrently; Train/FineTune/
// Load need exclusive access.
//
// Errors: a token outside [0, V) or a bad order/vocabulary throws
// std::invalid_argument naming the document and position; Load() of a
// malformed file throws std::runtime_error.
#ifndef CB_REFERENCE_LM_KN_LM_H_
#define CB_REFERENCE_LM_KN_LM_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::lm {

using Token = int32_t;
using Document = std::vector<Token>;

// An open-addressing hash table from 64-bit keys to dense indices 0, 1, 2, ...
// in insertion order (linear probing, power-of-two capacity, load <= 1/2).
class FlatIndex {
 public:
  FlatIndex();
  // Index of `key`, or -1.
  int64_t Find(uint64_t key) const;
  // Index of `key`, inserting it with index size() when absent; `inserted`
  // says which.
  int64_t Insert(uint64_t key, bool* inserted);
  int64_t size() const { return size_; }

 private:
  void Grow();
  std::vector<uint64_t> keys_;     // kEmpty where free
  std::vector<uint32_t> values_;
  uint64_t mask_ = 0;
  int64_t size_ = 0;
};

class KneserNeyLm {
 public:
  static constexpr int kMaxOrder = 5;

  // REQUIRES: 1 <= order <= 5, 2 <= vocab_size <= 2^24.
  KneserNeyLm(int order, int vocab_size);

  int order() const { return order_; }
  int vocab_size() const { return vocab_; }

  // Train()
  //
  // Adds the integer n-gram counts of `docs` (each document once; pass a
  // document e times to count it e times) and recomputes the discounts.
  // REQUIRES: no FineTune() yet (throws std::logic_error); tokens in [0, V).
  void Train(std::span<const Document> docs);

  // FineTune()
  //
  // Continued training: adds weight x the adjusted counts of `docs` (computed
  // on `docs` alone); discounts unchanged. REQUIRES: weight > 0 and finite.
  void FineTune(std::span<const Document> docs, double weight);

  // SetPruning()
  //
  // Count pruning (as KenLM's --prune): n-grams of order >= 2 whose adjusted
  // count is below min_count are treated as absent (they do not enter A(h),
  // gamma(h) or the successor lists; they are kept in the tables, so further
  // training can lift them over the threshold). 0 (the default) keeps all.
  // This bounds what a single occurrence can teach the model: with
  // min_count = 2 a document seen once adds nothing of its own above order 1,
  // one seen twice is memorised, as duplication drives memorisation in LLMs
  // (Kandpal et al. 2022). REQUIRES: min_count >= 0 and finite.
  void SetPruning(double min_count);
  double pruning() const { return min_count_; }

  // LogProb()
  //
  // log p(doc[t] | doc[t-N+1 .. t-1]) (BOS-padded), natural log, fp64.
  // REQUIRES: 0 <= t < doc.size(); tokens in [0, V) (checked for doc[t] and
  // its context).
  double LogProb(std::span<const Token> doc, size_t t) const;

  // LogProbs()
  //
  // out[t] = LogProb(doc, t) for every t. out: (doc.size()).
  void LogProbs(std::span<const Token> doc, std::span<double> out) const;

  // Distribution()
  //
  // The full next-token distribution at position t: out[w] = p(w | doc[<t]),
  // w = 0..V-1 (doc[t] itself is not read; t may equal doc.size()).
  // out: (V). Sums to 1 up to rounding. Cost O(N V).
  void Distribution(std::span<const Token> doc, size_t t, std::span<double> out) const;

  // Moments of the next-token distribution at position t, without touching
  // all V entries: outside the union S of the successor lists of the context
  // nodes on the path, p(w) = c u(w) with c the product of the path's gammas
  // and u the dense unigram level, so those words' share of the sums follows
  // from precomputed sums of u, u log u and u (log u)^2 over the vocabulary;
  // only the words in S are visited. Cost O(N + |S|) instead of O(N V).
  // Equal to the brute-force sums over Distribution() up to fp64 rounding
  // (tested to 1e-10 relative).
  struct Moments {
    double log_prob = 0;  // log p(doc[t] | context)
    double mu = 0;        // sum_w p(w) log p(w)
    double second = 0;    // sum_w p(w) (log p(w))^2
  };
  // REQUIRES: 0 <= t < doc.size().
  Moments NextTokenMoments(std::span<const Token> doc, size_t t) const;

  // The modified-KN discounts {D1, D2, D3+} of order k = 1..N.
  std::array<double, 3> Discounts(int k) const;
  // Number of stored n-grams (all orders) and context nodes.
  int64_t NgramCount() const { return static_cast<int64_t>(count_.size()); }
  int64_t ContextCount() const { return static_cast<int64_t>(node_parent_.size()); }

  // Serialize() / Deserialize(): a self-describing little-endian binary
  // ("CBKNLM01", order, V, fine-tuned flag, pruning threshold, discounts, the context trie and
  // every n-gram's adjusted count in insertion order). Deserialize(Serialize())
  // gives a model with identical probabilities.
  std::string Serialize() const;
  static KneserNeyLm Deserialize(std::string_view bytes);
  // Save() writes Serialize() to a temporary name, then renames it.
  void Save(const std::string& path) const;
  static KneserNeyLm Load(const std::string& path);
  // XXH3-128 hex of Serialize(): two models hash alike iff they were built
  // from the same counts in the same order.
  std::string ContentHash() const;

 private:
  uint64_t NodeKey(uint32_t parent, int32_t token) const;
  uint64_t NgramKey(uint32_t ctx, int32_t word) const;
  uint32_t NodeFor(uint32_t parent, int32_t token);  // inserting
  int64_t FindNode(uint32_t parent, int32_t token) const;
  // Adds the counts of `docs` into this model's tables (no finalisation).
  void Count(std::span<const Document> docs);
  // Adds weight x other's adjusted counts (the tries are merged by content).
  void AddCounts(const KneserNeyLm& other, double weight);
  void ComputeDiscounts();
  // Rebuilds the derived tables (totals, gammas, discounted probabilities,
  // successor lists, dense unigram distribution) from the counts.
  void Finalize();
  double Discount(int depth, double a) const;

  int order_;
  int vocab_;
  bool fine_tuned_ = false;
  double min_count_ = 0;
  std::array<std::array<double, 3>, kMaxOrder> discounts_{};

  // Context trie. Node 0 is the empty context; node (parent, u) is the
  // context u + context(parent), i.e. extended by one token to the LEFT.
  // A node of depth j is the context of order-(j+1) n-grams.
  FlatIndex node_index_;                // NodeKey -> node id
  std::vector<uint32_t> node_parent_;   // (nodes)
  std::vector<int32_t> node_token_;     // (nodes), BOS = V
  std::vector<uint8_t> node_depth_;     // (nodes)

  // n-grams: (context node, word) -> adjusted count.
  FlatIndex ngram_index_;               // NgramKey -> n-gram id
  std::vector<uint32_t> ngram_ctx_;     // (ngrams)
  std::vector<int32_t> ngram_word_;     // (ngrams)
  std::vector<double> count_;           // (ngrams) adjusted count a(h w)

  // Derived by Finalize().
  std::vector<double> total_;           // (nodes) A(h)
  std::vector<double> gamma_;           // (nodes) gamma(h), 0 when A(h) = 0
  std::vector<double> discounted_;      // (ngrams) max(a - d(a), 0) / A(h)
  std::vector<int64_t> succ_begin_;     // (nodes + 1) CSR offsets into succ_
  std::vector<int64_t> succ_;           // n-gram ids grouped by context, word-sorted
  std::vector<double> unigram_;         // (V) p_1(w)
  double uni_sum_ = 0, uni_l_ = 0, uni_q_ = 0;  // sum u, sum u log u, sum u (log u)^2
};

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_KN_LM_H_

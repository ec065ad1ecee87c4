// File: generators/corpora.h
// -----------------------------------------------------------------------------
// Synthetic member / non-member corpora for pre-training-data detection
// (brief mia-fsd-docs-coat.md §5, "Synthetic recipe"), stand-ins for MIMIR
// and WikiMIA:
//
//   Teacher   a topic HMM over a Zipfian vocabulary: a sticky hidden topic z
//             (switches with prob 1 - topic_stay per token, to a topic drawn
//             from the topic weights pi); each word is, with prob bigram_weight,
//             one of the previous word's `successors` preferred followers
//             (Zipf-ranked, a hash of (teacher seed, prev, z, rank)), with prob
//             trigram_weight one of the previous two words' (second-order
//             structure, so that a trigram model has something to learn), else a
//             draw from topic z's unigram (half a global Zipf, half a Zipf over
//             a topic-specific permutation). Sentences end with "." after a
//             geometric number of words (mean mean_sentence_words); a sentence
//             starts with the word's Capitalised or ALL-CAPS twin when it has one.
//             With prob entity_rate a word is an "entity" name instead
//             (Capitalised, Zipf over the teacher's half of the entity block).
//             Teacher also scores text exactly (PredictiveLogProbs: forward
//             filtering over the topic), the Bayes limit of a model of its text.
//   Lexicon   V = vocab_size tokens: 0 = ".", then lowercase words, then the
//             mixed-case twins of the most frequent capitalized_fraction of
//             them, then the entity block (Capitalised names and their
//             lowercase forms). Every token's lower-cased spelling is again a
//             token, so text.lower() re-tokenises (Lowercase score).
//   Splits    MIMIR-like (iid): background B and members D_m from the base
//             teacher, the target trains on B + e x D_m, non-members from the
//             same teacher kept only if their n-gram overlap with B u D_m (mean
//             over the first 200 n-grams of "seen in training") is below a
//             threshold: ngram_13_0.8 or ngram_7_0.2 as in MIMIR; 100-200 words.
//             WikiMIA-like (shifted): non-members from a drifted teacher (entity
//             names, re-weighted topics), every text truncated to `length` words.
//             Both carry an FSD auxiliary set (more non-members of the split's
//             non-member distribution, disjoint from the evaluated ones) and an
//             out-of-domain auxiliary set (another teacher: other topic
//             structure, the other half of the entity block).
//
// Determinism (DESIGN §4): a corpus is a pure function of (kCorporaName,
// kCorporaVersion, params); document i of role r is drawn from
// Rng(seed, (r << 40) | i). ContentHash() covers name, version, canonical
// params and every token. Changing output on purpose bumps kCorporaVersion
// (and the golden hashes in fixtures/generators/corpora_golden.txt).
#ifndef CB_GENERATORS_CORPORA_H_
#define CB_GENERATORS_CORPORA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reference/lm/kn_lm.h"

namespace cb::gen {

inline constexpr int kCorporaVersion = 1;
inline constexpr char kCorporaName[] = "mia_corpora";

using ref::lm::Document;
using ref::lm::Token;

// Token id <-> word, and the lower-casing map.
class Lexicon {
 public:
  // REQUIRES: vocab_size >= 64, 0 <= capitalized_fraction <= 1, entity_tokens
  // even and < vocab_size / 2.
  Lexicon(int vocab_size, double capitalized_fraction, int entity_tokens);

  int vocab_size() const { return static_cast<int>(words_.size()); }
  const std::string& Word(Token t) const { return words_.at(t); }
  // Ids: 0 = "."; [1, lower_end) lowercase words in Zipf rank order;
  // [lower_end, twin_end) twins; [twin_end, V) the entity block: first half
  // Capitalised names, second half their lowercase forms.
  int lower_end() const { return lower_end_; }
  int twin_end() const { return twin_end_; }
  int entity_names() const { return (vocab_size() - twin_end_) / 2; }
  // The twin (mixed-case) of lowercase word w, or -1.
  Token TwinOf(Token w) const { return twin_[w]; }
  // The token of Word(t) lower-cased (t itself for lowercase words).
  Token Lower(Token t) const { return lower_[t]; }

  // Words joined by single spaces.
  std::string Render(const Document& doc) const;
  // Splits on spaces; throws std::invalid_argument naming an unknown word.
  Document Tokenize(std::string_view text) const;
  Document LowerDoc(const Document& doc) const;

 private:
  std::vector<std::string> words_;
  std::vector<Token> twin_, lower_;
  std::unordered_map<std::string, Token> ids_;
  int lower_end_ = 0, twin_end_ = 0;
};

struct TeacherParams {
  uint64_t seed = 1;
  int topics = 8;
  double zipf_exponent = 1.05;
  double topic_stay = 0.98;
  double bigram_weight = 0.35;   // follower keyed by the previous word
  double trigram_weight = 0.25;  // follower keyed by the previous two words
  int successors = 6;
  double mean_sentence_words = 14;
  double entity_rate = 0.0;
  int entity_half = 0;              // which half of the entity names it uses (0 or 1)
  std::vector<double> topic_weights;  // pi (topics); empty = uniform
};

// Draws documents from one teacher, and scores them exactly under it.
//
// The exact predictive law (PredictiveLogProbs and friends) is read off
// Sample() step by step. The hidden state is the topic z; everything else
// (prev, prev2, "at a sentence start") is a function of the observed prefix.
//   - start: z_0 ~ pi. A "." step leaves z alone; a word step first moves it,
//     T(z -> z') = s [z' = z] + (1 - s) pi(z'), s = topic_stay (a redraw may
//     return z), then emits.
//   - sentence law: L = 1 + floor(E (m - 1)), E ~ Exp(1), m =
//     mean_sentence_words; P(L > k | L >= k) = exp(-1 / (m - 1)) for every
//     k >= 1, so after k >= 1 words "." comes with the constant hazard
//     q = 1 - exp(-1 / (m - 1)) (q = 1 when m = 1), and the first word of a
//     sentence (the document's too) is never ".".
//   - word w given z: with prob e = entity_rate (0 unless names >= 2) an
//     entity name (Zipf over the teacher's half); else, when prev is a
//     lowercase word, with prob b = bigram_weight a follower
//     Successor(prev, z, r), with prob t = trigram_weight a follower
//     Successor(TrigramHistory(prev2, prev), z, r), r ~ RankProb (all ranks
//     that hit w count: followers collide); else (and always when prev is ".",
//     an entity or the document start) w ~ UnigramProb(z, .).
//   - observed token: TwinOf(w) at a sentence start when w has a twin, else w;
//     so at a sentence start a lowercase word with a twin has probability 0
//     (its twin carries the mass), elsewhere a twin has probability 0.
//   - prev/prev2 hold the untwinned w; a "." sets prev2 = prev, prev = 0 (that
//     prev2 is never read: the next word has no follower branch, as prev = 0,
//     and its step sets prev2 = 0, so after ". w" the trigram history is (0, w)).
// The filter is normalised every step (fp64), so any length is safe.
class Teacher {
 public:
  // REQUIRES: lexicon outlives the teacher.
  Teacher(const Lexicon& lexicon, TeacherParams params);
  // A document of exactly `words` tokens from Rng(seed, stream).
  Document Sample(int words, uint64_t seed, uint64_t stream) const;

  // log p(doc[t] | doc[<t]) under this teacher, for every t [doc.size()]
  // (exact: forward filtering over the hidden topic; the sentence-length law
  // is memoryless, so the only other state is "at a sentence start or not").
  // A token the teacher cannot emit there gets -inf, and the filter then
  // carries its topic prediction on unchanged (the impossible token is
  // treated as carrying no topic evidence).
  std::vector<double> PredictiveLogProbs(const Document& doc) const;
  // The full next-token distribution p(. | doc[<t]) [V] (sums to 1), for tests
  // and for comparing a model's distribution.
  // REQUIRES: 0 <= t <= doc.size() (std::out_of_range otherwise).
  std::vector<double> NextTokenDistribution(const Document& doc, int t) const;
  // The Bayes limit of a model trained on this teacher's text: the mean of
  // -PredictiveLogProbs over every token of every document, in nats/token
  // (0 when there are no tokens; +inf if some token is impossible).
  double MeanPredictiveLogLoss(const std::vector<Document>& docs) const;

  // The model's tables (what Sample draws from), for exact checks.
  const TeacherParams& params() const { return p_; }
  const Lexicon& lexicon() const { return lex_; }
  double TopicWeight(int z) const;             // pi(z), normalised
  double UnigramProb(int z, Token w) const;    // topic z's unigram, lowercase w (0 elsewhere)
  double RankProb(int rank) const;             // P(follower rank r), r in [0, successors)
  double EntityNameProb(Token name) const;     // P(name | entity branch) (0 outside the half)
  // The follower of rank `rank` of `history` (prev, or TrigramHistory) under topic z.
  Token Successor(uint64_t history, int topic, int rank) const;
  static uint64_t TrigramHistory(Token prev2, Token prev) {
    return (uint64_t(prev2) << 32 | uint64_t(prev)) + (uint64_t{1} << 62);
  }

 private:
  // The observed-prefix state of the sampler: the untwinned previous two words
  // (0 = "." or the document start) and whether a sentence is starting.
  struct Context {
    Token prev = 0, prev2 = 0;
    bool sentence_start = true;
  };
  // P(untwinned word w | topic z, ctx) for every z, written to out [topics].
  void WordProbs(const Context& ctx, Token w, std::vector<double>& out) const;
  // The untwinned word behind observed token o at ctx, or -1 when no word step
  // can emit o there.
  Token Untwin(const Context& ctx, Token o) const;
  // Runs the filter over doc[0, t): leaves in post the topic posterior after
  // the last word step (before the next transition), in ctx the state, and
  // appends the log-probabilities to logp when it is non-null.
  void Filter(const Document& doc, int t, std::vector<double>& post, Context& ctx,
              std::vector<double>* logp) const;
  double SentenceEndHazard() const;  // q
  double EntityRate() const;         // e, 0 when the lexicon has < 2 names

  const Lexicon& lex_;
  TeacherParams p_;
  std::vector<std::vector<double>> topic_cdf_;  // (topics, lower words) cumulative
  std::vector<double> succ_cdf_;                // (successors) cumulative Zipf
  std::vector<double> entity_cdf_;              // (entity names / 2) cumulative Zipf
  std::vector<double> pi_cdf_;                  // (topics)
};

enum class SplitKind { kMimir, kWikiMia };

struct CorpusParams {
  SplitKind kind = SplitKind::kWikiMia;
  uint64_t seed = 1;
  int vocab_size = 4096;
  double capitalized_fraction = 0.15;
  int entity_tokens = 512;
  int background_docs = 400;
  int background_words = 500;
  int per_class = 200;        // members and non-members each
  int member_repeats = 1;     // e: each member appears e times in training
  int length = 64;            // WikiMIA: words per text (32/64/128/256)
  int ngram_n = 13;           // MIMIR filter: n-gram size ...
  double ngram_max = 0.8;     // ... and overlap threshold (kept if < this)
  int aux_docs = 100;         // FSD auxiliary non-members (in-domain)
  int ood_docs = 100;         // out-of-domain auxiliary set
  double drift_entity_rate = 0.03;  // WikiMIA-like non-members
  double ood_entity_rate = 0.03;
  double zipf_exponent = 1.05;      // of every teacher's word frequencies
};

// The three teachers of MakeMiaCorpus(p): base (background, members, MIMIR
// non-members), drift (WikiMIA non-members and their FSD auxiliary set) and ood
// (the out-of-domain set); all on the lexicon of p.
struct MiaTeacherParams {
  TeacherParams base, drift, ood;
};
MiaTeacherParams MiaTeachers(const CorpusParams& p);

// Canonical "key=value;..." of the params (fixed key order, %.17g doubles).
std::string CanonicalParams(const CorpusParams& p);

struct MiaCorpus {
  CorpusParams params;
  Lexicon lexicon;
  std::vector<Document> background;      // B (the reference model's data)
  std::vector<Document> members;         // D_m (evaluated, label 1)
  std::vector<Document> nonmembers;      // D_n (evaluated, label 0)
  std::vector<Document> aux_nonmembers;  // FSD fine-tuning set, same law as D_n
  std::vector<Document> ood;             // out-of-domain auxiliary set
  int64_t filtered_out = 0;              // MIMIR: candidates rejected by the filter
  std::string content_hash;              // XXH3-128 hex

  // B followed by each member member_repeats times: the target's training data.
  std::vector<Document> TrainingSet() const;
  std::string SplitName() const;  // "wikimia_64" | "mimir_ngram_13_0.8"
};

// REQUIRES: sizes >= 1, length >= 2, 1 <= ngram_n <= 200 (throws
// std::invalid_argument). Throws std::runtime_error when the MIMIR filter
// rejects more than 50 candidates per accepted non-member.
MiaCorpus MakeMiaCorpus(const CorpusParams& params);

// MIMIR's overlap: the fraction of the first `limit` n-grams of doc (words)
// present in `seen` (hashes of every n-gram of the training data).
double NgramOverlap(const Document& doc, int n, const std::vector<uint64_t>& seen_sorted,
                    int limit = 200);
uint64_t NgramHash(const Token* first, int n);

}  // namespace cb::gen

#endif  // CB_GENERATORS_CORPORA_H_

// File: generators/corpora.cpp
// The teacher HMM, its lexicon and the MIMIR-/WikiMIA-like splits; see corpora.h.
#include "generators/corpora.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"

namespace cb::gen {
namespace {

namespace h = cb::harness;

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A pronounceable, unique lowercase spelling of index i: i + 90 written in
// base 90 with consonant-vowel syllables (so at least two syllables; shorter
// words for smaller indices, i.e. for more frequent words).
std::string Spell(int64_t i) {
  static const char kConsonants[] = "bcdfghjklmnprstvwz";  // 18
  static const char kVowels[] = "aeiou";                   // 5
  std::string out;
  for (int64_t v = i + 90; v > 0; v /= 90) {
    const int s = static_cast<int>(v % 90);
    out.insert(out.begin(), {kConsonants[s / 5], kVowels[s % 5]});
  }
  return out;
}

std::vector<double> ZipfCdf(int n, double s) {
  std::vector<double> cdf(n);
  double acc = 0;
  for (int r = 0; r < n; ++r) cdf[r] = acc += 1.0 / std::pow(r + 1.0, s);
  return cdf;
}

int SampleCdf(const std::vector<double>& cdf, double u) {  // u in (0, 1)
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u * cdf.back());
  return static_cast<int>(std::min<ptrdiff_t>(it - cdf.begin(), ptrdiff_t(cdf.size()) - 1));
}

// The mass of cell i of a cumulative table, as SampleCdf draws it.
double CdfMass(const std::vector<double>& cdf, int i) {
  return (cdf[i] - (i ? cdf[i - 1] : 0.0)) / cdf.back();
}

double Clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

double UnitFromHash(uint64_t x) { return (double(x >> 11) + 0.5) * 0x1.0p-53; }

constexpr uint64_t Stream(uint64_t role, uint64_t i) { return (role << 40) | i; }
enum Role : uint64_t { kBackground = 1, kMembers, kNonmembers, kAux, kOod, kLengths };

void HashDocs(h::Hasher& hasher, std::string_view tag, const std::vector<Document>& docs) {
  hasher.Update(tag);
  const uint64_t n = docs.size();
  hasher.Update({reinterpret_cast<const char*>(&n), sizeof n});
  for (const auto& d : docs) {
    const uint64_t len = d.size();
    hasher.Update({reinterpret_cast<const char*>(&len), sizeof len});
    hasher.Update({reinterpret_cast<const char*>(d.data()), d.size() * sizeof(Token)});
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Lexicon

Lexicon::Lexicon(int vocab_size, double capitalized_fraction, int entity_tokens) {
  if (vocab_size < 64 || !(capitalized_fraction >= 0 && capitalized_fraction <= 1) ||
      entity_tokens < 0 || entity_tokens % 2 != 0 || entity_tokens >= vocab_size / 2) {
    throw std::invalid_argument("Lexicon: need vocab_size >= 64, capitalized_fraction in [0, 1], "
                                "entity_tokens even and < vocab_size / 2");
  }
  const int rest = vocab_size - 1 - entity_tokens;
  const int n_lower = static_cast<int>(std::ceil(rest / (1.0 + capitalized_fraction)));
  const int n_twin = rest - n_lower;
  lower_end_ = 1 + n_lower;
  twin_end_ = lower_end_ + n_twin;
  const int names = entity_tokens / 2;
  words_.resize(vocab_size);
  twin_.assign(vocab_size, -1);
  lower_.resize(vocab_size);
  words_[0] = ".";
  lower_[0] = 0;
  for (int i = 0; i < n_lower; ++i) {
    words_[1 + i] = Spell(i);
    lower_[1 + i] = 1 + i;
  }
  for (int j = 0; j < n_twin; ++j) {  // twins of the most frequent words
    std::string w = words_[1 + j];
    if (j % 5 == 4) {
      for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else {
      w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    }
    words_[lower_end_ + j] = w;
    twin_[1 + j] = lower_end_ + j;
    lower_[lower_end_ + j] = 1 + j;
  }
  for (int k = 0; k < names; ++k) {
    const std::string w = Spell(n_lower + k);
    words_[twin_end_ + names + k] = w;
    lower_[twin_end_ + names + k] = twin_end_ + names + k;
    words_[twin_end_ + k] = w;
    words_[twin_end_ + k][0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    lower_[twin_end_ + k] = twin_end_ + names + k;
  }
  for (int t = 0; t < vocab_size; ++t) {
    if (!ids_.emplace(words_[t], t).second) throw std::logic_error("Lexicon: duplicate word");
  }
}

std::string Lexicon::Render(const Document& doc) const {
  std::string out;
  for (size_t i = 0; i < doc.size(); ++i) {
    if (i) out += ' ';
    out += Word(doc[i]);
  }
  return out;
}

Document Lexicon::Tokenize(std::string_view text) const {
  Document doc;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) {
      const auto it = ids_.find(std::string(text.substr(i, j - i)));
      if (it == ids_.end()) {
        throw std::invalid_argument("Lexicon::Tokenize: unknown word '" +
                                    std::string(text.substr(i, j - i)) + "'");
      }
      doc.push_back(it->second);
    }
    i = j;
  }
  return doc;
}

Document Lexicon::LowerDoc(const Document& doc) const {
  Document out(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) out[i] = Lower(doc[i]);
  return out;
}

// ---------------------------------------------------------------------------
// Teacher

Teacher::Teacher(const Lexicon& lexicon, TeacherParams params) : lex_(lexicon), p_(std::move(params)) {
  if (p_.topics < 1 || p_.successors < 1 || !(p_.mean_sentence_words >= 1)) {
    throw std::invalid_argument("Teacher: topics, successors and mean_sentence_words must be >= 1");
  }
  const int n = lex_.lower_end() - 1;
  const std::vector<double> global = ZipfCdf(n, p_.zipf_exponent);
  for (int z = 0; z < p_.topics; ++z) {
    // Half the mass on the global Zipf ranks, half on a topic permutation.
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    h::Rng rng(p_.seed, Stream(0xA0, z));
    rng.Shuffle(std::span<int>(perm));
    std::vector<double> pmf(n, 0.0);
    for (int r = 0; r < n; ++r) {
      const double zr = global[r] - (r ? global[r - 1] : 0.0);
      pmf[r] += 0.5 * zr / global.back();
      pmf[perm[r]] += 0.5 * zr / global.back();
    }
    std::vector<double> cdf(n);
    double acc = 0;
    for (int i = 0; i < n; ++i) cdf[i] = acc += pmf[i];
    topic_cdf_.push_back(std::move(cdf));
  }
  succ_cdf_ = ZipfCdf(p_.successors, 1.0);
  entity_cdf_ = ZipfCdf(std::max(1, lex_.entity_names() / 2), 1.0);
  std::vector<double> pi = p_.topic_weights.empty() ? std::vector<double>(p_.topics, 1.0) : p_.topic_weights;
  if (int(pi.size()) != p_.topics) throw std::invalid_argument("Teacher: topic_weights size != topics");
  double acc = 0;
  for (double w : pi) pi_cdf_.push_back(acc += w);
}

Token Teacher::Successor(uint64_t history, int topic, int rank) const {
  const uint64_t key = Mix(p_.seed ^ Mix(history * 0x100000001b3ull + uint64_t(topic) * 1315423911ull +
                                         uint64_t(rank) * 2654435761ull));
  return 1 + SampleCdf(topic_cdf_[topic], UnitFromHash(key));
}

Document Teacher::Sample(int words, uint64_t seed, uint64_t stream) const {
  h::ThrowIfInterrupted();  // the check point of every corpus: one per document
  h::Rng rng(seed ^ Mix(p_.seed), stream);
  Document doc;
  doc.reserve(words);
  int topic = SampleCdf(pi_cdf_, rng.Uniform());
  Token prev = 0, prev2 = 0;
  bool sentence_start = true;
  auto sentence_len = [&] {
    return 1 + static_cast<int>(std::floor(rng.Exponential() * (p_.mean_sentence_words - 1)));
  };
  int remaining = sentence_len();
  const int names = lex_.entity_names();
  while (int(doc.size()) < words) {
    if (remaining == 0) {
      doc.push_back(0);
      prev2 = prev;
      prev = 0;
      sentence_start = true;
      remaining = sentence_len();
      continue;
    }
    if (rng.Uniform() > p_.topic_stay) topic = SampleCdf(pi_cdf_, rng.Uniform());
    Token w;
    if (p_.entity_rate > 0 && rng.Uniform() < p_.entity_rate && names >= 2) {
      w = lex_.twin_end() + p_.entity_half * (names / 2) + SampleCdf(entity_cdf_, rng.Uniform());
      doc.push_back(w);
    } else {
      const double u = rng.Uniform();
      const bool word_before = prev >= 1 && prev < lex_.lower_end();
      if (word_before && u < p_.bigram_weight) {
        w = Successor(uint64_t(prev), topic, SampleCdf(succ_cdf_, rng.Uniform()));
      } else if (word_before && u < p_.bigram_weight + p_.trigram_weight) {
        w = Successor(TrigramHistory(prev2, prev), topic, SampleCdf(succ_cdf_, rng.Uniform()));
      } else {
        w = 1 + SampleCdf(topic_cdf_[topic], rng.Uniform());
      }
      doc.push_back(sentence_start && lex_.TwinOf(w) >= 0 ? lex_.TwinOf(w) : w);
    }
    prev2 = prev;
    prev = w;
    sentence_start = false;
    --remaining;
  }
  return doc;
}

// ---------------------------------------------------------------------------
// Teacher: the exact predictive law (derivation in corpora.h, above Teacher)

double Teacher::TopicWeight(int z) const {
  return (pi_cdf_[z] - (z ? pi_cdf_[z - 1] : 0.0)) / pi_cdf_.back();
}

double Teacher::UnigramProb(int z, Token w) const {
  if (w < 1 || w >= lex_.lower_end()) return 0.0;
  const std::vector<double>& cdf = topic_cdf_[z];
  return CdfMass(cdf, w - 1);
}

double Teacher::RankProb(int rank) const { return CdfMass(succ_cdf_, rank); }

double Teacher::EntityNameProb(Token name) const {
  const int names = lex_.entity_names();
  if (names < 2) return 0.0;
  const int k = name - lex_.twin_end() - p_.entity_half * (names / 2);
  return k >= 0 && k < names / 2 ? CdfMass(entity_cdf_, k) : 0.0;
}

double Teacher::SentenceEndHazard() const {
  const double m1 = p_.mean_sentence_words - 1;
  return m1 > 0 ? -std::expm1(-1.0 / m1) : 1.0;
}

double Teacher::EntityRate() const {
  return p_.entity_rate > 0 && lex_.entity_names() >= 2 ? std::min(1.0, p_.entity_rate) : 0.0;
}

void Teacher::WordProbs(const Context& ctx, Token w, std::vector<double>& out) const {
  out.assign(p_.topics, 0.0);
  const double e = EntityRate();
  if (w >= lex_.twin_end()) {
    std::fill(out.begin(), out.end(), e * EntityNameProb(w));
    return;
  }
  if (w < 1 || w >= lex_.lower_end()) return;
  const bool word_before = ctx.prev >= 1 && ctx.prev < lex_.lower_end();
  // Sample's u < b picks the bigram, b <= u < b + t the trigram (u in (0, 1)).
  const double b = word_before ? Clamp01(p_.bigram_weight) : 0.0;
  const double bt =
      word_before ? Clamp01(std::max(p_.bigram_weight, p_.bigram_weight + p_.trigram_weight)) : 0.0;
  const uint64_t tri = TrigramHistory(ctx.prev2, ctx.prev);
  for (int z = 0; z < p_.topics; ++z) {
    double pz = (1 - bt) * UnigramProb(z, w);
    if (word_before) {
      double big = 0, trig = 0;  // every rank whose follower is w
      for (int r = 0; r < p_.successors; ++r) {
        if (Successor(uint64_t(ctx.prev), z, r) == w) big += RankProb(r);
        if (Successor(tri, z, r) == w) trig += RankProb(r);
      }
      pz += b * big + (bt - b) * trig;
    }
    out[z] = (1 - e) * pz;
  }
}

Token Teacher::Untwin(const Context& ctx, Token o) const {
  if (o <= 0 || o >= lex_.vocab_size()) return -1;
  if (o < lex_.lower_end()) return ctx.sentence_start && lex_.TwinOf(o) >= 0 ? -1 : o;
  if (o < lex_.twin_end()) return ctx.sentence_start ? lex_.Lower(o) : -1;
  return o;  // the entity block: WordProbs says whether this teacher's half
}

void Teacher::Filter(const Document& doc, int t, std::vector<double>& post, Context& ctx,
                     std::vector<double>* logp) const {
  const int topics = p_.topics;
  const double q = SentenceEndHazard();
  const double s = Clamp01(p_.topic_stay);  // P(u <= topic_stay): no redraw
  post.resize(topics);
  for (int z = 0; z < topics; ++z) post[z] = TopicWeight(z);  // z_0 ~ pi
  ctx = Context{};
  std::vector<double> pred(topics), joint(topics);  // (topics)
  for (int i = 0; i < t; ++i) {
    const Token o = doc[i];
    double lp;
    if (o == 0) {  // sentence end: no topic move, prev2 = prev, prev = 0
      lp = ctx.sentence_start ? -INFINITY : std::log(q);
      ctx.prev2 = ctx.prev;
      ctx.prev = 0;
      ctx.sentence_start = true;
    } else {
      for (int z = 0; z < topics; ++z) pred[z] = s * post[z] + (1 - s) * TopicWeight(z);
      const Token w = Untwin(ctx, o);
      double p = 0;
      if (w >= 0) {
        WordProbs(ctx, w, joint);
        for (int z = 0; z < topics; ++z) p += joint[z] *= pred[z];
      }
      const double go_on = ctx.sentence_start ? 1.0 : 1 - q;  // no "." here
      if (p > 0 && go_on > 0) {
        lp = std::log(go_on) + std::log(p);
        for (int z = 0; z < topics; ++z) post[z] = joint[z] / p;
      } else {
        lp = -INFINITY;
        post = pred;
      }
      ctx.prev2 = ctx.prev;
      ctx.prev = w >= 0 ? w : (o >= lex_.lower_end() && o < lex_.twin_end() ? lex_.Lower(o) : o);
      ctx.sentence_start = false;
    }
    if (logp) logp->push_back(lp);
  }
}

std::vector<double> Teacher::PredictiveLogProbs(const Document& doc) const {
  std::vector<double> post, logp;
  Context ctx;
  logp.reserve(doc.size());
  Filter(doc, int(doc.size()), post, ctx, &logp);
  return logp;
}

std::vector<double> Teacher::NextTokenDistribution(const Document& doc, int t) const {
  if (t < 0 || t > int(doc.size())) throw std::out_of_range("Teacher::NextTokenDistribution: t");
  std::vector<double> post;
  Context ctx;
  Filter(doc, t, post, ctx, nullptr);
  const int V = lex_.vocab_size(), lower_end = lex_.lower_end();
  const double s = Clamp01(p_.topic_stay), e = EntityRate(), q = SentenceEndHazard();
  const bool word_before = ctx.prev >= 1 && ctx.prev < lower_end;
  const double b = word_before ? Clamp01(p_.bigram_weight) : 0.0;
  const double bt =
      word_before ? Clamp01(std::max(p_.bigram_weight, p_.bigram_weight + p_.trigram_weight)) : 0.0;
  const uint64_t tri = TrigramHistory(ctx.prev2, ctx.prev);
  std::vector<double> word(V, 0.0);  // (V) p(untwinned w | prefix, a word step)
  for (Token name = lex_.twin_end(); name < V; ++name) word[name] = e * EntityNameProb(name);
  for (int z = 0; z < p_.topics; ++z) {
    const double wz = (1 - e) * (s * post[z] + (1 - s) * TopicWeight(z));
    for (Token w = 1; w < lower_end; ++w) word[w] += wz * (1 - bt) * UnigramProb(z, w);
    if (!word_before) continue;
    for (int r = 0; r < p_.successors; ++r) {
      word[Successor(uint64_t(ctx.prev), z, r)] += wz * b * RankProb(r);
      word[Successor(tri, z, r)] += wz * (bt - b) * RankProb(r);
    }
  }
  std::vector<double> out(V, 0.0);  // (V)
  if (ctx.sentence_start) {  // no "."; a word with a twin shows as its twin
    for (Token w = 1; w < V; ++w) {
      const Token shown = w < lower_end && lex_.TwinOf(w) >= 0 ? lex_.TwinOf(w) : w;
      out[shown] += word[w];
    }
  } else {
    out[0] = q;
    for (Token w = 1; w < V; ++w) out[w] = (1 - q) * word[w];
  }
  return out;
}

double Teacher::MeanPredictiveLogLoss(const std::vector<Document>& docs) const {
  double total = 0;
  int64_t tokens = 0;
  for (const Document& d : docs) {
    for (double lp : PredictiveLogProbs(d)) total -= lp;
    tokens += int64_t(d.size());
  }
  return tokens ? total / double(tokens) : 0.0;
}

// ---------------------------------------------------------------------------
// Splits

std::string CanonicalParams(const CorpusParams& p) {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "kind=%s;seed=%llu;vocab_size=%d;capitalized_fraction=%.17g;entity_tokens=%d;"
                "background_docs=%d;background_words=%d;per_class=%d;member_repeats=%d;length=%d;"
                "ngram_n=%d;ngram_max=%.17g;aux_docs=%d;ood_docs=%d;drift_entity_rate=%.17g;"
                "ood_entity_rate=%.17g;zipf_exponent=%.17g",
                p.kind == SplitKind::kMimir ? "mimir" : "wikimia",
                static_cast<unsigned long long>(p.seed), p.vocab_size, p.capitalized_fraction,
                p.entity_tokens, p.background_docs, p.background_words, p.per_class,
                p.member_repeats, p.length, p.ngram_n, p.ngram_max, p.aux_docs, p.ood_docs,
                p.drift_entity_rate, p.ood_entity_rate, p.zipf_exponent);
  return buf;
}

uint64_t NgramHash(const Token* first, int n) {
  uint64_t x = 0x243f6a8885a308d3ull + uint64_t(n);
  for (int i = 0; i < n; ++i) x = Mix(x ^ uint64_t(uint32_t(first[i])));
  return x;
}

double NgramOverlap(const Document& doc, int n, const std::vector<uint64_t>& seen_sorted, int limit) {
  const int total = std::min<int>(limit, int(doc.size()) - n + 1);
  if (total <= 0) return 0.0;
  int hits = 0;
  for (int i = 0; i < total; ++i) {
    hits += std::binary_search(seen_sorted.begin(), seen_sorted.end(), NgramHash(&doc[i], n));
  }
  return double(hits) / total;
}

std::vector<Document> MiaCorpus::TrainingSet() const {
  std::vector<Document> train = background;
  for (int e = 0; e < params.member_repeats; ++e) train.insert(train.end(), members.begin(), members.end());
  return train;
}

std::string MiaCorpus::SplitName() const {
  char buf[64];
  if (params.kind == SplitKind::kWikiMia) {
    std::snprintf(buf, sizeof buf, "wikimia_%d", params.length);
  } else {
    std::snprintf(buf, sizeof buf, "mimir_ngram_%d_%g", params.ngram_n, params.ngram_max);
  }
  return buf;
}

MiaTeacherParams MiaTeachers(const CorpusParams& p) {
  MiaTeacherParams t;
  const uint64_t structure = Mix(p.seed ^ 0x5eed);
  t.base.seed = structure;
  t.base.zipf_exponent = p.zipf_exponent;
  t.drift = t.base;  // same language, re-weighted topics, entity names
  t.drift.entity_rate = p.drift_entity_rate;
  t.drift.entity_half = 0;
  for (int z = 0; z < t.drift.topics; ++z) t.drift.topic_weights.push_back(std::exp(-0.6 * z));
  // another language: other topic structure and successors
  t.ood.seed = Mix(structure ^ 0x00D);
  t.ood.zipf_exponent = p.zipf_exponent;
  t.ood.entity_rate = p.ood_entity_rate;
  t.ood.entity_half = 1;
  return t;
}

MiaCorpus MakeMiaCorpus(const CorpusParams& p) {
  if (p.background_docs < 1 || p.background_words < 2 || p.per_class < 1 || p.member_repeats < 1 ||
      p.length < 2 || p.ngram_n < 1 || p.ngram_n > 200 || p.aux_docs < 1 || p.ood_docs < 1) {
    throw std::invalid_argument("MakeMiaCorpus: sizes must be >= 1 (length >= 2, ngram_n <= 200)");
  }
  MiaCorpus c{p, Lexicon(p.vocab_size, p.capitalized_fraction, p.entity_tokens), {}, {}, {}, {}, {}, 0, {}};
  const MiaTeacherParams tp = MiaTeachers(p);
  const Teacher base_t(c.lexicon, tp.base), drift_t(c.lexicon, tp.drift), ood_t(c.lexicon, tp.ood);

  const bool mimir = p.kind == SplitKind::kMimir;
  auto words = [&](uint64_t role, uint64_t i) {
    if (!mimir) return p.length;
    h::Rng rng(p.seed, Stream(kLengths, (role << 32) | i));
    return static_cast<int>(rng.UniformInt(100, 200));
  };
  for (int i = 0; i < p.background_docs; ++i) {
    c.background.push_back(base_t.Sample(p.background_words, p.seed, Stream(kBackground, i)));
  }
  for (int i = 0; i < p.per_class; ++i) {
    c.members.push_back(base_t.Sample(words(kMembers, i), p.seed, Stream(kMembers, i)));
  }
  if (!mimir) {
    for (int i = 0; i < p.per_class; ++i) {
      c.nonmembers.push_back(drift_t.Sample(p.length, p.seed, Stream(kNonmembers, i)));
    }
    for (int i = 0; i < p.aux_docs; ++i) {
      c.aux_nonmembers.push_back(drift_t.Sample(p.length, p.seed, Stream(kAux, i)));
    }
  } else {
    // MIMIR's filter: drop candidates whose n-gram overlap with B u D_m is too high.
    std::vector<uint64_t> seen;
    for (const auto* set : {&c.background, &c.members}) {
      for (const auto& d : *set) {
        for (int i = 0; i + p.ngram_n <= int(d.size()); ++i) seen.push_back(NgramHash(&d[i], p.ngram_n));
      }
    }
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    auto draw = [&](uint64_t role, int count, std::vector<Document>& out) {
      for (uint64_t i = 0; int(out.size()) < count; ++i) {
        if (i > uint64_t(50) * count) {
          throw std::runtime_error("MakeMiaCorpus: the n-gram filter rejects almost every non-member");
        }
        Document d = base_t.Sample(words(role, i), p.seed, Stream(role, i));
        if (NgramOverlap(d, p.ngram_n, seen) < p.ngram_max) {
          out.push_back(std::move(d));
        } else {
          ++c.filtered_out;
        }
      }
    };
    draw(kNonmembers, p.per_class, c.nonmembers);
    draw(kAux, p.aux_docs, c.aux_nonmembers);
  }
  for (int i = 0; i < p.ood_docs; ++i) {
    c.ood.push_back(ood_t.Sample(words(kOod, i), p.seed, Stream(kOod, i)));
  }

  h::Hasher hasher;
  hasher.Update(kCorporaName);
  const int version = kCorporaVersion;
  hasher.Update({reinterpret_cast<const char*>(&version), sizeof version});
  hasher.Update(CanonicalParams(p));
  HashDocs(hasher, "background", c.background);
  HashDocs(hasher, "members", c.members);
  HashDocs(hasher, "nonmembers", c.nonmembers);
  HashDocs(hasher, "aux", c.aux_nonmembers);
  HashDocs(hasher, "ood", c.ood);
  c.content_hash = hasher.Digest().Hex();
  return c;
}

}  // namespace cb::gen

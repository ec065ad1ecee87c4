// File: generators/ibedl_mc.cpp
// The synthetic multiple-choice task of IB-EDL (ibedl_mc.h).
#include "generators/ibedl_mc.h"

#include <cmath>
#include <stdexcept>

#include "generators/corpora.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/strings.h"

namespace cb::gen {

namespace h = cb::harness;

std::vector<std::string> McAnswerStrings(int k) {
  std::vector<std::string> out;
  for (int i = 0; i < k; ++i) out.push_back(std::string(" ") + char('A' + i));
  return out;
}

McSplit MakeMcSplit(const McParams& p) {
  if (p.k < 2 || p.k > 8 || p.n < 1 || p.words < 1 || !(p.noise >= 0 && p.noise <= 1))
    throw std::invalid_argument("MakeMcSplit: K must be in [2, 8], n and words >= 1, noise in [0, 1]");
  const CorpusParams corpus{};  // the language fixtures/lm's models were trained on
  const Lexicon lexicon(corpus.vocab_size, corpus.capitalized_fraction, corpus.entity_tokens);
  const MiaTeacherParams teachers = MiaTeachers(corpus);
  const TeacherParams base = p.teacher == McTeacher::kBase ? teachers.base : teachers.ood;
  const Teacher full(lexicon, base);
  McSplit s;
  s.params = p;
  // Keywords: the most topic-specific lowercase word of each of the first K topics.
  for (int z = 0; z < p.k; ++z) {
    Token best = 1;
    double best_ratio = -1;
    for (Token w = 1; w < lexicon.lower_end(); ++w) {
      double mean = 0;
      for (int t = 0; t < base.topics; ++t) mean += full.UnigramProb(t, w) / base.topics;
      const double ratio = mean > 0 ? full.UnigramProb(z, w) / mean : 0.0;
      if (ratio > best_ratio) best_ratio = ratio, best = w;
    }
    s.keywords.push_back(lexicon.Word(best));
  }
  std::string options = " Options:";
  for (int z = 0; z < p.k; ++z) options += std::string(" ") + char('A' + z) + " " + s.keywords[z];
  options += " Answer:";
  // One teacher per class: topic weights one-hot at the class.
  std::vector<Teacher> per_class;
  for (int z = 0; z < p.k; ++z) {
    TeacherParams t = base;
    t.topic_weights.assign(t.topics, 0.0);
    t.topic_weights[z] = 1.0;
    per_class.emplace_back(lexicon, t);
  }
  for (int i = 0; i < p.n; ++i) {
    const uint64_t stream = (p.role << 32) | uint64_t(i);
    h::Rng rng(p.seed, stream);
    const int c = static_cast<int>(rng.UniformInt(0, p.k - 1));
    const Document doc = per_class[c].Sample(p.words, p.seed, stream);
    s.items.push_back({lexicon.Render(doc) + options, c, c});
  }
  // LabelPerturbation: the first floor(noise N) of a seeded shuffle flip.
  const int flips = static_cast<int>(std::floor(p.noise * p.n));
  if (flips > 0) {
    std::vector<char> apply(p.n, 0);
    for (int i = 0; i < flips; ++i) apply[i] = 1;
    h::Rng rng(p.noise_seed, 0);
    rng.Shuffle(std::span<char>(apply));
    for (int i = 0; i < p.n; ++i) {
      if (!apply[i]) continue;
      const int other = static_cast<int>(rng.UniformInt(0, p.k - 2));
      s.items[i].label = other < s.items[i].clean_label ? other : other + 1;
    }
    s.flipped = flips;
  }
  std::string all = h::StrFormat("ibedl_mc;v=%d;teacher=%d;k=%d;n=%d;words=%d;noise=%.17g;seed=%llu;role=%llu;"
                                 "noise_seed=%llu\n",
                                 kIbedlMcVersion, int(p.teacher), p.k, p.n, p.words, p.noise,
                                 static_cast<unsigned long long>(p.seed), static_cast<unsigned long long>(p.role),
                                 static_cast<unsigned long long>(p.noise_seed));
  for (const McItem& it : s.items) all += it.prompt + "\t" + std::to_string(it.label) + "\n";
  s.content_hash = h::Xxh3_128(all).Hex();
  return s;
}

}  // namespace cb::gen

// File: generators/corpora_test.cpp
// Tests of the synthetic MIA corpora: determinism and content hashes, the
// lexicon's lower-casing closure, the splits' sizes and laws (entity names only
// in drifted non-members, MIMIR's n-gram filter obeyed), nested truncation.
#include "generators/corpora.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "fixtures/golden.h"

namespace {

using cb::gen::CorpusParams;
using cb::gen::MakeMiaCorpus;
using cb::gen::SplitKind;

CorpusParams Small(SplitKind kind) {
  CorpusParams p;
  p.kind = kind;
  p.vocab_size = 1024;
  p.entity_tokens = 128;
  p.background_docs = 40;
  p.background_words = 300;
  p.per_class = 30;
  p.aux_docs = 10;
  p.ood_docs = 10;
  return p;
}

TEST(Corpora, DeterministicAndHashCoversParamsAndSeed) {
  const auto a = MakeMiaCorpus(Small(SplitKind::kWikiMia));
  const auto b = MakeMiaCorpus(Small(SplitKind::kWikiMia));
  EXPECT_EQ(a.content_hash, b.content_hash);
  EXPECT_EQ(a.members, b.members);
  EXPECT_EQ(a.content_hash.size(), 32u);
  auto p = Small(SplitKind::kWikiMia);
  p.seed = 2;
  EXPECT_NE(MakeMiaCorpus(p).content_hash, a.content_hash);
  p = Small(SplitKind::kWikiMia);
  p.member_repeats = 2;  // same documents, other params: other hash
  const auto c = MakeMiaCorpus(p);
  EXPECT_EQ(c.members, a.members);
  EXPECT_NE(c.content_hash, a.content_hash);
}

TEST(Corpora, LexiconIsMixedCaseAndClosedUnderLowercasing) {
  const cb::gen::Lexicon lex(1024, 0.15, 128);
  int upper = 0;
  for (int t = 0; t < lex.vocab_size(); ++t) {
    std::string w = lex.Word(t);
    upper += std::any_of(w.begin(), w.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)); });
    for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(lex.Word(lex.Lower(t)), w) << "token " << t;
  }
  EXPECT_GT(upper, 100);
  const auto corpus = MakeMiaCorpus(Small(SplitKind::kWikiMia));
  const auto& doc = corpus.nonmembers[0];
  EXPECT_EQ(lex.Tokenize(lex.Render(doc)), doc);
  std::string lowered = lex.Render(doc);
  for (char& ch : lowered) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  EXPECT_EQ(lex.Tokenize(lowered), lex.LowerDoc(doc));
  EXPECT_THROW(lex.Tokenize("notaword123"), std::invalid_argument);
}

TEST(Corpora, WikiMiaLikeShiftsOnlyTheNonMembers) {
  const auto p = Small(SplitKind::kWikiMia);
  const auto c = MakeMiaCorpus(p);
  ASSERT_EQ(c.members.size(), size_t(p.per_class));
  ASSERT_EQ(c.nonmembers.size(), size_t(p.per_class));
  auto entities = [&](const std::vector<cb::gen::Document>& docs) {
    int64_t n = 0;
    for (const auto& d : docs) {
      EXPECT_EQ(d.size(), size_t(p.length));
      for (auto t : d) n += t >= c.lexicon.twin_end();
    }
    return n;
  };
  EXPECT_EQ(entities(c.members), 0);
  EXPECT_GT(entities(c.nonmembers), 0);
  EXPECT_GT(entities(c.aux_nonmembers), 0);
  EXPECT_EQ(c.TrainingSet().size(), size_t(p.background_docs + p.per_class));
  // Truncation: a shorter length gives the prefixes of the same texts.
  auto q = p;
  q.length = 32;
  const auto short_c = MakeMiaCorpus(q);
  EXPECT_TRUE(std::equal(short_c.nonmembers[3].begin(), short_c.nonmembers[3].end(),
                         c.nonmembers[3].begin()));
}

TEST(Corpora, MimirLikeFilterHoldsAndOodDiffers) {
  auto p = Small(SplitKind::kMimir);
  p.ngram_n = 7;
  p.ngram_max = 0.2;
  p.member_repeats = 2;
  const auto c = MakeMiaCorpus(p);
  std::vector<uint64_t> seen;
  for (const auto* set : {&c.background, &c.members}) {
    for (const auto& d : *set) {
      for (size_t i = 0; i + 7 <= d.size(); ++i) seen.push_back(cb::gen::NgramHash(&d[i], 7));
    }
  }
  std::sort(seen.begin(), seen.end());
  for (const auto& d : c.nonmembers) {
    EXPECT_GE(d.size(), 100u);
    EXPECT_LE(d.size(), 200u);
    EXPECT_LT(cb::gen::NgramOverlap(d, 7, seen), 0.2);
  }
  EXPECT_EQ(c.TrainingSet().size(), size_t(p.background_docs + 2 * p.per_class));
  // A member overlaps fully with the training data.
  EXPECT_EQ(cb::gen::NgramOverlap(c.members[0], 7, seen), 1.0);
  EXPECT_EQ(c.SplitName(), "mimir_ngram_7_0.2");
}

TEST(Corpora, MimirFilterRejectsOverlappingCandidates) {
  // Bigram overlap is high on this language, so a 2-gram filter at 0.5 bites.
  auto p = Small(SplitKind::kMimir);
  p.ngram_n = 2;
  p.ngram_max = 0.5;
  const auto c = MakeMiaCorpus(p);
  EXPECT_GT(c.filtered_out, 0);
  std::vector<uint64_t> seen;
  for (const auto* set : {&c.background, &c.members}) {
    for (const auto& d : *set) {
      for (size_t i = 0; i + 2 <= d.size(); ++i) seen.push_back(cb::gen::NgramHash(&d[i], 2));
    }
  }
  std::sort(seen.begin(), seen.end());
  for (const auto& d : c.nonmembers) EXPECT_LT(cb::gen::NgramOverlap(d, 2, seen), 0.5);
  // A unigram filter at 0.2 rejects (nearly) everything: a clear error, not a hang.
  p.ngram_n = 1;
  p.ngram_max = 0.2;
  EXPECT_THROW(MakeMiaCorpus(p), std::runtime_error);
}

TEST(Corpora, RejectsBadParams) {
  auto p = Small(SplitKind::kWikiMia);
  p.per_class = 0;
  EXPECT_THROW(MakeMiaCorpus(p), std::invalid_argument);
  EXPECT_THROW(cb::gen::Lexicon(32, 0.1, 0), std::invalid_argument);
}

// Golden content hashes (fixtures/generators/corpora_golden.txt, see
// fixtures/PROVENANCE.md): they pin the generator's output across platforms
// and changes; an intended change bumps kCorporaVersion and these lines.
TEST(Corpora, ContentHashesMatchFixture) {
  std::map<std::string, std::string> actual;
  actual["wikimia_small_seed1"] = MakeMiaCorpus(Small(SplitKind::kWikiMia)).content_hash;
  actual["mimir_small_seed1"] = MakeMiaCorpus(Small(SplitKind::kMimir)).content_hash;
  cb::testing::ExpectMatchesGolden("generators/corpora_golden.txt", actual);
}

}  // namespace

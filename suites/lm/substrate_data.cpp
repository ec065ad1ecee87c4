// File: suites/lm/substrate_data.cpp
// -----------------------------------------------------------------------------
// The substrate's corpus, tokenizer and token streams (substrate_data.h).
#include "suites/lm/substrate_data.h"

#include <cstdint>

namespace cb::lm_suite {

namespace {
constexpr uint64_t kHeldoutRole = 0xB0;  // a stream role the corpus never uses (corpora.cpp)
}

std::string DocumentText(const gen::Lexicon& lexicon, const gen::Document& doc) {
  return lexicon.Render(doc) + "\n";
}

SubstrateData MakeSubstrateData(int vocab_size,
                                const std::optional<ref::lm::BpeTokenizer>& tokenizer) {
  const gen::CorpusParams params{};
  SubstrateData d{gen::MakeMiaCorpus(params), ref::lm::BpeTokenizer(), {}, {}, {}};
  std::vector<std::string> texts;
  for (const gen::Document& doc : d.corpus.TrainingSet())
    texts.push_back(DocumentText(d.corpus.lexicon, doc));
  d.tokenizer = tokenizer ? *tokenizer : ref::lm::BpeTokenizer::Train(texts, vocab_size);
  for (const std::string& t : texts) {
    const std::vector<int> ids = d.tokenizer.Encode(t);
    d.train_stream.insert(d.train_stream.end(), ids.begin(), ids.end());
  }
  const gen::Teacher base(d.corpus.lexicon, gen::MiaTeachers(params).base);
  for (int i = 0; i < kHeldoutDocs; ++i) {
    d.heldout_docs.push_back(
        base.Sample(kHeldoutWords, params.seed, (kHeldoutRole << 40) | uint64_t(i)));
    const std::vector<int> ids = d.tokenizer.Encode(DocumentText(d.corpus.lexicon, d.heldout_docs.back()));
    d.heldout_stream.insert(d.heldout_stream.end(), ids.begin(), ids.end());
  }
  return d;
}

}  // namespace cb::lm_suite

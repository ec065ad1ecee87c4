// File: suites/lm/substrate_data.h
// -----------------------------------------------------------------------------
// The data the substrate's models are trained and evaluated on (issue 18): the
// mia suite's default corpus (generators/corpora.h, CorpusParams{}: a
// WikiMIA-like split of a topic-HMM teacher), a byte-level BPE trained on its
// training set (reference/lm/bpe_tokenizer.h), and token streams:
//   train    TrainingSet() (background + members), each document rendered
//            (Lexicon::Render) and followed by "\n", encoded, concatenated;
//   heldout  kHeldoutDocs fresh documents of the base teacher (the members'
//            and background's law), kHeldoutWords words each, from streams
//            the corpus never draws (role 0xB0), encoded the same way.
// The held-out documents are also kept as teacher tokens, so the teacher's
// exact predictive log-loss (the Bayes limit) is computed on the same text.
// Deterministic: a pure function of the corpus params and the vocabulary size.
#ifndef CB_SUITES_LM_SUBSTRATE_DATA_H_
#define CB_SUITES_LM_SUBSTRATE_DATA_H_

#include <optional>
#include <string>
#include <vector>

#include "generators/corpora.h"
#include "reference/lm/bpe_tokenizer.h"

namespace cb::lm_suite {

inline constexpr int kHeldoutDocs = 40;
inline constexpr int kHeldoutWords = 500;

struct SubstrateData {
  gen::MiaCorpus corpus;
  ref::lm::BpeTokenizer tokenizer;
  std::vector<int> train_stream;
  std::vector<gen::Document> heldout_docs;  // teacher tokens
  std::vector<int> heldout_stream;          // BPE ids of the same text
};

// `tokenizer`: reuse this one (e.g. loaded from a checkpoint) instead of
// training a new one of `vocab_size` tokens.
SubstrateData MakeSubstrateData(int vocab_size,
                                const std::optional<ref::lm::BpeTokenizer>& tokenizer = {});

// One document's text as the streams hold it: Render(doc) + "\n".
std::string DocumentText(const gen::Lexicon& lexicon, const gen::Document& doc);

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_SUBSTRATE_DATA_H_

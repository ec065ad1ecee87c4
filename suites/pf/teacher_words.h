// File: suites/pf/teacher_words.h
// -----------------------------------------------------------------------------
// Scores text a transformer generated on the substrate corpus by the corpus
// teacher's exact log-likelihood (generators/corpora.h, Teacher::
// PredictiveLogProbs). The transformer writes BPE ids; the teacher reads
// words of its Lexicon. The bridge is the text itself, as the substrate's
// streams hold it (suites/lm/substrate_data.h: Render(doc) + "\n", words
// joined by single spaces):
//   1. text = Decode(prompt + new ids), cut at the first "\n" (the end of a
//      document; what follows would be a new document, which the teacher
//      does not condition on the previous one);
//   2. split on single spaces; when no "\n" was reached the last piece may be
//      a word cut mid-way by the token budget, so it is dropped;
//   3. map each piece to its lexicon id. A piece that is not a word (an
//      unknown spelling, or "" from a doubled space) is counted in `unknown`;
//      scoring stops at the first one, since the teacher's state after it is
//      undefined. Nothing is dropped silently: every generated piece is
//      counted as scored, impossible, unknown or unscored-after-unknown.
// Only the generated words are summed (the prompt's words condition them).
// A word the teacher gives probability 0 at its position (e.g. a lowercase
// word with a twin at a sentence start) is counted in `impossible` and kept
// out of `nats`.
#ifndef CB_SUITES_PF_TEACHER_WORDS_H_
#define CB_SUITES_PF_TEACHER_WORDS_H_

#include <span>
#include <string>

#include "generators/corpora.h"
#include "reference/lm/bpe_tokenizer.h"

namespace cb::pf {

struct TeacherScore {
  int generated_words = 0;  // pieces after the prompt's words (step 2)
  int scored = 0;           // of them: finite teacher log-prob, summed in nats
  int impossible = 0;       // of them: teacher probability 0
  int unknown = 0;          // of them: not a lexicon word (first one stops scoring)
  int after_unknown = 0;    // of them: not scored because an unknown came first
  bool document_end = false;   // a "\n" cut the text
  bool prompt_altered = false; // the prompt's words did not survive (its last word was extended)
  double nats = 0;          // -sum log p over the scored words
};

// REQUIRES: prompt_words.size() >= 1; `ids` = prompt ids + new ids.
TeacherScore ScoreWithTeacher(const gen::Teacher& teacher, const ref::lm::BpeTokenizer& tokenizer,
                              const gen::Document& prompt_words, std::span<const int> ids);

}  // namespace cb::pf

#endif  // CB_SUITES_PF_TEACHER_WORDS_H_

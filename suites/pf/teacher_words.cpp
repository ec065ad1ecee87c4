// File: suites/pf/teacher_words.cpp
// -----------------------------------------------------------------------------
// BPE text -> teacher words -> the teacher's exact log-likelihood
// (teacher_words.h).
#include "suites/pf/teacher_words.h"

#include <cmath>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace cb::pf {

namespace {

// The lexicon id of `word`, or -1 when it is not a single lexicon word.
int LookUp(const gen::Lexicon& lexicon, std::string_view word) {
  if (word.empty() || word.find(' ') != std::string_view::npos) return -1;
  try {
    const gen::Document d = lexicon.Tokenize(word);
    return d.size() == 1 ? d[0] : -1;
  } catch (const std::invalid_argument&) {
    return -1;
  }
}

}  // namespace

TeacherScore ScoreWithTeacher(const gen::Teacher& teacher, const ref::lm::BpeTokenizer& tokenizer,
                              const gen::Document& prompt_words, std::span<const int> ids) {
  if (prompt_words.empty()) throw std::invalid_argument("ScoreWithTeacher: empty prompt");
  const gen::Lexicon& lexicon = teacher.lexicon();
  std::string text = tokenizer.Decode(ids);
  TeacherScore s;
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) {
    text.resize(nl);
    s.document_end = true;
  }
  std::vector<std::string_view> pieces;
  std::string_view rest(text);
  for (;;) {
    const size_t sp = rest.find(' ');
    if (sp == std::string_view::npos) {
      // The last piece: complete only when a "\n" ended it.
      if (s.document_end) pieces.push_back(rest);
      break;
    }
    pieces.push_back(rest.substr(0, sp));
    rest.remove_prefix(sp + 1);
  }
  const size_t k = prompt_words.size();
  for (size_t i = 0; i < k; ++i)
    if (i >= pieces.size() || LookUp(lexicon, pieces[i]) != prompt_words[i]) s.prompt_altered = true;
  if (pieces.size() <= k) return s;
  s.generated_words = static_cast<int>(pieces.size() - k);
  gen::Document doc(prompt_words.begin(), prompt_words.end());
  bool stopped = false;
  for (size_t i = k; i < pieces.size(); ++i) {
    if (stopped) {
      ++s.after_unknown;
      continue;
    }
    const int id = LookUp(lexicon, pieces[i]);
    if (id < 0) {
      ++s.unknown;
      stopped = true;
      continue;
    }
    doc.push_back(id);
  }
  if (s.prompt_altered) {
    // The prompt's positions hold other words; the teacher's conditioning
    // would not be the prompt's, so nothing is scored (counted, not dropped).
    s.after_unknown += static_cast<int>(doc.size() - k);
    return s;
  }
  const std::vector<double> logp = teacher.PredictiveLogProbs(doc);
  for (size_t t = k; t < doc.size(); ++t) {
    if (std::isinf(logp[t])) {
      ++s.impossible;
    } else {
      ++s.scored;
      s.nats -= logp[t];
    }
  }
  return s;
}

}  // namespace cb::pf

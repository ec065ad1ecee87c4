// File: reference/sgp/sgp.h
// -----------------------------------------------------------------------------
// The SGP-Bench scorer (brief generators-videoniah-sgp-cbplm.md §2.2): the
// official prompt template, answer extraction in two modes, accuracy overall
// and per Subject, and consistency over an original and its invariance
// variants (evaluate_consistency.py).
//
// Extraction modes:
//   kPaperCompatible  simple-evals' rule: the FIRST match of
//                     (?i)Answer\s*:\s*([A-D]) anywhere in the response; the
//                     captured letter is compared with the key case-
//                     sensitively, so "answer: b" extracts "b" and scores 0.
//   kStrict           the LAST line of the form `Answer: X` (any case of the
//                     word, X one of A-D in upper or lower case, optional
//                     surrounding `*`, `(`, `)` or a trailing '.'), as the prompt
//                     asks ("The last line of your response should be ...");
//                     the letter is upper-cased before comparing. Several
//                     "Answer:" lines: the last one counts. Nothing matching:
//                     no answer (wrong).
// The paper's "up to 5 re-queries if nothing matches" is a property of the
// endpoint loop, not of scoring; we score the one response we have.
//
// Consistency (per question): over the original and its variants, the count
// of the most common extracted answer (no answer counts as its own value)
// divided by the number of versions; averaged over questions.
#ifndef CB_REFERENCE_SGP_SGP_H_
#define CB_REFERENCE_SGP_SGP_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::sgp {

enum class Mode { kStrict, kPaperCompatible };
const char* ModeName(Mode m);  // "strict" | "paper-compatible"

// The extracted letter: 'A'..'D' (paper mode may return 'a'..'d'), or 0 for none.
char Extract(std::string_view response, Mode mode);
// Whether `response` scores as `key` ('A'..'D').
bool Correct(std::string_view response, char key, Mode mode);

// simple-evals' multiple-choice template around a row's Question and options.
std::string Prompt(const std::string& question, const std::string& a, const std::string& b, const std::string& c,
                   const std::string& d);
// System prompts the paper used: OpenAI models, open models; gemma, mistral
// and starcoder get none.
inline constexpr const char* kSystemOpenAi = "You are a helpful assistant.";
inline constexpr const char* kSystemOpen = "You are a large language model trained.";

inline constexpr const char* kSubjects[] = {"Semantics", "Color", "Shape", "Count", "Reasoning"};
bool KnownSubject(std::string_view s);

// One scored row of a predictions file (JSON Lines): the dataset row's
// `Answer` and `Subject`, the model's raw `response`, and optionally `split`
// ("svg", "inv", "inv_t0", ...) and `index` (the row's position in its split),
// which consistency needs.
struct Prediction {
  std::string subject;
  char answer = 'A';
  std::string response;
  std::string split;  // empty when absent
  int index = -1;     // -1 when absent
};

// Throws std::runtime_error "SOURCE:LINE: what" for bad JSON, a missing or
// non-string field, an Answer that is not one letter A-D, an unknown Subject,
// or a negative index.
std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source);

struct Tally {
  int n = 0, correct = 0, unanswered = 0;
  double Accuracy() const { return n ? 100.0 * correct / n : 0.0; }
};

struct Scores {
  Tally overall;
  std::map<std::string, Tally> subjects;  // only subjects present
  std::map<std::string, Tally> splits;    // by split ("" when absent)
};

Scores Score(const std::vector<Prediction>& preds, Mode mode);

// Consistency of `originals` with `variant` splits (rows matched by index):
// per question, majority count / (1 + number of variants), averaged; in [0, 1].
// nullopt when no row has both an original and all variants.
struct Consistency {
  double value = 0;
  int questions = 0;
};
std::optional<Consistency> ScoreConsistency(const std::vector<Prediction>& preds, const std::string& original,
                                            const std::vector<std::string>& variants, Mode mode);

inline constexpr double kChance = 25.0;  // %, four options

}  // namespace cb::ref::sgp

#endif  // CB_REFERENCE_SGP_SGP_H_

// File: reference/sgp/sgp.h
// -----------------------------------------------------------------------------
// The SGP-Bench scorer (brief generators-videoniah-sgp-cbplm.md §2.2): the
// official prompt template, answer extraction in two modes, accuracy overall
// and per Subject, and consistency over an original and its invariance
// variants (evaluate_consistency.py).
//
// Extraction modes:
//   kPaperCompatible  the official rule (sgp-bench/sgp-bench at
//                     e7906399beebb82ab5dcc4aa547eaec8674c9144, built on
//                     simple-evals): re.search(r"(?i)Answer\s*:\s*([A-D])",
//                     response_text) (common.py line 35, sgp_eval.py line 43),
//                     the FIRST match anywhere, on a Python str. So, on the
//                     UTF-8 text: \s is any of the 29 code points for which
//                     str.isspace() holds (U+0009-000D, U+001C-001F, U+0020,
//                     U+0085, U+00A0, U+1680, U+2000-200A, U+2028, U+2029,
//                     U+202F, U+205F, U+3000: a no-break space after the
//                     colon matches); ':' is only U+003A (a fullwidth colon
//                     does not match); (?i) lets the class match a-d and the
//                     word's 's' match U+017F LATIN SMALL LETTER LONG S, as
//                     Python's re does. The captured letter is compared with
//                     the key as it is (sgp_eval.py line 47), so "answer: b"
//                     extracts "b" and scores 0. Re-queries (sgp_eval.py lines
//                     33-45): up to 5 attempts, stopping at the first that
//                     matches at all (a lower-case match stops the loop too);
//                     a row's later attempts are in `requeries`, and those
//                     past the fifth attempt are never looked at.
//   kStrict           the LAST line of the form `Answer: X` (any case of the
//                     word, X one of A-D in upper or lower case, optional
//                     surrounding `*`, `(`, `)` or a trailing '.', ASCII
//                     whitespace around the parts), as the prompt asks ("The
//                     last line of your response should be ..."); the letter
//                     is upper-cased before comparing. Several "Answer:" lines:
//                     the last one counts. Nothing matching: no answer
//                     (wrong). Only the FIRST attempt is scored: one question,
//                     one answer, so a model is not given extra draws for
//                     ignoring the format.
// `claimbench eval sgp --endpoint` asks each question once; re-query attempts
// come only from a predictions file's `responses`.
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

// The letter extracted from one response: 'A'..'D' (paper mode may return
// 'a'..'d'), or 0 for none.
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
// A row may give `responses` instead of `response`: the successive attempts
// of the re-query loop, in order.
struct Prediction {
  std::string subject;
  char answer = 'A';
  std::string response;  // the first attempt
  std::string split;  // empty when absent
  int index = -1;     // -1 when absent
  std::vector<std::string> requeries;  // the attempts after the first, in order
};

// The official loop's cap on attempts per question (sgp_eval.py line 33).
inline constexpr int kMaxAttempts = 5;

// The letter a row scores with (0 for none): paper mode replays the re-query
// loop over its attempts, strict mode reads the first attempt.
char ExtractRow(const Prediction& p, Mode mode);

// Throws std::runtime_error "SOURCE:LINE: what" for bad JSON, a missing field
// ("missing field 'Subject'") or one of the wrong type ("'response' must be a
// string, not null": a null is never called missing), both or neither of
// `response` and `responses`, a `responses` that is not a non-empty list of
// strings, an Answer that is not one letter A-D, an unknown Subject, or a
// negative index.
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

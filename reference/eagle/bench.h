// File: reference/eagle/bench.h
// -----------------------------------------------------------------------------
// A prediction file for EAGLE's benchmarks and its aggregate scores.
//
// File format (JSON Lines, one question a line): the fields lmms-eval's
// process_results reads from its doc, plus the model's text as "pred"
// (results[0]):
//   {"question_id": str|int, "task": T, "pred": str, ...}
//   T = textvqa | vqav2 | docvqa   "answers": [str, ...] (non-empty)
//       chartqa                    "answer": str, optional "type"
//                                  ("human_test" -> human split, else augmented)
//       ocrbench                   "answer": str | [str, ...], "dataset": str
//                                  ("HME100k" has its own rule), "question_type": str
//       mme                        "answer": yes|no, "category": str; question_id
//                                  is the image (two questions share it)
//       mcq                        "answer": a letter A-D (our generator's
//                                  multiple-choice questions)
// Aggregates (lmms-eval's):
//   textvqa, vqav2   mean accuracy x 100          docvqa  mean ANLS x 100
//   chartqa          relaxed accuracy x 100 (overall, human, augmented)
//   ocrbench         correct answers (the paper's "out of 1000" is the count on
//                    OCRBench's 1000 questions); we also give 1000 * correct / n
//   mme              per category: mean over images of acc + acc+ (acc: % of
//                    the image's questions right; acc+: 100 if all are), the
//                    perception score the sum over the 10 perception
//                    categories, cognition over the other 4 (any other
//                    category counts as cognition, as in the code). Paper mode
//                    requires exactly 2 questions per image (the code's assert).
//   mcq              letter accuracy x 100: the reply stripped, an optional '(',
//                    a capital A-D, then the end or a non-letter ("C", "C.",
//                    "(C) mango"); both modes.
#ifndef CB_REFERENCE_EAGLE_BENCH_H_
#define CB_REFERENCE_EAGLE_BENCH_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reference/eagle/vqa_normalize.h"

namespace cb::ref::eagle {

struct Prediction {
  std::string question_id, task, pred;
  std::vector<std::string> answers;  // one element for the single-answer tasks
  std::string split;                 // chartqa type / ocrbench question_type / mme category
  std::string dataset;               // ocrbench
};

// The tasks in display order.
const std::vector<std::string>& Tasks();

// Parses the file. Throws std::runtime_error "SOURCE:LINE: what" for bad
// JSON, an unknown task, a missing field or a field of the wrong type, an
// MME answer that is not yes/no, an mcq answer that is not A-D.
std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source);

struct TaskScore {
  int n = 0;
  double value = 0;                     // the task's headline (see above)
  std::string metric, unit;
  std::map<std::string, double> parts;  // splits / categories
};
struct Scores {
  std::map<std::string, TaskScore> tasks;
};

// Letter 0..3 of an mcq reply, or -1.
int ExtractLetter(std::string_view pred);
// One question's score in [0, 1] (mme: 1 if the parsed reply equals the answer).
double ScoreOne(const Prediction& p, Mode mode);
// Throws std::runtime_error naming `source` when paper mode's MME assert fails.
Scores Score(const std::vector<Prediction>& preds, Mode mode, const std::string& source = "predictions");

}  // namespace cb::ref::eagle

#endif  // CB_REFERENCE_EAGLE_BENCH_H_

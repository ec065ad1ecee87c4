// File: reference/vnbench/vnbench.h
// -----------------------------------------------------------------------------
// The VNBench scorer (brief generators-videoniah-sgp-cbplm.md §1.3): letter
// extraction, the 4-try rule, per-subtask and overall accuracy in both
// aggregation conventions, single-try accuracy and chance levels.
//
// Two extraction modes:
//   kStrict           the answer is a letter A-D standing alone at the start
//                     ("C", "C.", "(C)", "C) mango"), or after "answer is" /
//                     "answer:" (any case), e.g. "Answer: C"; anything else
//                     (lowercase letters alone, refusals, two letters) is no
//                     answer, which scores wrong. A null `pred` (no answer
//                     came back) is a try scored wrong; `gpt_judge` is
//                     ignored: strict scores the model's own letter.
//   kPaperCompatible  the official eval.py (joez17/VideoNIAH, evaluation/eval.py
//                     at 8193a3b20ac1c2fcac9c3e8c1550095628f7628f), quirks
//                     included: pred is cut at its first '.' (line 18), then
//                     the first of 'A','B','C','D' that occurs anywhere in what
//                     is left, tested in that order, is the answer (lines
//                     41-48). So "Answer: C" scores as A (the capital A of
//                     "Answer"), and "I think D" as D. A row whose pred is null
//                     is skipped (lines 12-13): it is not a try, an item whose
//                     tries are all null is not an item, a subtask whose rows
//                     are all null is not in the overall mean, and an item with
//                     a null try can never reach the 4 right tries it needs
//                     (line 52). A row with `gpt_judge` is right iff
//                     gpt_judge[0] == '1' (lines 24-25, 37-38), Python
//                     indexing: the first character of a string, the first
//                     element of a list (gpt_judge.py writes ["<reply>"]).
//
// 4-try rule: an item (question_id minus its trailing "_<try>") is correct
// only if all four of its tries are. Overall: eval.py's mean of the nine
// subtask accuracies, and evaluation_utils.py's mean of the ret / ord / cnt
// group means. Chance under the 4-try rule is (1/4)^4 = 0.39%.
#ifndef CB_REFERENCE_VNBENCH_VNBENCH_H_
#define CB_REFERENCE_VNBENCH_VNBENCH_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::vnbench {

enum class Mode { kStrict, kPaperCompatible };
const char* ModeName(Mode m);  // "strict" | "paper-compatible"

// The letter index 0..3 that `pred` answers, or -1 for none.
int ExtractLetter(std::string_view pred, Mode mode);

// One row of an eval.py input file.
struct Prediction {
  std::string question_id;  // "<video>_<type>_<try>"
  std::string pred;         // the model's raw text ("" when pred_null)
  int gt = 0;               // 0..3 (file: a letter or 0..3; not read when pred_null)
  std::string type;         // subtask key, e.g. "ord_insert1"
  bool pred_null = false;   // "pred": null, a try that got no answer
  std::optional<bool> judge;  // "gpt_judge" given: whether gpt_judge[0] == '1'
  std::string where;          // "SOURCE:LINE: " of its row (ParsePredictions); "" when made in code
};

// Parses JSON Lines in eval.py's format. Throws std::runtime_error naming
// `source:line` and what is wrong: bad JSON; a field that is absent ("missing
// field 'gt'") or of the wrong type ("'pred' must be a string or null, not a
// number"; a null is never called missing); gt not A-D/0-3; a gpt_judge that
// eval.py could not index (null, a number, an empty string or list). As in
// eval.py, a row whose pred is null is read only for question_id and type.
std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source);

struct TaskScore {
  int items = 0;            // items with 4 tries
  int items_correct = 0;    // all 4 correct
  int tries = 0, tries_correct = 0;  // paper mode: the tries whose pred is not null
  int unanswered = 0;       // tries with no extractable letter (strict: null preds too)
  double FourTry() const { return items ? 100.0 * items_correct / items : 0.0; }
  double SingleTry() const { return tries ? 100.0 * tries_correct / tries : 0.0; }
};

struct Scores {
  std::map<std::string, TaskScore> tasks;  // by subtask key
  double overall_task_mean = 0;    // eval.py: mean of subtask 4-try accuracies, %
  double overall_group_mean = 0;   // evaluation_utils.py: mean of ret/ord/cnt group means, %
  double overall_single_try = 0;   // mean of subtask single-try accuracies, %
  int null_tries = 0;              // rows whose pred is null (paper mode leaves them out)
  int items_left_out = 0;          // paper mode: items whose 4 tries are all null
};

// Scores predictions. Throws std::runtime_error when an item does not have
// exactly the rows for tries 0..3 (null preds included) or a question_id
// repeats, starting with the row's `where` (an item's first row's). In paper mode a subtask with no non-null row is absent from
// `tasks`, as from eval.py's table; with none at all, `tasks` is empty.
Scores Score(const std::vector<Prediction>& preds, Mode mode);

inline constexpr double kChanceFourTry = 100.0 / 256.0;  // %, (1/4)^4
inline constexpr double kChanceSingleTry = 25.0;         // %

}  // namespace cb::ref::vnbench

#endif  // CB_REFERENCE_VNBENCH_VNBENCH_H_

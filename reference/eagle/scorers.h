// File: reference/eagle/scorers.h
// -----------------------------------------------------------------------------
// The per-question scorers of EAGLE's benchmarks (brief other-papers.md §7(c)),
// ported from the lmms-eval copy in NVlabs/EAGLE at
// fef95f103b5e9899acbbe2c237e5b99147ab7e8e (paths below). Each takes a Mode:
// kPaperCompatible does what that code does on every input, quirks included;
// kStrict is the metric as its paper defines it. suites/eagle/README.md lists
// every difference.
//
//   TextVqaAccuracy  lmms_eval/tasks/textvqa/utils.py (= eagle/eval/m4c_evaluator.py):
//                    pred and every answer through Normalize(); for each answer
//                    i, min(1, #(other answers j != i equal to pred) / 3);
//                    the mean over i. Both modes.
//   Vqav2Accuracy    lmms_eval/tasks/vqav2/utils.py: answers only get \n,\t ->
//                    ' ' and strip; pred gets Normalize(); only when the answers
//                    are not all identical do both get ProcessPunctuation +
//                    ProcessDigitArticle again, so ten identical "Yes" never
//                    match the prediction "yes" (paper). The leave-one-out is
//                    by answer (answer_id is unique). kStrict: answers through
//                    Normalize() always.
//   Anls             lmms_eval/api/metrics.py anls(): per reference, the
//                    Levenshtein distance (code points) of the stripped,
//                    lower-cased, space-collapsed strings over the length of
//                    the RAW strings (paper: untrimmed, so surrounding spaces
//                    make a near miss look closer), 1 - min, then 0 if below
//                    0.5 (so exactly 0.5 is kept). kStrict (DocVQA's ANLS):
//                    the normalised lengths, and NL < 0.5 to score (0.5 -> 0).
//   RelaxedCorrect   lmms_eval/tasks/chartqa/utils.py relaxed_correctness
//                    (from Qwen-VL): Python float() of both (see PyFloat; a
//                    trailing '%' run divides by 100); if the prediction
//                    parses and the target parses to a non-zero number,
//                    |p - t| / |t| <= 0.05; otherwise the lower-cased strings
//                    must be equal (a target of 0 is a string match: "0.0" is
//                    wrong for "0"). kStrict: both stripped and a final '.'
//                    dropped, a zero target compared as a number.
//   OcrBenchCorrect  lmms_eval/tasks/ocrbench/utils.py: the answer (any of a
//                    list) is a substring of the lower-cased, stripped
//                    prediction, the answer lower-cased too except for
//                    HME100k, where spaces are deleted on both sides and the
//                    answer keeps its case (paper: a capital in a HME100k
//                    answer can never match). kStrict: HME100k compared with
//                    case kept on both sides. An empty answer matches anything.
//   MmeParse         lmms_eval/tasks/mme/utils.py parse_pred_ans: lower, strip,
//                    delete '.', "yes"/"no" exactly, else "yes" in the first 4
//                    characters, else "no" in them ("know", "not sure" -> no),
//                    else "other".
#ifndef CB_REFERENCE_EAGLE_SCORERS_H_
#define CB_REFERENCE_EAGLE_SCORERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/eagle/vqa_normalize.h"

namespace cb::ref::eagle {

// REQUIRES: answers non-empty (the code's statistics.mean raises otherwise).
double TextVqaAccuracy(std::string_view pred, const std::vector<std::string>& answers, Mode mode);
double Vqav2Accuracy(std::string_view pred, const std::vector<std::string>& answers, Mode mode);
// REQUIRES: references non-empty (min() of nothing raises).
double Anls(std::string_view pred, const std::vector<std::string>& references, Mode mode, double tau = 0.5);
bool RelaxedCorrect(std::string_view pred, std::string_view target, Mode mode, double tolerance = 0.05);
bool OcrBenchCorrect(std::string_view pred, const std::vector<std::string>& answers, bool hme100k, Mode mode);
std::string MmeParse(std::string_view pred);  // "yes" | "no" | "other"

// Python's float(text): surrounding whitespace, a sign, digits with single
// '_' between digits, one '.', an exponent; "inf", "infinity", "nan" in any
// case. nullopt where Python raises ValueError. The percent rule of
// relaxed_correctness is in ChartFloat.
std::optional<double> PyFloat(std::string_view text);
// relaxed_correctness._to_float: text.endswith('%') -> float(rstrip('%')) / 100.
std::optional<double> ChartFloat(std::string_view text);

// Levenshtein distance over the code points of two UTF-8 strings (bytes
// that are not valid UTF-8 count one each).
int Levenshtein(std::string_view a, std::string_view b);
size_t CodePoints(std::string_view s);

}  // namespace cb::ref::eagle

#endif  // CB_REFERENCE_EAGLE_SCORERS_H_

// File: reference/eagle/vqa_normalize.h
// -----------------------------------------------------------------------------
// The VQA answer normalisation EAGLE's evaluation uses: EvalAIAnswerProcessor,
// ported from NVlabs/EAGLE at fef95f103b5e9899acbbe2c237e5b99147ab7e8e,
// lmms_eval/tasks/_task_utils/vqa_eval_metric.py (identical tables in
// eagle/eval/m4c_evaluator.py; both copied from facebookresearch/mmf).
//
// Normalize(s) = ProcessDigitArticle(ProcessPunctuation(
//                  strip(WordTokenize(s) with \n,\t -> ' ')))
//   WordTokenize       lower-case; delete ',' and '?'; "'s" -> " 's"; strip
//   ProcessPunctuation for each of ; / [ ] " { } ( ) = + \ _ - > < @ ` , ? !
//                      in that order: deleted when the ORIGINAL input has it
//                      followed or preceded by a space, or when the input has
//                      digit,digit (COMMA_STRIP), else replaced by a space;
//                      then PERIOD_STRIP deletes each '.' not followed by a
//                      digit. Quirks kept in paper mode: the regex's
//                      "(?!<=\d)" is a typo for a look-behind and tests
//                      nothing, and re.UNICODE (= 32) is passed as sub()'s
//                      *count*, so only the first 32 such periods go
//                      (kStrict: all).
//   ProcessDigitArticle lower-case, split on whitespace, number words
//                      none/zero..ten -> 0..10, drop a/an/the, then the
//                      contraction table (120 entries, verbatim: the
//                      capitalised keys "Im", "Ive", "Id've", "I'dve" can
//                      never match after lower-casing, and "somebody'd" maps
//                      to "somebodyd"), joined by single spaces.
// Character classes: ASCII. Lower-casing touches A-Z only, \d is 0-9, and
// whitespace is Python's ASCII set " \t\n\r\v\f\x1c\x1d\x1e\x1f"; Python
// would also lower-case and split non-ASCII text (a documented divergence).
#ifndef CB_REFERENCE_EAGLE_VQA_NORMALIZE_H_
#define CB_REFERENCE_EAGLE_VQA_NORMALIZE_H_

#include <string>
#include <string_view>

namespace cb::ref::eagle {

enum class Mode { kStrict, kPaperCompatible };
const char* ModeName(Mode m);  // "strict" | "paper-compatible"

std::string WordTokenize(std::string_view s);
std::string ProcessPunctuation(std::string_view s, Mode mode = Mode::kPaperCompatible);
std::string ProcessDigitArticle(std::string_view s);
// The whole processor (EvalAIAnswerProcessor.__call__).
std::string Normalize(std::string_view s, Mode mode = Mode::kPaperCompatible);

// Python's str.strip() / str.split() / str.lower() on ASCII (see above).
bool IsPySpace(char c);
std::string PyStrip(std::string_view s);
std::string AsciiLower(std::string_view s);

}  // namespace cb::ref::eagle

#endif  // CB_REFERENCE_EAGLE_VQA_NORMALIZE_H_

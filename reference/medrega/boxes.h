// File: reference/medrega/boxes.h
// -----------------------------------------------------------------------------
// MedRegA's box text and IoU (xmed-lab/MedRegA, src/eval/regt2r/evaluator_reg.py
// at dfdb0dbbcca0b80b8f1c121c3c45490dc8001529; brief other-papers.md §6).
//
// Boxes are written on an integer 0-999 grid, `[[x1,y1,x2,y2],[...]]`, and
// scaled to pixels by x*W/999, y*H/999 (`hw` is [H, W]); paper-compatible
// as process_box does it, in float32, dividing by 999 first; strict in
// float64, multiplying first.
//
// A model answer is read with PATTERN_REGCAP
//   ([^\[\]]*)(\[\[\d+,\s*\d+,\s*\d+,\s*\d+\](?:,\s*\[\d+,...\])*\])
// findall: each match is a group, its name the text before the list (since
// the previous match, brackets excluded, lowercased, not stripped) and its
// boxes the list. No match means no boxes. Paper-compatible mode: the list
// goes through ast.literal_eval inside a try; when that raises (a number with
// a leading zero such as "05", whitespace Python's tokenizer refuses such as
// \v, \x1c-\x1f or non-ASCII whitespace such as U+3000 after a comma, a
// non-ASCII digit such as fullwidth '１', all matched by Python's Unicode `\d`
// and `\s`), the groups before stay, the rest of the answer is dropped and one
// [0,0,0,0] box with no name is appended, as the code's `except` does; a null
// (non-string) answer is that failure too. Strict mode: the same pattern,
// numbers read as decimal whatever their leading zeros or digit script, names
// stripped, no phantom box (a null answer has no boxes). Lowercasing is ASCII
// only (Python's str.lower() also lowers other scripts: names differ there).
//
// Ground truth is `<ref>name</ref><box>[[...]]</box>` (PATTERN_TARGET_RECAP,
// non-greedy, '.' not matching '\n'); each box list is a Python literal list of
// lists of numbers, of which process_box keeps the first 4 of each inner list
// (view(-1, 4)[0]); anything else raises in the code and is a std::invalid_argument
// here, in both modes.
//
// IoU is torchvision's (no +1): paper-compatible in float32 with the code's
// operation order (inter / (area1 + area2 - inter)), so 0/0 is NaN as in
// torch; strict in float64, areas of inverted boxes clamped at 0 and an empty
// union giving 0.
#ifndef CB_REFERENCE_MEDREGA_BOXES_H_
#define CB_REFERENCE_MEDREGA_BOXES_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::medrega {

enum class Mode { kStrict, kPaperCompatible };
const char* ModeName(Mode m);  // "strict" | "paper-compatible"

inline constexpr int kBoxScale = 999;  // BBOX_SCALE

struct Box {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // pixels (paper mode: float32 values)
};

struct BoxGroup {
  std::string name;  // lowercased; strict mode also stripped
  std::vector<Box> boxes;
};

struct ParsedAnswer {
  std::vector<BoxGroup> groups;  // the groups read before any failure
  bool failed = false;           // paper mode: the `except` ran (phantom [0,0,0,0], no name)
  // Every box in order, the phantom last.
  std::vector<Box> AllBoxes() const;
};

// The grid -> pixel scaling of one grid box (process_box).
Box ScaleGridBox(double x1, double y1, double x2, double y2, int height, int width, Mode mode);

// A model answer (nullopt: JSON null). `height`, `width` from `hw`.
ParsedAnswer ParseAnswer(const std::optional<std::string>& answer, int height, int width, Mode mode);

// The ground truth's <ref>/<box> groups; throws std::invalid_argument on a
// box list the code could not read.
std::vector<BoxGroup> ParseGroundTruth(std::string_view gt, int height, int width, Mode mode);

// torchvision box_iou of two boxes, as described above.
double Iou(const Box& a, const Box& b, Mode mode);

// Writes boxes on the 0-999 grid, `[[x1,y1,x2,y2],...]` (for prompts and the
// generator's ground truth).
std::string GridBoxText(const std::vector<std::array<int, 4>>& boxes);

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_BOXES_H_

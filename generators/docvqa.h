// File: generators/docvqa.h
// -----------------------------------------------------------------------------
// Synthetic documents and charts with questions whose answers are exact, for
// the Eagle suite (brief other-papers.md §7; issue 27): the DocVQA-, ChartQA-
// and multiple-choice-style inputs a vision endpoint is asked about.
//
// Items (640 x 480 RGB, white background), `count` of each kind:
//   document   a title row and six "Label: value" rows (invoice numbers,
//              dates, names, cities, amounts, phone numbers); two questions
//              "What is the <Label> on this document?" (task docvqa, ANLS)
//   bar chart  4-6 bars with distinct integer values 5-95 over category
//              names, a y axis with ticks and labels every 20 units, 2 or 3
//              pixels per unit (so the scale must be read from the axis);
//              "What is the value of <category>?" (chartqa, relaxed) and
//              "Which category has the highest value?" with options A-D
//              (mcq)
//   line chart 5-6 monthly points (square markers joined by a line), same
//              axis; "What is the value in <month>?" (chartqa) and "In which
//              month is the value lowest?" (mcq)
// Text: DejaVu Sans Mono through FreeType at 16 px, each character in its own
// advance-wide cell (a glyph that would leave its cell is refused at start-
// up), ink composited with integer arithmetic, so the pixels are a pure
// function of the parameters and the font file. Multiple-choice letters are
// assigned in shuffled blocks of four per kind (uniform); the largest (or
// smallest) value leads the runner-up by at least 5 units.
//
// The oracle answers a question from the pixels and the question alone: it
// reads text by matching each cell against the font's glyph atlas, finds the
// axis ticks and reads their labels to get the scale, measures bar heights
// and marker centres, reads the category or month under each. The layout
// constants below (cell grid, plot origin) are what it may assume.
#ifndef CB_GENERATORS_DOCVQA_H_
#define CB_GENERATORS_DOCVQA_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::gen::docvqa {

constexpr const char* kDocVqaName = "docvqa";
constexpr int kDocVqaVersion = 1;
constexpr int kWidth = 640, kHeight = 480;
// Document text grid: rows start at kDocTop, kDocPitch apart, cells at kDocLeft.
constexpr int kDocLeft = 40, kDocTop = 40, kDocPitch = 32;
// Charts: the y axis at x = kAxisX, the baseline (value 0) at y = kBaseY,
// slots of kSlot px from kAxisX + 20; a bar starts kBarInset px into its slot,
// its label (category / month) starts kLabelInset px into it, kLabelGap below
// the baseline.
constexpr int kAxisX = 80, kBaseY = 400, kSlot = 90, kBarInset = 20, kBarWidth = 50, kLabelInset = 5,
              kLabelGap = 10;

enum class Kind { kDocument, kBarChart, kLineChart };
constexpr int kNumKinds = 3;
const char* KindKey(Kind k);  // "document" | "bar" | "line"

struct Params {
  uint64_t seed = 0;
  int count = 10;  // items per kind
};
nlohmann::json CanonicalParams(const Params& p);

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // [height][width][3]
};

struct Question {
  std::string id;       // "<item>_q<k>"
  std::string task;     // "docvqa" | "chartqa" | "mcq"
  std::string text;     // the prompt (mcq: with its options "A. ..." lines)
  std::string answer;   // exact: the value, or the letter for mcq
  std::string subject;  // the field, category or month asked about ("" for mcq)
  std::vector<std::string> options;  // mcq: the four option texts, A-D
  std::string kind;     // "field" | "bar_value" | "bar_max" | "line_value" | "line_min"
};

struct Item {
  std::string id;  // "cbdoc_<kind>_<index>"
  Kind kind = Kind::kDocument;
  Image image;
  std::vector<Question> questions;
};

// Holds the font and its glyph atlas; Make is a pure function of
// (params.seed, kind, index). Throws std::runtime_error naming the font file
// when it cannot be opened or a glyph leaves its cell.
class Generator {
 public:
  explicit Generator(const Params& p);
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // render = false: the same item without its pixels (image left empty),
  // for statistics over many questions.
  Item Make(Kind kind, int index, bool render = true) const;
  std::vector<Item> All() const;  // count items of each kind, kind-major

  // The atlas, for the oracle: cell size and each character's composited cell
  // (black ink on white; grey levels, [cell_h][cell_w]).
  int cell_w() const;
  int cell_h() const;
  const std::string& charset() const;
  const std::vector<uint8_t>& GlyphCell(char c) const;

 private:
  struct Impl;
  Params p_;
  std::unique_ptr<Impl> impl_;
};

// XXH3-128 over every item's pixels and questions, in order.
std::string ContentHash(const std::vector<Item>& items);

// The oracle: answers `q` from `image` alone (and the question's text and
// options). Returns "" when it cannot read an answer.
class Oracle {
 public:
  explicit Oracle(const Generator& g) : g_(g) {}
  std::string Answer(const Image& image, const Question& q) const;
  // The text of the cell row whose top is `y`, cells from x0 (trailing spaces
  // trimmed); `inexact` counts cells that matched no glyph exactly.
  std::string ReadRow(const Image& image, int x0, int y, int max_cells, int* inexact = nullptr) const;

 private:
  const Generator& g_;
};

}  // namespace cb::gen::docvqa

#endif  // CB_GENERATORS_DOCVQA_H_

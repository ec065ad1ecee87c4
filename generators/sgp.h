// File: generators/sgp.h
// -----------------------------------------------------------------------------
// Symbolic graphics programs in the style of SGP-Bench (brief
// generators-videoniah-sgp-cbplm.md §2, §4): scene graphs of part-built
// objects (house, tree, car, face, flower, arrow, and 7-segment digits 0-9 in
// the SGP-MNIST style) emitted as SVG programs, with multiple-choice questions
// whose answers follow by construction, and invariance variants baked into the
// coordinates.
//
// SVG subset emitted: <rect>, <circle>, <ellipse>, <polygon>, <path> with
// M/L/H/V/C/Q/A/Z in absolute and relative (lowercase) form; fill, stroke,
// stroke-width, stroke-linecap. Canvas 256x256, viewBox "0 0 256 256".
//
// Questions (SGP-Bench's five subjects):
//   Semantics  which object / which digit is drawn (distractors: the other
//              categories / other digits)
//   Color      the colour name of a named part (distractors: other palette names)
//   Count      how many of a part (windows, apples, petals): true count and
//              three nearby integers >= 1
//   Shape      the shape of a part whose shape varies (window, crown, head,
//              flower centre) among circle/ellipse/square/rectangle/triangle/diamond
//   Reasoning  about which axes the drawing is mirror-symmetric (vertical
//              only / horizontal only / both / neither), decided by construction
// The correct letter is assigned per subject in shuffled blocks of four, so
// every subject's letters are balanced exactly (up to the last block).
//
// Invariance variants (brief §2.1, §2.4): per program, `variants` translated
// copies (integer shifts; element types kept; relative path commands are
// translation-invariant and kept) and `variants` SE(2) copies (rotation about
// the canvas centre by |theta| <= 45 degrees plus an integer shift): every
// relative command made absolute, H/V turned into L, rect turned into a path,
// ellipse into a path of two arcs, arc x-axis-rotation increased by theta.
// Every object lies within radius kContentRadius of the canvas centre, so any
// rotation about it and a shift of at most kMaxShift keeps the drawing on the
// canvas. Only rotation-invariant question types (Semantics, Color, Count) go
// into the invariance splits `inv`, `inv_t<k>`, `inv_r<k>`, whose rows are in
// the same order (evaluate_consistency.py assumes that).
//
// Each question carries an OracleQuery: what a raster oracle
// (reference/sgp/raster_oracle.h) must measure on the rendered pixels to
// answer it (a colour's connected components, the colour at a point, the shape
// of the region at a point, the symmetry of the drawing). The query names
// colours and points, never the answer.
//
// Determinism: a program is a pure function of (kSgpVersion, seed, index);
// the dataset of (version, Params). Numbers are printed with "%.2f" and
// trailing zeros trimmed.
#ifndef CB_GENERATORS_SGP_H_
#define CB_GENERATORS_SGP_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::gen::sgp {

inline constexpr const char* kSgpName = "sgp";
inline constexpr int kSgpVersion = 1;
inline constexpr int kCanvas = 256;
inline constexpr double kContentRadius = 96;  // every object within this of (128, 128)
inline constexpr int kMaxShift = 24;          // |dx|, |dy| of variants
inline constexpr double kMaxTurnDeg = 45;

struct Pt {
  double x = 0, y = 0;
};

// One path command: `c` is one of MLHVCQAZ, lowercase for relative.
// Arguments per SVG: M/L 2, H/V 1, C 6, Q 4, A 7 (rx ry rot large sweep x y), Z 0.
struct PathCmd {
  char c = 'M';
  std::vector<double> a;
};

enum class Kind { kRect, kCircle, kEllipse, kPolygon, kPath };

struct Element {
  Kind kind = Kind::kRect;
  double x = 0, y = 0, w = 0, h = 0;    // rect
  double cx = 0, cy = 0, rx = 0, ry = 0;  // circle (r = rx) and ellipse
  std::vector<Pt> points;               // polygon
  std::vector<PathCmd> path;            // path
  std::string fill = "none";            // "#rrggbb" or "none"
  std::string stroke;                   // empty: no stroke
  double stroke_width = 0;
  bool round_cap = false;
};

struct Scene {
  std::vector<Element> elements;  // in paint order
};

// Palette: a name and its hex colour. Names are what questions use.
struct PaletteColor {
  const char* name;
  const char* hex;
};
const std::vector<PaletteColor>& Palette();

// What a raster oracle measures to answer a question (see the file comment).
struct OracleQuery {
  std::string op;     // "" (not answerable from pixels), "count_color", "color_at", "shape_at", "symmetry"
  std::string color;  // hex, for count_color and shape_at
  double x = 0, y = 0;  // canvas point, for color_at and shape_at
  nlohmann::json Json() const;
};

struct Question {
  std::string subject;  // Semantics | Color | Shape | Count | Reasoning
  std::string text;     // the question alone
  std::array<std::string, 4> options;
  int answer = 0;       // index of the correct option
  bool rotation_invariant = false;
  OracleQuery oracle;
};

struct Program {
  int index = 0;
  std::string category;  // house, tree, car, face, flower, arrow, digit
  std::string label;     // the category, or "digit 7"
  Scene scene;
  std::string svg;       // ToSvg(scene)
  std::vector<Question> questions;
};

// A rigid motion p' = R(theta) (p - c) + c + (dx, dy), c the canvas centre.
struct Se2 {
  double theta_deg = 0;
  int dx = 0, dy = 0;
  bool rotates() const { return theta_deg != 0; }
  Pt Apply(Pt p) const;
};

struct Variant {
  std::string split;  // "inv_t0".."inv_t<k>", "inv_r0".."inv_r<k>"
  Se2 motion;
  std::string svg;
};

struct Params {
  uint64_t seed = 20250101;
  int count = 100;    // programs
  int variants = 5;   // translated copies and SE(2) copies per program (0..5)
};

// Throws std::invalid_argument naming the field when out of range.
void Validate(const Params& p);
nlohmann::json CanonicalParams(const Params& p);

// Program `index` of `seed`; letters not yet balanced (answer = index in options
// as drawn). Pure function of (seed, index).
Program MakeProgram(uint64_t seed, int index);

// The motion of variant k (0-based) of program `index`; `rotate` picks the SE(2) set.
Se2 VariantMotion(uint64_t seed, int index, int k, bool rotate);

// The scene moved by `m`: a pure translation keeps element types and relative
// commands; a rotation rewrites as described in the file comment.
Scene Transform(const Scene& s, const Se2& m);

std::string ToSvg(const Scene& s);
std::string FormatNumber(double v);  // "%.2f" with trailing zeros (and '.') trimmed
std::string PathData(const std::vector<PathCmd>& cmds);
// Relative commands made absolute; with `expand_hv` H/V become L.
std::vector<PathCmd> ToAbsolute(const std::vector<PathCmd>& cmds, bool expand_hv);

struct Dataset {
  Params params;
  std::vector<Program> programs;              // letters balanced
  std::vector<std::vector<Variant>> variants;  // per program: t0..t(k-1), r0..r(k-1)
};

// Moves each question's correct option to the next letter of its subject's
// shuffled block of four (Philox stream keyed by seed, salt, subject, block).
class LetterBalancer {
 public:
  LetterBalancer(uint64_t seed, uint64_t salt) : seed_(seed), salt_(salt) {}
  void Assign(Question& q);

 private:
  uint64_t seed_, salt_;
  std::array<int, 5> seen_{};
  std::array<std::array<int, 4>, 5> block_{};
};

// All programs with balanced letters, and their variants.
Dataset Generate(const Params& p);

// SGP-Bench's wrapper around the code (the pre-release prep script).
std::string QuestionText(const std::string& svg, const std::string& question);
// One row in SGP-Bench's schema: Question (with the code), A-D, Answer, Subject.
nlohmann::json Row(const std::string& svg, const Question& q);

// Split name -> rows, in the order written: "svg" (every question of every
// program), "inv" (rotation-invariant questions of the originals), then
// "inv_t<k>", "inv_r<k>" (the same questions on the variants, same order).
std::vector<std::pair<std::string, std::vector<nlohmann::json>>> Splits(const Dataset& d);
// Per split row, what a checker needs: program index, category, split,
// question position, motion, oracle query.
std::vector<std::pair<std::string, std::vector<nlohmann::json>>> SplitMeta(const Dataset& d);

// XXH3-128 hex over (name, version, params, every split's rows).
std::string ContentHash(const Dataset& d);

inline constexpr std::array<const char*, 5> kSubjects = {"Semantics", "Color", "Shape", "Count", "Reasoning"};
inline constexpr std::array<const char*, 4> kSymmetryOptions = {"vertical axis only", "horizontal axis only",
                                                                "both axes", "neither axis"};
inline constexpr std::array<const char*, 6> kShapeNames = {"circle", "ellipse", "square", "rectangle", "triangle",
                                                           "diamond"};

}  // namespace cb::gen::sgp

#endif  // CB_GENERATORS_SGP_H_

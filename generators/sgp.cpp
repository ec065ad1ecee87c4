// File: generators/sgp.cpp
// Symbolic graphics programs (SGP-Bench style); see sgp.h for the contract.
// Object layouts below are in local coordinates around the object's origin
// (the canvas centre plus a jitter of at most 4 px); the comments give the
// extents that keep each object within kContentRadius.
#include "generators/sgp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"

namespace cb::gen::sgp {
namespace {

using cb::harness::Rng;

constexpr double kCentre = kCanvas / 2.0;
constexpr uint64_t kLetterStream = 0x4c45545445520000ull;  // "LETTER"

int Pick(Rng& rng, int n) { return static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(n - 1))); }
bool Coin(Rng& rng, double p) { return rng.Uniform() < p; }

// Three distinct distractors from `pool` (in pool order after a shuffle),
// never `correct`. `front` is tried first (same-domain: colours in the picture).
std::vector<std::string> Distractors(Rng& rng, const std::string& correct, std::vector<std::string> front,
                                     std::vector<std::string> pool) {
  rng.Shuffle(std::span<std::string>(front));
  rng.Shuffle(std::span<std::string>(pool));
  std::vector<std::string> out;
  for (const auto* list : {&front, &pool})
    for (const auto& s : *list)
      if (out.size() < 3 && s != correct && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  if (out.size() != 3) throw std::logic_error("sgp: fewer than 3 distractors for '" + correct + "'");
  return out;
}

Question MakeQuestion(const char* subject, std::string text, const std::string& correct,
                      const std::vector<std::string>& distractors, bool rotation_invariant, OracleQuery oracle) {
  Question q;
  q.subject = subject;
  q.text = std::move(text);
  q.options = {correct, distractors[0], distractors[1], distractors[2]};
  q.answer = 0;
  q.rotation_invariant = rotation_invariant;
  q.oracle = std::move(oracle);
  return q;
}

// Builds one object's elements around an origin and hands out distinct colours.
class Builder {
 public:
  Builder(Rng& rng, Pt origin) : rng_(rng), o_(origin) {}

  // A palette colour not yet used in this object (hex).
  std::string NewColor() {
    std::vector<int> free;
    for (int i = 0; i < static_cast<int>(Palette().size()); ++i)
      if (std::find(used_.begin(), used_.end(), i) == used_.end()) free.push_back(i);
    const int c = free[Pick(rng_, static_cast<int>(free.size()))];
    used_.push_back(c);
    return Palette()[c].hex;
  }
  std::vector<std::string> UsedNames() const {
    std::vector<std::string> out;
    for (int i : used_) out.push_back(Palette()[i].name);
    return out;
  }

  Pt At(double x, double y) const { return {o_.x + x, o_.y + y}; }

  void Rect(double x, double y, double w, double h, const std::string& fill) {
    Element e;
    e.kind = Kind::kRect;
    e.x = o_.x + x, e.y = o_.y + y, e.w = w, e.h = h;
    e.fill = fill;
    s_.elements.push_back(e);
  }
  void Circle(double cx, double cy, double r, const std::string& fill) {
    Element e;
    e.kind = Kind::kCircle;
    e.cx = o_.x + cx, e.cy = o_.y + cy, e.rx = e.ry = r;
    e.fill = fill;
    s_.elements.push_back(e);
  }
  void Ellipse(double cx, double cy, double rx, double ry, const std::string& fill) {
    Element e;
    e.kind = Kind::kEllipse;
    e.cx = o_.x + cx, e.cy = o_.y + cy, e.rx = rx, e.ry = ry;
    e.fill = fill;
    s_.elements.push_back(e);
  }
  void Polygon(std::vector<Pt> local, const std::string& fill) {
    Element e;
    e.kind = Kind::kPolygon;
    for (Pt& p : local) p = At(p.x, p.y);
    e.points = std::move(local);
    e.fill = fill;
    s_.elements.push_back(e);
  }
  // Path in local coordinates: absolute commands are moved to the origin,
  // relative ones are left as they are.
  void Path(std::vector<PathCmd> cmds, const std::string& fill, const std::string& stroke = "", double width = 0,
            bool round_cap = false) {
    for (PathCmd& c : cmds) {
      if (std::islower(static_cast<unsigned char>(c.c))) continue;
      switch (c.c) {
        case 'H': c.a[0] += o_.x; break;
        case 'V': c.a[0] += o_.y; break;
        case 'A': c.a[5] += o_.x, c.a[6] += o_.y; break;
        default:
          for (size_t k = 0; k + 1 < c.a.size(); k += 2) c.a[k] += o_.x, c.a[k + 1] += o_.y;
      }
    }
    Element e;
    e.kind = Kind::kPath;
    e.path = std::move(cmds);
    e.fill = fill;
    e.stroke = stroke;
    e.stroke_width = width;
    e.round_cap = round_cap;
    s_.elements.push_back(e);
  }

  Scene Take() { return std::move(s_); }
  Rng& rng() { return rng_; }

 private:
  Rng& rng_;
  Pt o_;
  Scene s_;
  std::vector<int> used_;
};

std::string NameOf(const std::string& hex) {
  for (const auto& c : Palette())
    if (hex == c.hex) return c.name;
  throw std::logic_error("sgp: colour not in palette: " + hex);
}

std::vector<std::string> AllColorNames() {
  std::vector<std::string> out;
  for (const auto& c : Palette()) out.push_back(c.name);
  return out;
}

OracleQuery ColorAt(Pt p) { return {"color_at", "", p.x, p.y}; }
OracleQuery CountColor(const std::string& hex) { return {"count_color", hex, 0, 0}; }
OracleQuery ShapeAt(const std::string& hex, Pt p) { return {"shape_at", hex, p.x, p.y}; }
OracleQuery Symmetry() { return {"symmetry", "", 0, 0}; }

Question ColorQuestion(Builder& b, const std::string& object, const std::string& part, const std::string& hex, Pt at,
                       bool plural = false) {
  const std::string name = NameOf(hex);
  return MakeQuestion("Color",
                      std::string("What color ") + (plural ? "are" : "is") + " the " + part + " of the " + object + "?",
                      name, Distractors(b.rng(), name, b.UsedNames(), AllColorNames()), true, ColorAt(at));
}

Question CountQuestion(Builder& b, const std::string& text, int count, const std::string& hex) {
  std::vector<std::string> near;
  for (int d = -3; d <= 3; ++d)
    if (d != 0 && count + d >= 1) near.push_back(std::to_string(count + d));
  return MakeQuestion("Count", text, std::to_string(count),
                      Distractors(b.rng(), std::to_string(count), {}, near), true, CountColor(hex));
}

Question ShapeQuestion(Builder& b, const std::string& text, const std::string& shape, const std::string& hex, Pt at) {
  std::vector<std::string> all(kShapeNames.begin(), kShapeNames.end());
  return MakeQuestion("Shape", text, shape, Distractors(b.rng(), shape, {}, all), false, ShapeAt(hex, at));
}

Question SymmetryQuestion(Builder& b, const std::string& object, int which) {
  std::vector<std::string> all(kSymmetryOptions.begin(), kSymmetryOptions.end());
  return MakeQuestion("Reasoning",
                      "About which axes of its own bounding box is the " + object + " drawing mirror-symmetric?",
                      kSymmetryOptions[which], Distractors(b.rng(), kSymmetryOptions[which], {}, all), false,
                      Symmetry());
}

enum Sym { kVerticalOnly = 0, kHorizontalOnly = 1, kBoth = 2, kNeither = 3 };

const std::vector<std::string>& Categories() {
  static const std::vector<std::string> k = {"house", "tree", "car", "face", "flower", "arrow"};
  return k;
}

Question SemanticsQuestion(Builder& b, const std::string& category) {
  return MakeQuestion("Semantics", "Which object does this SVG program draw?", category,
                      Distractors(b.rng(), category, {}, Categories()), true, {});
}

// ---- objects -----------------------------------------------------------------

// House: walls [-58,58]x[-10,60], roof apex (0,-60), eaves +-65; optional
// chimney behind the roof; n windows in a row (y in [-2,18]); a door at the
// bottom, centred or offset by 30. Vertically symmetric iff no chimney and a
// centred door.
void House(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string walls = b.NewColor(), roof = b.NewColor(), door = b.NewColor(), window = b.NewColor();
  const bool chimney = Coin(rng, 0.35);
  const double door_x = Coin(rng, 0.3) ? (Coin(rng, 0.5) ? -30 : 30) : 0;
  const int n = 1 + Pick(rng, 4);
  const int shape = Pick(rng, 4);  // square, rectangle, circle, diamond
  if (chimney) {
    const std::string c = b.NewColor();
    b.Path({{'M', {28, -28}}, {'V', {-58}}, {'H', {42}}, {'V', {-22}}, {'z', {}}}, c);
  }
  b.Rect(-58, -10, 116, 70, walls);
  b.Polygon({{-65, -10}, {65, -10}, {0, -60}}, roof);
  b.Rect(door_x - 11, 24, 22, 36, door);
  static const std::vector<std::vector<double>> kRows = {{0}, {-30, 30}, {-40, 0, 40}, {-42, -14, 14, 42}};
  for (double x : kRows[n - 1]) {
    switch (shape) {
      case 0: b.Rect(x - 10, -2, 20, 20, window); break;
      case 1: b.Rect(x - 12, 0, 24, 16, window); break;
      case 2: b.Circle(x, 8, 10, window); break;
      default: b.Polygon({{x, -4}, {x + 12, 8}, {x, 20}, {x - 12, 8}}, window); break;
    }
  }
  static const char* kShape[] = {"square", "rectangle", "circle", "diamond"};
  p.questions.push_back(SemanticsQuestion(b, "house"));
  switch (Pick(rng, 3)) {
    case 0: p.questions.push_back(ColorQuestion(b, "house", "roof", roof, b.At(0, -27))); break;
    case 1: p.questions.push_back(ColorQuestion(b, "house", "door", door, b.At(door_x, 42))); break;
    default: p.questions.push_back(ColorQuestion(b, "house", "walls", walls, b.At(-50, 50), true)); break;
  }
  p.questions.push_back(CountQuestion(b, "How many windows does the house have?", n, window));
  p.questions.push_back(ShapeQuestion(b, "What shape are the windows of the house?", kShape[shape], window,
                                      b.At(kRows[n - 1][0], 8)));
  p.questions.push_back(SymmetryQuestion(b, "house", !chimney && door_x == 0 ? kVerticalOnly : kNeither));
}

// Tree: trunk [-9,9]x[15,77]; crown around (0,-22): circle r 48, ellipse
// 58x42 or triangle (-56,28) (56,28) (0,-78); 1-4 apples (r 7; 1-2 in a
// triangle) in the left half of the crown, so the tree is never mirror-symmetric
// (the apples and their empty mirror places are > 2% of the drawing).
void Tree(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string trunk = b.NewColor(), crown = b.NewColor(), apple = b.NewColor();
  const int shape = Pick(rng, 3);  // circle, ellipse, triangle
  const int n = 1 + Pick(rng, shape == 2 ? 2 : 4);  // the triangle's left half holds at most 2
  b.Rect(-9, 15, 18, 62, trunk);
  switch (shape) {
    case 0: b.Circle(0, -22, 48, crown); break;
    case 1: b.Ellipse(0, -22, 58, 42, crown); break;
    default: b.Polygon({{-56, 28}, {56, 28}, {0, -78}}, crown); break;
  }
  constexpr double r = 7, m = r + 3;
  auto inside = [&](double x, double y) {
    if (x > -r - 3) return false;
    if (shape == 0) return std::hypot(x, y + 22) <= 48 - m;
    if (shape == 1) return std::pow(x / (58 - m), 2) + std::pow((y + 22) / (42 - m), 2) <= 1;
    // Signed distances to the triangle's three edges, all >= m.
    const Pt a{-56, 28}, c{56, 28}, t{0, -78};
    auto side = [&](Pt p0, Pt p1) {
      const double ex = p1.x - p0.x, ey = p1.y - p0.y;
      return ((y - p0.y) * ex - (x - p0.x) * ey) / std::hypot(ex, ey);  // > 0 inside
    };
    return side(a, t) >= m && side(t, c) >= m && side(c, a) >= m;
  };
  std::vector<Pt> apples;
  for (int tries = 0; static_cast<int>(apples.size()) < n; ++tries) {
    if (tries > 200000) throw std::logic_error("sgp: cannot place apples");
    if (tries % 2000 == 1999) apples.clear();  // jammed: start again
    const double x = -60 + 60 * rng.Uniform(), y = -80 + 110 * rng.Uniform();
    if (!inside(x, y)) continue;
    bool apart = true;
    for (const Pt& q : apples) apart = apart && std::hypot(q.x - x, q.y - y) >= 2 * r + 4;
    if (apart) apples.push_back({std::round(x), std::round(y)});
  }
  for (const Pt& a : apples) b.Circle(a.x, a.y, r, apple);
  static const char* kShape[] = {"circle", "ellipse", "triangle"};
  p.questions.push_back(SemanticsQuestion(b, "tree"));
  switch (Pick(rng, 3)) {
    case 0: p.questions.push_back(ColorQuestion(b, "tree", "crown", crown, b.At(18, -12))); break;
    case 1: p.questions.push_back(ColorQuestion(b, "tree", "trunk", trunk, b.At(0, 55))); break;
    default: p.questions.push_back(ColorQuestion(b, "tree", "apples", apple, b.At(apples[0].x, apples[0].y), true));
  }
  p.questions.push_back(CountQuestion(b, "How many apples are on the tree?", n, apple));
  p.questions.push_back(ShapeQuestion(b, "What shape is the crown of the tree?", kShape[shape], crown, b.At(18, -12)));
  p.questions.push_back(SymmetryQuestion(b, "tree", kNeither));
}

// Car: body path (relative commands, quadratic corners) over [-80,80]x[-30,35],
// wheels r 15 at (+-45, 35), 1-3 windows in the cabin (y in [-25,-8]).
void Car(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string body = b.NewColor(), wheel = b.NewColor(), window = b.NewColor();
  const int n = 1 + Pick(rng, 3);
  b.Path({{'M', {-80, 35}},
          {'v', {-30}},
          {'q', {0, -5, 5, -5}},
          {'h', {25}},
          {'l', {20, -30}},
          {'h', {60}},
          {'l', {15, 30}},
          {'h', {30}},
          {'q', {5, 0, 5, 5}},
          {'v', {30}},
          {'z', {}}},
         body);
  b.Circle(-45, 35, 15, wheel);
  b.Circle(45, 35, 15, wheel);
  const double w = (54 - 4.0 * (n - 1)) / n;
  for (int k = 0; k < n; ++k) b.Rect(-27 + k * (w + 4), -25, w, 17, window);
  p.questions.push_back(SemanticsQuestion(b, "car"));
  if (Coin(rng, 0.5)) {
    p.questions.push_back(ColorQuestion(b, "car", "body", body, b.At(0, 15)));
  } else {
    p.questions.push_back(ColorQuestion(b, "car", "wheels", wheel, b.At(-45, 35), true));
  }
  p.questions.push_back(CountQuestion(b, "How many windows does the car have?", n, window));
}

// Face: head circle r 60 or ellipse 52x66; eyes r 8 at (+-20,-15), or a wink
// (the right eye a short stroke); a quadratic smile. Symmetric unless winking.
void Face(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string head = b.NewColor(), eye = b.NewColor(), mouth = b.NewColor();
  const bool ellipse = Coin(rng, 0.5), wink = Coin(rng, 0.35);
  if (ellipse) {
    b.Ellipse(0, 0, 52, 66, head);
  } else {
    b.Circle(0, 0, 60, head);
  }
  b.Circle(-20, -15, 8, eye);
  if (wink) {
    b.Path({{'M', {12, -15}}, {'h', {16}}}, "none", eye, 3, true);
  } else {
    b.Circle(20, -15, 8, eye);
  }
  if (Coin(rng, 0.5)) {
    b.Path({{'M', {-22, 22}}, {'Q', {0, 42, 22, 22}}}, "none", mouth, 4, true);
  } else {
    b.Path({{'M', {-22, 22}}, {'c', {10, 14, 34, 14, 44, 0}}}, "none", mouth, 4, true);
  }
  p.questions.push_back(SemanticsQuestion(b, "face"));
  if (Coin(rng, 0.5)) {
    p.questions.push_back(ColorQuestion(b, "face", "head", head, b.At(0, -40)));
  } else {
    p.questions.push_back(ColorQuestion(b, "face", "left eye", eye, b.At(-20, -15)));
  }
  p.questions.push_back(ShapeQuestion(b, "What shape is the head of the face?", ellipse ? "ellipse" : "circle", head,
                                      b.At(0, -40)));
  p.questions.push_back(SymmetryQuestion(b, "face", wink ? kNeither : kVerticalOnly));
}

// Flower: centre (0,-15); n petals (4-8) as arc paths (ellipses 20x7 whose
// centres are 44 from the centre, the first pointing up); centre disc r 18,
// square 34 or diamond 22; optional stem (V) with a cubic leaf. Without a stem
// it is symmetric about the vertical axis, and about both for even n.
void Flower(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string petal = b.NewColor(), centre = b.NewColor(), stem = b.NewColor();
  const int n = 4 + Pick(rng, 5);
  const int shape = Pick(rng, 3);  // circle, square, diamond
  const bool has_stem = Coin(rng, 0.5);
  const Pt c{0, -15};
  if (has_stem) {
    b.Path({{'M', {0, -15}}, {'V', {80}}}, "none", stem, 6, false);
    b.Path({{'M', {0, 55}}, {'c', {15, -15, 35, -10, 40, -5}}, {'c', {-15, 15, -30, 12, -40, 5}}, {'Z', {}}}, stem);
  }
  for (int k = 0; k < n; ++k) {
    const double phi = std::numbers::pi / 2 + 2 * std::numbers::pi * k / n;
    const double ux = std::cos(phi), uy = -std::sin(phi);
    const double rot = -phi * 180 / std::numbers::pi;
    const Pt p1{c.x + 24 * ux, c.y + 24 * uy}, p2{c.x + 64 * ux, c.y + 64 * uy};
    if (k % 2 == 0) {
      b.Path({{'M', {p1.x, p1.y}}, {'A', {20, 7, rot, 0, 1, p2.x, p2.y}}, {'A', {20, 7, rot, 0, 1, p1.x, p1.y}},
              {'Z', {}}},
             petal);
    } else {
      b.Path({{'M', {p1.x, p1.y}}, {'a', {20, 7, rot, 0, 1, p2.x - p1.x, p2.y - p1.y}},
              {'a', {20, 7, rot, 0, 1, p1.x - p2.x, p1.y - p2.y}}, {'z', {}}},
             petal);
    }
  }
  switch (shape) {
    case 0: b.Circle(c.x, c.y, 18, centre); break;
    case 1: b.Rect(c.x - 17, c.y - 17, 34, 34, centre); break;
    default: b.Polygon({{c.x, c.y - 22}, {c.x + 22, c.y}, {c.x, c.y + 22}, {c.x - 22, c.y}}, centre); break;
  }
  static const char* kShape[] = {"circle", "square", "diamond"};
  p.questions.push_back(SemanticsQuestion(b, "flower"));
  if (Coin(rng, 0.5)) {
    p.questions.push_back(ColorQuestion(b, "flower", "petals", petal, b.At(c.x, c.y - 44), true));
  } else {
    p.questions.push_back(ColorQuestion(b, "flower", "centre", centre, b.At(c.x, c.y)));
  }
  p.questions.push_back(CountQuestion(b, "How many petals does the flower have?", n, petal));
  p.questions.push_back(ShapeQuestion(b, "What shape is the centre of the flower?", kShape[shape], centre, b.At(c.x, c.y)));
  p.questions.push_back(SymmetryQuestion(b, "flower", has_stem ? kNeither : (n % 2 == 0 ? kBoth : kVerticalOnly)));
}

// Arrow: shaft and triangular head(s) pointing right, left, up, down or both
// ways along x; extents within 80 of the origin.
void Arrow(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const std::string shaft = b.NewColor(), head = b.NewColor();
  const int dir = Pick(rng, 5);  // right, left, up, down, double (horizontal)
  // Quarter turns of the right-pointing layout, exact in integers.
  auto turn = [dir](Pt q) -> Pt {
    switch (dir) {
      case 1: return {-q.x, -q.y};
      case 2: return {q.y, -q.x};
      case 3: return {-q.y, q.x};
      default: return q;
    }
  };
  auto rect = [&](double x0, double y0, double x1, double y1) {
    const Pt a = turn({x0, y0}), c = turn({x1, y1});
    b.Rect(std::min(a.x, c.x), std::min(a.y, c.y), std::abs(c.x - a.x), std::abs(c.y - a.y), shaft);
  };
  auto tri = [&](Pt t0, Pt t1, Pt t2) { b.Polygon({turn(t0), turn(t1), turn(t2)}, head); };
  Pt shaft_mid, head_mid;
  int heads = 1;
  if (dir == 4) {
    rect(-40, -9, 40, 9);
    tri({38, -32}, {80, 0}, {38, 32});
    tri({-38, -32}, {-80, 0}, {-38, 32});
    shaft_mid = {0, 0};
    head_mid = {52, 0};
    heads = 2;
  } else {
    rect(-70, -9, 30, 9);
    tri({28, -32}, {74, 0}, {28, 32});
    shaft_mid = turn({-20, 0});
    head_mid = turn({43, 0});
  }
  static const int kSym[] = {kHorizontalOnly, kHorizontalOnly, kVerticalOnly, kVerticalOnly, kBoth};
  p.questions.push_back(SemanticsQuestion(b, "arrow"));
  if (Coin(rng, 0.5)) {
    p.questions.push_back(ColorQuestion(b, "arrow", "shaft", shaft, b.At(shaft_mid.x, shaft_mid.y)));
  } else {
    p.questions.push_back(ColorQuestion(b, "arrow", "arrowhead", head, b.At(head_mid.x, head_mid.y)));
  }
  p.questions.push_back(CountQuestion(b, "How many arrowheads does the arrow have?", heads, head));
  p.questions.push_back(SymmetryQuestion(b, "arrow", kSym[dir]));
}

// Digit (SGP-MNIST style): lit 7-segment strokes in one <path>, box 50x100,
// optionally slanted (then L/l instead of H/V); stroke 12 with round caps.
void Digit(Builder& b, Program& p) {
  Rng& rng = b.rng();
  const int d = Pick(rng, 10);
  const double slant = Coin(rng, 0.5) ? 0.1 + 0.1 * rng.Uniform() : 0.0;
  // Segments a b c d e f g as (start, end) in the box [-25,25]x[-50,50].
  static const Pt kSeg[7][2] = {{{-25, -50}, {25, -50}}, {{25, -50}, {25, 0}},  {{25, 0}, {25, 50}},
                                {{-25, 50}, {25, 50}},   {{-25, 0}, {-25, 50}}, {{-25, -50}, {-25, 0}},
                                {{-25, 0}, {25, 0}}};
  static const char* kLit[10] = {"abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg",
                                 "abcdfg"};
  auto sl = [slant](Pt q) { return Pt{q.x - slant * q.y, q.y}; };
  std::vector<PathCmd> cmds;
  for (const char* s = kLit[d]; *s; ++s) {
    const Pt a = sl(kSeg[*s - 'a'][0]), e = sl(kSeg[*s - 'a'][1]);
    cmds.push_back({'M', {a.x, a.y}});
    if (slant != 0) {
      cmds.push_back({'l', {e.x - a.x, e.y - a.y}});
    } else if (a.y == e.y) {
      cmds.push_back({'h', {e.x - a.x}});
    } else {
      cmds.push_back({'v', {e.y - a.y}});
    }
  }
  const std::string ink = b.NewColor();
  b.Path(cmds, "none", ink, 12, true);
  p.label = "digit " + std::to_string(d);
  std::vector<std::string> digits;
  for (int k = 0; k < 10; ++k) digits.push_back(std::to_string(k));
  p.questions.push_back(MakeQuestion("Semantics", "Which digit does this SVG program draw?", std::to_string(d),
                                     Distractors(rng, std::to_string(d), {}, digits), true, {}));
}

// ---- SVG text and transforms ---------------------------------------------------

bool IsRelative(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }

Pt Rotate(Pt v, double c, double s) { return {c * v.x - s * v.y, s * v.x + c * v.y}; }

}  // namespace

const std::vector<PaletteColor>& Palette() {
  static const std::vector<PaletteColor> k = {
      {"red", "#d62728"},   {"green", "#2ca02c"}, {"blue", "#1f77b4"},  {"orange", "#ff7f0e"},
      {"purple", "#9467bd"}, {"brown", "#8c564b"}, {"pink", "#e377c2"},  {"gray", "#7f7f7f"},
      {"olive", "#bcbd22"},  {"cyan", "#17becf"},  {"black", "#000000"}, {"yellow", "#ffd700"}};
  return k;
}

nlohmann::json OracleQuery::Json() const {
  nlohmann::json j = {{"op", op}};
  if (!color.empty()) j["color"] = color;
  if (op == "color_at" || op == "shape_at") j["x"] = x, j["y"] = y;
  return j;
}

Pt Se2::Apply(Pt p) const {
  const double t = theta_deg * std::numbers::pi / 180;
  const Pt r = Rotate({p.x - kCentre, p.y - kCentre}, std::cos(t), std::sin(t));
  return {r.x + kCentre + dx, r.y + kCentre + dy};
}

void Validate(const Params& p) {
  if (p.count < 1 || p.count > 1000000) throw std::invalid_argument("count must be in [1, 1000000]");
  if (p.variants < 0 || p.variants > 5) throw std::invalid_argument("variants must be in [0, 5]");
}

nlohmann::json CanonicalParams(const Params& p) {
  return {{"seed", p.seed}, {"count", p.count}, {"variants", p.variants}};
}

Program MakeProgram(uint64_t seed, int index) {
  Rng rng(seed, 2 * static_cast<uint64_t>(index));
  Program p;
  p.index = index;
  const int cat = Pick(rng, 7);
  const double jx = static_cast<double>(Pick(rng, 9)) - 4, jy = static_cast<double>(Pick(rng, 9)) - 4;
  Builder b(rng, {kCentre + jx, kCentre + jy});
  static void (*const kMake[7])(Builder&, Program&) = {House, Tree, Car, Face, Flower, Arrow, Digit};
  p.category = cat == 6 ? "digit" : Categories()[cat];
  p.label = p.category;
  kMake[cat](b, p);
  p.scene = b.Take();
  p.svg = ToSvg(p.scene);
  return p;
}

Se2 VariantMotion(uint64_t seed, int index, int k, bool rotate) {
  Rng rng(seed, 2 * static_cast<uint64_t>(index) + 1);
  Se2 m;
  for (int j = 0; j <= k + (rotate ? 5 : 0); ++j) {
    const double u = rng.Uniform();
    m.theta_deg = (j >= 5) ? (u < 0.5 ? -1 : 1) * (5 + std::round(40 * rng.Uniform())) : 0;
    m.dx = static_cast<int>(rng.UniformInt(0, 2 * kMaxShift)) - kMaxShift;
    m.dy = static_cast<int>(rng.UniformInt(0, 2 * kMaxShift)) - kMaxShift;
  }
  return m;
}

std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string PathData(const std::vector<PathCmd>& cmds) {
  std::string out;
  for (const PathCmd& c : cmds) {
    if (!out.empty()) out += ' ';
    out += c.c;
    for (size_t k = 0; k < c.a.size(); ++k) {
      out += ' ';
      const bool flag = (c.c == 'A' || c.c == 'a') && (k == 3 || k == 4);
      out += flag ? (c.a[k] != 0 ? "1" : "0") : FormatNumber(c.a[k]);
    }
  }
  return out;
}

std::vector<PathCmd> ToAbsolute(const std::vector<PathCmd>& cmds, bool expand_hv) {
  std::vector<PathCmd> out;
  Pt cur, start;
  for (const PathCmd& c : cmds) {
    const bool rel = IsRelative(c.c);
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c.c)));
    const Pt base = rel ? cur : Pt{0, 0};
    PathCmd o{u, c.a};
    switch (u) {
      case 'H':
        cur.x = base.x + c.a[0];
        o = expand_hv ? PathCmd{'L', {cur.x, cur.y}} : PathCmd{'H', {cur.x}};
        break;
      case 'V':
        cur.y = base.y + c.a[0];
        o = expand_hv ? PathCmd{'L', {cur.x, cur.y}} : PathCmd{'V', {cur.y}};
        break;
      case 'A':
        o.a[5] = base.x + c.a[5], o.a[6] = base.y + c.a[6];
        cur = {o.a[5], o.a[6]};
        break;
      case 'Z': cur = start; break;
      default:  // M L C Q: pairs, all relative to the point before the command
        for (size_t k = 0; k + 1 < c.a.size(); k += 2) o.a[k] = base.x + c.a[k], o.a[k + 1] = base.y + c.a[k + 1];
        cur = {o.a[o.a.size() - 2], o.a[o.a.size() - 1]};
        if (u == 'M') start = cur;
    }
    out.push_back(o);
  }
  return out;
}

Scene Transform(const Scene& s, const Se2& m) {
  Scene out;
  const double t = m.theta_deg * std::numbers::pi / 180, ct = std::cos(t), st = std::sin(t);
  for (const Element& e : s.elements) {
    Element o = e;
    if (!m.rotates()) {
      const double dx = m.dx, dy = m.dy;
      switch (e.kind) {
        case Kind::kRect: o.x += dx, o.y += dy; break;
        case Kind::kCircle:
        case Kind::kEllipse: o.cx += dx, o.cy += dy; break;
        case Kind::kPolygon:
          for (Pt& p : o.points) p.x += dx, p.y += dy;
          break;
        case Kind::kPath:
          for (PathCmd& c : o.path) {
            if (IsRelative(c.c) || c.c == 'Z') continue;  // relative commands do not move
            if (c.c == 'H') c.a[0] += dx;
            else if (c.c == 'V') c.a[0] += dy;
            else if (c.c == 'A') c.a[5] += dx, c.a[6] += dy;
            else
              for (size_t k = 0; k + 1 < c.a.size(); k += 2) c.a[k] += dx, c.a[k + 1] += dy;
          }
          break;
      }
      out.elements.push_back(o);
      continue;
    }
    auto P = [&](double x, double y) { return m.Apply({x, y}); };
    switch (e.kind) {
      case Kind::kRect: {  // rect turned into a closed path of its rotated corners
        o.kind = Kind::kPath;
        const Pt a = P(e.x, e.y), b = P(e.x + e.w, e.y), c = P(e.x + e.w, e.y + e.h), d = P(e.x, e.y + e.h);
        o.path = {{'M', {a.x, a.y}}, {'L', {b.x, b.y}}, {'L', {c.x, c.y}}, {'L', {d.x, d.y}}, {'Z', {}}};
        break;
      }
      case Kind::kCircle: {
        const Pt c = P(e.cx, e.cy);
        o.cx = c.x, o.cy = c.y;
        break;
      }
      case Kind::kEllipse: {  // two half-ellipse arcs whose x-axis-rotation is theta
        o.kind = Kind::kPath;
        const Pt v = Rotate({e.rx, 0}, ct, st), c = P(e.cx, e.cy);
        const Pt p1{c.x + v.x, c.y + v.y}, p2{c.x - v.x, c.y - v.y};
        o.path = {{'M', {p1.x, p1.y}},
                  {'A', {e.rx, e.ry, m.theta_deg, 0, 1, p2.x, p2.y}},
                  {'A', {e.rx, e.ry, m.theta_deg, 0, 1, p1.x, p1.y}},
                  {'Z', {}}};
        break;
      }
      case Kind::kPolygon:
        for (Pt& p : o.points) p = P(p.x, p.y);
        break;
      case Kind::kPath:
        o.path = ToAbsolute(e.path, /*expand_hv=*/true);
        for (PathCmd& c : o.path) {
          if (c.c == 'Z') continue;
          if (c.c == 'A') {
            const Pt q = P(c.a[5], c.a[6]);
            c.a[2] += m.theta_deg;  // the ellipse's axes turn with the drawing
            c.a[5] = q.x, c.a[6] = q.y;
            continue;
          }
          for (size_t k = 0; k + 1 < c.a.size(); k += 2) {
            const Pt q = P(c.a[k], c.a[k + 1]);
            c.a[k] = q.x, c.a[k + 1] = q.y;
          }
        }
        break;
    }
    out.elements.push_back(o);
  }
  return out;
}

std::string ToSvg(const Scene& s) {
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 256 256\">\n";
  auto num = FormatNumber;
  for (const Element& e : s.elements) {
    switch (e.kind) {
      case Kind::kRect:
        out += "  <rect x=\"" + num(e.x) + "\" y=\"" + num(e.y) + "\" width=\"" + num(e.w) + "\" height=\"" +
               num(e.h) + "\"";
        break;
      case Kind::kCircle:
        out += "  <circle cx=\"" + num(e.cx) + "\" cy=\"" + num(e.cy) + "\" r=\"" + num(e.rx) + "\"";
        break;
      case Kind::kEllipse:
        out += "  <ellipse cx=\"" + num(e.cx) + "\" cy=\"" + num(e.cy) + "\" rx=\"" + num(e.rx) + "\" ry=\"" +
               num(e.ry) + "\"";
        break;
      case Kind::kPolygon: {
        out += "  <polygon points=\"";
        for (size_t k = 0; k < e.points.size(); ++k)
          out += (k ? " " : "") + num(e.points[k].x) + "," + num(e.points[k].y);
        out += "\"";
        break;
      }
      case Kind::kPath: out += "  <path d=\"" + PathData(e.path) + "\""; break;
    }
    out += " fill=\"" + e.fill + "\"";
    if (!e.stroke.empty()) {
      out += " stroke=\"" + e.stroke + "\" stroke-width=\"" + num(e.stroke_width) + "\"";
      if (e.round_cap) out += " stroke-linecap=\"round\"";
    }
    out += "/>\n";
  }
  return out + "</svg>";
}

void LetterBalancer::Assign(Question& q) {
  const size_t s = static_cast<size_t>(
      std::find_if(kSubjects.begin(), kSubjects.end(), [&](const char* n) { return q.subject == n; }) -
      kSubjects.begin());
  if (s >= kSubjects.size()) throw std::logic_error("sgp: unknown subject " + q.subject);
  // Letters in shuffled blocks of four per subject: exact balance.
  if (seen_[s] % 4 == 0) {
    block_[s] = {0, 1, 2, 3};
    Rng rng(seed_, kLetterStream + (salt_ << 40) + (static_cast<uint64_t>(s) << 32) +
                       static_cast<uint64_t>(seen_[s] / 4));
    rng.Shuffle(std::span<int>(block_[s]));
  }
  const int letter = block_[s][seen_[s] % 4];
  ++seen_[s];
  std::array<std::string, 4> opts;
  opts[letter] = q.options[q.answer];
  int k = 0;
  for (int j = 0; j < 4; ++j) {
    if (j == q.answer) continue;
    if (k == letter) ++k;
    opts[k++] = q.options[j];
  }
  q.options = opts;
  q.answer = letter;
}

Dataset Generate(const Params& p) {
  Validate(p);
  Dataset d;
  d.params = p;
  LetterBalancer letters(p.seed, 0);
  for (int i = 0; i < p.count; ++i) {
    cb::harness::ThrowIfInterrupted();  // one check point per program
    Program prog = MakeProgram(p.seed, i);
    for (Question& q : prog.questions) letters.Assign(q);
    std::vector<Variant> vs;
    for (int rot = 0; rot < 2; ++rot) {
      for (int k = 0; k < p.variants; ++k) {
        Variant v;
        v.split = std::string(rot ? "inv_r" : "inv_t") + std::to_string(k);
        v.motion = VariantMotion(p.seed, i, k, rot == 1);
        v.svg = ToSvg(Transform(prog.scene, v.motion));
        vs.push_back(std::move(v));
      }
    }
    d.programs.push_back(std::move(prog));
    d.variants.push_back(std::move(vs));
  }
  return d;
}

std::string QuestionText(const std::string& svg, const std::string& question) {
  return "Examine the following SVG code carefully and answer the question based on your interpretation of the "
         "rendered image.\n\n" +
         svg + "\n\nQuestion: " + question;
}

nlohmann::json Row(const std::string& svg, const Question& q) {
  return {{"Question", QuestionText(svg, q.text)},
          {"A", q.options[0]},
          {"B", q.options[1]},
          {"C", q.options[2]},
          {"D", q.options[3]},
          {"Answer", std::string(1, static_cast<char>('A' + q.answer))},
          {"Subject", q.subject}};
}

namespace {

// Visits every split row in order: (split, program, question index, svg, motion).
template <class F>
void ForEachRow(const Dataset& d, F&& f) {
  for (size_t i = 0; i < d.programs.size(); ++i)
    for (size_t q = 0; q < d.programs[i].questions.size(); ++q) f("svg", i, q, d.programs[i].svg, Se2{});
  for (size_t i = 0; i < d.programs.size(); ++i)
    for (size_t q = 0; q < d.programs[i].questions.size(); ++q)
      if (d.programs[i].questions[q].rotation_invariant) f("inv", i, q, d.programs[i].svg, Se2{});
  for (int rot = 0; rot < 2; ++rot)
    for (int k = 0; k < d.params.variants; ++k)
      for (size_t i = 0; i < d.programs.size(); ++i) {
        const Variant& v = d.variants[i][static_cast<size_t>(rot * d.params.variants + k)];
        for (size_t q = 0; q < d.programs[i].questions.size(); ++q)
          if (d.programs[i].questions[q].rotation_invariant) f(v.split, i, q, v.svg, v.motion);
      }
}

template <class F>
std::vector<std::pair<std::string, std::vector<nlohmann::json>>> Collect(const Dataset& d, F&& make) {
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> out;
  ForEachRow(d, [&](const std::string& split, size_t i, size_t q, const std::string& svg, const Se2& m) {
    if (out.empty() || out.back().first != split) out.push_back({split, {}});
    out.back().second.push_back(make(split, i, q, svg, m));
  });
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<nlohmann::json>>> Splits(const Dataset& d) {
  return Collect(d, [&](const std::string&, size_t i, size_t q, const std::string& svg, const Se2&) {
    return Row(svg, d.programs[i].questions[q]);
  });
}

std::vector<std::pair<std::string, std::vector<nlohmann::json>>> SplitMeta(const Dataset& d) {
  return Collect(d, [&](const std::string& split, size_t i, size_t q, const std::string&, const Se2& m) {
    const Program& p = d.programs[i];
    OracleQuery o = p.questions[q].oracle;
    const Pt at = m.Apply({o.x, o.y});
    if (o.op == "color_at" || o.op == "shape_at") o.x = at.x, o.y = at.y;
    return nlohmann::json{{"split", split},       {"program", p.index},      {"category", p.category},
                          {"label", p.label},     {"question", q},           {"theta_deg", m.theta_deg},
                          {"dx", m.dx},           {"dy", m.dy},              {"oracle", o.Json()}};
  });
}

std::string ContentHash(const Dataset& d) {
  cb::harness::Hasher h;
  h.Update(kSgpName);
  h.Update(std::to_string(kSgpVersion));
  h.Update(CanonicalParams(d.params).dump());
  for (const auto& [split, rows] : Splits(d)) {
    h.Update(split);
    for (const auto& r : rows) h.Update(r.dump());
  }
  return h.Digest().Hex();
}

}  // namespace cb::gen::sgp

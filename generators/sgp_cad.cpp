// File: generators/sgp_cad.cpp
// The small CAD language and its three-view drawings; see sgp_cad.h.
#include "generators/sgp_cad.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"

namespace cb::gen::sgp {
namespace {

using cb::harness::Rng;

constexpr uint64_t kCadStream = 0x43414400000000ull;  // "CAD": items' Philox streams

double Between(Rng& rng, double lo, double hi) { return std::round(lo + (hi - lo) * rng.Uniform()); }
int Pick(Rng& rng, int n) { return static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(n - 1))); }

std::vector<std::string> ThreeOthers(Rng& rng, const std::string& correct, std::vector<std::string> pool) {
  rng.Shuffle(std::span<std::string>(pool));
  std::vector<std::string> out;
  for (const auto& s : pool)
    if (out.size() < 3 && s != correct && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  if (out.size() != 3) throw std::logic_error("sgp cad: fewer than 3 distractors");
  return out;
}

Question Make(const char* subject, std::string text, const std::string& correct, std::vector<std::string> others,
              OracleQuery oracle) {
  Question q;
  q.subject = subject;
  q.text = std::move(text);
  q.options = {correct, others[0], others[1], others[2]};
  q.answer = 0;
  q.oracle = std::move(oracle);
  return q;
}

// Counter-clockwise (y up) rounded rectangle [-w/2, w/2] x [-d/2, d/2], corner radius rc.
std::vector<CadSeg> RoundedRect(double w, double d, double rc) {
  const double x = w / 2, y = d / 2, k = rc * (1 - std::sqrt(0.5));  // the arc's midpoint inset
  return {{false, {-x + rc, -y}, {}, {x - rc, -y}},
          {true, {x - rc, -y}, {x - k, -y + k}, {x, -y + rc}},
          {false, {x, -y + rc}, {}, {x, y - rc}},
          {true, {x, y - rc}, {x - k, y - k}, {x - rc, y}},
          {false, {x - rc, y}, {}, {-x + rc, y}},
          {true, {-x + rc, y}, {-x + k, y - k}, {-x, y - rc}},
          {false, {-x, y - rc}, {}, {-x, -y + rc}},
          {true, {-x, -y + rc}, {-x + k, -y + k}, {-x + rc, -y}}};
}

std::vector<CadSeg> Polygon(const std::vector<Pt>& pts) {
  std::vector<CadSeg> out;
  for (size_t i = 0; i < pts.size(); ++i) out.push_back({false, pts[i], {}, pts[(i + 1) % pts.size()]});
  return out;
}

std::string N(double v) { return FormatNumber(v); }

// Model (x, y) -> top panel pixel; model (u, z) -> front/side panel pixel.
Pt Top(Pt p) { return {kCadPanelTop + 128 + p.x, 128 - p.y}; }

}  // namespace

CadBox Bounds(const CadPart& p) {
  if (p.radius > 0) return {p.centre.x - p.radius, p.centre.x + p.radius, p.centre.y - p.radius, p.centre.y + p.radius};
  CadBox b{1e9, -1e9, 1e9, -1e9};
  for (const CadSeg& s : p.outline)
    for (const Pt& q : {s.a, s.b}) b.x0 = std::min(b.x0, q.x), b.x1 = std::max(b.x1, q.x), b.y0 = std::min(b.y0, q.y), b.y1 = std::max(b.y1, q.y);
  return b;
}

std::string CadProgram(const CadPart& p) {
  std::string s = "# cb-cad v1, units mm\nsketch plane XY\n";
  if (p.radius > 0) {
    s += "  circle " + N(p.centre.x) + " " + N(p.centre.y) + " " + N(p.radius) + "\n";
  } else {
    s += "  loop\n";
    for (const CadSeg& g : p.outline) {
      if (g.arc) {
        s += "    arc " + N(g.a.x) + " " + N(g.a.y) + " " + N(g.m.x) + " " + N(g.m.y) + " " + N(g.b.x) + " " + N(g.b.y) + "\n";
      } else {
        s += "    line " + N(g.a.x) + " " + N(g.a.y) + " " + N(g.b.x) + " " + N(g.b.y) + "\n";
      }
    }
    s += "  end\n";
  }
  for (const auto& [c, r] : p.holes) s += "  circle " + N(c.x) + " " + N(c.y) + " " + N(r) + "\n";
  return s + "extrude " + N(p.height) + "\n";
}

std::string CadViewsSvg(const CadPart& p) {
  auto circle_path = [](Pt c, double r) {  // two half circles, in panel pixels
    return "M " + N(c.x + r) + " " + N(c.y) + " A " + N(r) + " " + N(r) + " 0 0 1 " + N(c.x - r) + " " + N(c.y) +
           " A " + N(r) + " " + N(r) + " 0 0 1 " + N(c.x + r) + " " + N(c.y) + " Z";
  };
  std::string d;
  if (p.radius > 0) {
    d = circle_path(Top(p.centre), p.radius);
  } else {
    d = "M " + N(Top(p.outline[0].a).x) + " " + N(Top(p.outline[0].a).y);
    for (const CadSeg& g : p.outline) {
      const Pt b = Top(g.b);
      if (!g.arc) {
        d += " L " + N(b.x) + " " + N(b.y);
        continue;
      }
      // Circumcircle radius of (a, m, b) and the turning sense on screen (y down).
      const Pt a = Top(g.a), m = Top(g.m);
      const double ax = m.x - a.x, ay = m.y - a.y, bx = b.x - m.x, by = b.y - m.y;
      const double cross = ax * by - ay * bx;
      const double la = std::hypot(ax, ay), lb = std::hypot(bx, by), lc = std::hypot(b.x - a.x, b.y - a.y);
      const double r = la * lb * lc / (2 * std::abs(cross));
      d += " A " + N(r) + " " + N(r) + " 0 0 " + (cross > 0 ? "1 " : "0 ") + N(b.x) + " " + N(b.y);
    }
    d += " Z";
  }
  for (const auto& [c, r] : p.holes) d += " " + circle_path(Top(c), r);
  const CadBox bx = Bounds(p);
  const double z0 = 128 + p.height / 2;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"768\" height=\"256\" viewBox=\"0 0 768 256\">\n";
  s += "  <path d=\"" + d + "\" fill=\"" + kCadGray + "\" fill-rule=\"evenodd\"/>\n";
  s += "  <rect x=\"" + N(kCadPanelFront + 128 + bx.x0) + "\" y=\"" + N(z0 - p.height) + "\" width=\"" +
       N(bx.x1 - bx.x0) + "\" height=\"" + N(p.height) + "\" fill=\"" + kCadGray + "\"/>\n";
  s += "  <rect x=\"" + N(kCadPanelSide + 128 + bx.y0) + "\" y=\"" + N(z0 - p.height) + "\" width=\"" +
       N(bx.y1 - bx.y0) + "\" height=\"" + N(p.height) + "\" fill=\"" + kCadGray + "\"/>\n";
  return s + "</svg>";
}

CadItem MakeCadItem(uint64_t seed, int index) {
  Rng rng(seed, kCadStream + static_cast<uint64_t>(index));
  CadItem it;
  it.index = index;
  CadPart& p = it.part;
  static const std::vector<std::string> kKinds = {"plate", "block", "washer", "cylinder", "wedge"};
  p.kind = kKinds[static_cast<size_t>(Pick(rng, 5))];
  std::string shape;
  Pt probe;          // a solid point of the top view, away from holes
  int largest = -1;  // 0 width, 1 depth, 2 height; -1: no Reasoning question
  if (p.kind == "plate") {
    double w = Between(rng, 110, 180), d = Between(rng, 50, std::floor(w / 1.2));
    const bool turn = rng.Uniform() < 0.5;  // depth the longer side
    if (turn) std::swap(w, d);
    p.outline = RoundedRect(w, d, 8);
    p.height = Between(rng, 5, 14);
    const int n = Pick(rng, 5);
    const std::vector<Pt> corners = {{-w / 2 + 16, -d / 2 + 16}, {w / 2 - 16, -d / 2 + 16}, {w / 2 - 16, d / 2 - 16},
                                     {-w / 2 + 16, d / 2 - 16}};
    for (int k = 0; k < n; ++k) p.holes.push_back({corners[static_cast<size_t>(k)], Between(rng, 4, 7)});
    shape = "rectangle";
    largest = turn ? 1 : 0;
  } else if (p.kind == "block") {
    const double w = Between(rng, 50, 110);
    const bool square = rng.Uniform() < 0.5;
    const double d = square ? w : Between(rng, 40, std::floor(w / 1.2));
    p.outline = Polygon({{-w / 2, -d / 2}, {w / 2, -d / 2}, {w / 2, d / 2}, {-w / 2, d / 2}});
    p.height = Between(rng, std::ceil(1.2 * w), 190);
    const int n = Pick(rng, 3);
    for (int k = 0; k < n; ++k) p.holes.push_back({{(k ? 1 : -1) * w / 4, -d / 6}, Between(rng, 4, 7)});
    shape = square ? "square" : "rectangle";
    probe = {0, d / 4};
    largest = 2;
  } else if (p.kind == "washer") {
    p.radius = Between(rng, 50, 90);
    p.holes.push_back({{0, 0}, Between(rng, 0.3 * p.radius, 0.5 * p.radius)});
    p.height = Between(rng, 4, 12);
    shape = "circle";
    probe = {0.75 * p.radius, 0};
  } else if (p.kind == "cylinder") {
    p.radius = Between(rng, 25, 45);
    p.height = Between(rng, std::ceil(2.4 * p.radius), 190);
    shape = "circle";
    largest = 2;
  } else {  // wedge: triangular profile, apex at +y
    const double w = Between(rng, 110, 170), t = Between(rng, 70, std::floor(w / 1.2));
    p.outline = Polygon({{-w / 2, -t / 2}, {w / 2, -t / 2}, {0, t / 2}});
    p.height = Between(rng, 10, 30);
    if (rng.Uniform() < 0.5) p.holes.push_back({{0, -t / 6}, 6});
    shape = "triangle";
    probe = {0, -t / 2 + 10};
    largest = 0;
  }
  it.code = CadProgram(p);
  it.views = CadViewsSvg(p);
  const Pt probe_px = Top(probe);
  it.questions.push_back(Make("Semantics", "What kind of part does this CAD program describe?", p.kind,
                              ThreeOthers(rng, p.kind, kKinds), {}));
  const int holes = static_cast<int>(p.holes.size());
  std::vector<std::string> near;
  for (int k = std::max(0, holes - 3); k <= holes + 3; ++k)
    if (k != holes) near.push_back(std::to_string(k));
  it.questions.push_back(Make("Count", "How many through-holes does the part have?", std::to_string(holes),
                              ThreeOthers(rng, std::to_string(holes), near), {"count_holes", "", 0, 0}));
  it.questions.push_back(Make("Shape", "What is the outline of the part seen from the top?", shape,
                              ThreeOthers(rng, shape, {kShapeNames.begin(), kShapeNames.end()}),
                              {"shape_at", kCadGray, probe_px.x, probe_px.y}));
  if (largest >= 0) {
    it.questions.push_back(Make("Reasoning", "Which of the part's overall dimensions is the largest?",
                                kCadDimensionOptions[static_cast<size_t>(largest)],
                                ThreeOthers(rng, kCadDimensionOptions[static_cast<size_t>(largest)],
                                            {kCadDimensionOptions.begin(), kCadDimensionOptions.end()}),
                                {"largest_dimension", "", 0, 0}));
  }
  return it;
}

std::vector<CadItem> GenerateCad(uint64_t seed, int count) {
  if (count < 0 || count > 1000000) throw std::invalid_argument("cad count must be in [0, 1000000]");
  std::vector<CadItem> out;
  LetterBalancer letters(seed, /*salt=*/1);
  for (int i = 0; i < count; ++i) {
    cb::harness::ThrowIfInterrupted();  // one check point per item
    CadItem it = MakeCadItem(seed, i);
    for (Question& q : it.questions) letters.Assign(q);
    out.push_back(std::move(it));
  }
  return out;
}

std::string CadQuestionText(const std::string& code, const std::string& question) {
  return "Examine the following CAD code carefully and understand the 3D object it generates. Then answer the "
         "question based on your interpretation of the rendered image of that object.\n\n" +
         code + "\nQuestion: " + question;
}

nlohmann::json CadRow(const CadItem& item, const Question& q) {
  return {{"Question", CadQuestionText(item.code, q.text)},
          {"A", q.options[0]},
          {"B", q.options[1]},
          {"C", q.options[2]},
          {"D", q.options[3]},
          {"Answer", std::string(1, static_cast<char>('A' + q.answer))},
          {"Subject", q.subject}};
}

std::string CadContentHash(uint64_t seed, const std::vector<CadItem>& items) {
  cb::harness::Hasher h;
  h.Update(std::string(kSgpName) + "-cad");
  h.Update(std::to_string(kSgpVersion));
  h.Update(std::to_string(seed) + "/" + std::to_string(items.size()));
  for (const CadItem& it : items) {
    h.Update(it.views);
    for (const Question& q : it.questions) h.Update(CadRow(it, q).dump());
  }
  return h.Digest().Hex();
}

nlohmann::json CadMeta(const CadItem& item, size_t question) {
  return {{"split", "cad"}, {"item", item.index}, {"kind", item.part.kind}, {"question", question},
          {"oracle", item.questions[question].oracle.Json()}};
}

}  // namespace cb::gen::sgp

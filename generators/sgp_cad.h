// File: generators/sgp_cad.h
// -----------------------------------------------------------------------------
// A small CAD language for SGP-Bench-style CAD questions (brief §2.1, §2.4: "a
// mini CAD DSL: loops of line, arc and circle segments, plus extrude"), in
// our own syntax (SGP-Bench's CAD subsets each keep their native syntax):
//
//   # cb-cad v1, units mm
//   sketch plane XY
//     loop                      outer profile, closed, counter-clockwise
//       line x0 y0 x1 y1
//       arc x0 y0 xm ym x1 y1   three-point arc: start, a point on it, end
//     end
//     circle cx cy r            a loop that is one circle (outer or a hole)
//   extrude h                   along +z from the sketch plane
//
// The first loop (or circle) is the outline; every later circle is a
// through-hole. The part is drawn as three orthographic views side by side
// in one 768x256 SVG (top: x right, y up; front: x right, z up; side: y
// right, z up), each view centred in its 256x256 panel, filled gray, holes
// left empty (fill-rule evenodd). That picture is what the raster oracle
// (suites/sgp/raster_oracle.h) reads.
//
// Parts (the Semantics answer): plate (rounded rectangle, thin, 0-4 holes),
// block (rectangle or square, tall, 0-2 holes), washer (circle, thin, one
// central hole), cylinder (circle, tall, no hole), wedge (triangular
// profile, 0-1 hole). Questions: Semantics, Count (through-holes), Shape (the
// top-view outline), Reasoning (the largest of width x, depth y, height z;
// dimensions are built >= 15% apart). Letters are balanced per subject as
// in the SVG set.
#ifndef CB_GENERATORS_SGP_CAD_H_
#define CB_GENERATORS_SGP_CAD_H_

#include <string>
#include <vector>

#include "generators/sgp.h"

namespace cb::gen::sgp {

struct CadSeg {
  bool arc = false;
  Pt a, m, b;  // start, (arc: a point on the arc), end
};

struct CadPart {
  std::string kind;               // plate, block, washer, cylinder, wedge
  std::vector<CadSeg> outline;    // closed loop; empty when the outline is a circle
  Pt centre;                      // outline circle
  double radius = 0;              // > 0: the outline is this circle
  std::vector<std::pair<Pt, double>> holes;  // centre, radius
  double height = 0;              // extrude distance
};

// The outline's extent in x and y.
struct CadBox {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
};
CadBox Bounds(const CadPart& p);

struct CadItem {
  int index = 0;
  CadPart part;
  std::string code;   // the CAD program (CadProgram(part))
  std::string views;  // the 768x256 SVG of the three views (CadViewsSvg(part))
  std::vector<Question> questions;
};

std::string CadProgram(const CadPart& p);
std::string CadViewsSvg(const CadPart& p);

// Item `index` of `seed`; letters not yet balanced. Pure function of (seed, index).
CadItem MakeCadItem(uint64_t seed, int index);
// `count` items with balanced letters.
std::vector<CadItem> GenerateCad(uint64_t seed, int count);

// The wrapper of a CAD row's Question.
std::string CadQuestionText(const std::string& code, const std::string& question);
// One row in SGP-Bench's schema.
nlohmann::json CadRow(const CadItem& item, const Question& q);

// XXH3-128 hex over (name, version, seed, count, every item's rows and views).
std::string CadContentHash(uint64_t seed, const std::vector<CadItem>& items);
// Per row: item index, kind, question position, oracle query (meta/cad.jsonl).
nlohmann::json CadMeta(const CadItem& item, size_t question);

// The oracle's panels: top, front, side, each 256 wide, at these x offsets.
inline constexpr int kCadPanelTop = 0, kCadPanelFront = 256, kCadPanelSide = 512;
inline constexpr const char* kCadGray = "#7f7f7f";
inline constexpr std::array<const char*, 4> kCadDimensionOptions = {"width (x)", "depth (y)", "height (z)",
                                                                    "all three are equal"};

}  // namespace cb::gen::sgp

#endif  // CB_GENERATORS_SGP_CAD_H_

// File: suites/sgp/raster_oracle.h
// -----------------------------------------------------------------------------
// The raster oracle of SGP questions (brief §4.3: "rasterize and recount
// colors/components/symmetry"): answers a question's OracleQuery
// (generators/sgp.h) from the rendered pixels alone, never from the scene
// graph. The query names a colour or a point; the answer is measured.
//
// Pixels are classified as background (alpha < 8), a palette colour (alpha
// >= 250 and RGB within Euclidean distance 24 of it; palette colours are >= 60
// apart), or unknown (anti-aliased edges, blends). "Solid" pixels are those
// whose 4 neighbours have the same class: one erosion removes edge blends
// that happen to look like a third colour.
//   count_color  4-connected components of solid pixels of the colour, of at
//                least 6 pixels
//   color_at     the majority solid class in the 3x3 block at the point
//   shape_at     the solid region of the colour nearest the point (within
//                3 px), holes filled, classified by fill ratio f = area/bbox,
//                aspect w/h and the centroid's place in the bbox:
//                f > 0.88: square (aspect within 8% of 1) or rectangle;
//                0.68 < f <= 0.88: circle (aspect within 8%) or ellipse;
//                0.38 < f < 0.62: diamond (centroid within 5% of the bbox
//                centre) or triangle (centroid 2/3 or 1/3 down, within 6%);
//                else unknown
//   symmetry     the bbox of all non-background pixels is mirrored about its
//                vertical and horizontal centre lines; an axis is symmetric
//                when solid pixels disagree with their solid mirror images in
//                < 0.4% of the solid object pixels, asymmetric when > 1.2%,
//                else undecided
//   count_holes        (CAD views, generators/sgp_cad.h) background components
//                      of the top-view panel (x < 256) that do not touch its
//                      border, of at least 6 pixels
//   largest_dimension  (CAD views) width = the front view's x extent, height
//                      = its y extent, depth = the side view's x extent
//                      (alpha >= 128); the largest when it exceeds both others
//                      by > 5%, "all three are equal" when all are within 5%,
//                      else undecided
// An undecided or impossible measurement returns no answer with the reason.
#ifndef CB_SUITES_SGP_RASTER_ORACLE_H_
#define CB_SUITES_SGP_RASTER_ORACLE_H_

#include <string>

#include "generators/sgp.h"
#include "suites/sgp/svg_render.h"

namespace cb::sgp {

struct OracleAnswer {
  bool answered = false;
  std::string value;   // an option text: "3", "red", "circle", "vertical axis only"
  std::string reason;  // when !answered
  double measure = 0;  // the number behind it (count, fill ratio, mismatch fraction)
};

// Throws std::invalid_argument for an unknown op or a colour not in the palette.
OracleAnswer AskOracle(const Raster& r, const cb::gen::sgp::OracleQuery& q);

// Symmetry mismatch fractions (vertical axis, horizontal axis) of the drawing.
std::pair<double, double> SymmetryMismatch(const Raster& r);

}  // namespace cb::sgp

#endif  // CB_SUITES_SGP_RASTER_ORACLE_H_

// File: suites/sgp/sgp_checks.h
// -----------------------------------------------------------------------------
// The checks of brief §4 on rendered SGP programs, shared by the tests and the
// claims:
//   MovedIoU        render(T.P) against T.render(P): the original's alpha is
//                   resampled through T's inverse (bilinear, pixel centres) and
//                   both masks are thresholded at alpha >= 128
//   CheckInvariance every variant of every program: IoU, and whether any
//                   drawn pixel lies within 2 px of the canvas border
//   CheckOracle     every question with an oracle query, on the original and
//                   (rotation-invariant ones) on every variant: the raster
//                   oracle's answer against the answer key
//   CheckCadOracle  the same for CAD items (Count, Shape, Reasoning) on their
//                   three-view drawings
#ifndef CB_SUITES_SGP_SGP_CHECKS_H_
#define CB_SUITES_SGP_SGP_CHECKS_H_

#include <map>
#include <string>
#include <vector>

#include "generators/sgp.h"
#include "generators/sgp_cad.h"
#include "suites/sgp/svg_render.h"

namespace cb::sgp {

double MovedIoU(const Raster& original, const Raster& moved, const cb::gen::sgp::Se2& m);
// Whether a pixel with alpha > 0 lies within `margin` px of the border.
bool TouchesBorder(const Raster& r, int margin = 2);

struct InvarianceReport {
  int translated = 0, rotated = 0;
  double min_iou_translated = 1, min_iou_rotated = 1;
  std::vector<double> ious;  // in variant order
  int touching_border = 0;   // originals and variants
};
InvarianceReport CheckInvariance(const cb::gen::sgp::Dataset& d);

struct OracleTally {
  int asked = 0, answered = 0, agreed = 0;
};
struct OracleReport {
  std::map<std::string, OracleTally> by_subject;  // subjects the oracle covers
  OracleTally total;
  std::vector<std::string> problems;  // first few: "program 12 inv_r3 Count: key 4, oracle 3"
};
OracleReport CheckOracle(const cb::gen::sgp::Dataset& d, bool with_variants);
// The same for CAD items, on their 768x256 three-view drawings.
OracleReport CheckCadOracle(const std::vector<cb::gen::sgp::CadItem>& items);

}  // namespace cb::sgp

#endif  // CB_SUITES_SGP_SGP_CHECKS_H_

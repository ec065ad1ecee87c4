// File: suites/sgp/sgp_checks.cpp
// Renderer-agreement and oracle checks; see sgp_checks.h.
#include "suites/sgp/sgp_checks.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "suites/sgp/raster_oracle.h"

namespace cb::sgp {

namespace gs = cb::gen::sgp;

double MovedIoU(const Raster& original, const Raster& moved, const gs::Se2& m) {
  const double t = m.theta_deg * std::numbers::pi / 180, c = std::cos(t), s = std::sin(t);
  const double cx = original.width / 2.0, cy = original.height / 2.0;
  auto alpha = [&](int x, int y) -> double {
    if (x < 0 || y < 0 || x >= original.width || y >= original.height) return 0;
    return original.A(x, y);
  };
  int64_t inter = 0, uni = 0;
  for (int y = 0; y < moved.height; ++y)
    for (int x = 0; x < moved.width; ++x) {
      // Source point of this pixel's centre: R(-theta) (q - c - d) + c.
      const double qx = x + 0.5 - cx - m.dx, qy = y + 0.5 - cy - m.dy;
      const double px = c * qx + s * qy + cx - 0.5, py = -s * qx + c * qy + cy - 0.5;
      const int x0 = static_cast<int>(std::floor(px)), y0 = static_cast<int>(std::floor(py));
      const double fx = px - x0, fy = py - y0;
      const double a = (1 - fy) * ((1 - fx) * alpha(x0, y0) + fx * alpha(x0 + 1, y0)) +
                       fy * ((1 - fx) * alpha(x0, y0 + 1) + fx * alpha(x0 + 1, y0 + 1));
      const bool want = a >= 128, got = moved.A(x, y) >= 128;
      inter += want && got;
      uni += want || got;
    }
  return uni ? static_cast<double>(inter) / uni : 1.0;
}

bool TouchesBorder(const Raster& r, int margin) {
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x)
      if ((x < margin || y < margin || x >= r.width - margin || y >= r.height - margin) && r.A(x, y) > 0) return true;
  return false;
}

InvarianceReport CheckInvariance(const gs::Dataset& d) {
  InvarianceReport rep;
  for (size_t i = 0; i < d.programs.size(); ++i) {
    const Raster base = RenderSvg(d.programs[i].svg);
    rep.touching_border += TouchesBorder(base);
    for (const gs::Variant& v : d.variants[i]) {
      const Raster moved = RenderSvg(v.svg);
      rep.touching_border += TouchesBorder(moved);
      const double iou = MovedIoU(base, moved, v.motion);
      rep.ious.push_back(iou);
      if (v.motion.rotates()) {
        ++rep.rotated;
        rep.min_iou_rotated = std::min(rep.min_iou_rotated, iou);
      } else {
        ++rep.translated;
        rep.min_iou_translated = std::min(rep.min_iou_translated, iou);
      }
    }
  }
  return rep;
}

OracleReport CheckOracle(const gs::Dataset& d, bool with_variants) {
  OracleReport rep;
  auto ask = [&](const Raster& r, const gs::Program& p, const gs::Question& q, const gs::Se2& m,
                 const std::string& where) {
    if (q.oracle.op.empty()) return;
    gs::OracleQuery oq = q.oracle;
    const gs::Pt at = m.Apply({oq.x, oq.y});
    oq.x = at.x, oq.y = at.y;
    const OracleAnswer a = AskOracle(r, oq);
    const std::string& key = q.options[static_cast<size_t>(q.answer)];
    OracleTally& t = rep.by_subject[q.subject];
    for (OracleTally* x : {&t, &rep.total}) {
      ++x->asked;
      x->answered += a.answered;
      x->agreed += a.answered && a.value == key;
    }
    if ((!a.answered || a.value != key) && rep.problems.size() < 20)
      rep.problems.push_back("program " + std::to_string(p.index) + " (" + p.label + ") " + where + " " + q.subject +
                             ": key '" + key + "', oracle " + (a.answered ? "'" + a.value + "'" : a.reason));
  };
  for (size_t i = 0; i < d.programs.size(); ++i) {
    const gs::Program& p = d.programs[i];
    const Raster base = RenderSvg(p.svg);
    for (const gs::Question& q : p.questions) ask(base, p, q, gs::Se2{}, "svg");
    if (!with_variants) continue;
    for (const gs::Variant& v : d.variants[i]) {
      const Raster r = RenderSvg(v.svg);
      for (const gs::Question& q : p.questions)
        if (q.rotation_invariant) ask(r, p, q, v.motion, v.split);
    }
  }
  return rep;
}

OracleReport CheckCadOracle(const std::vector<gs::CadItem>& items) {
  OracleReport rep;
  for (const gs::CadItem& it : items) {
    const Raster r = RenderSvg(it.views, 768, 256);
    for (const gs::Question& q : it.questions) {
      if (q.oracle.op.empty()) continue;
      const OracleAnswer a = AskOracle(r, q.oracle);
      const std::string& key = q.options[static_cast<size_t>(q.answer)];
      for (OracleTally* x : {&rep.by_subject[q.subject], &rep.total}) {
        ++x->asked;
        x->answered += a.answered;
        x->agreed += a.answered && a.value == key;
      }
      if ((!a.answered || a.value != key) && rep.problems.size() < 20)
        rep.problems.push_back("cad item " + std::to_string(it.index) + " (" + it.part.kind + ") " + q.subject +
                               ": key '" + key + "', oracle " + (a.answered ? "'" + a.value + "'" : a.reason));
    }
  }
  return rep;
}

}  // namespace cb::sgp

// File: suites/sgp/raster_oracle.cpp
// Answers SGP questions from pixels; the rules are in raster_oracle.h.
#include "suites/sgp/raster_oracle.h"

#include "generators/sgp_cad.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace cb::sgp {
namespace {

namespace gs = cb::gen::sgp;

constexpr int kBackground = -1, kUnknown = -2;

struct Rgb {
  int r, g, b;
};

Rgb ParseHex(const std::string& hex) {
  if (hex.size() != 7 || hex[0] != '#') throw std::invalid_argument("oracle: bad colour '" + hex + "'");
  const int v = std::stoi(hex.substr(1), nullptr, 16);
  return {(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff};
}

int PaletteIndex(const std::string& hex) {
  const auto& pal = gs::Palette();
  for (size_t k = 0; k < pal.size(); ++k)
    if (hex == pal[k].hex) return static_cast<int>(k);
  throw std::invalid_argument("oracle: colour " + hex + " is not in the palette");
}

// Per pixel: background, palette index, or unknown; then the eroded ("solid") map.
struct Classes {
  int w = 0, h = 0;
  std::vector<int> label, solid;
  int At(const std::vector<int>& m, int x, int y) const { return m[static_cast<size_t>(y) * w + x]; }
};

Classes Classify(const Raster& r) {
  static const std::vector<Rgb> pal = [] {
    std::vector<Rgb> p;
    for (const auto& c : gs::Palette()) p.push_back(ParseHex(c.hex));
    return p;
  }();
  Classes c;
  c.w = r.width, c.h = r.height;
  const size_t n = static_cast<size_t>(r.width) * r.height;
  c.label.assign(n, kUnknown);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &r.rgba[4 * i];
    if (p[3] < 8) {
      c.label[i] = kBackground;
      continue;
    }
    if (p[3] < 250) continue;
    for (size_t k = 0; k < pal.size(); ++k) {
      const int dr = p[0] - pal[k].r, dg = p[1] - pal[k].g, db = p[2] - pal[k].b;
      if (dr * dr + dg * dg + db * db <= 24 * 24) {
        c.label[i] = static_cast<int>(k);
        break;
      }
    }
  }
  c.solid.assign(n, kUnknown);
  for (int y = 1; y + 1 < c.h; ++y)
    for (int x = 1; x + 1 < c.w; ++x) {
      const int l = c.At(c.label, x, y);
      if (l == kUnknown) continue;
      if (c.At(c.label, x - 1, y) == l && c.At(c.label, x + 1, y) == l && c.At(c.label, x, y - 1) == l &&
          c.At(c.label, x, y + 1) == l)
        c.solid[static_cast<size_t>(y) * c.w + x] = l;
    }
  return c;
}

// 4-connected region of `want` in `mask` from (x0, y0); marks `seen`.
std::vector<int> Flood(const std::vector<int>& mask, int w, int h, int want, int x0, int y0, std::vector<char>& seen) {
  std::vector<int> region, stack = {y0 * w + x0};
  seen[static_cast<size_t>(y0 * w + x0)] = 1;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    region.push_back(i);
    const int x = i % w, y = i / w;
    const int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
    for (const auto& q : nb) {
      if (q[0] < 0 || q[1] < 0 || q[0] >= w || q[1] >= h) continue;
      const int j = q[1] * w + q[0];
      if (seen[static_cast<size_t>(j)] || mask[static_cast<size_t>(j)] != want) continue;
      seen[static_cast<size_t>(j)] = 1;
      stack.push_back(j);
    }
  }
  return region;
}

OracleAnswer Answered(std::string value, double measure) { return {true, std::move(value), "", measure}; }
OracleAnswer NoAnswer(std::string why, double measure = 0) { return {false, "", std::move(why), measure}; }

OracleAnswer CountColor(const Classes& c, int k) {
  std::vector<char> seen(c.solid.size(), 0);
  int count = 0;
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      const size_t i = static_cast<size_t>(y) * c.w + x;
      if (seen[i] || c.solid[i] != k) continue;
      if (Flood(c.solid, c.w, c.h, k, x, y, seen).size() >= 6) ++count;
    }
  return Answered(std::to_string(count), count);
}

OracleAnswer ColorAt(const Classes& c, double fx, double fy) {
  const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
  std::vector<int> votes(gs::Palette().size(), 0);
  for (int y = y0 - 1; y <= y0 + 1; ++y)
    for (int x = x0 - 1; x <= x0 + 1; ++x)
      if (x >= 0 && y >= 0 && x < c.w && y < c.h && c.At(c.solid, x, y) >= 0) ++votes[c.At(c.solid, x, y)];
  const auto best = std::max_element(votes.begin(), votes.end());
  if (*best < 5) return NoAnswer("no solid colour at the point");
  return Answered(gs::Palette()[static_cast<size_t>(best - votes.begin())].name, *best);
}

OracleAnswer ShapeAt(const Classes& c, int k, double fx, double fy) {
  const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
  int sx = -1, sy = -1, best = 1 << 30;
  for (int y = y0 - 3; y <= y0 + 3; ++y)
    for (int x = x0 - 3; x <= x0 + 3; ++x)
      if (x >= 0 && y >= 0 && x < c.w && y < c.h && c.At(c.solid, x, y) == k) {
        const int d = (x - x0) * (x - x0) + (y - y0) * (y - y0);
        if (d < best) best = d, sx = x, sy = y;
      }
  if (sx < 0) return NoAnswer("no region of the colour near the point");
  std::vector<char> seen(c.solid.size(), 0);
  const std::vector<int> region = Flood(c.solid, c.w, c.h, k, sx, sy, seen);
  int minx = c.w, maxx = -1, miny = c.h, maxy = -1;
  for (int i : region) {
    minx = std::min(minx, i % c.w), maxx = std::max(maxx, i % c.w);
    miny = std::min(miny, i / c.w), maxy = std::max(maxy, i / c.w);
  }
  // Fill holes: bbox pixels not in the region and not reachable from the bbox border.
  const int bw = maxx - minx + 1, bh = maxy - miny + 1;
  std::vector<int> box(static_cast<size_t>(bw) * bh, 0);
  for (int i : region) box[static_cast<size_t>((i / c.w - miny) * bw + (i % c.w - minx))] = 1;
  std::vector<char> outside(box.size(), 0);
  for (int y = 0; y < bh; ++y)
    for (int x = 0; x < bw; ++x) {
      const bool border = x == 0 || y == 0 || x == bw - 1 || y == bh - 1;
      const size_t i = static_cast<size_t>(y) * bw + x;
      if (border && !box[i] && !outside[i]) Flood(box, bw, bh, 0, x, y, outside);
    }
  double area = 0, sumx = 0, sumy = 0;
  for (int y = 0; y < bh; ++y)
    for (int x = 0; x < bw; ++x) {
      const size_t i = static_cast<size_t>(y) * bw + x;
      if (box[i] || !outside[i]) area += 1, sumx += x + 0.5, sumy += y + 0.5;
    }
  const double fill = area / (static_cast<double>(bw) * bh), aspect = static_cast<double>(bw) / bh;
  const double cx = sumx / area / bw, cy = sumy / area / bh;
  const bool round = std::abs(aspect - 1) <= 0.08;
  if (fill > 0.88) return Answered(round ? "square" : "rectangle", fill);
  if (fill > 0.68) return Answered(round ? "circle" : "ellipse", fill);
  if (fill > 0.38 && fill < 0.62) {
    if (std::abs(cx - 0.5) < 0.05 && std::abs(cy - 0.5) < 0.05) return Answered("diamond", fill);
    if (std::abs(cx - 0.5) < 0.05 && (std::abs(cy - 2.0 / 3) < 0.06 || std::abs(cy - 1.0 / 3) < 0.06))
      return Answered("triangle", fill);
  }
  char why[160];
  std::snprintf(why, sizeof why, "unclassified region: fill %.3f, aspect %.3f, centroid (%.3f, %.3f)", fill, aspect,
                cx, cy);
  return NoAnswer(why, fill);
}

std::pair<double, double> Mismatch(const Classes& c, const Raster& r) {
  int minx = c.w, maxx = -1, miny = c.h, maxy = -1;
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x)
      if (r.A(x, y) > 0) minx = std::min(minx, x), maxx = std::max(maxx, x), miny = std::min(miny, y), maxy = std::max(maxy, y);
  if (maxx < 0) return {1, 1};
  int64_t object = 0, vbad = 0, hbad = 0;
  for (int y = miny; y <= maxy; ++y)
    for (int x = minx; x <= maxx; ++x) {
      const int l = c.At(c.solid, x, y);
      if (l == kUnknown) continue;
      object += l >= 0;
      const int lv = c.At(c.solid, minx + maxx - x, y), lh = c.At(c.solid, x, miny + maxy - y);
      vbad += lv != kUnknown && lv != l;
      hbad += lh != kUnknown && lh != l;
    }
  if (object == 0) return {1, 1};
  return {static_cast<double>(vbad) / object, static_cast<double>(hbad) / object};
}

// CAD views (generators/sgp_cad.h): holes of the top view, panel [0, 256).
OracleAnswer CountHoles(const Classes& c) {
  const int pw = std::min(c.w, 256);
  std::vector<int> mask(c.label.size(), 0);
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < pw; ++x) mask[static_cast<size_t>(y) * c.w + x] = c.At(c.label, x, y) == kBackground;
  std::vector<char> seen(mask.size(), 0);
  int holes = 0;
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < pw; ++x) {
      const size_t i = static_cast<size_t>(y) * c.w + x;
      if (seen[i] || !mask[i]) continue;
      const std::vector<int> region = Flood(mask, c.w, c.h, 1, x, y, seen);
      bool border = false;
      for (int j : region) {
        const int rx = j % c.w, ry = j / c.w;
        border = border || rx == 0 || ry == 0 || rx >= pw - 1 || ry == c.h - 1;
      }
      if (!border && region.size() >= 6) ++holes;
    }
  return Answered(std::to_string(holes), holes);
}

// Extent in pixels (alpha >= 128) of the drawing within columns [x0, x1): (width, height).
std::pair<int, int> Extent(const Raster& r, int x0, int x1) {
  int minx = r.width, maxx = -1, miny = r.height, maxy = -1;
  for (int y = 0; y < r.height; ++y)
    for (int x = x0; x < std::min(x1, r.width); ++x)
      if (r.A(x, y) >= 128) minx = std::min(minx, x), maxx = std::max(maxx, x), miny = std::min(miny, y), maxy = std::max(maxy, y);
  if (maxx < 0) return {0, 0};
  return {maxx - minx + 1, maxy - miny + 1};
}

// The largest of width (front view x), depth (side view x) and height (front view y).
OracleAnswer LargestDimension(const Raster& r) {
  if (r.width < 768) return NoAnswer("not a three-view CAD drawing");
  const auto [w, h] = Extent(r, 256, 512);
  const int d = Extent(r, 512, 768).first;
  const std::array<int, 3> dims = {w, d, h};
  const int top = static_cast<int>(std::max_element(dims.begin(), dims.end()) - dims.begin());
  const int lo = *std::min_element(dims.begin(), dims.end());
  if (dims[static_cast<size_t>(top)] <= 1.05 * lo) return Answered(gs::kCadDimensionOptions[3], lo);
  for (int k = 0; k < 3; ++k)
    if (k != top && dims[static_cast<size_t>(top)] <= 1.05 * dims[static_cast<size_t>(k)])
      return NoAnswer("two dimensions within 5%");
  return Answered(gs::kCadDimensionOptions[static_cast<size_t>(top)], dims[static_cast<size_t>(top)]);
}

}  // namespace

std::pair<double, double> SymmetryMismatch(const Raster& r) { return Mismatch(Classify(r), r); }

OracleAnswer AskOracle(const Raster& r, const gs::OracleQuery& q) {
  if (q.op.empty()) return NoAnswer("not answerable from pixels");
  const Classes c = Classify(r);
  if (q.op == "count_color") return CountColor(c, PaletteIndex(q.color));
  if (q.op == "color_at") return ColorAt(c, q.x, q.y);
  if (q.op == "shape_at") return ShapeAt(c, PaletteIndex(q.color), q.x, q.y);
  if (q.op == "count_holes") return CountHoles(c);
  if (q.op == "largest_dimension") return LargestDimension(r);
  if (q.op == "symmetry") {
    const auto [v, h] = Mismatch(c, r);
    auto decide = [](double m) { return m < 0.004 ? 1 : m > 0.012 ? 0 : -1; };
    const int sv = decide(v), sh = decide(h);
    if (sv < 0 || sh < 0) {
      char why[120];
      std::snprintf(why, sizeof why, "undecided symmetry: mismatch vertical %.4f, horizontal %.4f", v, h);
      return NoAnswer(why, std::max(v, h));
    }
    const int which = sv && sh ? 2 : sv ? 0 : sh ? 1 : 3;
    return Answered(gs::kSymmetryOptions[static_cast<size_t>(which)], std::max(v, h));
  }
  throw std::invalid_argument("oracle: unknown op '" + q.op + "'");
}

}  // namespace cb::sgp

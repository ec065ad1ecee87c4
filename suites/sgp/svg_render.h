// File: suites/sgp/svg_render.h
// -----------------------------------------------------------------------------
// Renders an SVG program to straight-alpha RGBA with librsvg (Debian's
// librsvg2 2.54, through cairo): the raster the SGP oracle and the invariance
// checks look at. The document's viewBox is fitted to the requested size.
// Malformed SVG (not XML, not an <svg> document, a bad attribute value that
// librsvg refuses) throws std::runtime_error "malformed SVG: <librsvg's reason>".
#ifndef CB_SUITES_SGP_SVG_RENDER_H_
#define CB_SUITES_SGP_SVG_RENDER_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace cb::sgp {

struct Raster {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // [height][width][4], straight (not premultiplied) alpha
  uint8_t A(int x, int y) const { return rgba[(static_cast<size_t>(y) * width + x) * 4 + 3]; }
};

// REQUIRES: 1 <= width, height <= 8192.
Raster RenderSvg(std::string_view svg, int width = 256, int height = 256);

}  // namespace cb::sgp

#endif  // CB_SUITES_SGP_SVG_RENDER_H_

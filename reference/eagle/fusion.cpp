// File: reference/eagle/fusion.cpp
// The fusion operations; see fusion.h.
#include "reference/eagle/fusion.h"

#include <algorithm>
#include <stdexcept>

namespace cb::ref::eagle {

Grid ResizeBilinear(const Grid& in, int oh, int ow) {
  Grid out{in.c, oh, ow, std::vector<double>(static_cast<size_t>(in.c) * oh * ow)};
  auto src = [](int d, int n_in, int n_out) { return n_out > 1 ? d * double(n_in - 1) / (n_out - 1) : 0.0; };
  for (int ch = 0; ch < in.c; ++ch)
    for (int y = 0; y < oh; ++y) {
      const double sy = src(y, in.h, oh);
      const int y0 = std::min(static_cast<int>(sy), in.h - 1), y1 = std::min(y0 + 1, in.h - 1);
      const double fy = sy - y0;
      for (int x = 0; x < ow; ++x) {
        const double sx = src(x, in.w, ow);
        const int x0 = std::min(static_cast<int>(sx), in.w - 1), x1 = std::min(x0 + 1, in.w - 1);
        const double fx = sx - x0;
        const double top = in.at(ch, y0, x0) * (1 - fx) + in.at(ch, y0, x1) * fx;
        const double bot = in.at(ch, y1, x0) * (1 - fx) + in.at(ch, y1, x1) * fx;
        out.v[(static_cast<size_t>(ch) * oh + y) * ow + x] = top * (1 - fy) + bot * fy;
      }
    }
  return out;
}

Grid PixelUnshuffle(const Grid& in, int r) {
  if (r < 1 || in.h % r || in.w % r) throw std::invalid_argument("pixel_unshuffle: size not divisible by r");
  Grid out{in.c * r * r, in.h / r, in.w / r, {}};
  out.v.resize(in.v.size());
  for (int ch = 0; ch < in.c; ++ch)
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j)
        for (int y = 0; y < out.h; ++y)
          for (int x = 0; x < out.w; ++x)
            out.v[(static_cast<size_t>(ch * r * r + i * r + j) * out.h + y) * out.w + x] = in.at(ch, y * r + i, x * r + j);
  return out;
}

Tokens FuseChannelConcat(const std::vector<Grid>& experts, int grid) {
  Tokens t;
  t.n = grid * grid;
  for (const auto& e : experts) t.width += e.c;
  t.v.assign(static_cast<size_t>(t.n) * t.width, 0);
  int offset = 0;
  for (const auto& e : experts) {
    const Grid g = e.w != grid ? ResizeBilinear(e, grid, grid) : e;  // the code tests w only
    if (g.h * g.w != t.n) throw std::invalid_argument("fuse: an expert grid is not grid x grid after resizing");
    for (int ch = 0; ch < g.c; ++ch)
      for (int p = 0; p < t.n; ++p) t.v[static_cast<size_t>(p) * t.width + offset + ch] = g.v[static_cast<size_t>(ch) * t.n + p];
    offset += g.c;
  }
  return t;
}

}  // namespace cb::ref::eagle

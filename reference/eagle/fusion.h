// File: reference/eagle/fusion.h
// -----------------------------------------------------------------------------
// EAGLE's channel-concatenation fusion on plain tensors (brief §7(a), (c);
// NVlabs/EAGLE fef95f103b5e9899acbbe2c237e5b99147ab7e8e,
// eagle/model/multimodal_encoder/multi_backbone_channel_concatenation_encoder.py
// forward(), sam_encoder.py): the operations whose layout decides what the
// projector sees.
//   ResizeBilinear   F.interpolate(mode='bilinear', align_corners=True):
//                    source coordinate = dst * (in - 1) / (out - 1) (0 when
//                    out = 1), linear between the two neighbours
//   PixelUnshuffle   torch.nn.functional.pixel_unshuffle(x, r), SAM's
//                    (256 x 64 x 64 -> 1024 x 32 x 32): out[c r^2 + i r + j][y][x]
//                    = in[c][y r + i][x r + j]
//   FuseChannelConcat each expert grid [c_e][h_e][w_e] resized to 32 x 32 when
//                    its width is not 32 (the code tests w only), flattened to
//                    tokens (row-major over y, x), concatenated along channels
//                    in expert order: tokens [1024][sum c_e], expert e's
//                    channels at offset sum_{k<e} c_k.
// fp64 throughout (the code interpolates in float32).
#ifndef CB_REFERENCE_EAGLE_FUSION_H_
#define CB_REFERENCE_EAGLE_FUSION_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cb::ref::eagle {

struct Grid {
  int c = 0, h = 0, w = 0;
  std::vector<double> v;  // [c][h][w]
  double at(int ch, int y, int x) const { return v[(static_cast<std::size_t>(ch) * h + y) * w + x]; }
};

Grid ResizeBilinear(const Grid& in, int out_h, int out_w);
// REQUIRES: h and w divisible by r.
Grid PixelUnshuffle(const Grid& in, int r);

struct Tokens {
  int n = 0, width = 0;
  std::vector<double> v;  // [n][width]
};
Tokens FuseChannelConcat(const std::vector<Grid>& experts, int grid = 32);

}  // namespace cb::ref::eagle

#endif  // CB_REFERENCE_EAGLE_FUSION_H_

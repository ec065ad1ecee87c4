// File: reference/probegen/conv_transpose.cpp
// -----------------------------------------------------------------------------
// ConvTranspose2d (groups 1, dilation 1, no output padding) in fp64 plain
// loops: a gather forward, the scatter form that is its definition, and the
// backward; see conv_transpose.h. The layer of ProbeGen's deep linear
// generators (reference/probegen/generator.h).
#include "reference/probegen/conv_transpose.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace cb::ref::probegen {
namespace {

void CheckShape(const ConvTShape& s, int batch, int h, int w, const char* fn) {
  if (s.c_in < 1 || s.c_out < 1 || s.k < 1 || s.stride < 1 || s.pad < 0 || batch < 1 || h < 1 ||
      w < 1) {
    throw std::invalid_argument(std::string(fn) +
                                ": need c_in, c_out, k, stride, batch, h, w >= 1 and pad >= 0");
  }
}

// The (tap, input index) pairs that reach output index o along one axis:
// o = i * stride - pad + t for an integer i in [0, in). The gather form
// inverts the scatter's index map with these lists, built once per call.
struct Tap {
  int t, i;
};
std::vector<std::vector<Tap>> TapsPerOutput(int out, int in, const ConvTShape& s) {
  std::vector<std::vector<Tap>> taps(out);
  for (int o = 0; o < out; ++o) {
    for (int t = 0; t < s.k; ++t) {
      const int num = o + s.pad - t;
      if (num < 0 || num % s.stride != 0 || num / s.stride >= in) continue;
      taps[o].push_back({t, num / s.stride});
    }
  }
  return taps;
}

}  // namespace

int ConvTOutSize(int in, const ConvTShape& s) {
  if (in < 1 || s.k < 1 || s.stride < 1 || s.pad < 0) {
    throw std::invalid_argument("ConvTOutSize: need in, k, stride >= 1 and pad >= 0");
  }
  const int out = (in - 1) * s.stride - 2 * s.pad + s.k;
  if (out < 1) {
    throw std::invalid_argument("ConvTOutSize: output size " + std::to_string(out) +
                                " < 1 (padding larger than the transposed output)");
  }
  return out;
}

void ConvTransposeForward(const ConvTShape& s, int batch, int h, int w, const double* x,
                          const double* weight, const double* bias, double* y) {
  CheckShape(s, batch, h, w, "ConvTransposeForward");
  const int ho = ConvTOutSize(h, s), wo = ConvTOutSize(w, s);
  const int k = s.k;
  const std::vector<std::vector<Tap>> row_taps = TapsPerOutput(ho, h, s);
  const std::vector<std::vector<Tap>> col_taps = TapsPerOutput(wo, w, s);
  // x (B, c_in, h, w), weight (c_in, c_out, k, k), bias (c_out), y (B, c_out, ho, wo)
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < s.c_out; ++o) {
      for (int yo = 0; yo < ho; ++yo) {
        for (int xo = 0; xo < wo; ++xo) {
          double acc = bias[o];
          for (int c = 0; c < s.c_in; ++c) {
            const double* xc = x + (int64_t(b) * s.c_in + c) * h * w;
            const double* wco = weight + (int64_t(c) * s.c_out + o) * k * k;
            for (const Tap& r : row_taps[yo]) {
              for (const Tap& q : col_taps[xo]) {
                acc += xc[int64_t(r.i) * w + q.i] * wco[r.t * k + q.t];
              }
            }
          }
          y[((int64_t(b) * s.c_out + o) * ho + yo) * wo + xo] = acc;
        }
      }
    }
  }
}

void ConvTransposeScatter(const ConvTShape& s, int batch, int h, int w, const double* x,
                          const double* weight, const double* bias, double* y) {
  CheckShape(s, batch, h, w, "ConvTransposeScatter");
  const int ho = ConvTOutSize(h, s), wo = ConvTOutSize(w, s);
  const int k = s.k;
  // Start every output pixel at its bias, then let each input pixel add its
  // k x k footprint: the header's definition, read literally.
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < s.c_out; ++o) {
      double* yo_plane = y + (int64_t(b) * s.c_out + o) * ho * wo;
      for (int64_t p = 0; p < int64_t(ho) * wo; ++p) yo_plane[p] = bias[o];
    }
  }
  for (int b = 0; b < batch; ++b) {
    for (int c = 0; c < s.c_in; ++c) {
      for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) {
          const double xv = x[((int64_t(b) * s.c_in + c) * h + i) * w + j];
          for (int o = 0; o < s.c_out; ++o) {
            const double* wco = weight + (int64_t(c) * s.c_out + o) * k * k;
            double* yplane = y + (int64_t(b) * s.c_out + o) * ho * wo;
            for (int ki = 0; ki < k; ++ki) {
              const int yo = i * s.stride - s.pad + ki;
              if (yo < 0 || yo >= ho) continue;
              for (int kj = 0; kj < k; ++kj) {
                const int xo = j * s.stride - s.pad + kj;
                if (xo < 0 || xo >= wo) continue;
                yplane[int64_t(yo) * wo + xo] += xv * wco[ki * k + kj];
              }
            }
          }
        }
      }
    }
  }
}

void ConvTransposeBackward(const ConvTShape& s, int batch, int h, int w, const double* x,
                           const double* weight, const double* dy, double* dx, double* dweight,
                           double* dbias) {
  CheckShape(s, batch, h, w, "ConvTransposeBackward");
  const int ho = ConvTOutSize(h, s), wo = ConvTOutSize(w, s);
  const int k = s.k;
  // y[b, o, i*stride - pad + ki, j*stride - pad + kj] += x[b, c, i, j] * weight[c, o, ki, kj],
  // so every (input pixel, tap) pair inside y gives
  //   dx[b, c, i, j]        += dy[b, o, yo, xo] * weight[c, o, ki, kj]
  //   dweight[c, o, ki, kj] += dy[b, o, yo, xo] * x[b, c, i, j]
  // (dx is an ordinary strided convolution of dy).
  if (dx != nullptr) {
    // dx (B, c_in, h, w)
    for (int b = 0; b < batch; ++b) {
      for (int c = 0; c < s.c_in; ++c) {
        for (int i = 0; i < h; ++i) {
          for (int j = 0; j < w; ++j) {
            double acc = 0.0;
            for (int o = 0; o < s.c_out; ++o) {
              const double* wco = weight + (int64_t(c) * s.c_out + o) * k * k;
              const double* dyplane = dy + (int64_t(b) * s.c_out + o) * ho * wo;
              for (int ki = 0; ki < k; ++ki) {
                const int yo = i * s.stride - s.pad + ki;
                if (yo < 0 || yo >= ho) continue;
                for (int kj = 0; kj < k; ++kj) {
                  const int xo = j * s.stride - s.pad + kj;
                  if (xo < 0 || xo >= wo) continue;
                  acc += dyplane[int64_t(yo) * wo + xo] * wco[ki * k + kj];
                }
              }
            }
            dx[((int64_t(b) * s.c_in + c) * h + i) * w + j] = acc;
          }
        }
      }
    }
  }
  if (dweight != nullptr) {
    // dweight (c_in, c_out, k, k)
    for (int c = 0; c < s.c_in; ++c) {
      for (int o = 0; o < s.c_out; ++o) {
        for (int ki = 0; ki < k; ++ki) {
          for (int kj = 0; kj < k; ++kj) {
            double acc = 0.0;
            for (int b = 0; b < batch; ++b) {
              const double* xc = x + (int64_t(b) * s.c_in + c) * h * w;
              const double* dyplane = dy + (int64_t(b) * s.c_out + o) * ho * wo;
              for (int i = 0; i < h; ++i) {
                const int yo = i * s.stride - s.pad + ki;
                if (yo < 0 || yo >= ho) continue;
                for (int j = 0; j < w; ++j) {
                  const int xo = j * s.stride - s.pad + kj;
                  if (xo < 0 || xo >= wo) continue;
                  acc += dyplane[int64_t(yo) * wo + xo] * xc[int64_t(i) * w + j];
                }
              }
            }
            dweight[((int64_t(c) * s.c_out + o) * k + ki) * k + kj] = acc;
          }
        }
      }
    }
  }
  if (dbias != nullptr) {
    // dbias (c_out): the bias reaches every output pixel of its channel.
    for (int o = 0; o < s.c_out; ++o) {
      double acc = 0.0;
      for (int b = 0; b < batch; ++b) {
        const double* dyplane = dy + (int64_t(b) * s.c_out + o) * ho * wo;
        for (int64_t p = 0; p < int64_t(ho) * wo; ++p) acc += dyplane[p];
      }
      dbias[o] = acc;
    }
  }
}

int64_t ConvTransposeMacs(const ConvTShape& s, int batch, int h, int w) {
  return int64_t(batch) * s.c_in * h * w * s.c_out * s.k * s.k;
}

}  // namespace cb::ref::probegen

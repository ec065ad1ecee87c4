// File: reference/probegen/conv_transpose.h
// -----------------------------------------------------------------------------
// 2-D transposed convolution (PyTorch's ConvTranspose2d with groups = 1,
// dilation = 1, output_padding = 0): the layer of ProbeGen's deep linear
// generator (reference/probegen/generator.h). fp64, plain loops: the spec.
//
//   x (B, c_in, h, w), weight (c_in, c_out, k, k) (PyTorch's layout for a
//   transposed convolution), bias (c_out) -> y (B, c_out, ho, wo) with
//   ho = (h - 1) * stride - 2 * pad + k  (the same for wo).
//   y[b, o, i*stride - pad + ki, j*stride - pad + kj] += x[b, c, i, j] * weight[c, o, ki, kj]
//   for every input pixel (i, j) and tap (ki, kj) whose target lies inside y,
//   plus bias[o] on every output pixel.
#ifndef CB_REFERENCE_PROBEGEN_CONV_TRANSPOSE_H_
#define CB_REFERENCE_PROBEGEN_CONV_TRANSPOSE_H_

#include <cstdint>

namespace cb::ref::probegen {

struct ConvTShape {
  int c_in = 1, c_out = 1, k = 1, stride = 1, pad = 0;
};

// (in - 1) * stride - 2 * pad + k. REQUIRES: the result >= 1.
int ConvTOutSize(int in, const ConvTShape& s);

// y = ConvTranspose2d(x) in gather form: each output pixel sums the input
// pixels and taps that reach it. y is overwritten.
void ConvTransposeForward(const ConvTShape& s, int batch, int h, int w, const double* x,
                          const double* weight, const double* bias, double* y);

// The same result written as the definition above: every input pixel
// scatters x * weight into y. The independent oracle of the forward.
void ConvTransposeScatter(const ConvTShape& s, int batch, int h, int w, const double* x,
                          const double* weight, const double* bias, double* y);

// Gradients of sum(dy * y) with respect to x, weight and bias. Each output
// pointer may be null (not wanted); the wanted ones are overwritten.
//   dy (B, c_out, ho, wo); dx (B, c_in, h, w); dweight (c_in, c_out, k, k); dbias (c_out)
void ConvTransposeBackward(const ConvTShape& s, int batch, int h, int w, const double* x,
                           const double* weight, const double* dy, double* dx, double* dweight,
                           double* dbias);

// Multiply-adds of one forward: batch * c_in * h * w * c_out * k * k (taps
// that fall outside y counted too, as a dense implementation does them).
int64_t ConvTransposeMacs(const ConvTShape& s, int batch, int h, int w);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_CONV_TRANSPOSE_H_

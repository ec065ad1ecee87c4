// File: reference/probegen/generator.h
// -----------------------------------------------------------------------------
// ProbeGen's probe generators (Kahana et al., ICLR 2025; the authors'
// ProbeGen.py, jonkahana/ProbeGen@4872aa7): n learned latents z (n, 32, 1, 1)
// through a stack of ConvTranspose2d layers with NO activation between them,
// then tanh. width_mult = 16 (the authors' default gen_hidden):
//
//   deep_linear_6: ConvT(32->128, k4 s1 p0)  1 -> 4
//                  ConvT(128->64, k4 s2 p1)  4 -> 8
//                  ConvT(64->32,  k4 s2 p1)  8 -> 16
//                  ConvT(32->32,  k3 s1 p1) 16 -> 16
//                  ConvT(32->16,  k4 s2 p1) 16 -> 32
//                  ConvT(16->c,   k3 s1 p1) 32 -> 32, then tanh
//   deep_linear_5: the same without the k3 layer at 16x16.
//   vanilla (the authors' deep_linear_0): the probes themselves are the
//                  parameters, (n, c, 32, 32), and only tanh is applied.
//
// Because nothing between the layers is non-linear, the map z -> pre-tanh
// output is affine: FoldGenerator() returns the single (A, c) it equals.
// Initialisation as PyTorch's defaults: every weight and bias
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = c_out * k * k for a
// ConvTranspose2d weight (c_in, c_out, k, k) (torch computes fan_in from dim 1);
// latents N(0, 1) (torch.randn).
#ifndef CB_REFERENCE_PROBEGEN_GENERATOR_H_
#define CB_REFERENCE_PROBEGEN_GENERATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reference/probegen/conv_transpose.h"

namespace cb::ref::probegen {

struct GeneratorSpec {
  std::string name;               // "deep_linear_6", "deep_linear_5", "vanilla"
  int latent = 32;                // z dimension (input channels of layer 0); 0 for vanilla
  int channels = 1;               // c: channels of a probe
  int size = 32;                  // a probe is (c, size, size)
  std::vector<ConvTShape> layers; // empty for "vanilla"
  int64_t ProbeElems() const { return int64_t(channels) * size * size; }
};

// REQUIRES: channels >= 1. Throws std::invalid_argument for an unknown name.
GeneratorSpec MakeGenerator(const std::string& name, int channels);

// The trainable state: the latents (or, for vanilla, the raw probes) and the
// layers' weights and biases.
struct GeneratorParams {
  std::vector<double> input;                // (n, latent) or vanilla (n, c, size, size)
  std::vector<std::vector<double>> weight;  // [l] (c_in, c_out, k, k)
  std::vector<std::vector<double>> bias;    // [l] (c_out)
  int n = 0;                                // number of probes
};

// Draws from Rng(seed, 11) (latents or vanilla probes) and Rng(seed, 12)
// (layers, in order, weight then bias). REQUIRES: n >= 1.
GeneratorParams InitGenerator(const GeneratorSpec& spec, int n, uint64_t seed);

// The activations kept for the backward pass: act[0] is the input, act[l+1]
// the output of layer l (the last one is the pre-tanh probes).
struct GeneratorTrace {
  std::vector<std::vector<double>> act;
};

// Throws std::invalid_argument (one line, prefixed with fn) unless p has the
// sizes spec and p.n imply and the layers chain: each takes the previous
// one's channels (the first, the latents) and the last ends at (channels,
// size, size). Every function below checks it; fast paths call it too.
void CheckGenerator(const GeneratorSpec& spec, const GeneratorParams& p, const char* fn);

// probes (n, c, size, size) = tanh(pre); pre may be null. trace may be null.
// Throws std::invalid_argument when p's sizes do not match spec and p.n.
void GeneratorForward(const GeneratorSpec& spec, const GeneratorParams& p, double* probes,
                      double* pre, GeneratorTrace* trace);

// Given dprobes = d loss / d probes (n, c, size, size), writes the gradient of
// every parameter into grad (resized like p): through tanh (1 - probes^2),
// every layer, and into grad->input (the latents, or vanilla's raw probes),
// which are trained too. Needs the probes and the trace of the forward with
// the same p.
void GeneratorBackward(const GeneratorSpec& spec, const GeneratorParams& p,
                       const GeneratorTrace& trace, const double* probes, const double* dprobes,
                       GeneratorParams* grad);

// The affine map the layers compose to: pre(z_i) = A z_i + c for every probe i,
// A (ProbeElems, latent), c (ProbeElems). Column k of A is unit latent e_k
// through the layers with every bias dropped; c is the zero latent through
// the layers with their biases. Comparing A z + c with GeneratorForward on
// fresh z shows the composition is affine (to rounding).
// REQUIRES: spec has layers (not vanilla).
struct AffineFold {
  std::vector<double> a, c;
};
AffineFold FoldGenerator(const GeneratorSpec& spec, const GeneratorParams& p);

// Multiply-adds of one forward of all n probes (the layers; tanh not counted).
int64_t GeneratorMacs(const GeneratorSpec& spec, int n);
int64_t GeneratorParamCount(const GeneratorSpec& spec, int n);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_GENERATOR_H_

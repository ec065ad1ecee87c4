// File: reference/probegen/generator.cpp
// -----------------------------------------------------------------------------
// ProbeGen's probe generators (Kahana et al., ICLR 2025, §4; the authors'
// Deep_Linear_Generator in ProbeGen.py@4872aa7): the layer stacks, PyTorch's
// default initialisation, forward, backward (through tanh, every layer and
// into the latents) and the affine fold of the bias-only-nonlinear stack;
// see generator.h.
#include "reference/probegen/generator.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/random.h"

namespace cb::ref::probegen {
namespace {

bool IsVanilla(const GeneratorSpec& spec) { return spec.layers.empty(); }

// Side of the activation entering layer l (the latents are 1 x 1); l may be
// Layers() for the output side.
std::vector<int> Sides(const GeneratorSpec& spec) {
  std::vector<int> side = {1};
  for (const ConvTShape& s : spec.layers) side.push_back(ConvTOutSize(side.back(), s));
  return side;
}

int64_t InputElems(const GeneratorSpec& spec, int n) {
  return IsVanilla(spec) ? int64_t(n) * spec.ProbeElems() : int64_t(n) * spec.latent;
}

int64_t WeightElems(const ConvTShape& s) { return int64_t(s.c_in) * s.c_out * s.k * s.k; }

// pre-tanh output of the layer stack for `n` inputs x (n, latent, 1, 1);
// act (if non-null) gets every activation, act[0] = x.
void RunLayers(const GeneratorSpec& spec, const std::vector<std::vector<double>>& weight,
               const std::vector<std::vector<double>>& bias, int n, const std::vector<double>& x,
               std::vector<double>* out, std::vector<std::vector<double>>* act) {
  const std::vector<int> side = Sides(spec);
  std::vector<double> cur = x, next;
  if (act != nullptr) act->assign(1, x);
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    const ConvTShape& s = spec.layers[l];
    next.assign(int64_t(n) * s.c_out * side[l + 1] * side[l + 1], 0.0);
    ConvTransposeForward(s, n, side[l], side[l], cur.data(), weight[l].data(), bias[l].data(),
                         next.data());
    cur.swap(next);
    if (act != nullptr) act->push_back(cur);
  }
  *out = std::move(cur);
}

}  // namespace

void CheckGenerator(const GeneratorSpec& spec, const GeneratorParams& p, const char* fn) {
  const std::string where(fn);
  if (p.n < 1) throw std::invalid_argument(where + ": params have n < 1");
  if (int64_t(p.input.size()) != InputElems(spec, p.n)) {
    throw std::invalid_argument(where + ": input has " + std::to_string(p.input.size()) +
                                " values, the spec needs " + std::to_string(InputElems(spec, p.n)));
  }
  if (p.weight.size() != spec.layers.size() || p.bias.size() != spec.layers.size()) {
    throw std::invalid_argument(where + ": params have a different number of layers than the spec");
  }
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    if (int64_t(p.weight[l].size()) != WeightElems(spec.layers[l]) ||
        int(p.bias[l].size()) != spec.layers[l].c_out) {
      throw std::invalid_argument(where + ": layer " + std::to_string(l) +
                                  " weight or bias size differs from the spec");
    }
    if (spec.layers[l].c_in != (l == 0 ? spec.latent : spec.layers[l - 1].c_out)) {
      throw std::invalid_argument(where + ": layer " + std::to_string(l) + " takes " +
                                  std::to_string(spec.layers[l].c_in) + " channels, not the previous layer's");
    }
  }
  if (!IsVanilla(spec) && (Sides(spec).back() != spec.size || spec.layers.back().c_out != spec.channels)) {
    throw std::invalid_argument(where + ": the layers do not end at (" + std::to_string(spec.channels) +
                                ", " + std::to_string(spec.size) + ", " + std::to_string(spec.size) + ")");
  }
}

GeneratorSpec MakeGenerator(const std::string& name, int channels) {
  if (channels < 1) throw std::invalid_argument("MakeGenerator: channels must be >= 1");
  GeneratorSpec spec;
  spec.name = name;
  spec.channels = channels;
  spec.size = 32;
  // width_mult = 16 (gen_hidden), nz = 32 (gen_latent_z): ProbeGen.py's defaults.
  constexpr int kW = 16;
  if (name == "deep_linear_6") {
    spec.layers = {{32, 8 * kW, 4, 1, 0},      //  1 ->  4
                   {8 * kW, 4 * kW, 4, 2, 1},  //  4 ->  8
                   {4 * kW, 2 * kW, 4, 2, 1},  //  8 -> 16
                   {2 * kW, 2 * kW, 3, 1, 1},  // 16 -> 16
                   {2 * kW, kW, 4, 2, 1},      // 16 -> 32
                   {kW, channels, 3, 1, 1}};   // 32 -> 32
  } else if (name == "deep_linear_5") {
    spec.layers = {{32, 8 * kW, 4, 1, 0},      //  1 ->  4
                   {8 * kW, 4 * kW, 4, 2, 1},  //  4 ->  8
                   {4 * kW, 2 * kW, 4, 2, 1},  //  8 -> 16
                   {2 * kW, kW, 4, 2, 1},      // 16 -> 32
                   {kW, channels, 3, 1, 1}};   // 32 -> 32
  } else if (name == "vanilla") {
    // deep_linear_0: the probes are the parameters; there is no latent.
    spec.latent = 0;
  } else {
    throw std::invalid_argument("MakeGenerator: unknown generator '" + name +
                                "' (deep_linear_6, deep_linear_5, vanilla)");
  }
  return spec;
}

GeneratorParams InitGenerator(const GeneratorSpec& spec, int n, uint64_t seed) {
  if (n < 1) throw std::invalid_argument("InitGenerator: n must be >= 1");
  GeneratorParams p;
  p.n = n;
  // torch.randn for the latents (n, latent, 1, 1) and for deep_linear_0's
  // probes (n, c, 32, 32) alike.
  harness::Rng latent_rng(seed, 11);
  p.input.resize(InputElems(spec, n));
  for (double& v : p.input) v = latent_rng.Normal();
  // ConvTranspose2d's reset_parameters: kaiming_uniform(a = sqrt 5) on the
  // weight and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias both come to
  // that same bound, and torch takes fan_in from dim 1 of (c_in, c_out, k, k).
  harness::Rng layer_rng(seed, 12);
  for (const ConvTShape& s : spec.layers) {
    const double bound = 1.0 / std::sqrt(double(s.c_out) * s.k * s.k);
    auto draw = [&] { return -bound + 2.0 * bound * layer_rng.Uniform(); };
    std::vector<double> w(WeightElems(s)), b(s.c_out);
    for (double& v : w) v = draw();
    for (double& v : b) v = draw();
    p.weight.push_back(std::move(w));
    p.bias.push_back(std::move(b));
  }
  return p;
}

void GeneratorForward(const GeneratorSpec& spec, const GeneratorParams& p, double* probes,
                      double* pre, GeneratorTrace* trace) {
  CheckGenerator(spec, p, "GeneratorForward");
  std::vector<double> out;  // (n, c, size, size), pre-tanh
  RunLayers(spec, p.weight, p.bias, p.n, p.input, &out,
            trace != nullptr ? &trace->act : nullptr);
  for (size_t i = 0; i < out.size(); ++i) {
    if (pre != nullptr) pre[i] = out[i];
    probes[i] = std::tanh(out[i]);
  }
}

void GeneratorBackward(const GeneratorSpec& spec, const GeneratorParams& p,
                       const GeneratorTrace& trace, const double* probes, const double* dprobes,
                       GeneratorParams* grad) {
  CheckGenerator(spec, p, "GeneratorBackward");
  if (trace.act.size() != spec.layers.size() + 1) {
    throw std::invalid_argument("GeneratorBackward: the trace is not from a forward of this spec");
  }
  const std::vector<int> side = Sides(spec);
  const int64_t out_elems = int64_t(p.n) * spec.ProbeElems();
  // d tanh(u) / du = 1 - tanh(u)^2, read off the probes the forward returned.
  std::vector<double> d(out_elems);  // d loss / d activation, (n, c_l, side, side)
  for (int64_t i = 0; i < out_elems; ++i) d[i] = dprobes[i] * (1.0 - probes[i] * probes[i]);

  grad->n = p.n;
  grad->weight.resize(spec.layers.size());
  grad->bias.resize(spec.layers.size());
  std::vector<double> d_in;
  for (size_t l = spec.layers.size(); l-- > 0;) {
    const ConvTShape& s = spec.layers[l];
    if (int64_t(trace.act[l].size()) != int64_t(p.n) * s.c_in * side[l] * side[l]) {
      throw std::invalid_argument("GeneratorBackward: trace activation " + std::to_string(l) +
                                  " has the wrong size for these params");
    }
    grad->weight[l].assign(WeightElems(s), 0.0);
    grad->bias[l].assign(s.c_out, 0.0);
    d_in.assign(int64_t(p.n) * s.c_in * side[l] * side[l], 0.0);
    ConvTransposeBackward(s, p.n, side[l], side[l], trace.act[l].data(), p.weight[l].data(),
                          d.data(), d_in.data(), grad->weight[l].data(), grad->bias[l].data());
    d.swap(d_in);
  }
  // What is left is the gradient of the stack's input: the latents, or for
  // vanilla the raw probes (no layers, so only tanh's derivative).
  grad->input = std::move(d);
}

AffineFold FoldGenerator(const GeneratorSpec& spec, const GeneratorParams& p) {
  if (IsVanilla(spec)) throw std::invalid_argument("FoldGenerator: vanilla has no layers to fold");
  CheckGenerator(spec, p, "FoldGenerator");
  const int latent = spec.latent;
  const int64_t elems = spec.ProbeElems();
  // All `latent` unit vectors as one batch through the bias-free stack:
  // row k of the result is column k of A.
  std::vector<std::vector<double>> zero_bias;
  for (const ConvTShape& s : spec.layers) zero_bias.emplace_back(s.c_out, 0.0);
  std::vector<double> units(int64_t(latent) * latent, 0.0);  // (latent, latent, 1, 1)
  for (int k = 0; k < latent; ++k) units[int64_t(k) * latent + k] = 1.0;
  std::vector<double> cols;  // (latent, c, size, size)
  RunLayers(spec, p.weight, zero_bias, latent, units, &cols, nullptr);

  AffineFold fold;
  fold.a.resize(elems * latent);  // (ProbeElems, latent)
  for (int k = 0; k < latent; ++k) {
    for (int64_t e = 0; e < elems; ++e) fold.a[e * latent + k] = cols[int64_t(k) * elems + e];
  }
  // c: the zero latent through the stack with its biases.
  const std::vector<double> zero(latent, 0.0);
  RunLayers(spec, p.weight, p.bias, 1, zero, &fold.c, nullptr);
  return fold;
}

int64_t GeneratorMacs(const GeneratorSpec& spec, int n) {
  const std::vector<int> side = Sides(spec);
  int64_t macs = 0;
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    macs += ConvTransposeMacs(spec.layers[l], n, side[l], side[l]);
  }
  return macs;
}

int64_t GeneratorParamCount(const GeneratorSpec& spec, int n) {
  int64_t count = InputElems(spec, n);
  for (const ConvTShape& s : spec.layers) count += WeightElems(s) + s.c_out;
  return count;
}

}  // namespace cb::ref::probegen

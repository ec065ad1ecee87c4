// File: suites/probegen/fast_layers.cpp
#include "suites/probegen/fast_layers.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cb::probegen {

namespace rp = cb::ref::probegen;

int FastLayer::InElems() const {
  return layer.kind == rp::ZooLayerKind::kLinear ? layer.in : layer.in * in_size * in_size;
}

int FastLayer::OutElems() const {
  return layer.kind == rp::ZooLayerKind::kLinear ? layer.out : layer.out * out_size * out_size;
}

int FastModel::MaxElems() const {
  int most = channels * size * size;
  for (const FastLayer& l : layers) most = std::max(most, l.OutElems());
  return most;
}

FastModel ToFastModel(const rp::ZooModel& m) {
  FastModel f{.channels = m.arch.channels, .size = m.arch.size, .classes = m.arch.classes};
  int side = m.arch.size;
  for (size_t l = 0; l < m.arch.layers.size(); ++l) {
    const rp::ZooLayer& layer = m.arch.layers[l];
    FastLayer fl{.layer = layer, .in_size = side};
    switch (layer.kind) {
      case rp::ZooLayerKind::kConv:
        side = rp::ConvOutSize(side, layer);
        fl.w.assign(m.w[l].begin(), m.w[l].end());
        break;
      case rp::ZooLayerKind::kGlobalAvgPool:
        side = 1;
        fl.relu = false;
        break;
      case rp::ZooLayerKind::kLinear: {
        // The first linear of an MLP reads the whole (c, s, s) image: its
        // "in" is already c * s * s, so the activation counts as flat.
        fl.in_size = 1;
        side = 1;
        fl.w.resize(size_t(layer.in) * layer.out);
        for (int o = 0; o < layer.out; ++o)
          for (int i = 0; i < layer.in; ++i) fl.w[size_t(i) * layer.out + o] = float(m.w[l][size_t(o) * layer.in + i]);
        fl.relu = l + 1 < m.arch.layers.size();
        break;
      }
    }
    fl.out_size = side;
    fl.b.assign(m.b[l].begin(), m.b[l].end());
    f.layers.push_back(std::move(fl));
  }
  return f;
}

std::vector<FastConvT> ToFastGenerator(const rp::GeneratorSpec& spec, const rp::GeneratorParams& p) {
  // The fast paths index the weights and the output by these sizes (a
  // hand-built spec or params could otherwise be read past their ends).
  auto refuse = [](const std::string& what) { throw std::invalid_argument("GenerateProbes: " + what); };
  if (p.weight.size() != spec.layers.size() || p.bias.size() != spec.layers.size())
    refuse(std::to_string(p.weight.size()) + " weight and " + std::to_string(p.bias.size()) +
           " bias tensors for " + std::to_string(spec.layers.size()) + " layers");
  std::vector<FastConvT> layers;
  int side = 1;
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    const rp::ConvTShape& s = spec.layers[l];
    if (p.weight[l].size() != size_t(s.c_in) * s.c_out * s.k * s.k || p.bias[l].size() != size_t(s.c_out))
      refuse("layer " + std::to_string(l) + "'s weight or bias does not match its shape");
    if (s.c_in != (l == 0 ? spec.latent : spec.layers[l - 1].c_out))
      refuse("layer " + std::to_string(l) + " takes " + std::to_string(s.c_in) + " channels");
    FastConvT f{.shape = spec.layers[l], .in_size = side};
    side = rp::ConvTOutSize(side, spec.layers[l]);
    f.out_size = side;
    f.w.assign(p.weight[l].begin(), p.weight[l].end());
    f.b.assign(p.bias[l].begin(), p.bias[l].end());
    layers.push_back(std::move(f));
  }
  if (!layers.empty() && int64_t(layers.back().shape.c_out) * side * side != spec.ProbeElems())
    refuse("the layers make " + std::to_string(layers.back().shape.c_out) + " x " + std::to_string(side) + "^2 values, a probe has " +
           std::to_string(spec.ProbeElems()));
  return layers;
}

}  // namespace cb::probegen

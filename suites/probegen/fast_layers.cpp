// File: suites/probegen/fast_layers.cpp
#include "suites/probegen/fast_layers.h"

#include <algorithm>

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
  std::vector<FastConvT> layers;
  int side = 1;
  for (size_t l = 0; l < spec.layers.size(); ++l) {
    FastConvT f{.shape = spec.layers[l], .in_size = side};
    side = rp::ConvTOutSize(side, spec.layers[l]);
    f.out_size = side;
    f.w.assign(p.weight[l].begin(), p.weight[l].end());
    f.b.assign(p.bias[l].begin(), p.bias[l].end());
    layers.push_back(std::move(f));
  }
  return layers;
}

}  // namespace cb::probegen

// File: suites/probegen/flops.cpp
#include "suites/probegen/flops.h"

#include <algorithm>

namespace cb::probegen {

namespace rp = cb::ref::probegen;

GraphSize ComputationGraph(const rp::ZooArch& arch) {
  GraphSize g;
  bool first = true;
  for (const rp::ZooLayer& l : arch.layers) {
    if (l.kind == rp::ZooLayerKind::kGlobalAvgPool) continue;
    if (first) g.nodes += l.in;  // the input neurons (MLP) or channels (CNN)
    first = false;
    g.nodes += l.out;
    g.edges += int64_t(l.in) * l.out;
    if (l.kind == rp::ZooLayerKind::kConv) g.edge_features = std::max(g.edge_features, l.k * l.k);
  }
  return g;
}

int64_t ProbeGenFlops(const rp::ZooArch& arch, int probes, int predictor_hidden, int predictor_layers) {
  const int64_t in = int64_t(probes) * arch.classes;
  const int64_t predictor_macs = in * predictor_hidden +
                                 int64_t(predictor_layers - 2) * predictor_hidden * predictor_hidden +
                                 predictor_hidden;
  return 2 * (int64_t(probes) * rp::ZooMacsPerImage(arch) + predictor_macs);
}

int64_t MetanetFlops(const rp::ZooArch& arch, const MetanetConfig& c) {
  const GraphSize g = ComputationGraph(arch);
  const int64_t d = c.hidden;
  const int64_t message = g.edges * (2 * d + g.edge_features) * d;
  const int64_t update = g.nodes * (2 * d) * d;
  return 2 * (c.layers * (message + update) + d);
}

}  // namespace cb::probegen

// File: suites/probegen/flops.h
// -----------------------------------------------------------------------------
// FLOPs of reading one zoo model, ProbeGen against a graph metanetwork (the
// paper's "30-1000x fewer FLOPs" comparison, arXiv 2410.10811):
//
//   ProbeGen   n probes x one forward of the model (2 FLOPs per multiply-add)
//              + the predictor MLP on the concatenated logits. The generator
//              is not counted: after training the probes are fixed, computed
//              once for the whole zoo.
//   metanet    a cost model of a message-passing network over the model's
//              computation graph (Neural Graphs, Kofinas et al., ICLR 2024):
//              one node per neuron / channel (input, hidden, output), one edge
//              per weight (a conv edge carries its k x k kernel as features);
//              each of `layers` rounds computes, per edge, a message
//              Linear(2d + e -> d) over [h_src, h_dst, edge features] and,
//              per node, an update Linear(2d -> d) over [h, sum of messages];
//              then a readout Linear(d -> 1) over the mean node state. Every
//              other cost (normalisation, activations, the embedding of edge
//              and node features) is left out, so this is a LOWER bound of
//              such a network's cost. d and layers are our assumption, not
//              the authors' configuration (stated with every result).
#ifndef CB_SUITES_PROBEGEN_FLOPS_H_
#define CB_SUITES_PROBEGEN_FLOPS_H_

#include <cstdint>

#include "reference/probegen/zoo_model.h"

namespace cb::probegen {

struct GraphSize {
  int64_t nodes = 0, edges = 0;
  int edge_features = 1;  // k * k for a conv edge, 1 for a linear one (the largest)
};

// The computation graph of one model (gap adds neither nodes nor edges).
GraphSize ComputationGraph(const ref::probegen::ZooArch& arch);

struct MetanetConfig {
  int hidden = 128;
  int layers = 4;
};

int64_t ProbeGenFlops(const ref::probegen::ZooArch& arch, int probes, int predictor_hidden = 256,
                      int predictor_layers = 6);
int64_t MetanetFlops(const ref::probegen::ZooArch& arch, const MetanetConfig& config);

}  // namespace cb::probegen

#endif  // CB_SUITES_PROBEGEN_FLOPS_H_

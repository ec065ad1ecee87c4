// File: reference/probegen/predictor.h
// -----------------------------------------------------------------------------
// ProbeGen's predictor (the authors' points_mixer, ProbeGen.py@4872aa7): the
// zoo model's outputs on all n probes, concatenated, through
//   Linear(n * c_out, 256), ReLU, 4 x [Linear(256, 256), ReLU], Linear(256, d_out)
// (n_layers = 6 linear layers, a ReLU after every one but the last). fp64.
//
//   x (B, in) -> y (B, d_out); w[l] (dims[l+1], dims[l]) row-major, b[l] (dims[l+1])
// Initialisation as torch.nn.Linear: weight and bias U(-1/sqrt(in), 1/sqrt(in)).
#ifndef CB_REFERENCE_PROBEGEN_PREDICTOR_H_
#define CB_REFERENCE_PROBEGEN_PREDICTOR_H_

#include <cstdint>
#include <vector>

namespace cb::ref::probegen {

struct Mlp {
  std::vector<int> dims;                // {in, hidden, ..., out}
  std::vector<std::vector<double>> w;   // [l] (dims[l+1], dims[l])
  std::vector<std::vector<double>> b;   // [l] (dims[l+1])
  int Layers() const { return int(w.size()); }
};

// n_layers linear layers: in -> hidden (n_layers - 1 times) -> out, weights
// from Rng(seed, 13) in layer order (weight then bias).
// REQUIRES: in, hidden, out >= 1, n_layers >= 2.
Mlp MakePredictor(int in, int hidden, int out, int n_layers, uint64_t seed);

// act[0] = x, act[l+1] = output of layer l after its ReLU (none on the last).
struct MlpTrace {
  std::vector<std::vector<double>> act;
};

// y (batch, out). trace may be null.
void MlpForward(const Mlp& m, int batch, const double* x, double* y, MlpTrace* trace);

// From dy (batch, out): grad gets d loss / d w, b (resized like m; dims
// copied), dx (batch, in) when non-null.
void MlpBackward(const Mlp& m, int batch, const MlpTrace& trace, const double* dy, Mlp* grad,
                 double* dx);

int64_t MlpMacs(const Mlp& m, int batch);
int64_t MlpParamCount(const Mlp& m);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_PREDICTOR_H_

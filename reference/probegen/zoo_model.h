// File: reference/probegen/zoo_model.h
// -----------------------------------------------------------------------------
// The classifiers of a model zoo, the inputs ProbeGen learns to read: small
// CNNs and MLPs on (channels, size, size) images. fp64, plain loops: the
// spec the CPU fast path and the CUDA path of suites/probegen are held to.
//
//   conv    Conv2d(in -> out, k, stride, pad) (PyTorch layout: weight
//           (out, in, k, k), bias (out)), then ReLU
//   gap     global average pool: (C, H, W) -> (C)
//   linear  Linear(in -> out) (weight (out, in), bias (out)), then ReLU
//           unless it is the last layer; the first linear of an MLP reads
//           the image flattened in (c, y, x) order
// The last layer is a linear with `classes` outputs: the logits, which are
// what a probe reads (ProbeGen.py feeds the raw net(x) to the predictor).
// Initialisation as PyTorch's defaults: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
// for weight and bias, fan_in = in * k * k (conv) or in (linear).
#ifndef CB_REFERENCE_PROBEGEN_ZOO_MODEL_H_
#define CB_REFERENCE_PROBEGEN_ZOO_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::ref::probegen {

enum class ZooLayerKind { kConv, kGlobalAvgPool, kLinear };

struct ZooLayer {
  ZooLayerKind kind = ZooLayerKind::kLinear;
  int in = 0, out = 0;             // channels (conv) or features (linear); gap: in == out
  int k = 3, stride = 2, pad = 1;  // conv only
};

struct ZooArch {
  int channels = 1, size = 32, classes = 10;
  std::vector<ZooLayer> layers;
};

// MLP: linear(c*size*size -> hidden[0]) ... -> linear(-> classes).
// CNN: conv k3 s2 p1 per entry of `conv`, gap, linear(conv.back() -> classes).
// REQUIRES (else std::invalid_argument): every width >= 1, size >= 1,
// classes >= 2; a CNN has at least one conv.
ZooArch MakeMlpArch(int channels, int size, const std::vector<int>& hidden, int classes);
ZooArch MakeCnnArch(int channels, int size, const std::vector<int>& conv, int classes);

// "mlp c=1 s=32 hidden=32,16 classes=10" / "cnn c=1 s=32 conv=8,16 classes=10":
// how a zoo file names its architecture (zoo_io.h).
std::string ArchToString(const ZooArch& arch);
// The inverse; throws std::invalid_argument (one line, quoting the text) on
// anything ArchToString cannot have written, or on widths outside [1, 4096].
ZooArch ArchFromString(const std::string& text);

// Spatial side after layer l's input goes through it (conv: (s + 2p - k)/stride + 1).
int ConvOutSize(int in, const ZooLayer& layer);

struct ZooModel {
  ZooArch arch;
  std::vector<std::vector<double>> w;  // [l] as above; empty for gap
  std::vector<std::vector<double>> b;  // [l]
};

// Draws from Rng(seed, 21), layer by layer, weight then bias.
ZooModel InitZooModel(const ZooArch& arch, uint64_t seed);

// act[0] = x, act[l+1] = layer l's output after its ReLU (if any).
struct ZooTrace {
  std::vector<std::vector<double>> act;
};

// x (batch, channels, size, size) -> logits (batch, classes). trace may be null.
void ZooForward(const ZooModel& m, int batch, const double* x, double* logits, ZooTrace* trace);

// From dlogits (batch, classes) and the trace of the forward: grad (resized
// like m, arch copied) gets d loss / d w, b when non-null; dx (batch, c, s, s)
// the gradient with respect to the input when non-null (what trains probes).
void ZooBackward(const ZooModel& m, int batch, const ZooTrace& trace, const double* dlogits,
                 ZooModel* grad, double* dx);

int64_t ZooParamCount(const ZooArch& arch);
// Multiply-adds of one image's forward (gap's adds not counted).
int64_t ZooMacsPerImage(const ZooArch& arch);

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_ZOO_MODEL_H_

// File: suites/probegen/fast_layers.h
// -----------------------------------------------------------------------------
// The fp32 layout both fast paths read (probegen_cpu.cpp, probegen.cu),
// converted once from the fp64 reference models:
//   conv    w (out, in, k, k) as PyTorch, b (out); then ReLU
//   gap     no weights
//   linear  w TRANSPOSED to (in, out), so that the CPU's inner loop over
//           outputs is contiguous and neighbouring CUDA threads (neighbouring
//           outputs) read neighbouring weights; b (out); ReLU unless last
//   convT   w (c_in, c_out, k, k) as PyTorch, b (c_out); no activation
#ifndef CB_SUITES_PROBEGEN_FAST_LAYERS_H_
#define CB_SUITES_PROBEGEN_FAST_LAYERS_H_

#include <vector>

#include "reference/probegen/generator.h"
#include "reference/probegen/zoo_model.h"

namespace cb::probegen {

struct FastLayer {
  ref::probegen::ZooLayer layer;
  int in_size = 1, out_size = 1;  // spatial side before / after (1 for linear)
  bool relu = true;
  std::vector<float> w, b;
  int InElems() const;   // values per image entering the layer
  int OutElems() const;  // and leaving it
};

struct FastModel {
  int channels = 1, size = 32, classes = 10;
  std::vector<FastLayer> layers;
  int MaxElems() const;  // the largest activation of one image
};

struct FastConvT {
  ref::probegen::ConvTShape shape;
  int in_size = 1, out_size = 1;
  std::vector<float> w, b;
};

FastModel ToFastModel(const ref::probegen::ZooModel& m);
std::vector<FastConvT> ToFastGenerator(const ref::probegen::GeneratorSpec& spec,
                                       const ref::probegen::GeneratorParams& p);

}  // namespace cb::probegen

#endif  // CB_SUITES_PROBEGEN_FAST_LAYERS_H_

// File: suites/probegen/probegen_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of the CUDA path (probegen.cu), called by the
// dispatch in probegen_cpu.cpp. Layers arrive in the fast path's fp32 layout
// (FastLayer); every function throws cb::harness::CudaError on a CUDA failure.
#ifndef CB_SUITES_PROBEGEN_PROBEGEN_CUDA_H_
#define CB_SUITES_PROBEGEN_PROBEGEN_CUDA_H_

#if CB_HAVE_CUDA
#include <memory>
#include <vector>

#include "suites/probegen/fast_layers.h"

namespace cb::probegen::cuda {

struct Zoo;  // every model's weights on the device
struct ZooDeleter {
  void operator()(Zoo* z) const;
};
using ZooPtr = std::unique_ptr<Zoo, ZooDeleter>;

ZooPtr UploadZoo(const std::vector<FastModel>& models);
// probes (n, c, s, s) host -> out (models, n, classes) host.
void ZooLogits(Zoo& zoo, const float* probes, int n, float* out);
// The generator's layers (ConvTranspose2d, gather form) then tanh.
void GenerateProbes(const std::vector<FastConvT>& layers, int n, const float* input, int probe_elems,
                    float* probes);

}  // namespace cb::probegen::cuda
#endif

#endif  // CB_SUITES_PROBEGEN_PROBEGEN_CUDA_H_

// File: suites/probegen/probegen.h
// -----------------------------------------------------------------------------
// ProbeGen (Kahana et al., ICLR 2025) fast paths: the two forward passes whose
// cost the method is about, in fp32 beside the fp64 reference
// (reference/probegen/, the spec), dispatched by backend (DESIGN §3).
// Host-only header: never includes cuda_runtime.h.
//
//   ZooRunner::Logits   every zoo model on every probe: the dominant cost of
//                       ProbeGen's training and inference (n probes x models
//                       forwards), probes (n, c, s, s) -> logits (models, n, classes)
//   GenerateProbes      the deep linear generator, z (n, 32) -> probes (n, c, 32, 32)
//
// CPU: one model per thread (ParallelFor), weights stored input-major so the
// inner loop is a contiguous axpy the compiler vectorises; fp32 accumulation.
// CUDA: one kernel per layer over all probes of a model (one thread per
// output element), weights uploaded once.
//
// Accuracy: fp32 sums of at most c*s*s = 1024 products of O(1) terms; the
// tests hold both backends to AllClose(atol 1e-4, rtol 1e-4) of fp64.
#ifndef CB_SUITES_PROBEGEN_PROBEGEN_H_
#define CB_SUITES_PROBEGEN_PROBEGEN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/backend.h"
#include "reference/probegen/generator.h"
#include "reference/probegen/zoo_model.h"

namespace cb::probegen {

// The models of a zoo as fp32 on one backend, run on many sets of probes.
class ZooRunner {
 public:
  // REQUIRES (else std::invalid_argument): models non-empty, all sharing
  // channels, size and classes. Throws std::runtime_error when the backend is
  // unavailable (with the reason).
  ZooRunner(cb::harness::Backend backend, const std::vector<const ref::probegen::ZooModel*>& models,
            int threads = 0);
  ~ZooRunner();
  ZooRunner(const ZooRunner&) = delete;
  ZooRunner& operator=(const ZooRunner&) = delete;

  // probes (n, channels, size, size) -> out (models, n, classes).
  void Logits(const float* probes, int n, float* out);

  int models() const;
  int classes() const;
  int64_t ProbeElems() const;  // channels * size * size

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// probes (p.n, channels, size, size) = tanh(layers(p.input)) in fp32.
void GenerateProbes(cb::harness::Backend backend, const ref::probegen::GeneratorSpec& spec,
                    const ref::probegen::GeneratorParams& p, float* probes);

}  // namespace cb::probegen

#endif  // CB_SUITES_PROBEGEN_PROBEGEN_H_

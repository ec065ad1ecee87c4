// File: suites/m3/m3.h
// -----------------------------------------------------------------------------
// M3 (Zou et al., ICLR 2025) by backend (DESIGN §3): the two passes a
// Gaussian memory field spends its time in, beside the fp64 reference
// (reference/m3/, the spec). Host-only header: never includes cuda_runtime.h.
//
//   RenderValues           splat every Gaussian's value row (c channels) into
//                          a view: values (G, c) -> (pixels, c)
//   RenderValuesBackward   its transpose: dL/dout (pixels, c) -> dL/dvalues
//   Gma                    Gaussian memory attention, the code form
//                          (reference/m3/gma.h): Q (P, c) -> (P, D)
//
// CPU: the reference itself (fp64). CUDA: fp32, one thread per pixel walking
// the Gaussians front to back (the rasteriser's order, no tiles) and the
// backward accumulating with atomicAdd; GMA as a projection kernel, a
// per-pixel softmax kernel and an output kernel.
// Accuracy: the tests hold CUDA to AllClose(atol 1e-4, rtol 1e-3) of fp64 on
// fresh random Gaussians, values and queries (fp32 exp and sums of at most a
// few hundred terms; τ = 0.05 multiplies logit errors by 20).
#ifndef CB_SUITES_M3_M3_H_
#define CB_SUITES_M3_M3_H_

#include <vector>

#include "harness/backend.h"
#include "reference/m3/gma.h"
#include "reference/m3/splat.h"

namespace cb::m3 {

// Throws std::runtime_error when the backend is unavailable (with the
// reason), std::invalid_argument on the reference's bad input.
void RenderValues(cb::harness::Backend backend, const std::vector<ref::m3::Gaussian2D>& gaussians,
                  const ref::m3::View& view, const double* values, int channels, double* out);
void RenderValuesBackward(cb::harness::Backend backend, const std::vector<ref::m3::Gaussian2D>& gaussians,
                          const ref::m3::View& view, const double* dout, int channels, double* dvalues);
void Gma(cb::harness::Backend backend, const ref::m3::GmaShape& shape, const double* q, const double* wm,
         const double* mem, double tau, double* out);

}  // namespace cb::m3

#endif  // CB_SUITES_M3_M3_H_

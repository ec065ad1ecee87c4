// File: suites/m3/m3_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of the CUDA path (m3.cu), called by the dispatch in
// m3_cpu.cpp with fp32 host arrays; every function throws
// cb::harness::CudaError on a CUDA failure.
#ifndef CB_SUITES_M3_M3_CUDA_H_
#define CB_SUITES_M3_M3_CUDA_H_

#if CB_HAVE_CUDA
#include <cstdint>

namespace cb::m3::cuda {

// One Gaussian as the kernels read it: centre, conic (a, b, c), opacity
// (fp64: the walk's thresholds are tested in fp64, m3.cu).
struct SplatGaussian {
  double x, y, a, b, c, opacity;
};

// values (g, channels) -> out (height * width, channels).
void RenderValues(const SplatGaussian* gaussians, int g, int x0, int y0, int width, int height,
                  const float* values, int channels, float* out);
// dvalues (g, channels) = Wᵀ dout.
void RenderValuesBackward(const SplatGaussian* gaussians, int g, int x0, int y0, int width, int height,
                          const float* dout, int channels, float* dvalues);
// q (pixels, c), wm (c, dim), mem (memory, dim) -> out (pixels, dim).
void Gma(int64_t pixels, int c, int dim, int memory, const float* q, const float* wm, const float* mem, float tau,
         float* out);

}  // namespace cb::m3::cuda
#endif

#endif  // CB_SUITES_M3_M3_CUDA_H_

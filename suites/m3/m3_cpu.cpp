// File: suites/m3/m3_cpu.cpp
// The backend dispatch of m3.h: CPU is the fp64 reference, CUDA the fp32
// kernels of m3.cu (converted at the boundary).
#include "suites/m3/m3.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "suites/m3/m3_cuda.h"

namespace cb::m3 {
namespace {

namespace h = cb::harness;
namespace rm = cb::ref::m3;

#if CB_HAVE_CUDA
std::vector<float> ToFloat(const double* x, size_t n) { return std::vector<float>(x, x + n); }

std::vector<cuda::SplatGaussian> ToDevice(const std::vector<rm::Gaussian2D>& gaussians) {
  std::vector<cuda::SplatGaussian> out;
  for (const rm::Gaussian2D& g : gaussians) {
    rm::ComputeSplatWeights({g}, {0, 0, 1, 1});  // the reference's checks of g
    const rm::Conic c = rm::ConicOf(g);
    out.push_back({g.x, g.y, c.a, c.b, c.c, g.opacity});
  }
  return out;
}
#endif

}  // namespace

void RenderValues(h::Backend backend, const std::vector<rm::Gaussian2D>& gaussians, const rm::View& view,
                  const double* values, int channels, double* out) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    if (view.width < 1 || view.height < 1) throw std::invalid_argument("RenderValues: empty view");
    const auto g = ToDevice(gaussians);
    const auto v = ToFloat(values, gaussians.size() * channels);
    std::vector<float> o(size_t(view.Pixels()) * channels);
    cuda::RenderValues(g.data(), int(g.size()), view.x0, view.y0, view.width, view.height, v.data(), channels,
                       o.data());
    std::copy(o.begin(), o.end(), out);
    return;
  }
#endif
  rm::Composite(rm::ComputeSplatWeights(gaussians, view), values, channels, out);
}

void RenderValuesBackward(h::Backend backend, const std::vector<rm::Gaussian2D>& gaussians, const rm::View& view,
                          const double* dout, int channels, double* dvalues) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    if (view.width < 1 || view.height < 1) throw std::invalid_argument("RenderValuesBackward: empty view");
    const auto g = ToDevice(gaussians);
    const auto d = ToFloat(dout, size_t(view.Pixels()) * channels);
    std::vector<float> o(gaussians.size() * channels);
    cuda::RenderValuesBackward(g.data(), int(g.size()), view.x0, view.y0, view.width, view.height, d.data(),
                               channels, o.data());
    for (size_t i = 0; i < o.size(); ++i) dvalues[i] += o[i];
    return;
  }
#endif
  rm::CompositeTranspose(rm::ComputeSplatWeights(gaussians, view), dout, channels, dvalues);
}

void Gma(h::Backend backend, const rm::GmaShape& s, const double* q, const double* wm, const double* mem,
         double tau, double* out) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    rm::GmaForward({0, s.query, s.dim, s.memory}, q, wm, mem, tau, out);  // the reference's checks
    // A null W_m is the identity (c == D), as in the reference.
    std::vector<float> wf(size_t(s.query) * s.dim, 0.0f);
    if (wm != nullptr) {
      std::copy(wm, wm + wf.size(), wf.begin());
    } else {
      for (int i = 0; i < s.query; ++i) wf[size_t(i) * s.dim + i] = 1.0f;
    }
    const auto qf = ToFloat(q, size_t(s.pixels) * s.query), mf = ToFloat(mem, size_t(s.memory) * s.dim);
    std::vector<float> o(size_t(s.pixels) * s.dim);
    cuda::Gma(s.pixels, s.query, s.dim, s.memory, qf.data(), wf.data(), mf.data(), float(tau), o.data());
    std::copy(o.begin(), o.end(), out);
    return;
  }
#endif
  rm::GmaForward(s, q, wm, mem, tau, out);
}

}  // namespace cb::m3

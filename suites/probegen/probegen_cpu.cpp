// File: suites/probegen/probegen_cpu.cpp
// -----------------------------------------------------------------------------
// Dispatch and the CPU fast path of probegen.h. Each layer is written so its
// innermost loop runs over contiguous memory without a reduction (an axpy),
// which the compiler vectorises in fp32 without reassociating sums:
//   conv    im2col of the image, then for each output channel o and row r
//           (c, ky, kx) of it: y[o, :] += w[o, r] * cols[r, :]
//   linear  for each input i: y[:] += x[i] * wT[i, :]
//   convT   for each input pixel and output channel: scatter into the k x k
//           window (the definition; fine at the generator's sizes)
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/parallel.h"
#include "suites/probegen/fast_layers.h"
#include "suites/probegen/probegen.h"
#include "suites/probegen/probegen_cuda.h"

namespace cb::probegen {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;

namespace {

// One image through one layer: x (InElems) -> y (OutElems); cols is scratch.
void LayerForward(const FastLayer& l, const float* x, float* y, std::vector<float>* cols) {
  const rp::ZooLayer& s = l.layer;
  switch (s.kind) {
    case rp::ZooLayerKind::kConv: {
      // im2col: cols (c * k * k, out * out), zero where a tap falls in the
      // padding; then each output plane is a sum of axpys over its rows.
      const int in = l.in_size, out = l.out_size, k = s.k, rows = s.in * k * k;
      const size_t plane = size_t(out) * out;
      cols->resize(size_t(rows) * plane);
      for (int c = 0; c < s.in; ++c) {
        const float* xc = x + size_t(c) * in * in;
        for (int ky = 0; ky < k; ++ky) {
          for (int kx = 0; kx < k; ++kx) {
            float* col = cols->data() + size_t((c * k + ky) * k + kx) * plane;
            for (int oy = 0; oy < out; ++oy) {
              const int iy = oy * s.stride - s.pad + ky;
              for (int ox = 0; ox < out; ++ox) {
                const int ix = ox * s.stride - s.pad + kx;
                col[oy * out + ox] = iy >= 0 && iy < in && ix >= 0 && ix < in ? xc[iy * in + ix] : 0.0f;
              }
            }
          }
        }
      }
      for (int o = 0; o < s.out; ++o) {
        float* yo = y + o * plane;
        std::fill(yo, yo + plane, l.b[o]);
        const float* wo = l.w.data() + size_t(o) * rows;
        for (int r = 0; r < rows; ++r) {
          const float w = wo[r];
          const float* col = cols->data() + r * plane;
          for (size_t q = 0; q < plane; ++q) yo[q] += w * col[q];
        }
      }
      break;
    }
    case rp::ZooLayerKind::kGlobalAvgPool: {
      const int area = l.in_size * l.in_size;
      for (int c = 0; c < s.in; ++c) {
        float sum = 0.0f;
        for (int i = 0; i < area; ++i) sum += x[size_t(c) * area + i];
        y[c] = sum / float(area);
      }
      break;
    }
    case rp::ZooLayerKind::kLinear: {
      std::copy(l.b.begin(), l.b.end(), y);
      for (int i = 0; i < s.in; ++i) {
        const float xi = x[i];
        const float* wi = l.w.data() + size_t(i) * s.out;
        for (int o = 0; o < s.out; ++o) y[o] += xi * wi[o];
      }
      break;
    }
  }
  if (l.relu) {
    const int n = l.OutElems();
    for (int i = 0; i < n; ++i) y[i] = std::max(y[i], 0.0f);
  }
}

void ModelForward(const FastModel& m, const float* probes, int n, float* out) {
  const int elems = m.channels * m.size * m.size, most = m.MaxElems();
  std::vector<float> a(most), b(most), cols;
  for (int p = 0; p < n; ++p) {
    std::copy(probes + size_t(p) * elems, probes + size_t(p + 1) * elems, a.begin());
    for (const FastLayer& l : m.layers) {
      LayerForward(l, a.data(), b.data(), &cols);
      std::swap(a, b);
    }
    std::copy(a.begin(), a.begin() + m.classes, out + size_t(p) * m.classes);
  }
}

}  // namespace

struct ZooRunner::Impl {
  h::Backend backend;
  int threads = 0;
  std::vector<FastModel> models;
#if CB_HAVE_CUDA
  cuda::ZooPtr device;
#endif
};

ZooRunner::ZooRunner(h::Backend backend, const std::vector<const rp::ZooModel*>& models, int threads)
    : impl_(std::make_unique<Impl>()) {
  h::RequireAvailable(backend);
  if (models.empty()) throw std::invalid_argument("ZooRunner: no models");
  const rp::ZooArch& first = models[0]->arch;
  for (const rp::ZooModel* m : models) {
    if (m->arch.channels != first.channels || m->arch.size != first.size || m->arch.classes != first.classes)
      throw std::invalid_argument("ZooRunner: models disagree on channels, size or classes (" +
                                  rp::ArchToString(m->arch) + " vs " + rp::ArchToString(first) + ")");
    impl_->models.push_back(ToFastModel(*m));
  }
  impl_->backend = backend;
  impl_->threads = threads > 0 ? threads : h::HardwareThreads();
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) impl_->device = cuda::UploadZoo(impl_->models);
#endif
}

ZooRunner::~ZooRunner() = default;

int ZooRunner::models() const { return int(impl_->models.size()); }
int ZooRunner::classes() const { return impl_->models[0].classes; }
int64_t ZooRunner::ProbeElems() const {
  const FastModel& m = impl_->models[0];
  return int64_t(m.channels) * m.size * m.size;
}

void ZooRunner::Logits(const float* probes, int n, float* out) {
  if (n < 1) throw std::invalid_argument("ZooRunner::Logits: n = " + std::to_string(n) + ", need >= 1");
#if CB_HAVE_CUDA
  if (impl_->backend == h::Backend::kCuda) {
    cuda::ZooLogits(*impl_->device, probes, n, out);
    return;
  }
#endif
  const size_t per_model = size_t(n) * classes();
  h::ParallelFor(models(), impl_->threads, [&](int, int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) ModelForward(impl_->models[j], probes, n, out + j * per_model);
  });
}

void GenerateProbes(h::Backend backend, const rp::GeneratorSpec& spec, const rp::GeneratorParams& p,
                    float* probes) {
  h::RequireAvailable(backend);
  // The kernels index the weights and the output by the spec's sizes.
  rp::CheckGenerator(spec, p, "GenerateProbes");
  const int64_t elems = spec.ProbeElems();
  const size_t in_per_probe = spec.layers.empty() ? size_t(elems) : size_t(spec.latent);
  const std::vector<FastConvT> layers = ToFastGenerator(spec, p);
  const std::vector<float> input(p.input.begin(), p.input.end());
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    cuda::GenerateProbes(layers, p.n, input.data(), int(elems), probes);
    return;
  }
#endif
  h::ParallelFor(p.n, h::HardwareThreads(), [&](int, int64_t begin, int64_t end) {
    std::vector<float> a, b;
    for (int64_t i = begin; i < end; ++i) {
      a.assign(input.begin() + i * in_per_probe, input.begin() + (i + 1) * in_per_probe);
      for (const FastConvT& l : layers) {
        const rp::ConvTShape& s = l.shape;
        const int in = l.in_size, out = l.out_size;
        const size_t plane = size_t(out) * out;
        b.resize(size_t(s.c_out) * plane);
        for (int o = 0; o < s.c_out; ++o) std::fill(b.begin() + o * plane, b.begin() + (o + 1) * plane, l.b[o]);
        for (int c = 0; c < s.c_in; ++c)
          for (int iy = 0; iy < in; ++iy)
            for (int ix = 0; ix < in; ++ix) {
              const float x = a[(size_t(c) * in + iy) * in + ix];
              for (int o = 0; o < s.c_out; ++o)
                for (int ky = 0; ky < s.k; ++ky) {
                  const int oy = iy * s.stride - s.pad + ky;
                  if (oy < 0 || oy >= out) continue;
                  for (int kx = 0; kx < s.k; ++kx) {
                    const int ox = ix * s.stride - s.pad + kx;
                    if (ox >= 0 && ox < out)
                      b[(size_t(o) * out + oy) * out + ox] += x * l.w[((size_t(c) * s.c_out + o) * s.k + ky) * s.k + kx];
                  }
                }
            }
        std::swap(a, b);
      }
      for (int64_t e = 0; e < elems; ++e) probes[i * elems + e] = std::tanh(a[e]);
    }
  });
}

}  // namespace cb::probegen

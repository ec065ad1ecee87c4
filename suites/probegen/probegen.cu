// File: suites/probegen/probegen.cu
// -----------------------------------------------------------------------------
// CUDA path of probegen.h. Thread mappings:
//   ConvKernel      one thread per output element (probe, o, oy, ox): the sum
//                   over (c, ky, kx) in fp32, bias, ReLU
//   GapKernel       one thread per (probe, channel)
//   LinearKernel    one thread per (probe, o); weights (in, out), so a warp's
//                   threads (consecutive o) read consecutive weights
//   ConvTKernel     one thread per output element of a ConvTranspose2d in
//                   gather form: the input pixels (iy, ix) and taps with
//                   iy * stride - pad + ky == oy
//   TanhKernel      one thread per probe element
// A model's layers run in order over all n probes at once, ping-ponging two
// activation buffers; models run one after another on the default stream.
// Deterministic: no atomics, each output summed by one thread in a fixed
// order.
//
// Napkin math: a zoo model is 10-70 k multiply-adds per probe, so 500 models
// x 64 probes is ~1-2 GFLOP per pass, launch-bound at these sizes (3-4
// launches per model); the path exists to check agreement and to time the
// batched pass, not because one pass is slow on a CPU.
//
// NEVER RUN ON A GPU yet (written where there was no device).
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/probegen/probegen_cuda.h"

namespace cb::probegen::cuda {

namespace h = cb::harness;
namespace rp = cb::ref::probegen;

namespace {

constexpr int kThreads = 256;

int Blocks(long long n) { return int((n + kThreads - 1) / kThreads); }

struct DeviceLayer {
  FastLayer host;  // shapes (weights unused on the device side)
  h::DeviceBuffer<float> w, b;
};

// The output element a thread owns in a (n, c, side, side) tensor.
struct Pixel {
  long long probe;
  int channel, y, x;
};
__device__ Pixel PixelOf(long long idx, int channels, int side) {
  return {idx / ((long long)side * side * channels), int(idx / ((long long)side * side) % channels),
          int(idx / side % side), int(idx % side)};
}

__global__ void ConvKernel(int n, int c_in, int c_out, int in, int out, int k, int stride, int pad, bool relu,
                           const float* __restrict__ x, const float* __restrict__ w,
                           const float* __restrict__ bias, float* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long total = (long long)n * c_out * out * out;
  if (idx >= total) return;
  const Pixel px = PixelOf(idx, c_out, out);
  const long long p = px.probe;
  const int o = px.channel, oy = px.y, ox = px.x;
  float acc = bias[o];
  for (int c = 0; c < c_in; ++c) {
    const float* xc = x + (p * c_in + c) * in * in;
    const float* wc = w + ((long long)o * c_in + c) * k * k;
    for (int ky = 0; ky < k; ++ky) {
      const int iy = oy * stride - pad + ky;
      if (iy < 0 || iy >= in) continue;
      for (int kx = 0; kx < k; ++kx) {
        const int ix = ox * stride - pad + kx;
        if (ix >= 0 && ix < in) acc += wc[ky * k + kx] * xc[iy * in + ix];
      }
    }
  }
  y[idx] = relu ? fmaxf(acc, 0.0f) : acc;
}

__global__ void GapKernel(int n, int channels, int area, const float* __restrict__ x, float* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)n * channels) return;
  float sum = 0.0f;
  for (int i = 0; i < area; ++i) sum += x[idx * area + i];
  y[idx] = sum / float(area);
}

__global__ void LinearKernel(int n, int in, int out, bool relu, const float* __restrict__ x,
                             const float* __restrict__ wt, const float* __restrict__ bias, float* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)n * out) return;
  const int o = int(idx % out);
  const long long p = idx / out;
  float acc = bias[o];
  for (int i = 0; i < in; ++i) acc += x[p * in + i] * wt[(long long)i * out + o];
  y[idx] = relu ? fmaxf(acc, 0.0f) : acc;
}

__global__ void ConvTKernel(int n, int c_in, int c_out, int in, int out, int k, int stride, int pad,
                            const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ bias, float* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long total = (long long)n * c_out * out * out;
  if (idx >= total) return;
  const Pixel px = PixelOf(idx, c_out, out);
  const long long p = px.probe;
  const int o = px.channel, oy = px.y, ox = px.x;
  float acc = bias[o];
  for (int ky = 0; ky < k; ++ky) {
    const int ty = oy + pad - ky;  // = iy * stride
    if (ty < 0 || ty % stride != 0 || ty / stride >= in) continue;
    const int iy = ty / stride;
    for (int kx = 0; kx < k; ++kx) {
      const int tx = ox + pad - kx;
      if (tx < 0 || tx % stride != 0 || tx / stride >= in) continue;
      const int ix = tx / stride;
      for (int c = 0; c < c_in; ++c)
        acc += x[((p * c_in + c) * in + iy) * in + ix] * w[(((long long)c * c_out + o) * k + ky) * k + kx];
    }
  }
  y[idx] = acc;
}

__global__ void TanhKernel(long long count, const float* __restrict__ x, float* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < count) y[idx] = tanhf(x[idx]);
}

void RunLayer(const FastLayer& l, const float* w, const float* b, int n, const float* x, float* y) {
  const rp::ZooLayer& s = l.layer;
  const long long total = (long long)n * l.OutElems();
  switch (s.kind) {
    case rp::ZooLayerKind::kConv:
      ConvKernel<<<Blocks(total), kThreads>>>(n, s.in, s.out, l.in_size, l.out_size, s.k, s.stride, s.pad, l.relu, x,
                                              w, b, y);
      break;
    case rp::ZooLayerKind::kGlobalAvgPool:
      GapKernel<<<Blocks(total), kThreads>>>(n, s.in, l.in_size * l.in_size, x, y);
      break;
    case rp::ZooLayerKind::kLinear:
      LinearKernel<<<Blocks(total), kThreads>>>(n, s.in, s.out, l.relu, x, w, b, y);
      break;
  }
  CB_CUDA_CHECK_LAUNCH();
}

}  // namespace

struct Zoo {
  std::vector<std::vector<DeviceLayer>> models;
  std::vector<FastModel> shapes;
};

void ZooDeleter::operator()(Zoo* z) const { delete z; }

ZooPtr UploadZoo(const std::vector<FastModel>& models) {
  ZooPtr zoo(new Zoo);
  for (const FastModel& m : models) {
    std::vector<DeviceLayer> layers;
    for (const FastLayer& l : m.layers) {
      DeviceLayer d{.host = FastLayer{.layer = l.layer, .in_size = l.in_size, .out_size = l.out_size, .relu = l.relu}};
      d.w = h::DeviceBuffer<float>(std::span<const float>(l.w));
      d.b = h::DeviceBuffer<float>(std::span<const float>(l.b));
      layers.push_back(std::move(d));
    }
    zoo->models.push_back(std::move(layers));
    zoo->shapes.push_back(FastModel{.channels = m.channels, .size = m.size, .classes = m.classes});
  }
  return zoo;
}

void ZooLogits(Zoo& zoo, const float* probes, int n, float* out) {
  const FastModel& first = zoo.shapes[0];
  const size_t elems = size_t(first.channels) * first.size * first.size;
  int most = int(elems);
  for (const auto& layers : zoo.models)
    for (const DeviceLayer& l : layers) most = std::max(most, l.host.OutElems());
  h::DeviceBuffer<float> x(std::span<const float>(probes, elems * n));
  h::DeviceBuffer<float> a(size_t(most) * n), b(size_t(most) * n);
  h::DeviceBuffer<float> logits(zoo.models.size() * n * first.classes);
  logits.Poison();
  for (size_t j = 0; j < zoo.models.size(); ++j) {
    const float* in = x.data();
    float* bufs[2] = {a.data(), b.data()};
    int next = 0;
    const auto& layers = zoo.models[j];
    for (size_t l = 0; l < layers.size(); ++l) {
      // The last layer writes straight into this model's slice of the output.
      float* y = l + 1 == layers.size() ? logits.data() + j * n * first.classes : bufs[next];
      RunLayer(layers[l].host, layers[l].w.data(), layers[l].b.data(), n, in, y);
      in = y;
      next ^= 1;
    }
  }
  logits.CopyToHost(std::span<float>(out, logits.size()));
}

void GenerateProbes(const std::vector<FastConvT>& layers, int n, const float* input, int probe_elems,
                    float* probes) {
  const size_t in_elems = layers.empty() ? size_t(probe_elems) : size_t(layers[0].shape.c_in);
  h::DeviceBuffer<float> x(std::span<const float>(input, in_elems * n));
  h::DeviceBuffer<float> y;
  const float* cur = x.data();
  for (const FastConvT& l : layers) {
    const rp::ConvTShape& s = l.shape;
    h::DeviceBuffer<float> w(std::span<const float>(l.w)), b(std::span<const float>(l.b));
    h::DeviceBuffer<float> next(size_t(n) * s.c_out * l.out_size * l.out_size);
    next.Poison();
    ConvTKernel<<<Blocks((long long)next.size()), kThreads>>>(n, s.c_in, s.c_out, l.in_size, l.out_size, s.k,
                                                               s.stride, s.pad, cur, w.data(), b.data(), next.data());
    CB_CUDA_CHECK_LAUNCH();
    y = std::move(next);
    cur = y.data();
  }
  h::DeviceBuffer<float> out(size_t(n) * probe_elems);
  out.Poison();
  TanhKernel<<<Blocks((long long)out.size()), kThreads>>>((long long)out.size(), cur, out.data());
  CB_CUDA_CHECK_LAUNCH();
  out.CopyToHost(std::span<float>(probes, out.size()));
}

}  // namespace cb::probegen::cuda

// File: reference/probegen/zoo_model.cpp
// -----------------------------------------------------------------------------
// The zoo classifiers of zoo_model.h: architecture builders and their text
// form, PyTorch-default initialisation, and the fp64 forward and backward
// (weights and input) in plain loops. A conv runs as im2col + matrix
// products (Im2Col, Dot, Axpy below), so that its inner loops are contiguous:
// the zoo generator trains hundreds of these models through this code.
//
// Layout of every activation: (batch, C, H, W) row-major; a linear layer's
// output is (batch, out), i.e. C = out, H = W = 1, so a linear that follows
// a conv without a pool reads its input flattened in (c, y, x) order, the
// same as nn.Flatten.
#include "reference/probegen/zoo_model.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/random.h"

namespace cb::ref::probegen {
namespace {

// The shape (C, H, W) of one image's activation.
struct Dims {
  int c = 0, h = 0, w = 0;
  int64_t Size() const { return int64_t{c} * h * w; }
};

// dims[l] is the shape act[l] has (one image): dims[0] the input, dims[l+1]
// layer l's output. Throws std::invalid_argument when the layers do not chain
// or the last layer is not a linear with `classes` outputs, so that a
// hand-built arch cannot index out of bounds.
std::vector<Dims> LayerDims(const ZooArch& arch) {
  if (arch.channels < 1 || arch.size < 1 || arch.classes < 2) {
    throw std::invalid_argument("zoo arch: channels, size must be >= 1 and classes >= 2");
  }
  if (arch.layers.empty() || arch.layers.back().kind != ZooLayerKind::kLinear ||
      arch.layers.back().out != arch.classes) {
    throw std::invalid_argument("zoo arch: the last layer must be a linear with `classes` outputs");
  }
  std::vector<Dims> dims = {{arch.channels, arch.size, arch.size}};
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const ZooLayer& layer = arch.layers[l];
    const Dims& in = dims.back();
    const std::string where = "zoo arch: layer " + std::to_string(l);
    if (layer.in < 1 || layer.out < 1) throw std::invalid_argument(where + " has a width < 1");
    switch (layer.kind) {
      case ZooLayerKind::kConv: {
        if (layer.in != in.c) throw std::invalid_argument(where + " (conv) reads another channel count");
        if (layer.k < 1 || layer.stride < 1 || layer.pad < 0) {
          throw std::invalid_argument(where + " (conv) needs k, stride >= 1 and pad >= 0");
        }
        const int side = ConvOutSize(in.h, layer);
        if (side < 1) throw std::invalid_argument(where + " (conv) leaves no output pixel");
        dims.push_back({layer.out, side, side});
        break;
      }
      case ZooLayerKind::kGlobalAvgPool:
        if (layer.in != in.c || layer.out != in.c) {
          throw std::invalid_argument(where + " (gap) must keep the channel count");
        }
        dims.push_back({in.c, 1, 1});
        break;
      case ZooLayerKind::kLinear:
        if (layer.in != in.Size()) throw std::invalid_argument(where + " (linear) reads another size");
        dims.push_back({layer.out, 1, 1});
        break;
    }
  }
  return dims;
}

// A ReLU follows every conv and every linear but the last layer.
bool HasRelu(const ZooArch& arch, size_t l) {
  return arch.layers[l].kind != ZooLayerKind::kGlobalAvgPool && l + 1 < arch.layers.size();
}

int64_t WeightCount(const ZooLayer& layer) {
  switch (layer.kind) {
    case ZooLayerKind::kConv: return int64_t{layer.out} * layer.in * layer.k * layer.k;
    case ZooLayerKind::kLinear: return int64_t{layer.out} * layer.in;
    case ZooLayerKind::kGlobalAvgPool: return 0;
  }
  return 0;
}

int64_t BiasCount(const ZooLayer& layer) {
  return layer.kind == ZooLayerKind::kGlobalAvgPool ? 0 : layer.out;
}

// LayerDims(m.arch), after checking that m holds one tensor of the right size
// per layer (the loops below index them without further checks).
std::vector<Dims> CheckedDims(const ZooModel& m) {
  std::vector<Dims> dims = LayerDims(m.arch);
  const size_t n_layers = m.arch.layers.size();
  if (m.w.size() != n_layers || m.b.size() != n_layers) {
    throw std::invalid_argument("zoo model: one weight and one bias entry per layer expected");
  }
  for (size_t l = 0; l < n_layers; ++l) {
    if (static_cast<int64_t>(m.w[l].size()) != WeightCount(m.arch.layers[l]) ||
        static_cast<int64_t>(m.b[l].size()) != BiasCount(m.arch.layers[l])) {
      throw std::invalid_argument("zoo model: layer " + std::to_string(l) + " has tensors of another size");
    }
  }
  return dims;
}

// sum_q a[q] * b[q] in four interleaved partial sums (q mod 4), added as
// (s0 + s1) + (s2 + s3): a fixed order, so still deterministic, that lets
// the compiler use SIMD without -ffast-math (a single running sum cannot
// be reordered). The dot products are most of the training time.
double Dot(const double* a, const double* b, int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t q = 0;
  for (; q + 4 <= n; q += 4) {
    s0 += a[q] * b[q];
    s1 += a[q + 1] * b[q + 1];
    s2 += a[q + 2] * b[q + 2];
    s3 += a[q + 3] * b[q + 3];
  }
  for (; q < n; ++q) s0 += a[q] * b[q];
  return (s0 + s1) + (s2 + s3);
}

// y[q] += a * x[q]. Unrolled by four so that GCC's -O2 (which vectorizes
// only straight-line code and loops it needs no runtime checks for) can pack
// the four updates into SIMD; y and x never overlap here.
void Axpy(double a, const double* __restrict x, double* __restrict y, int64_t n) {
  int64_t q = 0;
  for (; q + 4 <= n; q += 4) {
    y[q] += a * x[q];
    y[q + 1] += a * x[q + 1];
    y[q + 2] += a * x[q + 2];
    y[q + 3] += a * x[q + 3];
  }
  for (; q < n; ++q) y[q] += a * x[q];
}

// col (in*k*k, oh*ow) of one image x (in, h, w): row (i, ky, kx), column
// (oy, ox) holds x[i][oy*stride - pad + ky][ox*stride - pad + kx], 0 in the
// padding. Laid out so the conv's inner loops run over contiguous pixels.
void Im2Col(const double* x, const Dims& di, const ZooLayer& layer, const Dims& d_o, double* col) {
  const int k = layer.k, s = layer.stride, p = layer.pad;
  for (int i = 0; i < di.c; ++i) {
    const double* xi = x + int64_t{i} * di.h * di.w;
    for (int ky = 0; ky < k; ++ky) {
      for (int kx = 0; kx < k; ++kx) {
        for (int oy = 0; oy < d_o.h; ++oy) {
          const int iy = oy * s - p + ky;
          for (int ox = 0; ox < d_o.w; ++ox) {
            const int ix = ox * s - p + kx;
            const bool inside = iy >= 0 && iy < di.h && ix >= 0 && ix < di.w;
            *col++ = inside ? xi[iy * di.w + ix] : 0.0;
          }
        }
      }
    }
  }
}

// The adjoint of Im2Col: adds each dcol entry to the input pixel it was read
// from (padding entries go nowhere).
void Col2ImAdd(const double* dcol, const Dims& di, const ZooLayer& layer, const Dims& d_o, double* dx) {
  const int k = layer.k, s = layer.stride, p = layer.pad;
  for (int i = 0; i < di.c; ++i) {
    double* dxi = dx + int64_t{i} * di.h * di.w;
    for (int ky = 0; ky < k; ++ky) {
      for (int kx = 0; kx < k; ++kx) {
        for (int oy = 0; oy < d_o.h; ++oy) {
          const int iy = oy * s - p + ky;
          for (int ox = 0; ox < d_o.w; ++ox, ++dcol) {
            const int ix = ox * s - p + kx;
            if (iy >= 0 && iy < di.h && ix >= 0 && ix < di.w) dxi[iy * di.w + ix] += *dcol;
          }
        }
      }
    }
  }
}

void CheckWidths(const std::vector<int>& widths, const char* what) {
  for (int v : widths) {
    if (v < 1) throw std::invalid_argument(std::string("zoo arch: a ") + what + " width is < 1");
  }
}

std::string JoinInts(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// `text` for an error message: quoted, control and non-ASCII bytes as \xNN,
// so the message stays one line whatever a file held.
std::string Quote(const std::string& text) {
  std::string q = "\"";
  for (unsigned char ch : text) {
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
      q += static_cast<char>(ch);
    } else {
      static const char kHex[] = "0123456789abcdef";
      q += "\\x";
      q += kHex[ch >> 4];
      q += kHex[ch & 15];
    }
  }
  return q + "\"";
}

// A number as ArchToString prints it: decimal digits, no sign, no leading
// zero, in [1, 4096]; -1 for anything else.
constexpr int kMaxWidth = 4096;
int ParseWidth(const std::string& s) {
  if (s.empty() || s.size() > 4 || s[0] == '0') return -1;
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > kMaxWidth) return -1;
  return v;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = s.find(sep, begin);
    parts.push_back(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

}  // namespace

ZooArch MakeMlpArch(int channels, int size, const std::vector<int>& hidden, int classes) {
  if (channels < 1 || size < 1 || classes < 2) {
    throw std::invalid_argument("MakeMlpArch: needs channels, size >= 1 and classes >= 2");
  }
  CheckWidths(hidden, "hidden");
  const int64_t flat = int64_t{channels} * size * size;
  if (flat > INT_MAX) throw std::invalid_argument("MakeMlpArch: channels * size^2 overflows int");
  ZooArch arch{.channels = channels, .size = size, .classes = classes, .layers = {}};
  int in = static_cast<int>(flat);
  for (int width : hidden) {
    arch.layers.push_back({.kind = ZooLayerKind::kLinear, .in = in, .out = width});
    in = width;
  }
  arch.layers.push_back({.kind = ZooLayerKind::kLinear, .in = in, .out = classes});
  return arch;
}

ZooArch MakeCnnArch(int channels, int size, const std::vector<int>& conv, int classes) {
  if (channels < 1 || size < 1 || classes < 2) {
    throw std::invalid_argument("MakeCnnArch: needs channels, size >= 1 and classes >= 2");
  }
  if (conv.empty()) throw std::invalid_argument("MakeCnnArch: a CNN needs at least one conv");
  CheckWidths(conv, "conv");
  ZooArch arch{.channels = channels, .size = size, .classes = classes, .layers = {}};
  int in = channels;
  for (int width : conv) {
    arch.layers.push_back(
        {.kind = ZooLayerKind::kConv, .in = in, .out = width, .k = 3, .stride = 2, .pad = 1});
    in = width;
  }
  arch.layers.push_back({.kind = ZooLayerKind::kGlobalAvgPool, .in = in, .out = in});
  arch.layers.push_back({.kind = ZooLayerKind::kLinear, .in = in, .out = classes});
  return arch;
}

std::string ArchToString(const ZooArch& arch) {
  const std::string common =
      " c=" + std::to_string(arch.channels) + " s=" + std::to_string(arch.size);
  const std::string tail = " classes=" + std::to_string(arch.classes);
  const auto& layers = arch.layers;
  const bool is_cnn = !layers.empty() && layers.front().kind == ZooLayerKind::kConv;
  std::vector<int> widths;
  for (const ZooLayer& layer : layers) {
    if (layer.kind == ZooLayerKind::kConv) widths.push_back(layer.out);
  }
  ZooArch rebuilt;
  if (is_cnn) {
    rebuilt = MakeCnnArch(arch.channels, arch.size, widths, arch.classes);
  } else {
    widths.clear();
    for (size_t l = 0; l + 1 < layers.size(); ++l) widths.push_back(layers[l].out);
    rebuilt = MakeMlpArch(arch.channels, arch.size, widths, arch.classes);
  }
  // Only the two families have a text form; anything else hand-built would
  // be written as one of them and read back as another model.
  bool same = rebuilt.layers.size() == layers.size();
  for (size_t l = 0; same && l < layers.size(); ++l) {
    const ZooLayer& a = layers[l];
    const ZooLayer& b = rebuilt.layers[l];
    same = a.kind == b.kind && a.in == b.in && a.out == b.out &&
           (a.kind != ZooLayerKind::kConv || (a.k == b.k && a.stride == b.stride && a.pad == b.pad));
  }
  if (!same) throw std::invalid_argument("ArchToString: the arch is neither an MLP nor a k3 s2 p1 CNN");
  return (is_cnn ? "cnn" : "mlp") + common + (is_cnn ? " conv=" : " hidden=") + JoinInts(widths) + tail;
}

ZooArch ArchFromString(const std::string& text) {
  auto fail = [&](const std::string& why) -> ZooArch {
    throw std::invalid_argument("zoo arch " + Quote(text) + ": " + why);
  };
  const std::vector<std::string> tokens = Split(text, ' ');
  if (tokens.size() != 5) return fail("expected 5 space-separated fields");
  const std::string& family = tokens[0];
  if (family != "mlp" && family != "cnn") return fail("family must be mlp or cnn");
  const std::string list_key = family == "mlp" ? "hidden=" : "conv=";
  const std::string keys[4] = {"c=", "s=", list_key, "classes="};
  std::string values[4];
  for (int f = 0; f < 4; ++f) {
    const std::string& token = tokens[f + 1];
    if (token.compare(0, keys[f].size(), keys[f]) != 0) {
      return fail("field " + std::to_string(f + 2) + " must start with " + keys[f]);
    }
    values[f] = token.substr(keys[f].size());
  }
  const int channels = ParseWidth(values[0]);
  const int size = ParseWidth(values[1]);
  const int classes = ParseWidth(values[3]);
  if (channels < 0 || size < 0 || classes < 0) return fail("c, s and classes must be integers in [1, 4096]");
  if (classes < 2) return fail("classes must be >= 2");
  std::vector<int> widths;
  if (!values[2].empty()) {
    for (const std::string& part : Split(values[2], ',')) {
      const int w = ParseWidth(part);
      if (w < 0) return fail("widths must be integers in [1, 4096]");
      widths.push_back(w);
    }
  }
  if (family == "cnn" && widths.empty()) return fail("a CNN needs at least one conv width");
  ZooArch arch;
  try {
    arch = family == "mlp" ? MakeMlpArch(channels, size, widths, classes)
                           : MakeCnnArch(channels, size, widths, classes);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  if (ArchToString(arch) != text) return fail("not in the canonical form");
  return arch;
}

int ConvOutSize(int in, const ZooLayer& layer) {
  if (layer.kind != ZooLayerKind::kConv) return 1;  // gap and linear leave one "pixel"
  return (in + 2 * layer.pad - layer.k) / layer.stride + 1;
}

ZooModel InitZooModel(const ZooArch& arch, uint64_t seed) {
  LayerDims(arch);  // validates
  harness::Rng rng(seed, 21);
  ZooModel m;
  m.arch = arch;
  m.w.resize(arch.layers.size());
  m.b.resize(arch.layers.size());
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const ZooLayer& layer = arch.layers[l];
    if (layer.kind == ZooLayerKind::kGlobalAvgPool) continue;
    const int fan_in = layer.kind == ZooLayerKind::kConv ? layer.in * layer.k * layer.k : layer.in;
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    m.w[l].resize(static_cast<size_t>(WeightCount(layer)));
    m.b[l].resize(static_cast<size_t>(BiasCount(layer)));
    for (double& v : m.w[l]) v = bound * (2.0 * rng.Uniform() - 1.0);
    for (double& v : m.b[l]) v = bound * (2.0 * rng.Uniform() - 1.0);
  }
  return m;
}

void ZooForward(const ZooModel& m, int batch, const double* x, double* logits, ZooTrace* trace) {
  if (batch < 0) throw std::invalid_argument("ZooForward: batch < 0");
  const std::vector<Dims> dims = CheckedDims(m);
  const size_t n_layers = m.arch.layers.size();
  ZooTrace local;
  ZooTrace& t = trace != nullptr ? *trace : local;
  t.act.resize(n_layers + 1);
  t.act[0].assign(x, x + batch * dims[0].Size());
  for (size_t l = 0; l < n_layers; ++l) {
    const ZooLayer& layer = m.arch.layers[l];
    const Dims& di = dims[l];
    const Dims& d_o = dims[l + 1];
    const std::vector<double>& in = t.act[l];  // (batch, di.c, di.h, di.w)
    std::vector<double>& out = t.act[l + 1];   // (batch, d_o.c, d_o.h, d_o.w)
    out.assign(static_cast<size_t>(batch * d_o.Size()), 0.0);
    switch (layer.kind) {
      case ZooLayerKind::kConv: {
        // w (out, in, k, k) read as a matrix (out, in*k*k), b (out);
        // per image y (out, oh*ow) = b + w @ col, col (in*k*k, oh*ow).
        const int64_t taps = int64_t{di.c} * layer.k * layer.k;
        const int64_t pixels = int64_t{d_o.h} * d_o.w;
        std::vector<double> col(static_cast<size_t>(taps * pixels));
        for (int n = 0; n < batch; ++n) {
          Im2Col(&in[static_cast<size_t>(n * di.Size())], di, layer, d_o, col.data());
          double* y = &out[static_cast<size_t>(n * d_o.Size())];
          for (int o = 0; o < d_o.c; ++o) {
            double* yo = y + o * pixels;
            for (int64_t q = 0; q < pixels; ++q) yo[q] = m.b[l][o];
            const double* wo = &m.w[l][static_cast<size_t>(o * taps)];
            for (int64_t r = 0; r < taps; ++r) Axpy(wo[r], &col[static_cast<size_t>(r * pixels)], yo, pixels);
          }
        }
        break;
      }
      case ZooLayerKind::kGlobalAvgPool: {
        const int64_t hw = int64_t{di.h} * di.w;
        for (int n = 0; n < batch; ++n) {
          for (int c = 0; c < di.c; ++c) {
            const double* xc = &in[static_cast<size_t>((int64_t{n} * di.c + c) * hw)];
            double sum = 0.0;
            for (int64_t q = 0; q < hw; ++q) sum += xc[q];
            out[static_cast<size_t>(int64_t{n} * di.c + c)] = sum / static_cast<double>(hw);
          }
        }
        break;
      }
      case ZooLayerKind::kLinear: {
        // w (out, in), b (out); the input row is the flattened (c, y, x) image.
        const int64_t fan_in = layer.in;
        for (int n = 0; n < batch; ++n) {
          const double* xn = &in[static_cast<size_t>(n * fan_in)];
          for (int o = 0; o < layer.out; ++o) {
            const double* wo = &m.w[l][static_cast<size_t>(o * fan_in)];
            out[static_cast<size_t>(int64_t{n} * layer.out + o)] = m.b[l][o] + Dot(wo, xn, fan_in);
          }
        }
        break;
      }
    }
    if (HasRelu(m.arch, l)) {
      for (double& v : out) v = v > 0.0 ? v : 0.0;
    }
  }
  const std::vector<double>& last = t.act[n_layers];  // (batch, classes)
  for (size_t q = 0; q < last.size(); ++q) logits[q] = last[q];
}

void ZooBackward(const ZooModel& m, int batch, const ZooTrace& trace, const double* dlogits,
                 ZooModel* grad, double* dx) {
  const std::vector<Dims> dims = CheckedDims(m);
  const size_t n_layers = m.arch.layers.size();
  bool trace_fits = trace.act.size() == n_layers + 1;
  for (size_t l = 0; trace_fits && l <= n_layers; ++l) {
    trace_fits = static_cast<int64_t>(trace.act[l].size()) == batch * dims[l].Size();
  }
  if (!trace_fits) throw std::invalid_argument("ZooBackward: the trace is of another model or batch");
  if (grad != nullptr) {
    grad->arch = m.arch;
    grad->w.resize(n_layers);
    grad->b.resize(n_layers);
    for (size_t l = 0; l < n_layers; ++l) {
      grad->w[l].assign(m.w[l].size(), 0.0);
      grad->b[l].assign(m.b[l].size(), 0.0);
    }
  }
  // dcur: d loss / d act[l+1] (after the ReLU), walking l downwards.
  std::vector<double> dcur(dlogits, dlogits + batch * dims[n_layers].Size());
  std::vector<double> dprev;
  for (size_t l = n_layers; l-- > 0;) {
    const ZooLayer& layer = m.arch.layers[l];
    const Dims& di = dims[l];
    const Dims& d_o = dims[l + 1];
    const std::vector<double>& in = trace.act[l];    // (batch, di)
    const std::vector<double>& out = trace.act[l + 1];  // (batch, d_o)
    if (HasRelu(m.arch, l)) {
      // The output is max(z, 0), so it is > 0 exactly where z > 0.
      for (size_t q = 0; q < dcur.size(); ++q) {
        if (!(out[q] > 0.0)) dcur[q] = 0.0;
      }
    }
    // The input gradient is needed below layer 0 only when the caller asks.
    const bool need_din = l > 0 || dx != nullptr;
    dprev.assign(need_din ? static_cast<size_t>(batch * di.Size()) : 0, 0.0);
    switch (layer.kind) {
      case ZooLayerKind::kConv: {
        // With col = im2col(x) (in*k*k, oh*ow) and dy (out, oh*ow) per image:
        // dw += dy @ col^T, db += row sums of dy, dcol = w^T @ dy, dx = col2im(dcol).
        const int64_t taps = int64_t{di.c} * layer.k * layer.k;
        const int64_t pixels = int64_t{d_o.h} * d_o.w;
        std::vector<double> col(static_cast<size_t>(taps * pixels));
        std::vector<double> dcol(need_din ? col.size() : 0);
        for (int n = 0; n < batch; ++n) {
          Im2Col(&in[static_cast<size_t>(n * di.Size())], di, layer, d_o, col.data());
          const double* dy = &dcur[static_cast<size_t>(n * d_o.Size())];
          std::fill(dcol.begin(), dcol.end(), 0.0);
          for (int o = 0; o < d_o.c; ++o) {
            const double* dyo = dy + o * pixels;
            const double* wo = &m.w[l][static_cast<size_t>(o * taps)];
            if (grad != nullptr) {
              double* gwo = &grad->w[l][static_cast<size_t>(o * taps)];
              double sum = 0.0;
              for (int64_t q = 0; q < pixels; ++q) sum += dyo[q];
              grad->b[l][o] += sum;
              for (int64_t r = 0; r < taps; ++r) {
                gwo[r] += Dot(dyo, &col[static_cast<size_t>(r * pixels)], pixels);
              }
            }
            if (need_din) {
              for (int64_t r = 0; r < taps; ++r) {
                Axpy(wo[r], dyo, &dcol[static_cast<size_t>(r * pixels)], pixels);
              }
            }
          }
          if (need_din) Col2ImAdd(dcol.data(), di, layer, d_o, &dprev[static_cast<size_t>(n * di.Size())]);
        }
        break;
      }
      case ZooLayerKind::kGlobalAvgPool: {
        const int64_t hw = int64_t{di.h} * di.w;
        if (need_din) {
          for (int n = 0; n < batch; ++n) {
            for (int c = 0; c < di.c; ++c) {
              const double g = dcur[static_cast<size_t>(int64_t{n} * di.c + c)] / static_cast<double>(hw);
              double* dxc = &dprev[static_cast<size_t>((int64_t{n} * di.c + c) * hw)];
              for (int64_t q = 0; q < hw; ++q) dxc[q] = g;
            }
          }
        }
        break;
      }
      case ZooLayerKind::kLinear: {
        const int64_t fan_in = layer.in;
        for (int n = 0; n < batch; ++n) {
          const double* xn = &in[static_cast<size_t>(n * fan_in)];
          double* dxn = need_din ? &dprev[static_cast<size_t>(n * fan_in)] : nullptr;
          for (int o = 0; o < layer.out; ++o) {
            const double g = dcur[static_cast<size_t>(int64_t{n} * layer.out + o)];
            if (g == 0.0) continue;  // a dead ReLU unit adds nothing (common; saves the row)
            const double* wo = &m.w[l][static_cast<size_t>(o * fan_in)];
            if (grad != nullptr) {
              Axpy(g, xn, &grad->w[l][static_cast<size_t>(o * fan_in)], fan_in);
              grad->b[l][o] += g;
            }
            if (dxn != nullptr) Axpy(g, wo, dxn, fan_in);
          }
        }
        break;
      }
    }
    dcur.swap(dprev);
  }
  if (dx != nullptr) {
    for (size_t q = 0; q < dcur.size(); ++q) dx[q] = dcur[q];
  }
}

int64_t ZooParamCount(const ZooArch& arch) {
  int64_t count = 0;
  for (const ZooLayer& layer : arch.layers) count += WeightCount(layer) + BiasCount(layer);
  return count;
}

int64_t ZooMacsPerImage(const ZooArch& arch) {
  const std::vector<Dims> dims = LayerDims(arch);
  int64_t macs = 0;
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const ZooLayer& layer = arch.layers[l];
    if (layer.kind == ZooLayerKind::kConv) {
      // Every output pixel costs in * k * k, padding taps included (as the
      // usual FLOP counters count them).
      macs += WeightCount(layer) * dims[l + 1].h * dims[l + 1].w;
    } else if (layer.kind == ZooLayerKind::kLinear) {
      macs += WeightCount(layer);
    }
  }
  return macs;
}

}  // namespace cb::ref::probegen

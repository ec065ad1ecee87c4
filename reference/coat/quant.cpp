// File: reference/coat/quant.cpp
// DRE, per-group max scaling and the activation quantizers of COAT; see quant.h.
#include "reference/coat/quant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::ref::coat {
namespace {

constexpr float kE4M3Max = 448.0f;

int64_t NumGroups(int64_t n, int64_t group_size) { return (n + group_size - 1) / group_size; }

// sign(x) as the kernel computes it: 1 - 2 * signbit(x), so -0 counts as negative.
inline float SignOf(float x) { return std::signbit(x) ? -1.0f : 1.0f; }

}  // namespace

const char* DreTargetName(DreTarget t) {
  return t == DreTarget::kAuthorsKernel ? "authors_kernel" : "paper";
}

DreGroup DreParams(std::span<const float> x, const DreOptions& opt) {
  if (x.empty() || x.size() > static_cast<size_t>(kDreGroupSize)) {
    throw std::invalid_argument("DreParams: a group has 1..128 elements");
  }
  float max_abs = 0.0f;
  float min_nonzero = INFINITY;
  for (const float v : x) {
    const float a = std::fabs(v);
    max_abs = std::max(max_abs, a);
    if (a != 0.0f || opt.min_includes_zeros) min_nonzero = std::min(min_nonzero, a);
  }
  return DreParamsFromExtrema(max_abs, min_nonzero, opt);
}

DreGroup DreParamsFromExtrema(float max_abs, float min_nonzero, const DreOptions& opt) {
  const float big = max_abs + opt.min_val;                                        // M
  const float small = std::isinf(min_nonzero) ? big : min_nonzero + opt.min_val;  // mu (all zero: R = 1)
  const float ratio = big / small;                                    // R >= 1
  DreGroup g;
  g.center = std::sqrt(big) * std::sqrt(small);
  float k;
  if (opt.target == DreTarget::kAuthorsKernel) {
    const float upper = kE4M3Max * kE4M3Max / 2.0f;  // 100352
    const float steps = static_cast<float>(opt.expand_min);
    k = std::floor((std::log2(upper) / std::log2(ratio)) * steps) / steps;
  } else {
    const float upper = kE4M3Max / 0x1p-9f;  // 229376 = E4M3 max / min subnormal
    k = std::log2(upper) / std::log2(ratio);
  }
  if (std::isinf(k)) k = opt.k_if_ratio_is_one;  // R == 1: log2 R = 0
  if (k > opt.k_cap) k = opt.k_cap;
  if (opt.clamp_k_at_least_one) k = std::max(k, 1.0f);
  g.k = k;
  g.scale = std::pow(big / g.center, k) / kE4M3Max;
  return g;
}

void DreEncodeGroup(std::span<const float> x, const DreGroup& g, std::span<uint8_t> out) {
  for (size_t i = 0; i < x.size(); ++i) {
    const float y = SignOf(x[i]) * std::pow(std::fabs(x[i]) / g.center, g.k);
    out[i] = fp8::EncodeE4M3(y / g.scale);
  }
}

void DreDecodeGroup(std::span<const uint8_t> q, const DreGroup& g, std::span<float> out) {
  const auto& table = fp8::DecodeTable(fp8::Format::kE4M3);
  const float inv_k = 1.0f / g.k;
  for (size_t i = 0; i < q.size(); ++i) {
    const float scaled = table[q[i]] * g.scale;
    out[i] = SignOf(scaled) * std::pow(std::fabs(scaled), inv_k) * g.center;
  }
}

DreTensor DreQuantize(std::span<const float> x, const DreOptions& opt) {
  DreTensor t;
  t.size = static_cast<int64_t>(x.size());
  t.codes.resize(x.size());
  t.groups.resize(NumGroups(t.size, kDreGroupSize));
  for (size_t gi = 0; gi < t.groups.size(); ++gi) {
    const size_t begin = gi * kDreGroupSize;
    const size_t len = std::min<size_t>(kDreGroupSize, x.size() - begin);
    const auto group = x.subspan(begin, len);
    t.groups[gi] = DreParams(group, opt);
    DreEncodeGroup(group, t.groups[gi], std::span<uint8_t>(t.codes).subspan(begin, len));
  }
  return t;
}

void DreDequantizeInto(const DreTensor& t, std::span<float> out) {
  if (static_cast<int64_t>(out.size()) != t.size) {
    throw std::invalid_argument("DreDequantizeInto: size mismatch");
  }
  for (size_t gi = 0; gi < t.groups.size(); ++gi) {
    const size_t begin = gi * kDreGroupSize;
    const size_t len = std::min<size_t>(kDreGroupSize, out.size() - begin);
    DreDecodeGroup(std::span<const uint8_t>(t.codes).subspan(begin, len), t.groups[gi],
                   out.subspan(begin, len));
  }
}

std::vector<float> DreDequantize(const DreTensor& t) {
  std::vector<float> out(static_cast<size_t>(t.size));
  DreDequantizeInto(t, out);
  return out;
}

ScaledTensor MaxScaleQuantize(std::span<const float> x, int64_t group_size, fp8::Format f,
                              float eps, bool bf16_scales) {
  if (group_size < 1) throw std::invalid_argument("MaxScaleQuantize: group_size must be >= 1");
  const fp8::FormatInfo& info = fp8::Info(f);
  ScaledTensor t;
  t.format = f;
  t.group_size = group_size;
  t.codes.resize(x.size());
  const int64_t n = static_cast<int64_t>(x.size());
  t.scales.resize(NumGroups(n, group_size));
  for (int64_t gi = 0; gi < static_cast<int64_t>(t.scales.size()); ++gi) {
    const int64_t begin = gi * group_size;
    const int64_t end = std::min(n, begin + group_size);
    float max_abs = 0.0f;
    for (int64_t i = begin; i < end; ++i) max_abs = std::max(max_abs, std::fabs(x[i]));
    float scale = (max_abs + eps) / info.max_finite;
    if (bf16_scales) scale = fp8::RoundToBf16(scale);
    t.scales[gi] = scale;
    fp8::EncodeSpanDivided(x.subspan(begin, end - begin), scale,
                           std::span<uint8_t>(t.codes).subspan(begin, end - begin), f);
  }
  return t;
}

std::vector<float> Dequantize(const ScaledTensor& t) {
  const auto& table = fp8::DecodeTable(t.format);
  std::vector<float> out(t.codes.size());
  const size_t group = static_cast<size_t>(t.group_size);
  for (size_t begin = 0, g = 0; begin < out.size(); begin += group, ++g) {
    const size_t end = std::min(out.size(), begin + group);
    const float scale = t.scales[g];
    for (size_t i = begin; i < end; ++i) out[i] = table[t.codes[i]] * scale;
  }
  return out;
}

ScaledTensor QuantizePerTensor(std::span<const float> x, fp8::Format f) {
  return MaxScaleQuantize(x, std::max<int64_t>(1, static_cast<int64_t>(x.size())), f, kActEps);
}

ScaledTensor QuantizePerGroup16(std::span<const float> x, fp8::Format f) {
  return MaxScaleQuantize(x, kActGroupSize, f, kActEps, /*bf16_scales=*/true);
}

float AbsMaxOneStage(std::span<const float> x) {
  float m = 0.0f;
  for (const float v : x) m = std::max(m, std::fabs(v));
  return m;
}

float AbsMaxTwoStage(std::span<const float> x, int64_t group_size, std::vector<float>* group_max) {
  if (group_size < 1) throw std::invalid_argument("AbsMaxTwoStage: group_size must be >= 1");
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> maxima(NumGroups(n, group_size), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float& m = maxima[i / group_size];
    m = std::max(m, std::fabs(x[i]));
  }
  float m = 0.0f;
  for (const float g : maxima) m = std::max(m, g);
  if (group_max != nullptr) *group_max = std::move(maxima);
  return m;
}

double Mse(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) throw std::invalid_argument("Mse: size mismatch");
  if (a.empty()) return 0.0;
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = double(a[i]) - double(b[i]);
    s += d * d;
  }
  return s / double(a.size());
}

}  // namespace cb::ref::coat

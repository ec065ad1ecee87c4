// File: generators/segscenes.cpp
// Procedural RGB / infrared-like segmentation scenes; see segscenes.h.
#include "generators/segscenes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "harness/random.h"

namespace cb::gen {
namespace {

namespace h = cb::harness;

// Stream ids of one scene (the scene index is added in the high bits), so no
// domain's draws depend on another's count.
enum Stream : uint64_t { kLayoutStream = 1, kTextureStream = 2, kTemperatureStream = 3, kNoiseStream = 4 };
uint64_t StreamOf(int index, Stream s) { return (uint64_t(index) << 8) | s; }

// Index 0 background, then classes 1..5: distinct hues.
constexpr double kColour[kSegMaxClasses + 1][3] = {
    {0.45, 0.55, 0.35}, {0.90, 0.25, 0.20}, {0.25, 0.45, 0.95},
    {0.95, 0.85, 0.20}, {0.70, 0.30, 0.85}, {0.20, 0.85, 0.80},
};
// Temperatures: ordered unlike the colours' brightness, so RGB intensity does
// not predict infrared intensity (the domain gap).
constexpr double kTemperature[kSegMaxClasses + 1] = {0.20, 0.85, 0.60, 0.35, 0.72, 0.48};
// Stripe frequency (cycles per pixel) and angle of each object class; low
// enough that the infrared blur would keep most of their contrast.
constexpr double kStripeFreq[kSegMaxClasses + 1] = {0.0, 0.10, 0.16, 0.07, 0.13, 0.19};
constexpr double kStripeAngle[kSegMaxClasses + 1] = {0.0, 0.0, 1.1, 2.2, 0.5, 1.6};

double Uniform(h::Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.Uniform(); }

// Whether (dx, dy) from the object's centre is inside its shape of radius r
// (rectangle half-sides r and r * aspect; triangle apex up).
bool Inside(int shape, double dx, double dy, double r, double aspect) {
  switch (shape) {
    case 0: return dx * dx + dy * dy <= r * r;
    case 1: return std::abs(dx) <= r && std::abs(dy) <= r * aspect;
    default: return dy <= 0.6 * r && dy >= -r + 1.6 * std::abs(dx);
  }
}

void Check(const SegScenesParams& p) {
  if (p.size < 16 || p.size > 128 || p.classes < 1 || p.classes > kSegMaxClasses || p.min_objects < 0 ||
      p.max_objects < p.min_objects || p.max_objects > 12 || p.count < 1)
    throw std::invalid_argument("segscenes: needs 16 <= size <= 128, 1 <= classes <= 5, 0 <= min_objects <= "
                                "max_objects <= 12, count >= 1 (got " + p.Canonical() + ")");
}

}  // namespace

std::string SegScenesParams::Canonical() const {
  return "size=" + std::to_string(size) + ";classes=" + std::to_string(classes) +
         ";min_objects=" + std::to_string(min_objects) + ";max_objects=" + std::to_string(max_objects) +
         ";count=" + std::to_string(count) + ";seed=" + std::to_string(seed);
}

std::array<double, 3> SegClassColour(int k) {
  if (k < 0 || k > kSegMaxClasses) throw std::invalid_argument("segscenes: class out of range");
  return {kColour[k][0], kColour[k][1], kColour[k][2]};
}

double SegClassTemperature(int k) {
  if (k < 0 || k > kSegMaxClasses) throw std::invalid_argument("segscenes: class out of range");
  return kTemperature[k];
}

std::vector<double> BlurBinomial5(const std::vector<double>& img, int hgt, int wid) {
  if (hgt < 1 || wid < 1 || img.size() != size_t(hgt) * wid)
    throw std::invalid_argument("BlurBinomial5: image is not (h, w)");
  constexpr double kTap[5] = {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0};
  std::vector<double> rows(img.size()), out(img.size());
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < wid; ++x) {
      double s = 0;
      for (int t = -2; t <= 2; ++t) s += kTap[t + 2] * img[size_t(y) * wid + std::clamp(x + t, 0, wid - 1)];
      rows[size_t(y) * wid + x] = s;
    }
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < wid; ++x) {
      double s = 0;
      for (int t = -2; t <= 2; ++t) s += kTap[t + 2] * rows[size_t(std::clamp(y + t, 0, hgt - 1)) * wid + x];
      out[size_t(y) * wid + x] = s;
    }
  return out;
}

SegScene MakeSegScene(const SegScenesParams& p, int index) {
  Check(p);
  if (index < 0) throw std::invalid_argument("segscenes: negative scene index");
  const int n = p.size;
  SegScene s;
  s.size = n;
  s.label.assign(size_t(n) * n, 0);
  std::vector<double> modulation(size_t(n) * n);  // (n, n): m in [kTextureLow, 1]
  // Background texture: a checkerboard of period 2 * cell, cell in [2, 4].
  h::Rng tex(p.seed, StreamOf(index, kTextureStream));
  const int cell = int(tex.UniformInt(2, 4));
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      modulation[size_t(y) * n + x] = ((x / cell + y / cell) % 2) ? 1.0 : kTextureLow;
  // Objects, in drawing order.
  h::Rng layout(p.seed, StreamOf(index, kLayoutStream));
  const int objects = int(layout.UniformInt(uint64_t(p.min_objects), uint64_t(p.max_objects)));
  for (int o = 0; o < objects; ++o) {
    const int k = 1 + int(layout.UniformInt(0, uint64_t(p.classes - 1)));
    const int shape = (k - 1) % 3;
    const double r = Uniform(layout, n / 8.0, n / 4.0);
    const double aspect = Uniform(layout, 0.5, 1.0);
    const double cx = Uniform(layout, r * 0.5, n - r * 0.5), cy = Uniform(layout, r * 0.5, n - r * 0.5);
    const double phase = Uniform(tex, 0.0, 2 * std::numbers::pi);
    const double ux = std::cos(kStripeAngle[k]), uy = std::sin(kStripeAngle[k]);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        if (!Inside(shape, x - cx, y - cy, r, aspect)) continue;
        const double t = 0.5 + 0.5 * std::sin(2 * std::numbers::pi * kStripeFreq[k] * (x * ux + y * uy) + phase);
        modulation[size_t(y) * n + x] = kTextureLow + (1 - kTextureLow) * t;
        s.label[size_t(y) * n + x] = uint8_t(k);
      }
  }
  // RGB: colour[label] * m.
  s.rgb.resize(size_t(n) * n * 3);
  for (size_t i = 0; i < s.label.size(); ++i)
    for (int c = 0; c < 3; ++c) s.rgb[i * 3 + c] = kColour[s.label[i]][c] * modulation[i];
  // Infrared: temperature[label], blurred, plus noise, clamped to [0, 1].
  h::Rng temp(p.seed, StreamOf(index, kTemperatureStream));
  s.temperature.resize(size_t(p.classes) + 1);
  for (int k = 0; k <= p.classes; ++k) s.temperature[k] = kTemperature[k] + Uniform(temp, -kIrJitter, kIrJitter);
  std::vector<double> heat(size_t(n) * n);
  for (size_t i = 0; i < heat.size(); ++i) heat[i] = s.temperature[s.label[i]];
  s.ir = BlurBinomial5(heat, n, n);
  h::Rng noise(p.seed, StreamOf(index, kNoiseStream));
  for (double& v : s.ir) v = std::clamp(v + kIrNoise * noise.Normal(), 0.0, 1.0);
  return s;
}

SegScenes MakeSegScenes(const SegScenesParams& p) {
  Check(p);
  SegScenes out;
  out.params = p;
  h::Hasher hasher;
  hasher.Update(std::string(kSegScenesName) + "/" + std::to_string(kSegScenesVersion) + "/" + p.Canonical());
  for (int i = 0; i < p.count; ++i) {
    SegScene s = MakeSegScene(p, i);
    hasher.Update(harness::HashDoubles(s.rgb).Hex());
    hasher.Update(harness::HashDoubles(s.ir).Hex());
    hasher.Update(std::string_view(reinterpret_cast<const char*>(s.label.data()), s.label.size()));
    out.scenes.push_back(std::move(s));
  }
  out.hash = hasher.Digest();
  return out;
}

}  // namespace cb::gen

// File: generators/feature_scenes.cpp
#include "generators/feature_scenes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "harness/random.h"

namespace cb::gen {
namespace {

using ref::m3::View;
namespace h = cb::harness;

// Stream ids of the one seed, so no draw depends on another's count.
enum Stream : uint64_t { kLayout = 1, kBackground = 2, kViews = 3, kExtractor = 16 };

struct ClassLook {
  double r, g, b;
  int shape;           // 0 disc, 1 square, 2 triangle, 3 ring, 4 diamond, 5 cross
  double stripe;       // stripe frequency (cycles per pixel) of the texture
};

// A fixed palette: distinct hues, shapes and stripe frequencies.
const ClassLook kLooks[] = {
    {0.85, 0.20, 0.20, 0, 0.00}, {0.20, 0.75, 0.25, 1, 0.25}, {0.20, 0.35, 0.90, 2, 0.12},
    {0.90, 0.80, 0.15, 3, 0.00}, {0.70, 0.25, 0.80, 4, 0.33}, {0.15, 0.80, 0.80, 5, 0.18},
    {0.95, 0.55, 0.15, 0, 0.40},
};

bool Inside(int shape, double dx, double dy, double r) {
  const double ax = std::abs(dx), ay = std::abs(dy);
  switch (shape) {
    case 0: return dx * dx + dy * dy <= r * r;
    case 1: return ax <= r * 0.85 && ay <= r * 0.85;
    case 2: return dy <= r * 0.7 && dy >= -r + 2.0 * ax;  // apex up
    case 3: return dx * dx + dy * dy <= r * r && dx * dx + dy * dy >= 0.3 * r * r;
    case 4: return ax + ay <= r;
    default: return (ax <= r * 0.3 && ay <= r) || (ay <= r * 0.3 && ax <= r);
  }
}

void CheckView(const FeatureScene& s, const View& v) {
  if (v.x0 < 0 || v.y0 < 0 || v.width < 1 || v.height < 1 || v.x0 + v.width > s.params.canvas ||
      v.y0 + v.height > s.params.canvas)
    throw std::invalid_argument("feature_scenes: the view lies outside the canvas");
}

std::vector<double> Gaussians(h::Rng& rng, size_t n, double sd) {
  std::vector<double> v(n);
  for (double& x : v) x = rng.Normal() * sd;
  return v;
}

// The extractor's fixed weights, drawn from its own streams.
constexpr int kHidden = 64;
// A typical pixel value, subtracted so the hidden units are not one shared
// offset (which would make every token alike).
constexpr double kPixelCentre = 0.45;
struct ExtractorWeights {
  std::vector<double> classes;  // (C + 1, D)
  std::vector<double> a;        // (kHidden, p * p * 3)
  std::vector<double> out;      // (D, kHidden)
};

ExtractorWeights WeightsOf(const Extractor& e) {
  h::Rng rng(e.seed, kExtractor);
  ExtractorWeights w;
  w.classes = Gaussians(rng, size_t(e.classes + 1) * e.dim, 1.0 / std::sqrt(double(e.dim)));
  const int in = e.patch * e.patch * 3;
  w.a = Gaussians(rng, size_t(kHidden) * in, 2.5 / std::sqrt(double(in)));
  w.out = Gaussians(rng, size_t(e.dim) * kHidden, 1.0 / std::sqrt(double(kHidden * e.dim) / 4.0));
  return w;
}

}  // namespace

std::string FeatureSceneParams::Canonical() const {
  return "canvas=" + std::to_string(canvas) + ";classes=" + std::to_string(classes) +
         ";objects=" + std::to_string(objects) + ";view=" + std::to_string(view) +
         ";train_views=" + std::to_string(train_views) + ";test_views=" + std::to_string(test_views) +
         ";seed=" + std::to_string(seed);
}

FeatureScene MakeFeatureScene(const FeatureSceneParams& p) {
  if (p.canvas < 8 || p.classes < 1 || p.classes > 7 || p.objects < 0 || p.view < 4 || p.view > p.canvas ||
      p.train_views < 1 || p.test_views < 1)
    throw std::invalid_argument("MakeFeatureScene: needs canvas >= 8, 1 <= classes <= 7, objects >= 0, "
                                "4 <= view <= canvas, train_views and test_views >= 1 (got " + p.Canonical() + ")");
  FeatureScene s;
  s.params = p;
  const int n = p.canvas;
  s.rgb.assign(size_t(n) * n * 3, 0.0);
  s.label.assign(size_t(n) * n, 0);
  // Background: three materials (grass, sand, stone colours) in regions
  // where one of three random low-frequency waves is largest, with pixel
  // noise; all class 0.
  h::Rng bg(p.seed, kBackground);
  constexpr double kMaterial[3][3] = {{0.30, 0.50, 0.25}, {0.72, 0.65, 0.45}, {0.50, 0.50, 0.56}};
  double wave[3][4];
  for (auto& w : wave)
    for (double& x : w) x = bg.Uniform();
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      int m = 0;
      double best = -2.0;
      for (int k = 0; k < 3; ++k) {
        const double v = std::sin(6.283 * (wave[k][0] * 2.5 * x / n + wave[k][2])) *
                         std::cos(6.283 * (wave[k][1] * 2.5 * y / n + wave[k][3]));
        if (v > best) best = v, m = k;
      }
      double* px = &s.rgb[(size_t(y) * n + x) * 3];
      for (int c = 0; c < 3; ++c) px[c] = kMaterial[m][c] + 0.08 * bg.Normal();
    }
  h::Rng layout(p.seed, kLayout);
  for (int o = 0; o < p.objects; ++o) {
    const int k = 1 + int(layout.UniformInt(0, uint64_t(p.classes - 1)));
    const ClassLook& look = kLooks[k - 1];
    const double r = n * (0.07 + 0.06 * layout.Uniform());
    const double cx = r + layout.Uniform() * (n - 2 * r), cy = r + layout.Uniform() * (n - 2 * r);
    for (int y = std::max(0, int(cy - r) - 1); y <= std::min(n - 1, int(cy + r) + 1); ++y)
      for (int x = std::max(0, int(cx - r) - 1); x <= std::min(n - 1, int(cx + r) + 1); ++x) {
        if (!Inside(look.shape, x - cx, y - cy, r)) continue;
        const double tex = look.stripe > 0 ? 0.85 + 0.15 * std::sin(6.283 * look.stripe * (x + y)) : 1.0;
        double* px = &s.rgb[(size_t(y) * n + x) * 3];
        px[0] = look.r * tex, px[1] = look.g * tex, px[2] = look.b * tex;
        s.label[size_t(y) * n + x] = uint8_t(k);
      }
  }
  for (double& v : s.rgb) v = std::clamp(v, 0.0, 1.0);
  h::Rng views(p.seed, kViews);
  const uint64_t span = uint64_t(n - p.view);
  for (int i = 0; i < p.train_views + p.test_views; ++i) {
    const View v{int(views.UniformInt(0, span)), int(views.UniformInt(0, span)), p.view, p.view};
    (i < p.train_views ? s.train_views : s.test_views).push_back(v);
  }
  h::Hasher hasher;
  hasher.Update(std::string(kFeatureScenesName) + "/" + std::to_string(kFeatureScenesVersion) + "/" + p.Canonical());
  hasher.Update(h::HashDoubles(s.rgb).Hex());
  hasher.Update(std::string_view(reinterpret_cast<const char*>(s.label.data()), s.label.size()));
  for (const auto* list : {&s.train_views, &s.test_views})
    for (const View& v : *list) hasher.Update(std::to_string(v.x0) + "," + std::to_string(v.y0) + ";");
  s.hash = hasher.Digest();
  return s;
}

std::vector<Extractor> StandInExtractors(double width_scale, int classes, uint64_t seed) {
  if (!(width_scale > 0)) throw std::invalid_argument("StandInExtractors: width_scale must be positive");
  auto width = [&](int d) { return std::max(8, int(std::lround(d * width_scale))); };
  return {{"clip", width(768), 8, 0.6, classes, seed * 131 + 1},
          {"siglip", width(1152), 8, 0.65, classes, seed * 131 + 2},
          {"dinov2", width(1536), 8, 0.3, classes, seed * 131 + 3}};
}

std::vector<uint8_t> ViewLabels(const FeatureScene& s, const View& v) {
  CheckView(s, v);
  std::vector<uint8_t> out;
  out.reserve(v.Pixels());
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x) out.push_back(s.label[size_t(v.y0 + y) * s.params.canvas + v.x0 + x]);
  return out;
}

std::vector<double> ExtractTokens(const Extractor& e, const FeatureScene& s, const View& v) {
  CheckView(s, v);
  if (e.dim < 1 || e.patch < 1 || e.classes != s.params.classes)
    throw std::invalid_argument("ExtractTokens: extractor '" + e.name + "' does not fit this scene");
  const ExtractorWeights w = WeightsOf(e);
  const int n = s.params.canvas, th = (v.height + e.patch - 1) / e.patch, tw = (v.width + e.patch - 1) / e.patch;
  std::vector<double> tokens(size_t(th) * tw * e.dim, 0.0);
  const int in = e.patch * e.patch * 3;
  std::vector<double> frac(e.classes + 1), patch(in), hidden(kHidden);
  for (int ty = 0; ty < th; ++ty)
    for (int tx = 0; tx < tw; ++tx) {
      std::fill(frac.begin(), frac.end(), 0.0);
      std::fill(patch.begin(), patch.end(), 0.0);  // pixels past the view's edge stay 0
      int count = 0;
      const int y1 = std::min(v.height, (ty + 1) * e.patch), x1 = std::min(v.width, (tx + 1) * e.patch);
      for (int y = ty * e.patch; y < y1; ++y)
        for (int x = tx * e.patch; x < x1; ++x) {
          const size_t at = size_t(v.y0 + y) * n + v.x0 + x;
          frac[s.label[at]] += 1.0;
          for (int c = 0; c < 3; ++c)
            patch[((y - ty * e.patch) * e.patch + (x - tx * e.patch)) * 3 + c] = s.rgb[at * 3 + c] - kPixelCentre;
          ++count;
        }
      for (double& f : frac) f /= count;
      for (int j = 0; j < kHidden; ++j) {
        double a = 0.0;
        for (int i = 0; i < in; ++i) a += w.a[size_t(j) * in + i] * patch[i];
        hidden[j] = std::tanh(a);
      }
      double* t = &tokens[(size_t(ty) * tw + tx) * e.dim];
      for (int d = 0; d < e.dim; ++d) {
        double sem = 0.0, app = 0.0;
        for (int k = 0; k <= e.classes; ++k) sem += frac[k] * w.classes[size_t(k) * e.dim + d];
        for (int j = 0; j < kHidden; ++j) app += w.out[size_t(d) * kHidden + j] * hidden[j];
        t[d] = e.semantic * sem + (1.0 - e.semantic) * app;
      }
    }
  return tokens;
}

void FeaturesAt(const Extractor& e, const View& v, const std::vector<double>& tokens,
                std::span<const int64_t> pixels, double* out) {
  const int th = (v.height + e.patch - 1) / e.patch, tw = (v.width + e.patch - 1) / e.patch;
  if (tokens.size() != size_t(th) * tw * e.dim) throw std::invalid_argument("FeaturesAt: tokens do not fit the view");
  // Bilinear, align_corners = True: pixel i maps to i (n_in - 1) / (n_out - 1).
  auto coord = [](int i, int n_out, int n_in, int* i0, double* f) {
    const double u = n_out > 1 ? double(i) * (n_in - 1) / (n_out - 1) : 0.0;
    *i0 = std::min(int(u), std::max(0, n_in - 2));
    *f = n_in > 1 ? u - *i0 : 0.0;
  };
  for (size_t n = 0; n < pixels.size(); ++n) {
    if (pixels[n] < 0 || pixels[n] >= v.Pixels()) throw std::invalid_argument("FeaturesAt: pixel outside the view");
    const int y = int(pixels[n] / v.width), x = int(pixels[n] % v.width);
    int y0 = 0, x0 = 0;
    double fy = 0, fx = 0;
    coord(y, v.height, th, &y0, &fy);
    coord(x, v.width, tw, &x0, &fx);
    const int y1 = std::min(th - 1, y0 + 1), x1 = std::min(tw - 1, x0 + 1);
    const double* t00 = &tokens[(size_t(y0) * tw + x0) * e.dim];
    const double* t01 = &tokens[(size_t(y0) * tw + x1) * e.dim];
    const double* t10 = &tokens[(size_t(y1) * tw + x0) * e.dim];
    const double* t11 = &tokens[(size_t(y1) * tw + x1) * e.dim];
    double* o = out + n * e.dim;
    for (int d = 0; d < e.dim; ++d)
      o[d] = (1 - fy) * ((1 - fx) * t00[d] + fx * t01[d]) + fy * ((1 - fx) * t10[d] + fx * t11[d]);
  }
}

std::vector<double> ExtractFeatures(const Extractor& e, const FeatureScene& s, const View& v) {
  const std::vector<double> tokens = ExtractTokens(e, s, v);
  std::vector<int64_t> all(size_t(v.Pixels()));
  for (int64_t p = 0; p < v.Pixels(); ++p) all[p] = p;
  std::vector<double> out(size_t(v.Pixels()) * e.dim);
  FeaturesAt(e, v, tokens, all, out.data());
  return out;
}

std::vector<double> TextEmbedding(const Extractor& e, int k) {
  if (k < 0 || k > e.classes) throw std::invalid_argument("TextEmbedding: class out of range");
  const ExtractorWeights w = WeightsOf(e);
  h::Rng rng(e.seed, kExtractor + 1 + uint64_t(k));
  std::vector<double> t(w.classes.begin() + size_t(k) * e.dim, w.classes.begin() + size_t(k + 1) * e.dim);
  for (double& x : t) x += rng.Normal() * 0.3 / std::sqrt(double(e.dim));
  return t;
}

}  // namespace cb::gen

// File: suites/unip/masked_teacher.cpp
// The masked-patch reconstruction teacher; see masked_teacher.h.
#include "suites/unip/masked_teacher.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "reference/coat/adamw.h"

namespace cb::unip {
namespace {

struct Geometry {
  int channels, size, patch, grid, patches, values;  // values = C*P*P
};

Geometry GeometryOf(const lm_suite::CpuTransformer& model) {
  const ref::lm::Architecture& a = model.arch();
  if (!a.Patches()) throw std::invalid_argument("masked teacher: the model reads tokens, not images");
  const int grid = a.image_width / a.patch_size;
  return {a.num_channels, a.image_width, a.patch_size, grid, a.NumPatches(),
          a.num_channels * a.patch_size * a.patch_size};
}

int ImagesIn(const Geometry& g, std::span<const float> images, const char* who) {
  const size_t pixels = size_t(g.channels) * g.size * g.size;
  if (images.empty() || images.size() % pixels != 0)
    throw std::invalid_argument(std::string(who) + ": images are not [N, C, S, S] for this model");
  return int(images.size() / pixels);
}

int MaskedCount(const Geometry& g, double ratio) {
  const int masked = int(std::lround(ratio * g.patches));
  if (!(ratio > 0 && ratio < 1) || masked < 1 || masked >= g.patches)
    throw std::invalid_argument("masked teacher: mask ratio " + std::to_string(ratio) +
                                " must mask at least one patch and keep one");
  return masked;
}

// A uniform subset of `masked` of the patches (partial Fisher-Yates).
void DrawMask(harness::Rng& rng, int patches, int masked, uint8_t* mask) {
  std::vector<int> order(static_cast<size_t>(patches));
  for (int p = 0; p < patches; ++p) order[p] = p;
  std::fill(mask, mask + patches, uint8_t{0});
  for (int i = 0; i < masked; ++i) {
    const int j = i + int(rng.UniformInt(0, uint64_t(patches - 1 - i)));
    std::swap(order[i], order[j]);
    mask[order[i]] = 1;
  }
}

// Sets the masked patches' pixels of one image [C, S, S] to 0.
void ZeroMasked(const Geometry& g, const uint8_t* mask, float* image) {
  for (int p = 0; p < g.patches; ++p) {
    if (!mask[p]) continue;
    const int y0 = (p / g.grid) * g.patch, x0 = (p % g.grid) * g.patch;
    for (int c = 0; c < g.channels; ++c)
      for (int y = y0; y < y0 + g.patch; ++y)
        std::fill_n(&image[(size_t(c) * g.size + y) * g.size + x0], g.patch, 0.0f);
  }
}

}  // namespace

std::vector<float> NormalizedPatchTargets(const lm_suite::CpuTransformer& model, std::span<const float> images) {
  const Geometry g = GeometryOf(model);
  const int n = ImagesIn(g, images, "NormalizedPatchTargets");
  std::vector<float> out(size_t(n) * g.patches * g.values);
  std::vector<double> v(size_t(g.values));
  for (int i = 0; i < n; ++i)
    for (int p = 0; p < g.patches; ++p) {
      const int y0 = (p / g.grid) * g.patch, x0 = (p % g.grid) * g.patch;
      int k = 0;
      for (int c = 0; c < g.channels; ++c)
        for (int y = 0; y < g.patch; ++y)
          for (int x = 0; x < g.patch; ++x)
            v[k++] = images[((size_t(i) * g.channels + c) * g.size + y0 + y) * g.size + x0 + x];
      double mean = 0, var = 0;
      for (double x : v) mean += x;
      mean /= g.values;
      for (double x : v) var += (x - mean) * (x - mean);
      var /= (g.values - 1);  // torch's Tensor.var default: unbiased
      const double scale = 1.0 / std::sqrt(var + 1e-6);
      float* t = &out[(size_t(i) * g.patches + p) * g.values];
      for (int j = 0; j < g.values; ++j) t[j] = float((v[j] - mean) * scale);
    }
  return out;
}

PixelHead MakePixelHead(const lm_suite::CpuTransformer& model, uint64_t seed) {
  const Geometry g = GeometryOf(model);
  PixelHead head{.dim = model.config().hidden_size, .outputs = g.values};
  head.w.resize(size_t(head.outputs) * head.dim);
  head.b.assign(size_t(head.outputs), 0.0f);
  harness::Rng rng(seed, 11);
  const double sd = 1.0 / std::sqrt(double(head.dim));
  for (float& x : head.w) x = float(sd * rng.Normal());
  return head;
}

double MaskedPatchLoss(const PixelHead& head, std::span<const float> xf, std::span<const float> targets,
                       std::span<const uint8_t> mask, std::span<float> dxf, std::span<float> dw,
                       std::span<float> db) {
  const int D = head.dim, F = head.outputs;
  const size_t patches_total = mask.size();
  if (targets.size() != patches_total * F || dw.size() != head.w.size() || db.size() != head.b.size())
    throw std::invalid_argument("MaskedPatchLoss: targets, mask and head disagree in shape");
  const size_t tokens_total = xf.size() / D;  // B * T, T = patches + 1
  const size_t B = tokens_total - patches_total;
  if (B == 0 || xf.size() != tokens_total * D || dxf.size() != xf.size() || patches_total % B != 0)
    throw std::invalid_argument("MaskedPatchLoss: xf is not [B, patches + 1, D] for this mask");
  const size_t N = patches_total / B, T = N + 1;
  const size_t masked = size_t(std::count(mask.begin(), mask.end(), uint8_t{1}));
  if (masked == 0) throw std::invalid_argument("MaskedPatchLoss: no patch is masked");
  // loss = sum over masked (b, p) of mean_f (pred - target)^2, / masked.
  const double scale = 1.0 / (double(masked) * F);
  double loss = 0;
  for (size_t b = 0; b < B; ++b)
    for (size_t p = 0; p < N; ++p) {
      if (!mask[b * N + p]) continue;
      const float* x = &xf[(b * T + 1 + p) * D];
      float* dx = &dxf[(b * T + 1 + p) * D];
      const float* t = &targets[(b * N + p) * F];
      for (int f = 0; f < F; ++f) {
        double s = head.b[f];
        for (int i = 0; i < D; ++i) s += double(head.w[size_t(f) * D + i]) * x[i];
        const double r = s - t[f];
        loss += r * r * scale;
        const double g = 2 * r * scale;  // d loss / d pred_f
        db[f] += float(g);
        for (int i = 0; i < D; ++i) {
          dw[size_t(f) * D + i] += float(g * x[i]);
          dx[i] += float(g * head.w[size_t(f) * D + i]);
        }
      }
    }
  return loss;
}

std::vector<double> TrainMaskedReconstruction(lm_suite::CpuTransformer& model, PixelHead& head,
                                              const std::vector<float>& images, const TeacherSpec& spec,
                                              double mask_ratio) {
  const Geometry g = GeometryOf(model);
  const int n = ImagesIn(g, images, "TrainMaskedReconstruction");
  const int masked = MaskedCount(g, mask_ratio);
  if (head.dim != model.config().hidden_size || head.outputs != g.values)
    throw std::invalid_argument("TrainMaskedReconstruction: the head does not fit the model");
  const size_t pixels = size_t(g.channels) * g.size * g.size;
  const std::vector<float> targets = NormalizedPatchTargets(model, images);
  ref::coat::Fp32AdamW opt(int64_t(model.num_params()), {.lr = float(spec.lr)});
  ref::coat::Fp32AdamW head_w_opt(int64_t(head.w.size()), {.lr = float(spec.lr)});
  ref::coat::Fp32AdamW head_b_opt(int64_t(head.b.size()), {.lr = float(spec.lr)});
  harness::Rng rng(spec.seed, 12);
  std::vector<float> grad(model.num_params()), dw(head.w.size()), db(head.b.size());
  std::vector<float> batch(size_t(spec.batch) * pixels), batch_targets(size_t(spec.batch) * g.patches * g.values);
  std::vector<uint8_t> mask(size_t(spec.batch) * g.patches);
  std::vector<double> losses;
  for (int step = 0; step < spec.steps; ++step) {
    for (int b = 0; b < spec.batch; ++b) {
      const size_t i = rng.UniformInt(0, uint64_t(n - 1));
      std::copy_n(images.begin() + i * pixels, pixels, batch.begin() + b * pixels);
      std::copy_n(targets.begin() + i * g.patches * g.values, g.patches * g.values,
                  batch_targets.begin() + size_t(b) * g.patches * g.values);
      DrawMask(rng, g.patches, masked, &mask[size_t(b) * g.patches]);
      ZeroMasked(g, &mask[size_t(b) * g.patches], &batch[b * pixels]);
    }
    std::fill(dw.begin(), dw.end(), 0.0f);
    std::fill(db.begin(), db.end(), 0.0f);
    losses.push_back(model.ImageHiddenLossAndGrad(
        batch, spec.batch,
        [&](std::span<const float> xf, std::span<float> dxf) {
          return MaskedPatchLoss(head, xf, batch_targets, mask, dxf, dw, db);
        },
        grad));
    opt.Step(model.params(), grad);
    head_w_opt.Step(head.w, dw);
    head_b_opt.Step(head.b, db);
  }
  return losses;
}

double MaskedReconstructionLoss(const lm_suite::CpuTransformer& model, const PixelHead& head,
                                const std::vector<float>& images, double mask_ratio, uint64_t seed) {
  const Geometry g = GeometryOf(model);
  const int n = ImagesIn(g, images, "MaskedReconstructionLoss");
  const int masked = MaskedCount(g, mask_ratio);
  const size_t pixels = size_t(g.channels) * g.size * g.size;
  const std::vector<float> targets = NormalizedPatchTargets(model, images);
  harness::Rng rng(seed, 13);
  std::vector<float> input = images;
  std::vector<uint8_t> mask(size_t(n) * g.patches);
  for (int i = 0; i < n; ++i) {
    DrawMask(rng, g.patches, masked, &mask[size_t(i) * g.patches]);
    ZeroMasked(g, &mask[size_t(i) * g.patches], &input[i * pixels]);
  }
  std::vector<float> grad(model.num_params()), dw(head.w.size()), db(head.b.size());
  return model.ImageHiddenLossAndGrad(
      input, n,
      [&](std::span<const float> xf, std::span<float> dxf) {
        return MaskedPatchLoss(head, xf, targets, mask, dxf, dw, db);
      },
      grad);
}

}  // namespace cb::unip

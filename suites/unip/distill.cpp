// File: suites/unip/distill.cpp
// UNIP's attention distillation and the linear-probe mIoU; see distill.h.
#include "suites/unip/distill.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "reference/coat/adamw.h"
#include "reference/unip/distill.h"
#include "reference/unip/miou.h"
#include "suites/unip/teacher.h"

namespace cb::unip {
namespace {

int PixelsPerImage(const lm_suite::CpuTransformer& model) {
  const ref::lm::Architecture& a = model.arch();
  return a.num_channels * a.image_height * a.image_width;
}

int ImageCount(const lm_suite::CpuTransformer& model, const std::vector<float>& images, const char* who) {
  const int pixels = PixelsPerImage(model);
  if (images.empty() || images.size() % pixels != 0)
    throw std::invalid_argument(std::string(who) + ": images are not [N, C, S, S] for the model");
  return int(images.size() / pixels);
}

// Rows of T scores per image: H * T rows of T.
size_t ScoresPerImage(const lm_suite::CpuTransformer& model) {
  const size_t T = model.arch().NumPatches() + 1;
  return size_t(model.config().num_attention_heads) * T * T;
}

}  // namespace

std::vector<float> AttentionScores(const lm_suite::CpuTransformer& model, const std::vector<float>& images,
                                   int layer) {
  const int count = ImageCount(model, images, "AttentionScores");
  std::vector<float> scores, grad(model.num_params());
  model.ImageScoreLossAndGrad(images, count, layer, [&](std::span<const float> s, std::span<float>) {
    scores.assign(s.begin(), s.end());
    return 0.0;
  }, grad);
  return scores;
}

std::vector<double> DistillAttention(lm_suite::CpuTransformer& student, const std::vector<float>& images,
                                     const std::vector<float>& teacher_scores, int student_layer,
                                     const DistillSpec& spec) {
  const int count = ImageCount(student, images, "DistillAttention"), pixels = PixelsPerImage(student);
  const size_t per = ScoresPerImage(student);
  if (teacher_scores.size() != per * count)
    throw std::invalid_argument("DistillAttention: teacher scores are not [N, H, T, T] with the student's H and T");
  const int T = student.arch().NumPatches() + 1;
  ref::coat::Fp32AdamW opt(int64_t(student.num_params()), {.lr = float(spec.lr)});
  harness::Rng rng(spec.seed, 11);
  std::vector<float> grad(student.num_params()), batch(size_t(spec.batch) * pixels);
  std::vector<double> target(per * spec.batch), s64(target.size()), g64(target.size());
  std::vector<double> losses;
  for (int step = 0; step < spec.steps; ++step) {
    for (int b = 0; b < spec.batch; ++b) {
      const size_t i = rng.UniformInt(0, count - 1);
      std::copy_n(images.begin() + i * pixels, pixels, batch.begin() + size_t(b) * pixels);
      std::copy_n(teacher_scores.begin() + i * per, per, target.begin() + b * per);
    }
    const double loss = student.ImageScoreLossAndGrad(
        batch, spec.batch, student_layer,
        [&](std::span<const float> s, std::span<float> ds) {
          std::copy(s.begin(), s.end(), s64.begin());
          const double kl = ref::unip::AttentionKl(s64, target, T, g64);
          std::copy(g64.begin(), g64.end(), ds.begin());
          return kl;
        },
        grad);
    losses.push_back(loss);
    opt.Step(student.params(), grad);
  }
  return losses;
}

std::vector<double> PatchFeatures(lm_suite::CpuTransformer& model, const std::vector<float>& images) {
  const int count = ImageCount(model, images, "PatchFeatures");
  const int D = model.config().hidden_size, N = model.arch().NumPatches(), T = N + 1;
  std::vector<double> out;
  out.reserve(size_t(count) * N * D);
  WithActivations(model, images, count, [&](const lm_suite::SavedTensor& what, std::span<float> v) {
    if (std::string(what.name) != "xf") return;
    for (int b = 0; b < count; ++b)
      for (int t = 1; t < T; ++t)
        for (int i = 0; i < D; ++i) out.push_back(v[(size_t(b) * T + t) * D + i]);
  });
  return out;
}

std::vector<int> PatchMajorityLabels(const gen::SegScenes& scenes, int patch) {
  const int n = scenes.params.size;
  if (patch < 1 || n % patch != 0) throw std::invalid_argument("PatchMajorityLabels: size not a multiple of patch");
  std::vector<int> out;
  for (const gen::SegScene& s : scenes.scenes)
    for (int py = 0; py < n / patch; ++py)
      for (int px = 0; px < n / patch; ++px) {
        std::vector<int> count(size_t(scenes.params.classes) + 1, 0);
        for (int y = 0; y < patch; ++y)
          for (int x = 0; x < patch; ++x) ++count[s.label[size_t(py * patch + y) * n + px * patch + x]];
        out.push_back(int(std::max_element(count.begin(), count.end()) - count.begin()));  // first max
      }
  return out;
}

std::vector<float> InfraredAsRgb(const gen::SegScenes& scenes) {
  const int n = scenes.params.size;
  std::vector<float> out;
  out.reserve(scenes.scenes.size() * 3 * n * n);
  for (const gen::SegScene& s : scenes.scenes)
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n * n; ++i) out.push_back(float(s.ir[i]));
  return out;
}

int LinearProbe::Predict(const double* f) const {
  int best = 0;
  double best_v = -INFINITY;
  for (int k = 0; k < classes; ++k) {
    double v = w[size_t(dim) * classes + k];  // bias row
    for (int i = 0; i < dim; ++i) v += f[i] * w[size_t(i) * classes + k];
    if (v > best_v) best_v = v, best = k;
  }
  return best;
}

LinearProbe FitRidgeProbe(const std::vector<double>& features, const std::vector<int>& labels, int dim,
                          int classes, double lambda) {
  if (dim < 1 || classes < 2 || labels.empty() || features.size() != labels.size() * dim || !(lambda > 0))
    throw std::invalid_argument("FitRidgeProbe: features are not [labels, dim] or classes < 2 or lambda <= 0");
  const int m = dim + 1;
  std::vector<double> A(size_t(m) * m, 0.0), B(size_t(m) * classes, 0.0);  // X^T X + lambda I, X^T Y
  std::vector<double> x(m);
  for (size_t r = 0; r < labels.size(); ++r) {
    if (labels[r] < 0 || labels[r] >= classes) throw std::invalid_argument("FitRidgeProbe: a label outside [0, classes)");
    std::copy_n(&features[r * dim], dim, x.begin());
    x[dim] = 1;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) A[size_t(i) * m + j] += x[i] * x[j];
      B[size_t(i) * classes + labels[r]] += x[i];
    }
  }
  for (int i = 0; i < m; ++i) A[size_t(i) * m + i] += lambda;
  // Cholesky A = L L^T (A is symmetric positive definite), then two solves.
  for (int j = 0; j < m; ++j) {
    for (int k = 0; k < j; ++k) A[size_t(j) * m + j] -= A[size_t(j) * m + k] * A[size_t(j) * m + k];
    A[size_t(j) * m + j] = std::sqrt(A[size_t(j) * m + j]);
    for (int i = j + 1; i < m; ++i) {
      for (int k = 0; k < j; ++k) A[size_t(i) * m + j] -= A[size_t(i) * m + k] * A[size_t(j) * m + k];
      A[size_t(i) * m + j] /= A[size_t(j) * m + j];
    }
  }
  for (int c = 0; c < classes; ++c) {
    for (int i = 0; i < m; ++i) {  // L z = b
      for (int k = 0; k < i; ++k) B[size_t(i) * classes + c] -= A[size_t(i) * m + k] * B[size_t(k) * classes + c];
      B[size_t(i) * classes + c] /= A[size_t(i) * m + i];
    }
    for (int i = m - 1; i >= 0; --i) {  // L^T w = z
      for (int k = i + 1; k < m; ++k) B[size_t(i) * classes + c] -= A[size_t(k) * m + i] * B[size_t(k) * classes + c];
      B[size_t(i) * classes + c] /= A[size_t(i) * m + i];
    }
  }
  return LinearProbe{.dim = dim, .classes = classes, .w = std::move(B)};
}

double ProbeMiou(const LinearProbe& probe, const std::vector<double>& features, const gen::SegScenes& scenes,
                 int patch) {
  const int n = scenes.params.size;
  if (patch < 1 || n % patch != 0) throw std::invalid_argument("ProbeMiou: size not a multiple of patch");
  const int grid = n / patch;
  if (features.size() != scenes.scenes.size() * grid * grid * size_t(probe.dim))
    throw std::invalid_argument("ProbeMiou: features are not [scenes * patches, dim]");
  ref::unip::MiouAccumulator acc(probe.classes);
  std::vector<int> pred(size_t(n) * n), label(size_t(n) * n);
  size_t row = 0;
  for (const gen::SegScene& s : scenes.scenes) {
    for (int p = 0; p < grid * grid; ++p, ++row) {
      const int k = probe.Predict(&features[row * probe.dim]);
      for (int y = 0; y < patch; ++y)
        for (int x = 0; x < patch; ++x) pred[size_t((p / grid) * patch + y) * n + (p % grid) * patch + x] = k;
    }
    std::copy(s.label.begin(), s.label.end(), label.begin());
    acc.Add(pred, label);
  }
  return acc.Result().miou;
}

}  // namespace cb::unip

// File: suites/unip/finetune.cpp
// The backbone and the LL-FPN head trained together; see finetune.h.
#include "suites/unip/finetune.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "reference/coat/adamw.h"
#include "suites/unip/distill.h"

namespace cb::unip {

double FineTuneLossAndGrad(const lm_suite::CpuTransformer& model, const LlFpnHead& head, std::span<const float> images,
                           int batch, std::span<const int> labels, std::span<float> grad, LlFpnHead* head_grad) {
  const ref::lm::Architecture& a = model.arch();
  const int D = model.config().hidden_size, P = a.patch_size;
  if (!a.Patches() || a.image_height != a.image_width)
    throw std::invalid_argument("FineTuneLossAndGrad: the model does not read square images");
  if (head.dim != D)
    throw std::invalid_argument("FineTuneLossAndGrad: the head reads " + std::to_string(head.dim) +
                                " features, the model gives " + std::to_string(D));
  const int G = a.image_width / P, N = G * G, T = N + 1;
  std::vector<double> features(size_t(std::max(batch, 0)) * N * D), dfeatures;
  return model.ImageHiddenLossAndGrad(
      images, batch,
      [&](std::span<const float> xf, std::span<float> dxf) {  // xf [B, T, D], CLS first
        for (int b = 0; b < batch; ++b)
          for (int p = 0; p < N; ++p)
            std::copy_n(&xf[(size_t(b) * T + 1 + p) * D], D, &features[(size_t(b) * N + p) * D]);
        const double loss = LlFpnLossAndGrad(head, features, G, labels, P, head_grad, &dfeatures);
        for (int b = 0; b < batch; ++b)
          for (int p = 0; p < N; ++p)
            for (int i = 0; i < D; ++i)
              dxf[(size_t(b) * T + 1 + p) * D + i] = float(dfeatures[(size_t(b) * N + p) * D + i]);
        return loss;
      },
      grad);
}

std::vector<double> FineTuneLlFpn(lm_suite::CpuTransformer& model, LlFpnHead& head, const std::vector<float>& images,
                                  const gen::SegScenes& scenes, const LlFpnSpec& spec) {
  const ref::lm::Architecture& a = model.arch();
  const int S = scenes.params.size;
  const size_t n = scenes.scenes.size(), pixels = size_t(a.num_channels) * a.image_height * a.image_width;
  if (!a.Patches() || a.image_height != S || a.image_width != S || n == 0 || images.size() != n * pixels)
    throw std::invalid_argument("FineTuneLlFpn: images are not one [C, S, S] image of the model per scene");
  if (spec.batch < 1 || spec.steps < 0) throw std::invalid_argument("FineTuneLlFpn: batch < 1 or steps < 0");
  const int B = spec.batch;
  ref::coat::Fp32AdamW backbone_opt(int64_t(model.num_params()), {.lr = float(spec.lr)});
  LlFpnAdamW head_opt(head, spec.lr, spec.weight_decay);
  harness::Rng rng(spec.seed, 2);
  std::vector<float> batch(size_t(B) * pixels), grad(model.num_params());
  std::vector<int> labels(size_t(B) * S * S);  // [B, S, S]
  LlFpnHead head_grad;
  std::vector<double> losses;
  for (int step = 0; step < spec.steps; ++step) {
    for (int b = 0; b < B; ++b) {
      const size_t i = rng.UniformInt(0, n - 1);
      std::copy_n(images.begin() + i * pixels, pixels, batch.begin() + b * pixels);
      const std::vector<uint8_t>& l = scenes.scenes[i].label;
      std::copy(l.begin(), l.end(), labels.begin() + size_t(b) * S * S);
    }
    losses.push_back(FineTuneLossAndGrad(model, head, batch, B, labels, grad, &head_grad));
    backbone_opt.Step(model.params(), grad);
    head_opt.Step(head, head_grad);
  }
  return losses;
}

double FineTunedMiou(const lm_suite::CpuTransformer& model, const std::vector<float>& train_images,
                     const gen::SegScenes& train, const std::vector<float>& test_images, const gen::SegScenes& test,
                     int classes, const LlFpnSpec& spec) {
  lm_suite::CpuTransformer tuned = model;
  LlFpnHead head = MakeLlFpnHead(model.config().hidden_size, classes, spec);
  FineTuneLlFpn(tuned, head, train_images, train, spec);
  return LlFpnMiou(head, PatchFeatures(tuned, test_images), test, model.arch().patch_size);
}

}  // namespace cb::unip

// File: suites/unip/teacher.cpp
// The tiny supervised ViT teacher and its attention NMI profile; see teacher.h.
#include "suites/unip/teacher.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "reference/coat/adamw.h"
#include "reference/lm/transformer.h"
#include "reference/unip/nmi.h"

namespace cb::unip {

std::vector<float> SceneImages(const gen::SegScenes& scenes, bool infrared) {
  const int n = scenes.params.size, channels = infrared ? 1 : 3;
  std::vector<float> out;
  out.reserve(scenes.scenes.size() * channels * n * n);
  for (const gen::SegScene& s : scenes.scenes)
    for (int c = 0; c < channels; ++c)
      for (int i = 0; i < n * n; ++i) out.push_back(float(infrared ? s.ir[i] : s.rgb[size_t(i) * 3 + c]));
  return out;
}

std::vector<int> DominantClassLabels(const gen::SegScenes& scenes) {
  std::vector<int> labels;
  for (const gen::SegScene& s : scenes.scenes) {
    std::vector<int> count(size_t(scenes.params.classes) + 1, 0);
    for (uint8_t k : s.label) ++count[k];
    int best = 1;
    for (int k = 2; k <= scenes.params.classes; ++k)
      if (count[k] > count[best]) best = k;
    if (count[best] == 0) throw std::invalid_argument("DominantClassLabels: a scene has no object");
    labels.push_back(best - 1);
  }
  return labels;
}

lm_suite::CpuTransformer MakeTeacher(const TeacherSpec& spec, int channels, int size, int labels) {
  if (spec.patch < 1 || size % spec.patch != 0)
    throw std::invalid_argument("MakeTeacher: the image size is not a multiple of the patch size");
  if (spec.heads < 1 || spec.dim % spec.heads != 0)
    throw std::invalid_argument("MakeTeacher: dim is not a multiple of heads");
  ref::lm::TransformerConfig c;
  c.vocab_size = 1;  // unused in patch mode
  c.hidden_size = spec.dim;
  c.intermediate_size = 2 * spec.dim;
  c.num_hidden_layers = spec.layers;
  c.num_attention_heads = spec.heads;
  c.num_key_value_heads = spec.heads;
  c.max_position_embeddings = (size / spec.patch) * (size / spec.patch) + 1;
  ref::lm::Architecture a;
  a.causal = false;
  a.patch_size = spec.patch;
  a.num_channels = channels;
  a.image_height = size;
  a.image_width = size;
  a.num_labels = labels;
  return lm_suite::CpuTransformer(ref::lm::RandomInit(c, spec.seed, 0.05, a));
}

namespace {

int PixelsPerImage(const lm_suite::CpuTransformer& model) {
  const ref::lm::Architecture& a = model.arch();
  return a.num_channels * a.image_height * a.image_width;
}

}  // namespace

std::vector<double> TrainSupervised(lm_suite::CpuTransformer& model, const std::vector<float>& images,
                                    const std::vector<int>& labels, const TeacherSpec& spec) {
  const int pixels = PixelsPerImage(model);
  if (labels.empty() || images.size() != labels.size() * pixels)
    throw std::invalid_argument("TrainSupervised: images are not [labels, C, S, S]");
  ref::coat::Fp32AdamW opt(int64_t(model.num_params()), {.lr = float(spec.lr)});
  harness::Rng rng(spec.seed, 7);
  std::vector<float> grad(model.num_params()), batch(size_t(spec.batch) * pixels);
  std::vector<int> batch_labels(size_t(spec.batch));
  std::vector<double> losses;
  for (int step = 0; step < spec.steps; ++step) {
    for (int b = 0; b < spec.batch; ++b) {  // sampled with replacement
      const size_t i = rng.UniformInt(0, labels.size() - 1);
      std::copy_n(images.begin() + i * pixels, pixels, batch.begin() + size_t(b) * pixels);
      batch_labels[b] = labels[i];
    }
    losses.push_back(model.ImageLossAndGrad(batch, batch_labels, grad));
    opt.Step(model.params(), grad);
  }
  return losses;
}

double Accuracy(const lm_suite::CpuTransformer& model, const std::vector<float>& images, const std::vector<int>& labels) {
  const int pixels = PixelsPerImage(model), classes = model.arch().num_labels;
  if (labels.empty() || images.size() != labels.size() * pixels)
    throw std::invalid_argument("Accuracy: images are not [labels, C, S, S]");
  const std::vector<float> logits = model.ForwardImages(images, int(labels.size()));  // [N, classes]
  int right = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const float* row = &logits[i * classes];
    right += int(std::max_element(row, row + classes) - row) == labels[i];
  }
  return double(right) / labels.size();
}

void WithActivations(lm_suite::CpuTransformer& model, const std::vector<float>& images, int count,
                     const lm_suite::ActivationHook& hook) {
  model.set_activation_hook(hook);
  std::vector<float> grad(model.num_params());
  try {
    // The labels only shape the loss, not the activations.
    model.ImageLossAndGrad(images, std::vector<int>(size_t(count), 0), grad);
  } catch (...) {
    model.set_activation_hook(nullptr);
    throw;
  }
  model.set_activation_hook(nullptr);
}

std::vector<double> AttentionNmiProfile(lm_suite::CpuTransformer& model, const std::vector<float>& images) {
  const int pixels = PixelsPerImage(model);
  if (images.empty() || images.size() % pixels != 0)
    throw std::invalid_argument("AttentionNmiProfile: images are not [N, C, S, S]");
  const int count = int(images.size() / pixels), heads = model.config().num_attention_heads;
  const int tokens = model.arch().NumPatches() + 1;
  std::vector<std::vector<double>> maps(size_t(model.config().num_hidden_layers));  // [L][N, H, T, T]
  WithActivations(model, images, count, [&](const lm_suite::SavedTensor& what, std::span<float> values) {
    if (std::string(what.name) == "p" && what.layer >= 0) maps[what.layer].assign(values.begin(), values.end());
  });
  std::vector<double> profile;
  for (const std::vector<double>& m : maps) {
    if (m.size() != size_t(count) * heads * tokens * tokens)
      throw std::logic_error("AttentionNmiProfile: the saved attention is not [N, H, T, T]");
    profile.push_back(ref::unip::LayerNmi(m, count, heads, tokens));
  }
  return profile;
}

}  // namespace cb::unip

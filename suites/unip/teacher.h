// File: suites/unip/teacher.h
// -----------------------------------------------------------------------------
// UNIP's teacher side, first piece (issue 22): a tiny supervised ViT on the
// substrate's patch-input encoder (reference/lm/transformer.h Architecture
// with patch_size > 0, run by suites/lm's CpuTransformer) trained on the RGB
// domain of the segmentation scenes (generators/segscenes.h), and the
// layer-wise NMI profile of its attention maps (reference/unip/nmi.h), the
// quantity NMI-HAD picks the distillation layer from.
//
// The supervised task is image-level (the substrate's head classifies the
// CLS token): the dominant object class of a scene, the class with the most
// pixels among 1..C (ties: the lower class), as label k - 1. It stands in
// for the paper's ImageNet-supervised teachers (DeiT); the masked-patch
// (MAE-style) teacher needs a per-patch head the substrate lacks and is not
// built.
//
// Attention maps are read through CpuTransformer's activation hook: the
// softmax probabilities "p" it saves for the backward pass are [B, H, T, T]
// per layer (T = patches + 1, CLS first), LayerNmi's layout.
#ifndef CB_SUITES_UNIP_TEACHER_H_
#define CB_SUITES_UNIP_TEACHER_H_

#include <cstdint>
#include <vector>

#include "generators/segscenes.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::unip {

struct TeacherSpec {
  int dim = 32;       // D
  int layers = 4;
  int heads = 4;
  int patch = 8;      // P; the scene size must be a multiple
  int steps = 200;    // AdamW steps
  int batch = 16;
  double lr = 3e-3;
  uint64_t seed = 1;  // initial weights and batch order
};

// The scenes as images [N, C, S, S] (channel-first, the substrate's layout):
// RGB C = 3, infrared C = 1.
std::vector<float> SceneImages(const gen::SegScenes& scenes, bool infrared);

// The dominant object class of every scene, 0-based (class k -> k - 1).
// REQUIRES (else std::invalid_argument): every scene has an object pixel.
std::vector<int> DominantClassLabels(const gen::SegScenes& scenes);

// A fresh ViT for images [channels, size, size] and `labels` classes.
// REQUIRES (else std::invalid_argument): size a multiple of spec.patch,
// dim a multiple of heads.
lm_suite::CpuTransformer MakeTeacher(const TeacherSpec& spec, int channels, int size, int labels);

// AdamW (reference/coat/adamw.h, weight decay 0.01) on the mean
// cross-entropy of random batches of `images` [N, C, S, S]; returns each
// step's batch loss.
std::vector<double> TrainSupervised(lm_suite::CpuTransformer& model, const std::vector<float>& images,
                                    const std::vector<int>& labels, const TeacherSpec& spec);

// The share of images whose argmax logit is their label.
double Accuracy(const lm_suite::CpuTransformer& model, const std::vector<float>& images, const std::vector<int>& labels);

// Layer l's mean NMI over images and heads, CLS dropped, eps as the notebook
// (ref::unip::LayerNmi), for l = 0 .. layers - 1. `model` is borrowed: its
// activation hook is set for the call and cleared after.
// Runs one forward (and backward) pass over `images` with `hook` seeing every
// saved tensor, and removes the hook after, also when the pass throws.
void WithActivations(lm_suite::CpuTransformer& model, const std::vector<float>& images, int count,
                     const lm_suite::ActivationHook& hook);

std::vector<double> AttentionNmiProfile(lm_suite::CpuTransformer& model, const std::vector<float>& images);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_TEACHER_H_

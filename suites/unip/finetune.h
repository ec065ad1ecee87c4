// File: suites/unip/finetune.h
// -----------------------------------------------------------------------------
// UNIP's fine-tuning evaluation at toy scale (issue 22): the ViT and the
// LL-FPN head (llfpn.h) trained together on infrared-like segmentation, as
// the paper fine-tunes its students (the head reads the backbone's last-layer
// patch features; the gradient flows from the head's d loss / d features
// into CpuTransformer::ImageHiddenLossAndGrad, CLS untouched).
//
// What the paper does and this does not: layer-wise lr decay (0.85),
// UperNet, the x4 level and data augmentation; one lr for backbone and head.
#ifndef CB_SUITES_UNIP_FINETUNE_H_
#define CB_SUITES_UNIP_FINETUNE_H_

#include <span>
#include <vector>

#include "generators/segscenes.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/unip/llfpn.h"

namespace cb::unip {

// The LL-FPN loss of `batch` images [B, 3, S, S] against pixel labels
// [B, S, S] (llfpn.h's loss, label 255 ignored) on the model's last-layer
// patch features; `grad` [num_params] gets the backbone's gradient
// (overwritten), `head_grad` the head's. REQUIRES (else
// std::invalid_argument): as CpuTransformer::ImageHiddenLossAndGrad and
// LlFpnLossAndGrad, the head's dim the model's hidden size.
double FineTuneLossAndGrad(const lm_suite::CpuTransformer& model, const LlFpnHead& head, std::span<const float> images,
                           int batch, std::span<const int> labels, std::span<float> grad, LlFpnHead* head_grad);

// AdamW steps on random batches (with replacement, from spec.seed) of
// `images` [N, 3, S, S] with the pixel labels of `scenes`: the backbone
// with reference/coat's Fp32AdamW (weight decay 0.01), the head with
// LlFpnAdamW (spec.weight_decay), both at spec.lr. Returns each step's batch
// loss. REQUIRES (else std::invalid_argument): images of the model's shape,
// one per scene, the head's dim the model's hidden size, spec.batch >= 1.
std::vector<double> FineTuneLlFpn(lm_suite::CpuTransformer& model, LlFpnHead& head, const std::vector<float>& images,
                                  const gen::SegScenes& scenes, const LlFpnSpec& spec);

// Fine-tunes a copy of `model` and a fresh head (MakeLlFpnHead(spec)) on the
// training scenes and returns the test scenes' mIoU (LlFpnMiou on the tuned
// model's patch features). `model` is not changed.
double FineTunedMiou(const lm_suite::CpuTransformer& model, const std::vector<float>& train_images,
                     const gen::SegScenes& train, const std::vector<float>& test_images, const gen::SegScenes& test,
                     int classes, const LlFpnSpec& spec);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_FINETUNE_H_

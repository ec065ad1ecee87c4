// File: suites/unip/masked_teacher.h
// -----------------------------------------------------------------------------
// UNIP's other teacher kind (issue 22): a tiny ViT pre-trained by masked-patch
// reconstruction on the RGB scenes, standing in for the paper's MAE teachers
// (whose later layers are the local ones NMI-HAD avoids).
//
// The loss is MAE's (facebookresearch/mae, models_mae.py forward_loss, with
// norm_pix_loss as its pre-training recipe sets it): each patch's target is
// its pixels normalised by their mean and torch's default *unbiased*
// variance, (x - mean) / sqrt(var + 1e-6); the loss is the squared error
// averaged over a patch's values, then over the masked patches of the batch.
//
// What differs from MAE, because the substrate's encoder has a fixed token
// count: masked patches are not dropped from the encoder; their pixels are set
// to 0 (the patch embedding then gives b_patch + pos, a learned mask token, as
// SimMIM does) and a linear head on the encoder's final hidden state of each
// masked patch predicts its C*P*P target values (SimMIM's one-layer
// prediction head; MAE has an 8-block decoder). The mask is exactly
// round(ratio * patches) patches per image, drawn uniformly (ratio 0.75 as
// MAE).
#ifndef CB_SUITES_UNIP_MASKED_TEACHER_H_
#define CB_SUITES_UNIP_MASKED_TEACHER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "suites/lm/cpu_transformer.h"
#include "suites/unip/teacher.h"

namespace cb::unip {

// Each patch's normalised target, [N, patches, C*P*P] in the substrate's
// patch order (patches row-major, values (c, y, x)). `images` [N, C, S, S].
std::vector<float> NormalizedPatchTargets(const lm_suite::CpuTransformer& model, std::span<const float> images);

// The linear prediction head: pred = W xf + b, W [C*P*P, D] row-major, b
// [C*P*P] (both trained with the encoder).
struct PixelHead {
  int dim = 0, outputs = 0;
  std::vector<float> w, b;
};
PixelHead MakePixelHead(const lm_suite::CpuTransformer& model, uint64_t seed);

// The masked-patch loss of one batch given the encoder's final hidden states
// xf [B, T, D] (CLS first), the targets [B, patches, F] and the mask [B,
// patches] (1 = masked): returns the loss and adds its gradients into dxf
// [B, T, D], dw [F, D] and db [F]. REQUIRES: at least one masked patch.
double MaskedPatchLoss(const PixelHead& head, std::span<const float> xf, std::span<const float> targets,
                       std::span<const uint8_t> mask, std::span<float> dxf, std::span<float> dw,
                       std::span<float> db);

// AdamW (reference/coat/adamw.h, as TrainSupervised) on the encoder and the
// head over random batches of `images` [N, C, S, S] (with replacement), a
// fresh mask per image per step; masked patches zeroed in the input. Returns
// each step's loss. REQUIRES (else std::invalid_argument): 0 < mask_ratio < 1
// with at least one patch masked and one kept.
std::vector<double> TrainMaskedReconstruction(lm_suite::CpuTransformer& model, PixelHead& head,
                                              const std::vector<float>& images, const TeacherSpec& spec,
                                              double mask_ratio = 0.75);

// The loss on `images` with a fixed mask drawn from `seed` (an evaluation).
double MaskedReconstructionLoss(const lm_suite::CpuTransformer& model, const PixelHead& head,
                                const std::vector<float>& images, double mask_ratio, uint64_t seed);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_MASKED_TEACHER_H_

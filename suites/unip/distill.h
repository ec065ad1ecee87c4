// File: suites/unip/distill.h
// -----------------------------------------------------------------------------
// UNIP's distillation and its infrared evaluation at toy scale (issue 22).
//
// Distillation: a student ViT (suites/lm CpuTransformer, patch input) is
// trained with AdamW on ref::unip::AttentionKl between its chosen layer's
// pre-softmax attention scores q k^T d^(-1/2) and the teacher's chosen
// layer's, [B, H, T, T] (CLS included; student and teacher need the same
// heads and patches), and nothing else, as UNIP's pre-training does (it
// distils into the student's last layer). The gradient enters through
// CpuTransformer::ImageScoreLossAndGrad.
//
// Evaluation, our choice (the paper fine-tunes an LL-FPN head, not built):
// a ridge-regression linear probe on frozen patch features (the final
// norm's output at each patch token, CLS dropped) to one-hot patch labels
// (the majority pixel label of the patch, ties to the lower class), fitted
// on a train set; each test patch's argmax class is painted over its P x P
// pixels and scored against the exact pixel labels with mmseg's mIoU
// (ref::unip::MiouAccumulator, background included as class 0).
#ifndef CB_SUITES_UNIP_DISTILL_H_
#define CB_SUITES_UNIP_DISTILL_H_

#include <cstdint>
#include <vector>

#include "generators/segscenes.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::unip {

struct DistillSpec {
  int steps = 200;    // AdamW steps
  int batch = 16;
  double lr = 3e-3;
  uint64_t seed = 1;  // batch order
};

// Layer `layer`'s pre-softmax attention scores of every image, [N, H, T, T].
// REQUIRES (else std::invalid_argument): images [N, C, S, S] for `model`,
// 0 <= layer < layers.
std::vector<float> AttentionScores(const lm_suite::CpuTransformer& model, const std::vector<float>& images,
                                   int layer);

// Trains `student` on mean AttentionKl(student layer `student_layer`,
// `teacher_scores`) over random batches (with replacement) of `images`;
// returns each step's loss. REQUIRES (else std::invalid_argument):
// teacher_scores [N, H, T, T] with the student's H and T.
std::vector<double> DistillAttention(lm_suite::CpuTransformer& student, const std::vector<float>& images,
                                     const std::vector<float>& teacher_scores, int student_layer,
                                     const DistillSpec& spec);

// Frozen patch features [N * patches, D] (image-major, patches row-major).
// `model` is borrowed: its activation hook is set for the call and cleared.
std::vector<double> PatchFeatures(lm_suite::CpuTransformer& model, const std::vector<float>& images);

// Each patch's majority pixel label, [N * patches]. REQUIRES: size a
// multiple of patch.
std::vector<int> PatchMajorityLabels(const gen::SegScenes& scenes, int patch);

// Infrared images as the 3-channel input of an RGB model (the channel
// repeated, as UNIP feeds infrared images), [N, 3, S, S].
std::vector<float> InfraredAsRgb(const gen::SegScenes& scenes);

// Ridge probe: W [(D + 1), classes] minimising |[X 1] W - onehot(y)|^2 +
// lambda |W|^2 (bias included in the penalty), solved in fp64.
// REQUIRES: features [rows, dim], labels [rows] in [0, classes), rows >= 1.
struct LinearProbe {
  int dim = 0, classes = 0;
  std::vector<double> w;  // [(dim + 1) * classes]
  int Predict(const double* feature) const;
};
LinearProbe FitRidgeProbe(const std::vector<double>& features, const std::vector<int>& labels, int dim,
                          int classes, double lambda);

// The probe's mIoU on `scenes` (pixel labels; patch predictions painted
// over their patches) from their patch features [N * patches, dim].
double ProbeMiou(const LinearProbe& probe, const std::vector<double>& features, const gen::SegScenes& scenes,
                 int patch);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_DISTILL_H_

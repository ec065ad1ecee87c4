// File: suites/unip/teacher_kind.h
// -----------------------------------------------------------------------------
// The two teacher kinds UNIP's claims compare (issue 22), trained the same way
// from one spec on the RGB scenes: the supervised ViT of teacher.h (dominant
// class, standing in for DeiT) and the masked-patch reconstruction ViT of
// masked_teacher.h (standing in for MAE). Each comes back with the number
// that says it learned its task: training accuracy, or the masked
// reconstruction loss on held-out scenes.
#ifndef CB_SUITES_UNIP_TEACHER_KIND_H_
#define CB_SUITES_UNIP_TEACHER_KIND_H_

#include <string>

#include "generators/segscenes.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/unip/teacher.h"

namespace cb::unip {

enum class TeacherKind { kSupervised, kMasked };

const char* Name(TeacherKind kind);  // "supervised", "masked"

struct TrainedTeacher {
  lm_suite::CpuTransformer model;
  std::string fit_metric;  // "train_accuracy" or "heldout_masked_loss"
  double fit = 0;
};

// Trains a `kind` teacher (RGB input, `classes` labels for the supervised
// head; the masked teacher's classifier is unused) on `train`; the masked
// teacher's fit is its loss on `heldout` with a fixed mask.
TrainedTeacher TrainTeacher(TeacherKind kind, const TeacherSpec& spec, const gen::SegScenes& train,
                            const gen::SegScenes& heldout);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_TEACHER_KIND_H_

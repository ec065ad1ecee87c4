// File: suites/unip/teacher_kind.cpp
// Training either teacher kind from one spec; see teacher_kind.h.
#include "suites/unip/teacher_kind.h"

#include "suites/unip/masked_teacher.h"

namespace cb::unip {

const char* Name(TeacherKind kind) { return kind == TeacherKind::kSupervised ? "supervised" : "masked"; }

TrainedTeacher TrainTeacher(TeacherKind kind, const TeacherSpec& spec, const gen::SegScenes& train,
                            const gen::SegScenes& heldout) {
  const int size = train.params.size, classes = train.params.classes;
  const std::vector<float> images = SceneImages(train, false);
  if (kind == TeacherKind::kSupervised) {
    TrainedTeacher t{MakeTeacher(spec, 3, size, classes), "train_accuracy", 0};
    const std::vector<int> labels = DominantClassLabels(train);
    TrainSupervised(t.model, images, labels, spec);
    t.fit = Accuracy(t.model, images, labels);
    return t;
  }
  TrainedTeacher t{MakeTeacher(spec, 3, size, 1), "heldout_masked_loss", 0};
  PixelHead head = MakePixelHead(t.model, spec.seed);
  TrainMaskedReconstruction(t.model, head, images, spec);
  t.fit = MaskedReconstructionLoss(t.model, head, SceneImages(heldout, false), 0.75, spec.seed + 1);
  return t;
}

}  // namespace cb::unip

// File: reference/coat/dataset.h
// -----------------------------------------------------------------------------
// A labelled classification data set as the COAT MLP reference reads it.
// The generators' TeacherClassification (generators/coat_tasks.h) produces
// one; defined here because generators sit above reference.
#ifndef CB_REFERENCE_COAT_DATASET_H_
#define CB_REFERENCE_COAT_DATASET_H_

#include <cstdint>
#include <vector>

namespace cb::ref::coat {

struct LabelledData {
  int64_t n = 0, dim = 0, classes = 0;
  std::vector<float> x;  // (n, dim), row-major
  std::vector<int> y;    // (n,), in [0, classes)
};

}  // namespace cb::ref::coat

#endif  // CB_REFERENCE_COAT_DATASET_H_

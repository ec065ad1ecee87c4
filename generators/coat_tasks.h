// File: generators/coat_tasks.h
// -----------------------------------------------------------------------------
// Synthetic data for COAT (issue 8):
//   - TeacherClassification: x ~ N(0, I_dim) and labels from a fixed random
//     teacher, y = argmax_c (W2 tanh(W1 x))_c with W1 (teacher_hidden, dim)
//     ~ N(0, 1/dim) and W2 (classes, teacher_hidden) ~ N(0, 1/teacher_hidden).
//     A learnable task for the small MLP trained with fp32 AdamW and CoatAdamW.
//   - OutlierActivations: a (tokens, channels) activation matrix with N(0, 1)
//     entries, of which `outlier_channels` channels (picked uniformly without
//     replacement) are multiplied by outlier_scale: the channel outliers of
//     LLM activations (COAT §5) that make per-tensor FP8 scaling lose the
//     small values.
// Determinism (DESIGN §4): pure functions of (name, version, seed, params);
// all draws from cb::harness::Rng streams (x: Rng(data_seed, 1), teacher:
// Rng(teacher_seed, 2); activations: x stream 1, outlier choice stream 3). Storage is row-major fp32.
#ifndef CB_GENERATORS_COAT_TASKS_H_
#define CB_GENERATORS_COAT_TASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reference/coat/dataset.h"

namespace cb::gen {

inline constexpr int kTeacherClassificationVersion = 1;
inline constexpr int kOutlierActivationsVersion = 1;

// n, dim, classes, x (n, dim) and y (n,) as the MLP reference reads them.
struct ClassificationTask : ref::coat::LabelledData {
  std::string params;  // canonical "key=value;..." provenance
};

// The teacher comes from teacher_seed and the inputs from data_seed, so a
// training and a held-out set share a teacher: same teacher_seed, different
// data_seed.
// REQUIRES: n, dim, classes >= 1 (classes >= 2 for a meaningful task).
ClassificationTask TeacherClassification(uint64_t teacher_seed, uint64_t data_seed, int64_t n,
                                         int64_t dim, int64_t classes, int64_t teacher_hidden = 32);

struct ActivationTensor {
  int64_t tokens = 0, channels = 0;
  std::vector<float> x;             // (tokens, channels)
  std::vector<int64_t> outliers;    // the outlier channel indices, ascending
  std::string params;
};

// REQUIRES: 0 <= outlier_channels <= channels.
ActivationTensor OutlierActivations(uint64_t seed, int64_t tokens, int64_t channels,
                                    int64_t outlier_channels, float outlier_scale);

// XXH3-128 hex of name, version, params and the data bytes.
std::string ContentHash(const ClassificationTask& t);
std::string ContentHash(const ActivationTensor& t);

}  // namespace cb::gen

#endif  // CB_GENERATORS_COAT_TASKS_H_

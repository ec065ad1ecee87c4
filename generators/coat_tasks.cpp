// File: generators/coat_tasks.cpp
// Teacher classification task and outlier activations for COAT; see coat_tasks.h.
#include "generators/coat_tasks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/random.h"

namespace cb::gen {
namespace {

void AppendU64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void AppendString(std::string& s, const std::string& v) {
  AppendU64(s, v.size());
  s += v;
}

template <typename T>
void AppendBytes(std::string& s, const std::vector<T>& v) {
  AppendU64(s, v.size());
  s.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

}  // namespace

ClassificationTask TeacherClassification(uint64_t teacher_seed, uint64_t data_seed, int64_t n,
                                         int64_t dim, int64_t classes, int64_t teacher_hidden) {
  if (n < 1 || dim < 1 || classes < 1 || teacher_hidden < 1) {
    throw std::invalid_argument("TeacherClassification: sizes must be >= 1");
  }
  ClassificationTask t;
  t.n = n;
  t.dim = dim;
  t.classes = classes;
  t.params = "n=" + std::to_string(n) + ";dim=" + std::to_string(dim) +
             ";classes=" + std::to_string(classes) + ";teacher_hidden=" +
             std::to_string(teacher_hidden) + ";teacher_seed=" + std::to_string(teacher_seed) +
             ";data_seed=" + std::to_string(data_seed);
  harness::Rng teacher_rng(teacher_seed, 2);
  std::vector<double> w1(teacher_hidden * dim), w2(classes * teacher_hidden);  // row-major
  for (auto& w : w1) w = teacher_rng.Normal() / std::sqrt(double(dim));
  for (auto& w : w2) w = teacher_rng.Normal() / std::sqrt(double(teacher_hidden));
  harness::Rng x_rng(data_seed, 1);
  t.x.resize(n * dim);
  t.y.resize(n);
  std::vector<double> h(teacher_hidden);
  for (int64_t i = 0; i < n; ++i) {
    float* xi = &t.x[i * dim];
    for (int64_t d = 0; d < dim; ++d) xi[d] = static_cast<float>(x_rng.Normal());
    for (int64_t j = 0; j < teacher_hidden; ++j) {
      double s = 0.0;
      for (int64_t d = 0; d < dim; ++d) s += w1[j * dim + d] * xi[d];
      h[j] = std::tanh(s);
    }
    int best = 0;
    double best_logit = -INFINITY;
    for (int64_t c = 0; c < classes; ++c) {
      double s = 0.0;
      for (int64_t j = 0; j < teacher_hidden; ++j) s += w2[c * teacher_hidden + j] * h[j];
      if (s > best_logit) {
        best_logit = s;
        best = static_cast<int>(c);
      }
    }
    t.y[i] = best;
  }
  return t;
}

ActivationTensor OutlierActivations(uint64_t seed, int64_t tokens, int64_t channels,
                                    int64_t outlier_channels, float outlier_scale) {
  if (tokens < 1 || channels < 1 || outlier_channels < 0 || outlier_channels > channels) {
    throw std::invalid_argument("OutlierActivations: need tokens, channels >= 1 and "
                                "0 <= outlier_channels <= channels");
  }
  ActivationTensor a;
  a.tokens = tokens;
  a.channels = channels;
  char scale_text[32];
  std::snprintf(scale_text, sizeof(scale_text), "%.9g", double(outlier_scale));
  a.params = "tokens=" + std::to_string(tokens) + ";channels=" + std::to_string(channels) +
             ";outlier_channels=" + std::to_string(outlier_channels) +
             ";outlier_scale=" + scale_text + ";seed=" + std::to_string(seed);
  std::vector<int64_t> order(channels);
  std::iota(order.begin(), order.end(), 0);
  harness::Rng pick_rng(seed, 3);
  pick_rng.Shuffle(std::span<int64_t>(order));
  a.outliers.assign(order.begin(), order.begin() + outlier_channels);
  std::sort(a.outliers.begin(), a.outliers.end());
  std::vector<float> channel_scale(channels, 1.0f);
  for (const int64_t c : a.outliers) channel_scale[c] = outlier_scale;
  harness::Rng x_rng(seed, 1);
  a.x.resize(tokens * channels);
  for (int64_t i = 0; i < tokens * channels; ++i) {
    a.x[i] = static_cast<float>(x_rng.Normal()) * channel_scale[i % channels];
  }
  return a;
}

std::string ContentHash(const ClassificationTask& t) {
  std::string bytes;
  AppendString(bytes, "teacher_classification");
  AppendU64(bytes, kTeacherClassificationVersion);
  AppendString(bytes, t.params);
  AppendBytes(bytes, t.x);
  AppendBytes(bytes, t.y);
  return harness::Xxh3_128(bytes).Hex();
}

std::string ContentHash(const ActivationTensor& t) {
  std::string bytes;
  AppendString(bytes, "outlier_activations");
  AppendU64(bytes, kOutlierActivationsVersion);
  AppendString(bytes, t.params);
  AppendBytes(bytes, t.x);
  AppendBytes(bytes, t.outliers);
  return harness::Xxh3_128(bytes).Hex();
}

}  // namespace cb::gen

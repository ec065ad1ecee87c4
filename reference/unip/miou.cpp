// File: reference/unip/miou.cpp
#include "reference/unip/miou.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace cb::ref::unip {

MiouAccumulator::MiouAccumulator(int classes, int ignore)
    : classes_(classes),
      ignore_(ignore),
      intersect_(classes > 0 ? classes : 0),
      pred_(intersect_.size()),
      label_(intersect_.size()),
      f_intersect_(intersect_.size()),
      f_pred_(intersect_.size()),
      f_label_(intersect_.size()) {
  if (classes < 2) throw std::invalid_argument("MiouAccumulator: need at least 2 classes");
}

void MiouAccumulator::Add(std::span<const int> pred, std::span<const int> label) {
  if (pred.size() != label.size()) throw std::invalid_argument("MiouAccumulator: prediction and label sizes differ");
  std::vector<int64_t> inter(classes_, 0), p(classes_, 0), l(classes_, 0);  // this image's histc
  auto in_range = [&](int v) { return v >= 0 && v < classes_; };
  for (size_t i = 0; i < pred.size(); ++i) {
    if (label[i] == ignore_) continue;
    if (in_range(pred[i])) ++p[pred[i]];
    if (in_range(label[i])) ++l[label[i]];
    if (pred[i] == label[i] && in_range(pred[i])) ++inter[pred[i]];
  }
  for (int c = 0; c < classes_; ++c) {
    intersect_[c] += inter[c];
    pred_[c] += p[c];
    label_[c] += l[c];
    // histc's float result, then sum() of float tensors.
    f_intersect_[c] += static_cast<float>(inter[c]);
    f_pred_[c] += static_cast<float>(p[c]);
    f_label_[c] += static_cast<float>(l[c]);
  }
}

MiouResult MiouAccumulator::Result(bool paper_compatible) const {
  MiouResult r;
  r.iou.resize(classes_);
  double sum = 0.0, total_inter = 0.0, total_label = 0.0;
  int valid = 0;
  float f_total_inter = 0.0f, f_total_label = 0.0f;
  for (int c = 0; c < classes_; ++c) {
    double iou;
    if (paper_compatible) {
      const float u = f_pred_[c] + f_label_[c] - f_intersect_[c];
      iou = static_cast<double>(f_intersect_[c] / u);  // 0/0 -> NaN as in numpy
      f_total_inter += f_intersect_[c];
      f_total_label += f_label_[c];
    } else {
      const int64_t u = pred_[c] + label_[c] - intersect_[c];
      iou = u > 0 ? static_cast<double>(intersect_[c]) / static_cast<double>(u)
                  : std::numeric_limits<double>::quiet_NaN();
      total_inter += static_cast<double>(intersect_[c]);
      total_label += static_cast<double>(label_[c]);
    }
    r.iou[c] = iou;
    if (!std::isnan(iou)) sum += iou, ++valid;
  }
  r.miou = valid > 0 ? sum / valid : std::numeric_limits<double>::quiet_NaN();
  r.aacc = paper_compatible ? static_cast<double>(f_total_inter / f_total_label) : total_inter / total_label;
  return r;
}

}  // namespace cb::ref::unip

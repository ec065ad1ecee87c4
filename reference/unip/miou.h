// File: reference/unip/miou.h
// -----------------------------------------------------------------------------
// Semantic-segmentation mIoU accumulated over a data set, as mmsegmentation's
// IoUMetric computes it (mmseg/evaluation/metrics/iou_metric.py at 01c9623,
// the evaluator UNIP's segmentation code uses):
//
//   per image   pixels whose label is `ignore` (255) are dropped; per class c
//               in [0, C): intersect_c = #(pred = label = c), pred_c, label_c
//               (torch.histc over [0, C-1]: a value outside it is not counted)
//   data set    the four histograms summed over images
//   IoU_c       intersect_c / (pred_c + label_c - intersect_c); 0/0 = NaN for
//               a class neither predicted nor present
//   mIoU        nanmean over classes (x 100, rounded to 2 decimals in the
//               printed summary); aAcc = Σ intersect / Σ label
//
// mmseg counts in fp32 (histc returns float tensors, summed as such): exact
// up to 2^24 pixels per class, then rounded. `MiouAccumulator` counts in
// int64; `paper_compatible` reproduces the fp32 counts and IoUs (the final
// means stay fp64; numpy's fp32 nanmean differs by ~1e-7).
#ifndef CB_REFERENCE_UNIP_MIOU_H_
#define CB_REFERENCE_UNIP_MIOU_H_

#include <cstdint>
#include <span>
#include <vector>

namespace cb::ref::unip {

inline constexpr int kIgnoreLabel = 255;

struct MiouResult {
  std::vector<double> iou;  // [C], NaN where the union is 0
  double miou = 0;          // nanmean of iou (NaN when every class is NaN)
  double aacc = 0;          // overall pixel accuracy over non-ignored pixels
};

class MiouAccumulator {
 public:
  // REQUIRES: classes >= 2 (histc over [0, 0] reads its range from the data).
  explicit MiouAccumulator(int classes, int ignore = kIgnoreLabel);

  // One image's prediction and label maps, same size.
  void Add(std::span<const int> pred, std::span<const int> label);
  MiouResult Result(bool paper_compatible = false) const;

 private:
  int classes_, ignore_;
  std::vector<int64_t> intersect_, pred_, label_;  // [C], exact
  std::vector<float> f_intersect_, f_pred_, f_label_;  // [C], mmseg's fp32 sums
};

}  // namespace cb::ref::unip

#endif  // CB_REFERENCE_UNIP_MIOU_H_

// File: reference/m3/metrics.h
// -----------------------------------------------------------------------------
// M3's grounding and retrieval metrics, as the authors evaluate them:
//
//   OtsuThreshold   skimage.filters.threshold_otsu(x, nbins=256) (what
//                   lmm/clip/eval_grounding.py calls): a 256-bin histogram
//                   over [min, max] (numpy's bins, the last closed), the bin
//                   centre maximising w1·w2·(μ1 - μ2)² over the split after
//                   each bin (first maximum); a constant input returns its value.
//                   The mask is x > threshold.
//   Grounding       evaluators/grounding_evaluation.py (m3-spatial@03fdfd6):
//                   per query IoU = I / (U + 1e-6); mIoU = mean IoU, cIoU =
//                   ΣI / ΣU, AP50 = the share of queries with IoU >= 0.5 (the
//                   code's "precision@0.5"), each ×100.
//   RecallAtK       the share of rows of a (queries, candidates) score matrix
//                   whose correct candidate ranks in the top k (ties counted
//                   against it: a candidate scoring >= the correct one, other
//                   than itself, ranks above it).
#ifndef CB_REFERENCE_M3_METRICS_H_
#define CB_REFERENCE_M3_METRICS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace cb::ref::m3 {

// REQUIRES (else std::invalid_argument): x non-empty and finite.
double OtsuThreshold(std::span<const double> x);

class GroundingScore {
 public:
  // pred and gt masks of one query, same length.
  void Add(std::span<const char> pred, std::span<const char> gt);
  int64_t queries() const { return queries_; }
  double MIoU() const;   // ×100
  double CIoU() const;   // ×100
  double Ap50() const;   // ×100

 private:
  int64_t queries_ = 0, at_least_half_ = 0;
  double iou_sum_ = 0, cum_i_ = 0, cum_u_ = 0;
};

// scores (queries, candidates) row-major; correct[q] the right candidate of
// query q. Returns recall ×100.
double RecallAtK(const std::vector<double>& scores, int64_t queries, int64_t candidates,
                 const std::vector<int64_t>& correct, int k);

}  // namespace cb::ref::m3

#endif  // CB_REFERENCE_M3_METRICS_H_

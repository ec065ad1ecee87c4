// File: reference/common/roc.h
// -----------------------------------------------------------------------------
// Detection metrics of the membership-inference papers (brief §0), in fp64:
//   - Auroc: Mann-Whitney U / (n1 n0), ties count 1/2 (= sklearn roc_auc_score);
//   - RocCurve: one point per distinct threshold, highest first, starting at
//     (0, 0) as sklearn.roc_curve does; RocPoints::kAll keeps every point
//     (drop_intermediate=False), RocPoints::kSklearnDefault drops them as
//     roc_curve's default drop_intermediate=True does, which is what both
//     papers' code calls (mink-plus-plus 5596c65 run.py line 118;
//     Fine-tuned-Score-Deviation e3d9060 utils/tools.py line 10);
//   - TprAtFpr: the Min-K%++ convention tpr[last idx with fpr <= x] (strict =
//     false; run.py line 121) and the FSD convention fpr < x (strict = true;
//     utils/tools.py line 18);
//   - FprAtTpr: fpr[first idx with tpr >= x] (Min-K%++'s FPR@95%TPR, run.py
//     line 120);
//   The operating points depend on which curve they read: dropping a point
//   that is collinear with its neighbours removes its (fpr, tpr), so where a
//   run of tie groups with equal (members, non-members) steps crosses
//   FPR = 0.05 the default curve's TPR@5%FPR is lower than the full curve's
//   (FPR@95%TPR likewise higher). Without ties every dropped point shares its
//   tpr (or fpr) with a kept corner and the two curves agree. AUROC is the
//   same on both.
//   - stratified bootstrap CIs of the AUROC, the paired bootstrap of an AUROC
//     difference between two scores of the same texts (also pooled over
//     several seeds), and the one-sided Mann-Whitney test used by FSD's F2.
// Labels: 1 = member (positive), 0 = non-member; higher score = member.
// Errors: sizes that differ, a label other than 0/1, a NaN score, or a class
// with no example throw std::invalid_argument.
#ifndef CB_REFERENCE_COMMON_ROC_H_
#define CB_REFERENCE_COMMON_ROC_H_

#include <cstdint>
#include <span>
#include <vector>

#include "harness/stats.h"

namespace cb::ref {

double Auroc(std::span<const double> scores, std::span<const int> labels);

struct RocPoint {
  double fpr = 0, tpr = 0, threshold = 0;
};

enum class RocPoints {
  kAll,             // every distinct threshold (drop_intermediate=False)
  kSklearnDefault,  // roc_curve's default drop_intermediate=True: the papers' curve
};

// kSklearnDefault mirrors sklearn/metrics/_ranking.py roc_curve (1.3.2, the
// FSD repo's pin, and 1.2-1.6 alike): on the per-threshold counts (fps, tps),
// before (0, 0) is prepended and when there are more than 2 thresholds, keep
// the first and the last and every i with fps[i-1] - 2 fps[i] + fps[i+1] != 0
// or the same for tps (np.diff(., 2)); i.e. drop a point only when the step
// into it equals the step out of it.
std::vector<RocPoint> RocCurve(std::span<const double> scores, std::span<const int> labels,
                               RocPoints points = RocPoints::kAll);

// tpr of the last point (highest threshold first) with fpr <= max_fpr
// (strict = false) or fpr < max_fpr (strict = true); on a curve from RocCurve
// that is also the largest such tpr. Throws std::invalid_argument when no
// point qualifies (where the authors' np.where(...)[0][-1] raises IndexError).
double TprAtFpr(std::span<const RocPoint> curve, double max_fpr, bool strict);
// fpr of the first point (highest threshold first) with tpr >= min_tpr.
double FprAtTpr(std::span<const RocPoint> curve, double min_tpr);

// Percentile CI of the AUROC from `resamples` stratified bootstrap samples
// (members and non-members resampled separately, so no sample lacks a class);
// indices from cb::harness::Rng(seed, 0).
cb::harness::Interval BootstrapAurocCi(std::span<const double> scores, std::span<const int> labels,
                                       int resamples, uint64_t seed, double level = 0.95);

// One group of texts scored by two methods a and b (e.g. one seed's corpus).
struct PairedScores {
  std::vector<double> a, b;
  std::vector<int> labels;
};

struct PairedDiff {
  double mean_diff = 0;           // mean over groups of AUROC(a) - AUROC(b)
  cb::harness::Interval ci;       // paired stratified bootstrap percentile CI
  std::vector<double> per_group;  // AUROC(a) - AUROC(b) of each group
};

// Paired bootstrap: each replicate resamples every group's texts (stratified,
// the same indices for a and b) and takes the mean over groups of the AUROC
// difference. REQUIRES: groups non-empty, each with both classes.
PairedDiff PairedAurocDiff(std::span<const PairedScores> groups, int resamples, uint64_t seed,
                           double level = 0.95);

// One-sided Mann-Whitney test of H1: x tends to be larger than y. Normal
// approximation with tie correction and continuity correction 1/2.
struct MannWhitney {
  double auc = 0;      // U / (nx ny), P(X > Y) + P(X = Y)/2
  double z = 0;
  double p_value = 1;  // one-sided
};
MannWhitney MannWhitneyGreater(std::span<const double> x, std::span<const double> y);

}  // namespace cb::ref

#endif  // CB_REFERENCE_COMMON_ROC_H_

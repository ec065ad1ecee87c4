// File: reference/common/roc.h
// -----------------------------------------------------------------------------
// Detection metrics of the membership-inference papers (brief §0), in fp64:
//   - Auroc: Mann-Whitney U / (n1 n0), ties count 1/2 (= sklearn roc_auc_score);
//   - RocCurve: one point per distinct threshold, highest first, starting at
//     (0, 0) as sklearn.roc_curve does (without drop_intermediate, which never
//     changes the quantities below);
//   - TprAtFpr: the Min-K%++ convention tpr[last idx with fpr <= x] (strict =
//     false) and the FSD convention fpr < x (strict = true);
//   - FprAtTpr: fpr[first idx with tpr >= x] (Min-K%++'s FPR@95%TPR);
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
std::vector<RocPoint> RocCurve(std::span<const double> scores, std::span<const int> labels);

// strict = false: largest tpr with fpr <= max_fpr; strict = true: fpr < max_fpr.
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

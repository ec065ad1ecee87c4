// File: reference/ibedl/metrics.h
// -----------------------------------------------------------------------------
// IB-EDL's evaluation metrics in fp64, as the authors compute them
// (sandylaker/ib-edl ac8d8bc: ib_edl/train_eval/metrics.py ClassificationMetric,
// tools/ood.py), on rows of K values per example:
//   - Accuracy: argmax (first maximum on ties, torch.argmax) == label;
//   - Ece: torchmetrics MulticlassCalibrationError(n_bins = 15, norm l1):
//     confidence = max p, correct = argmax == label; boundaries
//     linspace(0, 1, n + 1); bin = bucketize(conf, boundaries, right = True) - 1,
//     so bin i holds [i/n, (i+1)/n) and a confidence of exactly 1 falls in an
//     (n+1)-th bin of its own; ECE = sum_bins |acc_bin - conf_bin| * count/N.
//     (torchmetrics builds the boundaries in the inputs' dtype; ours are k/n in
//     fp64.)
//   - EceFromLogits: what the authors call: torchmetrics softmaxes its input
//     only when some value of the WHOLE tensor lies outside [0, 1]; otherwise
//     it reads the values as probabilities. We do the same.
//   - Nll: F.cross_entropy(logits, labels) = -mean log_softmax(logits)_y; on the
//     saved evidential logits ln p - ln p_K this is -mean ln p_y (p clamped at
//     1e-10 before the log, as saved).
//   - Brier: mean_i sum_k (p_ik - y_ik)^2 (not in the authors' code; the
//     issue's metric list).
//   - OOD (tools/ood.py): ID labelled 1, OOD 0; scores max softmax(logits)
//     ("mp") and 1 / max(u, 1e-8) ("um"); roc_auc_score (ties averaged, via
//     reference/common/roc.h) and average_precision_score (AveragePrecision
//     below: sklearn's step sum over distinct thresholds, no interpolation).
//
// Errors: empty input, rows of different K, labels outside [0, K), or a NaN
// throw std::invalid_argument.
#ifndef CB_REFERENCE_IBEDL_METRICS_H_
#define CB_REFERENCE_IBEDL_METRICS_H_

#include <span>
#include <vector>

namespace cb::ref::ibedl {

// probs / logits are [N, K] row-major.
double Accuracy(std::span<const double> probs, int K, std::span<const int> labels);
double Ece(std::span<const double> probs, int K, std::span<const int> labels, int bins = 15);
double EceFromLogits(std::span<const double> logits, int K, std::span<const int> labels, int bins = 15);
double Nll(std::span<const double> logits, int K, std::span<const int> labels);
double Brier(std::span<const double> probs, int K, std::span<const int> labels);
std::vector<double> Softmax(std::span<const double> logits, int K);  // row-wise

// sklearn.metrics.average_precision_score for labels in {0, 1}: sum over
// distinct thresholds (highest first) of (R_n - R_{n-1}) P_n.
double AveragePrecision(std::span<const double> scores, std::span<const int> labels);

struct OodScores {
  double auroc_mp = 0, aupr_mp = 0;  // max-probability scores
  double auroc_um = 0, aupr_um = 0;  // 1 / max(u, 1e-8)
  bool has_um = false;
};
// id_logits [N_id, K_id], ood_logits [N_ood, K_ood] (K may differ: the
// K_ID != K_OOD pitfall); u may be empty for both (no uncertainty mass).
OodScores Ood(std::span<const double> id_logits, int k_id, std::span<const double> id_u,
              std::span<const double> ood_logits, int k_ood, std::span<const double> ood_u);

}  // namespace cb::ref::ibedl

#endif  // CB_REFERENCE_IBEDL_METRICS_H_

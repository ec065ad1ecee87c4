// File: suites/ibedl/eval_predictions.h
// -----------------------------------------------------------------------------
// A user's (or the authors') IB-EDL predictions, scored: what `claimbench eval
// ibedl` reads and records.
//
// JSONL, one example per line:
//   {"label": 2, "logits": [...K...], "uncertainty": 0.31, "split": "id"}
//   {"label": 0, "alphas": [...K...], "split": "ood"}
// label: int in [0, K); exactly one of logits (what the authors save: ln p -
// ln p_K, or a MAP model's raw logits) or alphas (Dirichlet parameters > 0:
// p = alpha / S, logits = ln max(p, 1e-10) - ln max(p_K, 1e-10), u = K / S
// unless "uncertainty" is given); optional "K" (must equal the list's length),
// "uncertainty" (> 0), "split" ("id", the default, or "ood"). K may differ
// between the splits (the K_ID != K_OOD pitfall: both Ks are reported) but
// not within one. Uncertainties are used for OOD only when every row of both
// splits has one.
// NPZ (the authors' save_predictions): 'logits' [N, K], 'labels' [N],
// optional 'uncertainties' [N]; one file per split.
//
// Scores (reference/ibedl/metrics.h), in two modes:
//   paper-compatible: ECE through torchmetrics' input check (softmax only when
//     some logit lies outside [0, 1]), NLL = F.cross_entropy, OOD as tools/ood.py;
//   strict: probabilities always softmax(logits) (or alpha / S).
// Errors: std::runtime_error "FILE:LINE: ..." naming the bad line, or the
// file / member for an npz.
#ifndef CB_SUITES_IBEDL_EVAL_PREDICTIONS_H_
#define CB_SUITES_IBEDL_EVAL_PREDICTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "reference/ibedl/metrics.h"

namespace cb::ibedl {

struct PredictionSet {
  int k = 0;
  std::vector<double> logits;       // [N, K]
  std::vector<double> probs;        // [N, K] strict probabilities
  std::vector<int> labels;          // [N]
  std::vector<double> uncertainty;  // [N] or empty
  size_t size() const { return labels.size(); }
};

struct PredictionFile {
  PredictionSet id, ood;  // ood empty when the file has none
};

PredictionFile ParsePredictionsJsonl(const std::string& text, const std::string& source);
// The authors' npz of one split.
PredictionSet ReadPredictionsNpz(const std::string& path);

struct SplitScores {
  int n = 0, k = 0;
  double acc = 0, ece = 0, nll = 0, brier = 0;
};
struct ModeScoresIbedl {
  SplitScores id;
  std::optional<SplitScores> ood_split;  // ACC etc. of the OOD rows themselves (their labels)
  std::optional<cb::ref::ibedl::OodScores> ood;
  int k_ood = 0;
};
ModeScoresIbedl ScorePredictions(const PredictionFile& f, bool paper_compatible);

}  // namespace cb::ibedl

#endif  // CB_SUITES_IBEDL_EVAL_PREDICTIONS_H_

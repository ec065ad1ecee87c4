// File: suites/mia/stats_file.h
// -----------------------------------------------------------------------------
// Per-token statistics dumped from a real model (`claimbench eval mia --stats
// FILE.jsonl`; format and a PyTorch/transformers dump script in
// suites/mia/README.md and suites/mia/dump_stats.py), and their evaluation
// with every method and metric of reference/mia and reference/common/roc.
//
// One JSON object per line, one line per text (blank lines are skipped):
//   "label"        1 member, 0 non-member                        (required)
//   "ll"           [n] log p(x_t | x_<t), t = 2..T, natural log  (required, n >= 1)
//   "mu"           [n] sum_v p log p at each scored position     (Min-K%++)
//   "sigma"        [n] sqrt(sum_v p (log p)^2 - mu^2)            (Min-K%++)
//   "text"         the raw text                                  (Zlib)
//   "ll_lower"     [m] ll of text.lower()                        (Lowercase)
//   "ll_ref"       [k] ll under the reference model              (Ref)
//   "ll_ft"        [n] ll under the fine-tuned model             (FSD)
//   "ll_lower_ft"  [m] ll of text.lower() under the fine-tuned model (FSD Lowercase)
// An optional field must be on every line or on none. Numbers must be finite
// (JSON has no NaN; Python's json.dumps writes NaN, which is rejected as
// invalid JSON), log-probabilities <= 1e-4, sigma >= 0.
//
// Errors: std::runtime_error "FILE:LINE: what is wrong" for the first bad
// line; nothing is returned for a file with any bad line.
#ifndef CB_SUITES_MIA_STATS_FILE_H_
#define CB_SUITES_MIA_STATS_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "harness/result.h"
#include "reference/mia/mia.h"

namespace cb::mia {

struct StatsFile {
  std::string path;
  std::string content_hash;  // XXH3-128 hex of the file's bytes
  std::vector<cb::ref::mia::TextStats> texts;
};

StatsFile ReadStatsFile(const std::string& path);

// One method's metrics. The operating points are read, as the authors' code
// reads them, off sklearn's roc_curve with its defaults (drop_intermediate,
// RocPoints::kSklearnDefault); the *_all_points twins read the full curve
// and differ only when tie groups line up (reference/common/roc.h).
struct MethodMetrics {
  std::string method;
  double auroc = 0, auroc_ci_low = 0, auroc_ci_high = 0;
  double tpr_at_5_fpr_le = 0;  // Min-K%++ convention (fpr <= 0.05)
  double tpr_at_5_fpr_lt = 0;  // FSD convention (fpr < 0.05)
  double fpr_at_95_tpr = 0;    // Min-K%++'s FPR@95%TPR (tpr >= 0.95)
  double tpr_at_5_fpr_le_all_points = 0, tpr_at_5_fpr_lt_all_points = 0, fpr_at_95_tpr_all_points = 0;
};

// Every method the file's fields allow. REQUIRES: both classes present.
std::vector<MethodMetrics> EvaluateStats(const StatsFile& file, int resamples, uint64_t seed);

// The ledger rows of an evaluation (suite "mia", case "eval_stats").
std::vector<cb::harness::Result> EvaluationResults(const StatsFile& file, const std::string& dataset,
                                                   const std::vector<MethodMetrics>& metrics,
                                                   int resamples);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_STATS_FILE_H_

// File: suites/mia/experiment.h
// -----------------------------------------------------------------------------
// One membership-inference experiment on the synthetic corpora (brief §5,
// "Synthetic recipe" steps 2-5), shared by the claims:
//   1. corpus = MakeMiaCorpus(params) (MIMIR-like or WikiMIA-like);
//   2. target  = KN order-`order` model trained on B + e x D_m;
//      reference = the same order trained on B only (Ref);
//      fine-tuned = target + FineTune(aux non-members, ft_weight) (FSD);
//      ood-tuned  = target + FineTune(out-of-domain set, ft_weight) (FSD control);
//   3. every evaluated text (D_m label 1, D_n label 0) is scored as a real
//      model would be (§0: the first token is not scored): ll, mu, sigma2 from
//      the target's next-token distribution, ll of text.lower(), the
//      reference's ll, and ll (and lower-cased ll) under both tuned models;
//   4. every method of reference/mia (ScoreAll) on the base stats with the
//      in-domain fine-tune, and the FSD scores again with the ood fine-tune.
#ifndef CB_SUITES_MIA_EXPERIMENT_H_
#define CB_SUITES_MIA_EXPERIMENT_H_

#include <string>
#include <vector>

#include "generators/corpora.h"
#include "reference/mia/mia.h"

namespace cb::mia {

struct ExperimentParams {
  cb::gen::CorpusParams corpus;
  int order = 4;
  double prune = 2.0;      // KneserNeyLm::SetPruning of every model (see kn_lm.h)
  double ft_weight = 3.0;  // the fine-tune's count weight: FSD trains 3 epochs
  // Further fine-tune weights whose FSD(Loss) and FSD(Min-K%) scores are
  // also computed (the analogue of FSD's learning-rate ablation, Table 17).
  std::vector<double> sweep_weights;
};

struct FsdSweepPoint {
  double weight = 0;
  std::vector<double> fsd_loss, fsd_mink;  // (texts)
};

struct ExperimentResult {
  std::string split;          // MiaCorpus::SplitName()
  std::string corpus_hash;
  std::string model_hash;     // the target model's content hash
  std::vector<int> labels;    // (texts): members first, then non-members
  std::vector<cb::ref::mia::MethodScores> methods;  // ScoreAll with in-domain FSD
  std::vector<cb::ref::mia::MethodScores> fsd_ood;  // fsd_* with the ood fine-tune
  std::vector<FsdSweepPoint> sweep;  // one per ExperimentParams::sweep_weights
  std::vector<double> nll_drop;  // (texts) NLL(target) - NLL(fine-tuned), mean per token
  int64_t positions = 0;         // scored positions per model
  // The scores of `method` (in `methods`, or `fsd_ood` when ood); throws
  // std::out_of_range when absent.
  const std::vector<double>& Scores(const std::string& method, bool ood = false) const;
};

ExperimentResult RunExperiment(const ExperimentParams& params);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_EXPERIMENT_H_

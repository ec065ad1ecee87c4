// File: suites/mia/neural_experiment.h
// -----------------------------------------------------------------------------
// The membership-inference experiment of experiment.h on a trained
// transformer instead of the Kneser-Ney substrate (issue 20):
//   1. the model folder (fixtures/lm/* or `claimbench mia train-target`)
//      holds config.json, model.safetensors, the BPE (merges.txt, vocab.json)
//      and trainer.json, whose corpus content hash must equal that of
//      MakeMiaCorpus(params.corpus): the model was trained on exactly this
//      corpus's TrainingSet() (background + each member `member_repeats`
//      times, several epochs), so membership is real; a mismatch throws;
//   2. every evaluated text (the first `per_class` members, label 1, and
//      non-members, label 0) is rendered (Lexicon::Render), BPE-encoded and
//      scored (neural_stats.h: ll, mu, sigma2 over the full vocabulary);
//   3. FSD: for each of `fsd_seeds` seeds, LoRA fine-tunes (neural_finetune.h)
//      on the first `aux_docs` auxiliary non-members (in-domain) and on as
//      many out-of-domain texts (the control), each text rendered + "\n" as
//      in training; ll of every evaluated text under both tuned models;
//   4. ScoreAll (reference/mia) on the base stats (`methods`), and the FSD
//      scores with each in-domain and each ood fine-tune.
// Lowercase and Ref are not computed here (no lower-cased passes; no
// reference transformer trained on the background alone).
#ifndef CB_SUITES_MIA_NEURAL_EXPERIMENT_H_
#define CB_SUITES_MIA_NEURAL_EXPERIMENT_H_

#include <string>
#include <vector>

#include "generators/corpora.h"
#include "harness/backend.h"
#include "reference/mia/mia.h"
#include "suites/mia/neural_finetune.h"

namespace cb::mia {

struct NeuralExperimentParams {
  std::string model_dir;
  cb::gen::CorpusParams corpus;
  int per_class = 0;   // evaluated texts per class (0: all)
  int aux_docs = 0;    // fine-tuning texts, in-domain and ood each (0: all)
  int fsd_seeds = 1;   // LoRA fine-tunes (init + batch order) per set; 0: no FSD
  FsdFineTuneOptions ft;  // run s (0-based) uses seed ft.seed + s
  // Further in-domain fine-tunes with these options (their seed replaced by
  // ft.seed), whose FSD(Loss) and FSD(Min-K%) scores are also computed: the
  // analogue of FSD's learning-rate ablation (Table 17) and of its adapter
  // ablations.
  std::vector<FsdFineTuneOptions> sweep;
  cb::harness::Backend backend = cb::harness::Backend::kCpu;
};

struct NeuralFsdRun {
  uint64_t seed = 0;
  std::vector<cb::ref::mia::MethodScores> fsd;      // fsd_* with this in-domain fine-tune
  std::vector<cb::ref::mia::MethodScores> fsd_ood;  // fsd_* with this ood fine-tune
  std::vector<double> nll_drop;  // (texts) mean per-token NLL(base) - NLL(tuned), in-domain
  FsdFineTuneReport in_domain, ood;
};

struct NeuralSweepPoint {
  FsdFineTuneOptions options;
  std::vector<double> fsd_loss, fsd_mink;  // (texts)
  FsdFineTuneReport report;
};

struct NeuralExperimentResult {
  std::string split;        // MiaCorpus::SplitName()
  std::string corpus_hash;
  std::string model_hash;   // trainer.json's weights_xxh3_128
  int64_t parameters = 0;
  std::vector<int> labels;  // (texts): members first, then non-members
  std::vector<cb::ref::mia::MethodScores> methods;  // every method without a fine-tune
  std::vector<NeuralFsdRun> runs;  // one per FSD seed
  std::vector<NeuralSweepPoint> sweep;  // one per NeuralExperimentParams::sweep entry
  int64_t positions = 0;    // scored positions per pass
  double seconds_scoring = 0, seconds_finetune = 0;
  // The scores of `method`: an fsd_* method from runs[i] (its ood fine-tune
  // when `ood`), any other from `methods`; throws std::out_of_range when absent.
  const std::vector<double>& Scores(const std::string& method, size_t i = 0, bool ood = false) const;
};

NeuralExperimentResult RunNeuralExperiment(const NeuralExperimentParams& params);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_NEURAL_EXPERIMENT_H_

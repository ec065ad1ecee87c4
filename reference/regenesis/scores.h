// File: reference/regenesis/scores.h
// -----------------------------------------------------------------------------
// Per-task accuracy and the ReGenesis deltas (brief §8(a)): for a model
// before and after fine-tuning, per task acc = 100 * correct / items (an
// item without an extractable answer is wrong); delta_t = acc_after -
// acc_before in percentage points; the in-domain delta is the mean of delta_t
// over the in-domain tasks present in both files, the OOD delta the mean over
// the OOD tasks present in both (unweighted, as a table's average row).
// Defaults (paper Tables 2-3): in-domain gsm8k, numglue, arc_c, reclor,
// strategyqa; OOD asdiv, svamp, aqua, openbookqa, bbh, anli (the last two
// are the brief's guess, "(unverified)").
#ifndef CB_REFERENCE_REGENESIS_SCORES_H_
#define CB_REFERENCE_REGENESIS_SCORES_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reference/regenesis/extract.h"
#include "reference/regenesis/vote.h"

namespace cb::ref::regenesis {

struct Prediction {
  std::string task;                   // canonical (CanonicalTask)
  Family family = Family::kLabel;
  std::optional<std::string> text;    // raw output: extracted by the rule
  std::vector<std::string> samples;   // several raw outputs: self-consistency
                                      // (the majority of their extracted answers, vote.h)
  std::optional<std::string> answer;  // an answer given as such: normalised only
  std::string gold;                   // as in the file
};

struct TaskAccuracy {
  int items = 0, correct = 0, unanswered = 0;
  double Accuracy() const { return items ? 100.0 * correct / items : 0.0; }
};

// The normalised answer a prediction gives under `rule`.
std::optional<std::string> PredictedAnswer(const Prediction& p, Rule rule);

// Accuracy per task under `rule`.
std::map<std::string, TaskAccuracy> Accuracies(const std::vector<Prediction>& preds, Rule rule);
bool IsCorrect(const Prediction& p, Rule rule);

const std::vector<std::string>& DefaultInDomainTasks();
const std::vector<std::string>& DefaultOodTasks();

struct Deltas {
  std::map<std::string, double> per_task;  // tasks in both files
  std::optional<double> in_domain, ood;    // nullopt when no such task is in both
  int in_domain_tasks = 0, ood_tasks = 0;
};
Deltas ComputeDeltas(const std::map<std::string, TaskAccuracy>& before,
                     const std::map<std::string, TaskAccuracy>& after, const std::vector<std::string>& in_domain,
                     const std::vector<std::string>& ood);

}  // namespace cb::ref::regenesis

#endif  // CB_REFERENCE_REGENESIS_SCORES_H_

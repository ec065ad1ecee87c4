// File: reference/regenesis/scores.cpp
// Per-task accuracy and deltas; see scores.h.
#include "reference/regenesis/scores.h"

#include <algorithm>

namespace cb::ref::regenesis {

std::optional<std::string> PredictedAnswer(const Prediction& p, Rule rule) {
  if (p.answer) return Normalize(*p.answer, p.family);
  if (!p.samples.empty()) {
    std::vector<std::optional<std::string>> votes;
    for (const auto& s : p.samples) votes.push_back(ExtractAnswer(s, p.family, rule));
    return MajorityVote(votes).answer;
  }
  return ExtractAnswer(p.text.value_or(""), p.family, rule);
}

bool IsCorrect(const Prediction& p, Rule rule) {
  const auto gold = Normalize(p.gold, p.family);
  if (!gold) return false;
  const auto got = PredictedAnswer(p, rule);
  return got && *got == *gold;
}

std::map<std::string, TaskAccuracy> Accuracies(const std::vector<Prediction>& preds, Rule rule) {
  std::map<std::string, TaskAccuracy> acc;
  for (const auto& p : preds) {
    TaskAccuracy& t = acc[p.task];
    ++t.items;
    if (!PredictedAnswer(p, rule)) ++t.unanswered;
    t.correct += IsCorrect(p, rule);
  }
  return acc;
}

const std::vector<std::string>& DefaultInDomainTasks() {
  static const std::vector<std::string> k = {"gsm8k", "numglue", "arc_c", "reclor", "strategyqa"};
  return k;
}

const std::vector<std::string>& DefaultOodTasks() {
  static const std::vector<std::string> k = {"asdiv", "svamp", "aqua", "openbookqa", "bbh", "anli"};
  return k;
}

Deltas ComputeDeltas(const std::map<std::string, TaskAccuracy>& before, const std::map<std::string, TaskAccuracy>& after,
                     const std::vector<std::string>& in_domain, const std::vector<std::string>& ood) {
  Deltas d;
  for (const auto& [task, b] : before) {
    const auto a = after.find(task);
    if (a != after.end()) d.per_task[task] = a->second.Accuracy() - b.Accuracy();
  }
  auto mean = [&](const std::vector<std::string>& tasks, int* n) -> std::optional<double> {
    double s = 0;
    *n = 0;
    for (const auto& t : tasks) {
      const auto it = d.per_task.find(t);
      if (it == d.per_task.end()) continue;
      s += it->second;
      ++*n;
    }
    if (*n == 0) return std::nullopt;
    return s / *n;
  };
  d.in_domain = mean(in_domain, &d.in_domain_tasks);
  d.ood = mean(ood, &d.ood_tasks);
  return d;
}

}  // namespace cb::ref::regenesis

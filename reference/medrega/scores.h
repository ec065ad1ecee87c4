// File: reference/medrega/scores.h
// -----------------------------------------------------------------------------
// What every MedRegA scorer returns: one task's metrics, in the order the
// authors' code prints them, plus counts; and the error a paper-compatible
// scorer raises where the authors' code would raise (ZeroDivisionError on an
// empty ground truth, IndexError, KeyError, scipy's ValueError), so a result
// the code could not produce is never reported as one.
#ifndef CB_REFERENCE_MEDREGA_SCORES_H_
#define CB_REFERENCE_MEDREGA_SCORES_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cb::ref::medrega {

// The paper's tasks and their keys (also the `task` field of a predictions
// line): text-to-region ss (single region, single object), sm (single region,
// multiple objects), ms (multiple regions, single object each), mm (multiple
// regions, multiple objects); region-to-text r2t; report generation rg
// (English) and rg_zh (Chinese).
enum class Task { kSs, kSm, kMs, kMm, kR2t, kRg, kRgZh };
const char* TaskKey(Task t);
std::optional<Task> ParseTask(std::string_view key);
std::vector<Task> AllTasks();
bool IsGroundingTask(Task t);

class PaperError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TaskScores {
  Task task = Task::kSs;
  int items = 0;             // items scored
  int parse_failures = 0;    // paper mode: answers that took the `except` branch
  int items_without_gt = 0;  // items whose ground truth has no box (grounding) or no token (text)
  std::vector<std::pair<std::string, double>> metrics;
  double Get(std::string_view name) const;  // throws std::out_of_range if absent
};

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_SCORES_H_

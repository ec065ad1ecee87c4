// File: reference/medrega/scores.cpp
// Task keys and TaskScores; see scores.h.
#include "reference/medrega/scores.h"

namespace cb::ref::medrega {

const char* TaskKey(Task t) {
  switch (t) {
    case Task::kSs: return "ss";
    case Task::kSm: return "sm";
    case Task::kMs: return "ms";
    case Task::kMm: return "mm";
    case Task::kR2t: return "r2t";
    case Task::kRg: return "rg";
    case Task::kRgZh: return "rg_zh";
  }
  return "?";
}

std::vector<Task> AllTasks() {
  return {Task::kSs, Task::kSm, Task::kMs, Task::kMm, Task::kR2t, Task::kRg, Task::kRgZh};
}

std::optional<Task> ParseTask(std::string_view key) {
  for (Task t : AllTasks())
    if (key == TaskKey(t)) return t;
  return std::nullopt;
}

bool IsGroundingTask(Task t) { return t == Task::kSs || t == Task::kSm || t == Task::kMs || t == Task::kMm; }

double TaskScores::Get(std::string_view name) const {
  for (const auto& [k, v] : metrics)
    if (k == name) return v;
  throw std::out_of_range("no metric " + std::string(name) + " for task " + TaskKey(task));
}

}  // namespace cb::ref::medrega

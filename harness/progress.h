// File: harness/progress.h
// -----------------------------------------------------------------------------
// A one-line progress bar on stderr, drawn only when stderr is a terminal
// (silent in CI logs and pipes). Redraws at most every 100 ms.
#ifndef CB_HARNESS_PROGRESS_H_
#define CB_HARNESS_PROGRESS_H_

#include <chrono>
#include <string>
#include <string_view>

namespace cb::harness {

class ProgressBar {
 public:
  // `total` steps; `enabled` overrides the terminal check (tests).
  explicit ProgressBar(int total);
  ProgressBar(int total, bool enabled);
  ~ProgressBar();  // clears the line

  // Step `done` of total, with a fraction inside the current step and a label.
  void Update(int done, double step_fraction, std::string_view label);
  void Clear();
  bool enabled() const { return enabled_; }

 private:
  int total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// Whether stderr is a terminal.
bool StderrIsTerminal();

}  // namespace cb::harness

#endif  // CB_HARNESS_PROGRESS_H_

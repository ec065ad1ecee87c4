// File: harness/progress.cpp
#include "harness/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace cb::harness {

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(int total) : ProgressBar(total, StderrIsTerminal()) {}

ProgressBar::ProgressBar(int total, bool enabled)
    : total_(std::max(total, 1)), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Clear(); }

void ProgressBar::Update(int done, double step_fraction, std::string_view label) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double fraction =
      std::clamp((done + std::clamp(step_fraction, 0.0, 1.0)) / total_, 0.0, 1.0);
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r\033[K[%s] %3d%% %d/%d %5.1fs %.*s", bar.c_str(),
               static_cast<int>(fraction * 100), std::min(done + 1, total_), total_, elapsed,
               static_cast<int>(std::min<size_t>(label.size(), 48)), label.data());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace cb::harness

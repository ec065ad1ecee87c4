// File: harness/interrupt.cpp
// The interrupt flag, its handler, and the notes of what an interrupted
// command kept (harness/interrupt.h).
#include "harness/interrupt.h"

#include <atomic>
#include <csignal>
#include <mutex>

namespace cb::harness {
namespace {

std::atomic<int> g_signal{0};

extern "C" void OnInterrupt(int sig) {
  // A second signal means "stop now": restore the default and re-raise.
  if (g_signal.exchange(sig) != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

std::mutex& NotesMutex() {
  static std::mutex mu;
  return mu;
}

std::vector<std::string>& Notes() {
  static std::vector<std::string> notes;
  return notes;
}

}  // namespace

void InstallInterruptHandlers() {
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
}

bool InterruptRequested() { return g_signal.load() != 0; }
int InterruptSignal() { return g_signal.load(); }

std::string InterruptSignalName() {
  switch (const int sig = g_signal.load()) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "signal " + std::to_string(sig);
  }
}

void NoteInterruptKept(std::string what) {
  const std::lock_guard<std::mutex> lock(NotesMutex());
  Notes().push_back(std::move(what));
}

std::vector<std::string> InterruptKeptNotes() {
  const std::lock_guard<std::mutex> lock(NotesMutex());
  return Notes();
}

std::string InterruptLine(std::string_view command, const Interrupted& e) {
  std::string line(command);
  line += line.empty() ? "interrupted" : " interrupted";
  if (const std::string sig = InterruptSignalName(); !sig.empty()) line += " by " + sig;
  if (!e.where.empty()) line += " " + e.where;
  const std::vector<std::string> notes = InterruptKeptNotes();
  if (notes.empty()) return line + "; nothing recorded, nothing written";
  for (const std::string& n : notes) line += "; " + n;
  return line;
}

}  // namespace cb::harness

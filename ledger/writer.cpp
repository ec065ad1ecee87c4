// File: ledger/writer.cpp
// -----------------------------------------------------------------------------
// Writer identity, liveness, clock and UUIDs (see writer.h). Linux-specific
// where it reads /proc; elsewhere liveness falls back to kill(pid, 0).
#include "ledger/writer.h"

#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "ledger/ledger.h"

namespace cb::ledger {
namespace {

// Fields of /proc/<pid>/stat after the parenthesised command name, which may
// itself contain spaces and parentheses: split at the last ')'.
std::optional<std::string> StatTail(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return std::nullopt;
  return line.substr(close + 2);  // starts at field 3 (state)
}

}  // namespace

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  return buf;
}

std::optional<int64_t> ProcessStartTicks(int64_t pid) {
  const auto tail = StatTail(pid);
  if (!tail) return std::nullopt;
  std::istringstream fields(*tail);
  std::string field;
  // The tail starts at field 3; starttime is field 22.
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  try {
    return std::stoll(field);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool ProcessAlive(int64_t pid, std::optional<int64_t> start_ticks) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  const auto tail = StatTail(pid);
  if (!tail) return true;  // no /proc: kill() is all we know
  // A killed writer that its parent has not reaped yet is a zombie: gone.
  if (!tail->empty() && ((*tail)[0] == 'Z' || (*tail)[0] == 'X')) return false;
  if (start_ticks) {
    const auto now_start = ProcessStartTicks(pid);
    if (now_start && *now_start != *start_ticks) return false;  // pid reused
  }
  return true;
}

std::string NowUtcIso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string NewUuid() {
  unsigned char b[16];
  size_t got = 0;
  while (got < sizeof b) {
    const ssize_t n = getrandom(b + got, sizeof b - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw LedgerError("cannot read random bytes for a run UUID");
    }
    got += static_cast<size_t>(n);
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

}  // namespace cb::ledger

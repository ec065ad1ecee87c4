// File: harness/machine_load.cpp
// -----------------------------------------------------------------------------
// Machine load samples and the machine-wide measurement lock (see
// machine_load.h).
#include "harness/machine_load.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/interrupt.h"
#include "harness/parallel.h"

namespace cb::harness {

nlohmann::json MachineLoad::ToJson() const {
  return {{"others_runnable", others_runnable}, {"loadavg_1m", loadavg_1m}, {"cores", cores},
          {"samples", samples}, {"busy", Busy()}};
}

MachineLoad Busier(const MachineLoad& a, const MachineLoad& b) {
  return b.others_runnable > a.others_runnable ? b : a;
}

bool ParseLoadavg(const std::string& line, double* loadavg_1m, int* runnable) {
  std::istringstream in(line);
  double one = 0, five = 0, fifteen = 0;
  std::string tasks;
  if (!(in >> one >> five >> fifteen >> tasks)) return false;
  const size_t slash = tasks.find('/');
  if (slash == 0 || slash == std::string::npos) return false;
  int r = 0;
  for (size_t i = 0; i < slash; ++i) {
    if (tasks[i] < '0' || tasks[i] > '9') return false;
    r = 10 * r + (tasks[i] - '0');
  }
  *loadavg_1m = one;
  *runnable = r;
  return true;
}

// Threads of this process in state R (running or runnable), from
// /proc/self/task/*/stat; the reading thread is one of them.
int OwnRunnableThreads() {
  int n = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // "tid (comm) S ...": the state follows the last ')' (comm may hold one).
    const size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'R') ++n;
  }
  return std::max(n, 1);
}

MachineLoad SampleMachineLoad(int samples, std::chrono::milliseconds gap) {
  MachineLoad load;
  load.cores = HardwareThreads();
  std::vector<double> others;
  for (int i = 0; i < samples; ++i) {
    if (i > 0) std::this_thread::sleep_for(gap);
    std::ifstream in("/proc/loadavg");
    std::string line;
    double one = 0;
    int runnable = 0;
    if (!std::getline(in, line) || !ParseLoadavg(line, &one, &runnable)) continue;
    // Less this process's own runnable threads: OpenBLAS's workers spin for
    // a while after a GEMM, and a ceiling is not provisional because of them.
    others.push_back(std::max(0, runnable - OwnRunnableThreads()));
    load.loadavg_1m = one;
  }
  load.samples = static_cast<int>(others.size());
  if (!others.empty()) {
    std::sort(others.begin(), others.end());
    const size_t k = others.size();
    load.others_runnable = k % 2 ? others[k / 2] : 0.5 * (others[k / 2 - 1] + others[k / 2]);
  }
  return load;
}

MachineLock::MachineLock(const std::string& name, const std::function<void()>& on_wait)
    : path_("/tmp/claimbench-" + name + ".lock") {
  // 0666 and fchmod: processes of other users on this machine share the lock.
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    reason_ = path_ + ": " + std::strerror(errno);
    return;
  }
  ::fchmod(fd_, 0666);
  // Polled rather than a blocking flock: SIGINT handlers are installed with
  // SA_RESTART (std::signal), so a blocked flock would ignore Ctrl-C.
  bool told = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      reason_ = path_ + ": " + std::strerror(errno);
      break;
    }
    if (InterruptRequested()) {
      reason_ = "interrupted while waiting for " + path_;
      break;
    }
    if (!told && on_wait) on_wait();
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!reason_.empty()) {
    ::close(fd_);
    fd_ = -1;
  }
}

MachineLock::~MachineLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace cb::harness

// File: harness/machine_load.h
// -----------------------------------------------------------------------------
// What else this machine was running around a measurement (issue 30 item 7):
// eight claimbench processes measuring their first ceilings at once stored a
// sixth of the machine's copy bandwidth and SGEMM rate as its "limit". Two
// tools keep a ceiling honest:
//
//   MachineLock         one measurer at a time on this machine: an exclusive
//                       flock(2) on a file in /tmp shared by every claimbench
//                       process, whatever ledger or folder it uses;
//   SampleMachineLoad   how many OTHER processes' tasks were runnable (the
//                       "R" of /proc/loadavg, less this process's threads in
//                       state R), so a ceiling measured beside other work is
//                       stored as provisional and replaced by the next quiet
//                       one.
#ifndef CB_HARNESS_MACHINE_LOAD_H_
#define CB_HARNESS_MACHINE_LOAD_H_

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace cb::harness {

struct MachineLoad {
  double others_runnable = 0;  // median over the samples of runnable tasks of other processes
  double loadavg_1m = 0;       // the kernel's 1-minute load average at the last sample
  int cores = 0;               // logical cores
  int samples = 0;             // 0 when /proc/loadavg could not be read

  // Another task was runnable for at least half the samples: on a 2-core
  // machine that is half the machine taken from an all-core measurement.
  bool Busy() const { return samples > 0 && others_runnable >= 1; }
  nlohmann::json ToJson() const;
};

// The busier of two samples (before and after a measurement).
MachineLoad Busier(const MachineLoad& a, const MachineLoad& b);

// Parses one /proc/loadavg line ("0.50 0.40 0.30 3/120 4567"): returns false
// when it does not have that shape. `runnable` receives the first number of
// the "R/T" field (runnable tasks, the reading thread included).
bool ParseLoadavg(const std::string& line, double* loadavg_1m, int* runnable);

// `samples` readings of /proc/loadavg `gap` apart, each less this process's
// own runnable threads (/proc/self/task/*/stat): its BLAS workers still
// spinning after a measurement are not "other work". A machine without
// /proc/loadavg gives samples == 0 and Busy() false.
MachineLoad SampleMachineLoad(int samples = 5, std::chrono::milliseconds gap = std::chrono::milliseconds(20));

// MachineLock
//
// Holds an exclusive flock(2) on "/tmp/claimbench-<name>.lock" from
// construction to destruction; waits until it is free, calling `on_wait`
// once first when another process holds it. The kernel drops the lock when
// the holder exits or is killed, so a crash never leaves it held. Not held,
// with `reason()` saying why, when the file cannot be opened (a read-only
// /tmp) or SIGINT/SIGTERM arrived while waiting (InterruptRequested()): the
// caller checks its interrupt flag, else measures anyway and can say so.
class MachineLock {
 public:
  explicit MachineLock(const std::string& name, const std::function<void()>& on_wait = {});
  ~MachineLock();
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& reason() const { return reason_; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_, reason_;
};

}  // namespace cb::harness

#endif  // CB_HARNESS_MACHINE_LOAD_H_

// File: harness/machine_load_test.cpp
// The load sampler and the machine-wide lock: /proc/loadavg lines parsed or
// refused, spinning child processes seen as other runnable tasks (so a
// ceiling measured beside them is provisional) and this process's own
// spinning threads not, and a second holder of the lock waiting (told once)
// until the first, another process, lets go.
#include "harness/machine_load.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace cb::harness {
namespace {

TEST(MachineLoad, ParsesLoadavgAndRefusesOtherShapes) {
  double one = -1;
  int runnable = -1;
  ASSERT_TRUE(ParseLoadavg("0.52 0.40 0.31 3/120 4567", &one, &runnable));
  EXPECT_EQ(one, 0.52);
  EXPECT_EQ(runnable, 3);
  for (const char* bad : {"", "0.5 0.4", "0.5 0.4 0.3 x/120 1", "0.5 0.4 0.3 /120 1", "0.5 0.4 0.3 3-120 1"}) {
    EXPECT_FALSE(ParseLoadavg(bad, &one, &runnable)) << bad;
  }
}

// Spinning child processes are other work; this process's own spinning
// threads (a BLAS's workers after a GEMM) are not.
TEST(MachineLoad, OtherProcessesMakeTheMachineBusyOwnThreadsDoNot) {
  if (!std::filesystem::exists("/proc/loadavg")) GTEST_SKIP() << "no /proc/loadavg here";
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (int i = 0; i < 3; ++i) {
    spinners.emplace_back([&] {
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
  }
  const MachineLoad own = SampleMachineLoad(5, std::chrono::milliseconds(10));
  stop = true;
  for (auto& t : spinners) t.join();
  EXPECT_EQ(own.samples, 5);
  // Other tasks of this machine may be runnable now, but not these three.
  const MachineLoad before = SampleMachineLoad(5, std::chrono::milliseconds(10));
  EXPECT_LT(own.others_runnable, before.others_runnable + 3) << "own threads counted as other work";

  std::vector<pid_t> children;
  for (int i = 0; i < 3; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
           std::chrono::steady_clock::now() < end;) {
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  const MachineLoad load = SampleMachineLoad(5, std::chrono::milliseconds(10));
  for (pid_t pid : children) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  EXPECT_EQ(load.samples, 5);
  EXPECT_GE(load.others_runnable, 3);  // the three children are always runnable
  EXPECT_TRUE(load.Busy());
  EXPECT_EQ(load.ToJson().at("busy"), true);
  EXPECT_GE(load.cores, 1);
  MachineLoad quiet;
  quiet.samples = 5;
  EXPECT_FALSE(quiet.Busy());
  EXPECT_EQ(Busier(quiet, load).others_runnable, load.others_runnable);
}

TEST(MachineLock, ASecondHolderWaitsForTheFirstProcess) {
  const std::string name = "test-" + std::to_string(::getpid());
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    {
      const MachineLock lock(name);
      char c = lock.held() ? 'y' : 'n';
      (void)!::write(from_child[1], &c, 1);
      (void)!::read(to_child[0], &c, 1);  // hold until the parent says so
    }
    ::_exit(0);
  }
  char held = 0;
  ASSERT_EQ(::read(from_child[0], &held, 1), 1);
  ASSERT_EQ(held, 'y');
  int waits = 0;
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    char go = 'g';
    (void)!::write(to_child[1], &go, 1);
  });
  const auto start = std::chrono::steady_clock::now();
  {
    const MachineLock lock(name, [&] { ++waits; });
    EXPECT_TRUE(lock.held()) << lock.reason();
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(250));
  }
  release.join();
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(waits, 1);  // told once, however long it waited
  std::filesystem::remove("/tmp/claimbench-" + name + ".lock");
}

}  // namespace
}  // namespace cb::harness

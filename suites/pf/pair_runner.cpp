// File: suites/pf/pair_runner.cpp
// -----------------------------------------------------------------------------
// The persistent helper of suites/pf/pair_runner.h.
#include "suites/pf/pair_runner.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cb::pf {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// Spins on `flag` until it differs from `old` for up to ~100 us, then sleeps.
// The spin yields now and then: on a loaded machine the other thread may be
// waiting for this very core.
void AwaitChange(const std::atomic<uint64_t>& flag, uint64_t old) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
  for (int i = 0; flag.load(std::memory_order_acquire) == old; ++i) {
    CpuRelax();
    if ((i & 255) == 255) {
      if (std::chrono::steady_clock::now() > deadline) {
        flag.wait(old, std::memory_order_acquire);
      } else {
        std::this_thread::yield();
      }
    }
  }
}

class Helper {
 public:
  Helper() { std::thread([this] { Loop(); }).detach(); }

  std::mutex& owner() { return owner_; }

  // REQUIRES: owner() held.
  void Run(const std::function<void()>& helper_part, const std::function<void()>& own_part) {
    job_ = &helper_part;
    const uint64_t ticket = posted_.load(std::memory_order_relaxed) + 1;
    posted_.store(ticket, std::memory_order_release);
    posted_.notify_one();
    own_part();
    AwaitChange(finished_, ticket - 1);
    job_ = nullptr;
  }

 private:
  void Loop() {
    uint64_t seen = 0;
    for (;;) {
      AwaitChange(posted_, seen);
      seen = posted_.load(std::memory_order_acquire);
      (*job_)();
      finished_.store(seen, std::memory_order_release);
      finished_.notify_one();
    }
  }

  std::mutex owner_;
  const std::function<void()>* job_ = nullptr;
  std::atomic<uint64_t> posted_{0};
  std::atomic<uint64_t> finished_{0};
};

}  // namespace

void RunPair(const std::function<void()>& helper_part, const std::function<void()>& own_part) {
  // Never destroyed: the helper thread is detached and lives as long as the
  // process (a static destructor would race with it at exit).
  static Helper* const helper = new Helper;
  std::unique_lock<std::mutex> lock(helper->owner(), std::try_to_lock);
  if (!lock.owns_lock()) {
    own_part();
    helper_part();
    return;
  }
  helper->Run(helper_part, own_part);
}

}  // namespace cb::pf

// File: harness/parallel.cpp
#include "harness/parallel.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace cb::harness {

int ParallelParts(int64_t n, int threads) {
  return static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(n, 1)));
}

void ParallelFor(int64_t n, int threads, const ParallelBody& fn) {
  const int parts = ParallelParts(n, threads);
  if (parts == 1) {
    fn(0, 0, n);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<size_t>(parts));
  auto run = [&](int k) {
    try {
      fn(k, n * k / parts, n * (k + 1) / parts);
    } catch (...) {
      errors[static_cast<size_t>(k)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(parts - 1));
  for (int k = 1; k < parts; ++k) pool.emplace_back(run, k);
  run(0);
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

int HardwareThreads() {
  static const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return threads;
}

}  // namespace cb::harness

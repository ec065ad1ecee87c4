// File: harness/parallel_test.cpp
#include "harness/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace cb::harness {
namespace {

std::vector<std::pair<int64_t, int64_t>> Chunks(int64_t n, int threads) {
  std::vector<std::pair<int64_t, int64_t>> chunks(static_cast<size_t>(ParallelParts(n, threads)));
  ParallelFor(n, threads, [&](int part, int64_t begin, int64_t end) { chunks[part] = {begin, end}; });
  return chunks;
}

TEST(ParallelFor, CutsTheRangeIntoContiguousNearlyEqualParts) {
  EXPECT_EQ(Chunks(10, 3), (std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 6}, {6, 10}}));
  EXPECT_EQ(Chunks(7, 1), (std::vector<std::pair<int64_t, int64_t>>{{0, 7}}));
  for (int64_t n : {1, 2, 5, 64, 1001}) {
    for (int threads : {1, 2, 3, 4, 8}) {
      const auto chunks = Chunks(n, threads);
      int64_t next = 0;
      for (const auto& [begin, end] : chunks) {
        EXPECT_EQ(begin, next);
        EXPECT_GE(end - begin, n / static_cast<int64_t>(chunks.size()));
        EXPECT_LE(end - begin, n / static_cast<int64_t>(chunks.size()) + 1);
        next = end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(ParallelFor, NeverMorePartsThanItemsAndAtLeastOne) {
  EXPECT_EQ(ParallelParts(3, 8), 3);
  EXPECT_EQ(ParallelParts(100, 0), 1);
  EXPECT_EQ(ParallelParts(100, -4), 1);
  EXPECT_EQ(ParallelParts(0, 4), 1);
  EXPECT_EQ(Chunks(0, 4), (std::vector<std::pair<int64_t, int64_t>>{{0, 0}}));
}

TEST(ParallelFor, PartZeroRunsOnTheCallerAndTheOthersElsewhere) {
  const auto caller = std::this_thread::get_id();
  std::mutex mu;
  std::set<std::thread::id> others;
  std::thread::id first;
  ParallelFor(4, 4, [&](int part, int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    if (part == 0) {
      first = std::this_thread::get_id();
    } else {
      others.insert(std::this_thread::get_id());
    }
  });
  EXPECT_EQ(first, caller);
  EXPECT_EQ(others.size(), 3u);
  EXPECT_EQ(others.count(caller), 0u);
}

TEST(ParallelFor, RethrowsTheLowestFailingPartAfterAllParts) {
  std::atomic<int> ran{0};
  try {
    ParallelFor(4, 4, [&](int part, int64_t, int64_t) {
      ++ran;
      if (part >= 2) throw std::runtime_error("part " + std::to_string(part));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "part 2");
  }
  EXPECT_EQ(ran.load(), 4);
  EXPECT_THROW(ParallelFor(5, 1, [](int, int64_t, int64_t) { throw std::logic_error("x"); }),
               std::logic_error);
}

TEST(HardwareThreads, IsAtLeastOne) { EXPECT_GE(HardwareThreads(), 1); }

}  // namespace
}  // namespace cb::harness

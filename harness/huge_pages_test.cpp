// File: harness/huge_pages_test.cpp
#include "harness/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace cb::harness {
namespace {

TEST(HugePageArray, SmallArraysAreOrdinaryWritableMemory) {
  HugePageArray<float> a(100);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 100u);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], float(i));
  HugePageArray<double> empty(0);
  EXPECT_NE(empty.data(), nullptr);
}

TEST(HugePageArray, LargeArraysAreAlignedToTheHugePageSize) {
  // Half a huge page, and a size that is not a whole number of them.
  for (const size_t bytes : {kHugePageMinBytes, 3 * kHugePageBytes + 28}) {
    HugePageArray<float> a(bytes / sizeof(float));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kHugePageBytes, 0u) << bytes;
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 1000);
    EXPECT_EQ(a[a.size() - 1], float((a.size() - 1) % 1000)) << bytes;
  }
}

// "always [madvise] never": the bracketed word is the mode in force.
std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "";
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

int64_t VmStat(const std::string& key) {
  std::ifstream f("/proc/vmstat");
  std::string name;
  int64_t value = 0;
  while (f >> name >> value) {
    if (name == key) return value;
  }
  return -1;
}

// AnonHugePages (kB) of the mapping that holds p, from /proc/self/smaps.
int64_t AnonHugeKbAt(const void* p) {
  std::ifstream f("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(f, line);) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = addr >= lo && addr < hi;
      continue;
    }
    long long kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %lld kB", &kb) == 1) return kb;
  }
  return -1;
}

// The point of the class: where THP is on, touching the array maps huge pages.
TEST(HugePageArray, TouchedLargeArraysAreBackedByHugePagesWhereThpIsOn) {
  const std::string mode = ThpMode();
  if (mode != "always" && mode != "madvise") GTEST_SKIP() << "transparent huge pages are '" << mode << "' here";
  const int64_t fallback_before = VmStat("thp_fault_fallback");
  HugePageArray<float> a(4 * kHugePageBytes / sizeof(float));
  for (size_t i = 0; i < a.size(); i += 1024) a[i] = 1.0f;
  const int64_t kb = AnonHugeKbAt(a.data());
  if (kb == 0 && VmStat("thp_fault_fallback") > fallback_before) {
    GTEST_SKIP() << "the kernel fell back to 4 KiB pages (no free huge page now)";
  }
  EXPECT_GE(kb, 2048) << "no huge page behind a touched 8 MiB array";
}

}  // namespace
}  // namespace cb::harness

// File: harness/ceilings_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/ceilings.h. No absolute thresholds (machines differ): the
// CPU ceilings must be positive, finite, in the right units and internally
// consistent; the GPU ceilings must say why they are missing, or, on a GPU,
// be present and ordered as tensor cores imply.
#include "harness/ceilings.h"
#include "harness/philox_rate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include "fixtures/backend_test.h"
#include "harness/backend.h"

namespace cb::harness {
namespace {

std::map<std::string, CeilingMeasurement> ByName(const std::vector<CeilingMeasurement>& v) {
  std::map<std::string, CeilingMeasurement> m;
  for (const auto& c : v) EXPECT_TRUE(m.emplace(c.name, c).second) << "duplicate " << c.name;
  return m;
}

void ExpectSane(const CeilingMeasurement& c) {
  EXPECT_TRUE(std::isfinite(c.value)) << c.name;
  EXPECT_GT(c.value, 0.0) << c.name;
  ASSERT_TRUE(c.detail.contains("samples")) << c.name;
  ASSERT_FALSE(c.detail.at("samples").empty()) << c.name;
  double best = 0.0;
  for (const auto& s : c.detail.at("samples")) {
    EXPECT_TRUE(std::isfinite(s.get<double>())) << c.name;
    best = std::max(best, s.get<double>());
  }
  EXPECT_DOUBLE_EQ(c.value, best) << c.name << ": the ceiling is the best sample";
  EXPECT_LE(c.detail.at("median").get<double>(), c.value) << c.name;
}

// Measured once for the tests below (a few seconds on a loaded 2-core box).
const std::map<std::string, CeilingMeasurement>& QuickCpu() {
  static const auto* const m =
      new std::map<std::string, CeilingMeasurement>(ByName(MeasureCpuCeilings(/*quick=*/true)));
  return *m;
}

TEST(CeilingsTest, QuickCpuCeilingsArePositiveFiniteWithUnits) {
  const auto& ceilings = QuickCpu();
  ASSERT_EQ(ceilings.size(), 15u);
  std::map<std::string, std::string> units = {{"cpu_copy_bandwidth", "GB/s"},
                                              {"cpu_copy_bandwidth_1t", "GB/s"},
                                              {"cpu_sgemm", "GFLOP/s"},
                                              {"cpu_philox4x32_10", "Gblock/s"},
                                              {"cpu_philox4x32_10_1t", "Gblock/s"}};
  for (const char* k : {"copy", "scale", "add", "triad", "read"}) {
    units[std::string("cpu_stream_") + k] = "GB/s";
    units[std::string("cpu_stream_") + k + "_1t"] = "GB/s";
  }
  for (const auto& [name, unit] : units) {
    ASSERT_TRUE(ceilings.count(name)) << name;
    const CeilingMeasurement& c = ceilings.at(name);
    EXPECT_EQ(c.unit, unit) << name;
    ExpectSane(c);
    EXPECT_GE(c.detail.at("threads").get<int>(), 1) << name;
    const auto j = ToJson(c);
    EXPECT_EQ(j.at("name"), name);
    EXPECT_EQ(j.at("unit"), unit);
  }
  const auto& copy = ceilings.at("cpu_copy_bandwidth");
  EXPECT_EQ(copy.detail.at("threads").get<unsigned>(), std::thread::hardware_concurrency());
  EXPECT_EQ(ceilings.at("cpu_copy_bandwidth_1t").detail.at("threads"), 1);
  EXPECT_EQ(copy.detail.at("bytes_counted"), "read+write");
  // The copy must not fit in cache, or it measures the cache; where 4x the
  // reported LLC exceeds the 1 GiB cap, the detail says so.
  const int64_t llc = LastLevelCacheBytes();
  const int64_t quick_cap = QuickSizes().cap_bytes;
  const bool capped = 4 * llc > quick_cap;
  EXPECT_EQ(copy.detail.at("below_4x_llc").get<bool>(), capped);
  if (!capped) {
    EXPECT_GE(copy.detail.at("bytes_per_buffer").get<int64_t>(), 4 * llc);
  }
  // Quick mode's documented sizes (ceilings.h), so that it cannot quietly
  // become the full mode; checked by size rather than by wall time, which a
  // shared machine cannot promise.
  const int64_t quick_bytes =
      std::min<int64_t>(quick_cap, std::max<int64_t>(QuickSizes().floor_bytes, 4 * llc));
  EXPECT_EQ(copy.detail.at("bytes_per_buffer").get<int64_t>(), quick_bytes);
  EXPECT_EQ(ceilings.at("cpu_sgemm").detail.at("n"), 1024);
  if (!QuickSizes().sanitizer_build) {  // the documented sizes where the numbers mean the machine
    EXPECT_EQ(QuickSizes().cap_bytes, int64_t{256} << 20);
    EXPECT_EQ(QuickSizes().philox_blocks, int64_t{1} << 25);
  }
  for (const auto& [name, unit] : units) {
    EXPECT_EQ(ceilings.at(name).detail.at("sanitizer_build"), QuickSizes().sanitizer_build) << name;
    const int reps = name.rfind("cpu_stream_", 0) == 0 ? 2 : 3;  // ceilings.h quick sizes
    EXPECT_EQ(ceilings.at(name).detail.at("repetitions"), reps) << name;
    EXPECT_EQ(ceilings.at(name).detail.at("samples").size(), size_t(reps)) << name;
  }
}

TEST(CeilingsTest, StreamCeilingsSayTheirThreadsAccessAndMethod) {
  const auto& ceilings = QuickCpu();
  const int64_t llc = LastLevelCacheBytes();
  const std::map<std::string, std::pair<int, std::string>> kernels = {
      {"copy", {16, "read+write"}}, {"scale", {16, "read+write"}}, {"add", {24, "read+write"}},
      {"triad", {24, "read+write"}}, {"read", {8, "read"}}};
  for (const auto& [k, want] : kernels) {
    for (const bool one : {false, true}) {
      const std::string name = "cpu_stream_" + k + (one ? "_1t" : "");
      ASSERT_TRUE(ceilings.count(name)) << name;
      const auto& d = ceilings.at(name).detail;
      EXPECT_EQ(d.at("threads").get<unsigned>(), one ? 1u : std::thread::hardware_concurrency())
          << name;
      EXPECT_EQ(d.at("bytes_counted_per_element"), want.first) << name;
      EXPECT_EQ(d.at("bytes_counted"), want.second) << name;
      EXPECT_EQ(d.at("non_temporal_stores"), false) << name;
      EXPECT_NE(d.at("method").get<std::string>().find("STREAM"), std::string::npos) << name;
      // Each array well beyond the last-level cache, or it measures the
      // cache; past the 1 GiB cap the detail says it is not.
      const bool capped = 4 * llc > QuickSizes().cap_bytes;
      EXPECT_EQ(d.at("below_4x_llc").get<bool>(), capped) << name;
      if (capped) {
        EXPECT_EQ(d.at("bytes_per_array").get<int64_t>(), QuickSizes().cap_bytes) << name;
      } else {
        EXPECT_GE(d.at("bytes_per_array").get<int64_t>() + 128, 4 * llc) << name;
      }
    }
  }
}

TEST(CeilingsTest, CpuCeilingNamesAreWhatTheMeasurementReturns) {
  std::set<std::string> measured, named;
  for (const auto& [name, c] : QuickCpu()) measured.insert(name);
  for (const auto& name : CpuCeilingNames()) named.insert(name);
  EXPECT_EQ(measured, named);
  EXPECT_EQ(CpuCeilingNames().size(), named.size()) << "each name once";
}

TEST(CeilingsTest, PhiloxCeilingsSayTheirThreadsKernelAndBlocks) {
  const auto& ceilings = QuickCpu();
  for (const bool one : {false, true}) {
    const std::string name = std::string("cpu_philox4x32_10") + (one ? "_1t" : "");
    ASSERT_TRUE(ceilings.count(name)) << name;
    const auto& d = ceilings.at(name).detail;
    EXPECT_EQ(d.at("threads").get<unsigned>(), one ? 1u : std::thread::hardware_concurrency());
    EXPECT_EQ(d.at("kernel"), PhiloxRateKernel()) << name;
    EXPECT_EQ(d.at("blocks_per_thread"), QuickSizes().philox_blocks) << "ceilings.h quick size";
  }
}

TEST(CeilingsTest, SgemmCeilingNamesTheBlasAsLoaded) {
  const auto& ceilings = QuickCpu();
  const auto& d = ceilings.at("cpu_sgemm").detail;
  ASSERT_TRUE(d.contains("blas"));
  EXPECT_EQ(d.at("blas").at("vendor"), "OpenBLAS") << "the default build links OpenBLAS";
  EXPECT_NE(d.at("blas").at("corename"), "unknown");
  ASSERT_TRUE(d.contains("warning"));  // null, or the generic-kernel warning
  EXPECT_TRUE(d.at("warning").is_null() || d.at("warning").is_string());
}

TEST(CeilingsTest, LastLevelCacheIsReadFromSysfs) {
  // Every Linux machine we run on has some data cache described in sysfs;
  // 0 would make the copy ceiling's sizing rule meaningless.
  const int64_t llc = LastLevelCacheBytes();
  EXPECT_GT(llc, 0);
  EXPECT_LT(llc, int64_t{16} << 30);
}

TEST(CeilingsTest, GpuCeilingsEmptyWithReasonOrMeasured) {
  std::string reason;
  const auto gpu = MeasureGpuCeilings(/*quick=*/true, &reason);
  const BackendStatus cuda = Availability(Backend::kCuda);
  if (!cuda.ok) {
    EXPECT_TRUE(gpu.empty());
    EXPECT_EQ(reason, cuda.reason);
    EXPECT_FALSE(reason.empty());
#if !CB_HAVE_CUDA
    EXPECT_EQ(reason, "built without CUDA");
#endif
    if (cb::testing::GpuRequired()) FAIL() << "CB_REQUIRE_GPU=1 but no GPU ceilings: " << reason;
    return;
  }
  const auto ceilings = ByName(gpu);
  ASSERT_EQ(ceilings.size(), 3u) << reason;
  const std::map<std::string, std::string> units = {
      {"gpu_copy_bandwidth", "GB/s"}, {"gpu_sgemm", "TFLOP/s"}, {"gpu_bf16_gemm", "TFLOP/s"}};
  for (const auto& [name, unit] : units) {
    ASSERT_TRUE(ceilings.count(name)) << name;
    EXPECT_EQ(ceilings.at(name).unit, unit) << name;
    ExpectSane(ceilings.at(name));
    std::printf("%s = %.1f %s (median %.1f)\n", name.c_str(), ceilings.at(name).value,
                unit.c_str(), ceilings.at(name).detail.at("median").get<double>());
  }
  // Tensor cores (sm_80 and later, the only architectures we build) make
  // BF16 GEMM several times faster than FP32; if not, the BF16 path is not
  // what it claims to be.
  EXPECT_GT(ceilings.at("gpu_bf16_gemm").value, 2.0 * ceilings.at("gpu_sgemm").value);
}

}  // namespace
}  // namespace cb::harness

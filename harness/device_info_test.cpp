// File: harness/device_info_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/device_info.h: without a GPU the queries say why; with one
// (CB_REQUIRE_GPU=1 on the GPU machine) the properties are plausible.
#include "harness/device_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "fixtures/backend_test.h"
#include "harness/backend.h"

namespace cb::harness {
namespace {

// "<digits>.<digits>", e.g. "13.0". (Hand-written rather than std::regex,
// which GCC 12 warns about under the asan preset.)
bool IsVersion(const std::string& s) {
  const auto dot = s.find('.');
  auto digits = [](const std::string& d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  return dot != std::string::npos && digits(s.substr(0, dot)) && digits(s.substr(dot + 1));
}

// nvidia-smi's spelling: "GPU-" then 8-4-4-4-12 lower-case hex digits.
bool IsGpuUuid(const std::string& s) {
  static constexpr std::string_view kShape = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  if (s.size() != kShape.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kShape[i] != 'x') {
      if (s[i] != kShape[i]) return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(s[i])) ||
               std::isupper(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

TEST(DeviceInfoTest, MatchersAcceptAndReject) {
  EXPECT_TRUE(IsVersion("13.0"));
  EXPECT_FALSE(IsVersion("13"));
  EXPECT_FALSE(IsVersion("unavailable: no CUDA driver"));
  EXPECT_TRUE(IsGpuUuid("GPU-0123abcd-4567-89ab-cdef-0123456789ab"));
  EXPECT_FALSE(IsGpuUuid("GPU-0123ABCD-4567-89ab-cdef-0123456789ab"));
  EXPECT_FALSE(IsGpuUuid("GPU-0123abcd-4567-89ab-cdef-0123456789a"));
}

TEST(DeviceInfoTest, VersionsAreNumbersOrReasons) {
  const std::string runtime = CudaRuntimeVersion();
  const std::string driver = CudaDriverVersion();
#if CB_HAVE_CUDA
  EXPECT_TRUE(IsVersion(runtime)) << runtime;
#else
  EXPECT_EQ(runtime, "unavailable: built without CUDA");
  EXPECT_EQ(driver, "unavailable: built without CUDA");
#endif
  EXPECT_TRUE(IsVersion(driver) || driver.rfind("unavailable: ", 0) == 0) << driver;
  if (Availability(Backend::kCuda).ok) {
    EXPECT_TRUE(IsVersion(driver)) << "a usable device implies a driver: " << driver;
  }
}

TEST(DeviceInfoTest, DevicesMatchBackendAvailability) {
  std::string reason;
  const auto devices = QueryDevices(&reason);
  const BackendStatus cuda = Availability(Backend::kCuda);
  if (!cuda.ok) {
    EXPECT_TRUE(devices.empty());
    EXPECT_EQ(reason, cuda.reason);
    if (cb::testing::GpuRequired()) FAIL() << "CB_REQUIRE_GPU=1 but no GPU: " << reason;
    return;
  }
  ASSERT_FALSE(devices.empty());
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.cc_major, 5);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.total_memory_bytes, int64_t{1} << 30);
    EXPECT_GT(d.l2_bytes, 0);
    EXPECT_GT(d.sm_clock_khz, 100'000);
    EXPECT_GT(d.memory_clock_khz, 100'000);
    EXPECT_GT(d.memory_bus_bits, 0);
    EXPECT_TRUE(IsGpuUuid(d.uuid)) << d.uuid;
    // Datasheet bandwidth of any CUDA GPU since Maxwell: 100 GB/s .. 20 TB/s.
    const double bw = TheoreticalMemoryBandwidth(d);
    EXPECT_GT(bw, 1e11) << d.name;
    EXPECT_LT(bw, 2e13) << d.name;
  }
  // Device queries are deterministic.
  EXPECT_EQ(QueryDevices(), devices);
}

TEST(DeviceInfoTest, TheoreticalBandwidthMatchesADatasheet) {
  // H100 SXM5: the runtime reports a 2619 MHz memory clock on a 5120-bit HBM3
  // bus; NVIDIA's datasheet gives 3.35 TB/s.
  DeviceInfo d;
  d.memory_clock_khz = 2'619'000;
  d.memory_bus_bits = 5120;
  EXPECT_NEAR(TheoreticalMemoryBandwidth(d), 3.35e12, 0.01e12);
  // A100 SXM4 40GB: 1215 MHz, 5120 bits; datasheet 1555 GB/s.
  d.memory_clock_khz = 1'215'000;
  EXPECT_NEAR(TheoreticalMemoryBandwidth(d), 1.555e12, 0.005e12);
}

}  // namespace
}  // namespace cb::harness

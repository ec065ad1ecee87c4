// File: harness/cuda_smoke_test.cpp
// -----------------------------------------------------------------------------
// End-to-end proof of the CUDA toolchain path (DESIGN §3): a saxpy kernel
// built by nvcc, linked with the static runtime, run through a host-callable
// wrapper (harness/cuda/smoke.cu) and compared with a CPU loop against an
// fp64 reference; plus the error path (CudaError with file/line/expr/code),
// output poisoning and the event timer.
//
// Without CUDA the cuda cases SKIP ("built without CUDA"); with CUDA but no
// device they SKIP with the runtime's reason; CB_REQUIRE_GPU=1 turns those
// skips into failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/tolerance.h"
#include "harness/backend.h"
#include "harness/cuda_error.h"
#include "harness/device_info.h"
#include "harness/random.h"

#if CB_HAVE_CUDA
#include "harness/cuda/smoke.h"
#endif

namespace cb::harness {
namespace {

// Inputs uniform in (-1, 1) from the project's generator (DESIGN §4).
std::vector<float> RandomVector(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(2.0 * rng.Uniform() - 1.0);
  return v;
}

// The CPU path: the same float arithmetic as the kernel, a plain loop.
std::vector<float> SaxpyCpu(float a, const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = a * x[i] + y[i];
  return out;
}

std::vector<float> Saxpy(Backend backend, float a, const std::vector<float>& x,
                         const std::vector<float>& y) {
  if (backend == Backend::kCpu) return SaxpyCpu(a, x, y);
#if CB_HAVE_CUDA
  return cuda_internal::SmokeSaxpy(a, x, y);
#else
  ADD_FAILURE() << "cuda backend reached in a build without CUDA";
  return {};
#endif
}

// ---------------------------------------------------------------------------
// Both backends against the fp64 reference.

class SaxpyTest : public cb::testing::BackendTest {};

TEST_P(SaxpyTest, MatchesFp64Reference) {
  // Odd sizes exercise the partial last block; each size gets fresh inputs.
  const float a = 2.5f;
  uint64_t seed = 0x5EED0001;
  for (size_t n : {size_t{1}, size_t{255}, size_t{257}, size_t{100'003}, size_t{1} << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed));
    const auto x = RandomVector(n, seed++);
    const auto y = RandomVector(n, seed++);
    std::vector<double> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = static_cast<double>(a) * x[i] + y[i];
    const auto got = Saxpy(backend(), a, x, y);
    ASSERT_EQ(got.size(), n);
    // Two float roundings (or one, fused) of values below 3.5 in magnitude:
    // error <= 2 * 2^-24 * 3.5 < 1e-6.
    EXPECT_TRUE(cb::testing::AllClose(got, want, /*atol=*/1e-6, /*rtol=*/1e-6));
  }
}

CB_INSTANTIATE_BACKENDS(SaxpyTest);

// ---------------------------------------------------------------------------
// CUDA-only checks: instantiated for the cuda backend alone, so they skip
// (or fail under CB_REQUIRE_GPU) exactly like every other cuda case.

class CudaChecksTest : public cb::testing::BackendTest {};

TEST_P(CudaChecksTest, BadLaunchThrowsCudaErrorAndIsCleared) {
#if CB_HAVE_CUDA
  try {
    cuda_internal::SmokeBadLaunch();
    FAIL() << "a 2048-thread block must not launch";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.name(), "cudaErrorInvalidConfiguration");
    EXPECT_EQ(e.code(), 9);  // cudaErrorInvalidConfiguration
    EXPECT_EQ(e.expr(), "kernel launch");
    EXPECT_NE(e.file().find("smoke.cu"), std::string::npos) << e.file();
    EXPECT_GT(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidConfiguration"), std::string::npos);
  }
  // The error was cleared: the next launch works.
  const std::vector<float> x = {1.0f, 2.0f}, y = {0.5f, 0.25f};
  const auto got = cuda_internal::SmokeSaxpy(2.0f, x, y);
  EXPECT_EQ(got, (std::vector<float>{2.5f, 4.25f}));
#endif
}

TEST_P(CudaChecksTest, PoisonMakesEveryElementNaN) {
#if CB_HAVE_CUDA
  const auto v = cuda_internal::SmokePoisonedReadback(1000);
  ASSERT_EQ(v.size(), 1000u);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], sizeof(bits));
    ASSERT_EQ(bits, 0xFFFFFFFFu) << "element " << i;
    ASSERT_TRUE(std::isnan(v[i]));
  }
#endif
}

TEST_P(CudaChecksTest, EventTimerGivesOneSamplePerRepetition) {
#if CB_HAVE_CUDA
  for (bool cold : {false, true}) {
    SCOPED_TRACE(cold ? "cold" : "hot");
    const auto small = cuda_internal::SmokeTimeSaxpy(1 << 10, 2, 7, cold);
    const auto large = cuda_internal::SmokeTimeSaxpy(1 << 26, 2, 7, cold);
    ASSERT_EQ(small.size(), 7u);
    ASSERT_EQ(large.size(), 7u);
    for (double s : small) EXPECT_TRUE(std::isfinite(s) && s > 0.0) << s;
    for (double s : large) EXPECT_TRUE(std::isfinite(s) && s > 0.0) << s;
    // 64 Mi elements move 768 MiB (~0.2 ms on an H200); 1 Ki elements is
    // launch-bound (a few us). The GPU clock must tell them apart.
    const double small_min = *std::min_element(small.begin(), small.end());
    const double large_min = *std::min_element(large.begin(), large.end());
    EXPECT_GT(large_min, 5.0 * small_min);
  }
#endif
}

// DESIGN §5: cold mode flushes L2 with a memset over 2x its size.
TEST_P(CudaChecksTest, L2FlushCoversTwiceTheL2) {
#if CB_HAVE_CUDA
  const cuda_internal::L2FlushSize size = cuda_internal::SmokeL2FlushSize();
  const std::vector<DeviceInfo> devices = QueryDevices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(size.l2_bytes, devices[0].l2_bytes);  // the current device is 0
  EXPECT_GT(size.l2_bytes, 1 << 20) << "every sm_80+ part has tens of MiB of L2";
  EXPECT_EQ(size.scratch_bytes, 2 * static_cast<size_t>(size.l2_bytes));
#endif
}

TEST_P(CudaChecksTest, FailedCallThrowsWithLocation) {
#if CB_HAVE_CUDA
  // 1 PiB is more than any GPU has, so this fails on every device.
  try {
    cuda_internal::SmokeMalloc(size_t{1} << 50);
    FAIL() << "a 1 PiB cudaMalloc must fail";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.name(), "cudaErrorMemoryAllocation");
    EXPECT_NE(e.expr().find("cudaMalloc"), std::string::npos) << e.expr();
    EXPECT_NE(e.file().find("smoke.cu"), std::string::npos) << e.file();
  }
  EXPECT_NO_THROW(cuda_internal::SmokeMalloc(1 << 20)) << "the failure must not stick";
#endif
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaChecksTest, ::testing::Values(Backend::kCuda),
                         cb::testing::BackendParamName);

// ---------------------------------------------------------------------------
// Host-only: the error path where there is CUDA but no device (CI's
// cuda-nogpu profile, and this project's build machine).

TEST(CudaErrorTest, NoDeviceMakesChecksThrowWithTheRuntimeCode) {
#if !CB_HAVE_CUDA
  GTEST_SKIP() << "built without CUDA";
#else
  if (Availability(Backend::kCuda).ok) GTEST_SKIP() << "a device is present (see CudaChecksTest)";
  try {
    cuda_internal::SmokeMalloc(1024);
    FAIL() << "cudaMalloc without a device must throw";
  } catch (const CudaError& e) {
    // 35 cudaErrorInsufficientDriver (no driver), 100 cudaErrorNoDevice.
    EXPECT_TRUE(e.code() == 35 || e.code() == 100) << e.what();
    EXPECT_EQ(e.name().rfind("cudaError", 0), 0u) << e.name();
    EXPECT_NE(e.expr().find("cudaMalloc(&p, bytes)"), std::string::npos) << e.expr();
    EXPECT_NE(e.file().find("smoke.cu"), std::string::npos) << e.file();
  }
#endif
}

TEST(CudaErrorTest, MessageNamesLocationExpressionAndCode) {
  const cb::CudaError e("harness/x.cu", 42, "cudaMalloc(&p, n)", 2, "cudaErrorMemoryAllocation",
                        "out of memory");
  EXPECT_STREQ(e.what(),
               "harness/x.cu:42: cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (2): "
               "out of memory");
  EXPECT_EQ(e.file(), "harness/x.cu");
  EXPECT_EQ(e.line(), 42);
  EXPECT_EQ(e.code(), 2);
  const std::runtime_error& base = e;  // host code may catch it as runtime_error
  EXPECT_NE(std::string(base.what()).find("(2)"), std::string::npos);
}

}  // namespace
}  // namespace cb::harness

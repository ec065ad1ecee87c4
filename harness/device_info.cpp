// File: harness/device_info.cpp
// -----------------------------------------------------------------------------
// Host side of harness/device_info.h: forwards to harness/cuda/device_query.cu
// on CUDA builds and answers "built without CUDA" otherwise.
#include "harness/device_info.h"

#if CB_HAVE_CUDA
#include "harness/cuda/device_query.h"
#endif

namespace cb::harness {
namespace {

// 13000 -> "13.0", 12080 -> "12.8" (CUDA encodes 1000*major + 10*minor).
[[maybe_unused]] std::string FormatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace

std::vector<DeviceInfo> QueryDevices(std::string* reason_if_none) {
#if CB_HAVE_CUDA
  return cuda_internal::QueryDevicesCuda(reason_if_none);
#else
  if (reason_if_none != nullptr) *reason_if_none = "built without CUDA";
  return {};
#endif
}

std::string CudaRuntimeVersion() {
#if CB_HAVE_CUDA
  return FormatCudaVersion(cuda_internal::RuntimeVersionNumber());
#else
  return "unavailable: built without CUDA";
#endif
}

std::string CudaDriverVersion() {
#if CB_HAVE_CUDA
  const int version = cuda_internal::DriverVersionNumber();
  if (version <= 0) return "unavailable: no CUDA driver";
  return FormatCudaVersion(version);
#else
  return "unavailable: built without CUDA";
#endif
}

double TheoreticalMemoryBandwidth(const DeviceInfo& device) {
  return 2.0 * device.memory_clock_khz * 1e3 * device.memory_bus_bits / 8.0;
}

}  // namespace cb::harness

// File: harness/cuda/device_query.cu
// -----------------------------------------------------------------------------
// Device properties through the CUDA runtime (harness/cuda/device_query.h).
//
// CUDA 13 removed cudaDeviceProp::clockRate and ::memoryClockRate (and other
// fields that belonged to the driver's attribute API), so the clocks come from
// cudaDeviceGetAttribute, which every CUDA version since 5 has.
#include "harness/cuda/device_query.h"

#include <cuda_runtime.h>

#include <cstdio>

#include "harness/cuda/check.h"
#include "harness/cuda/probe.h"

namespace cb::harness::cuda_internal {
namespace {

// The 16 UUID bytes in nvidia-smi's spelling, so the fingerprint can be
// matched against `nvidia-smi -L` by eye.
std::string FormatUuid(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
  }
  return out;
}

int Attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

std::vector<DeviceInfo> QueryDevicesCuda(std::string* reason_if_none) {
  std::vector<DeviceInfo> devices;
  const std::string reason = ProbeCuda();
  if (!reason.empty()) {
    if (reason_if_none != nullptr) *reason_if_none = reason;
    return devices;
  }
  int count = 0;
  CB_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    CB_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    info.l2_bytes = prop.l2CacheSize;
    info.sm_clock_khz = Attribute(cudaDevAttrClockRate, d);
    info.memory_clock_khz = Attribute(cudaDevAttrMemoryClockRate, d);
    info.memory_bus_bits = Attribute(cudaDevAttrGlobalMemoryBusWidth, d);
    info.uuid = FormatUuid(prop.uuid);
    devices.push_back(std::move(info));
  }
  return devices;
}

int RuntimeVersionNumber() {
  int version = 0;
  CB_CUDA_CHECK(cudaRuntimeGetVersion(&version));
  return version;
}

int DriverVersionNumber() {
  int version = 0;
  // Returns success with 0 when no driver is installed; any error also means
  // "no usable driver", which is what the caller reports.
  if (cudaDriverGetVersion(&version) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return version;
}

}  // namespace cb::harness::cuda_internal

// File: harness/device_info.h
// -----------------------------------------------------------------------------
// What the CUDA runtime says about this machine's GPUs: the static facts the
// platform fingerprint (harness/platform.h) and the ceilings record, and the
// runtime/driver versions. Host-safe (no CUDA include); on CPU-only builds
// every query answers "unavailable: built without CUDA".
#ifndef CB_HARNESS_DEVICE_INFO_H_
#define CB_HARNESS_DEVICE_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::harness {

struct DeviceInfo {
  int index = 0;              // CUDA device ordinal
  std::string name;           // "NVIDIA H200"
  int cc_major = 0;           // compute capability, e.g. 9.0
  int cc_minor = 0;
  int sm_count = 0;           // streaming multiprocessors
  int64_t total_memory_bytes = 0;
  int l2_bytes = 0;
  int sm_clock_khz = 0;       // peak (boost) SM clock, not the current one
  int memory_clock_khz = 0;   // peak memory clock
  int memory_bus_bits = 0;
  std::string uuid;           // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it

  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

// Every CUDA device, in ordinal order. When there are none, returns an empty
// vector and, if `reason_if_none` is not null, stores why: "built without
// CUDA", "no device: cudaErrorNoDevice", "insufficient driver: ...".
// Throws CudaError if a device exists but a property query fails.
std::vector<DeviceInfo> QueryDevices(std::string* reason_if_none = nullptr);

// "13.0" (the runtime linked into this binary), or "unavailable: built
// without CUDA".
std::string CudaRuntimeVersion();

// The newest CUDA version the installed driver supports, "13.0"; or
// "unavailable: no CUDA driver" / "unavailable: built without CUDA".
std::string CudaDriverVersion();

// Peak DRAM bandwidth implied by the clock and bus width, in bytes/s:
// 2 (double data rate) * memory_clock * bus_bits / 8. A datasheet figure for
// comparison only; the measured ceiling (harness/ceilings.h) is what results
// are scored against.
double TheoreticalMemoryBandwidth(const DeviceInfo& device);

}  // namespace cb::harness

#endif  // CB_HARNESS_DEVICE_INFO_H_

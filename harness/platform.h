// File: harness/platform.h
// -----------------------------------------------------------------------------
// The platform fingerprint (DESIGN §5 ceilings "per platform hash", §7 runs;
// anchors §3.7 item 7): canonical JSON of what this machine and build are,
// and its XXH3-128 hash. Two runs with the same hash ran on the same hardware,
// OS, driver and build settings, so their timings are comparable and a
// ceiling measured once can be reused.
//
// Only stable facts go into the hashed JSON: CPU model, microcode and flags,
// core count, memory (rounded to GiB), kernel release, OS, compiler and build
// flags, CUDA runtime/driver, NVIDIA driver, each GPU's static
// properties, and the BLAS as loaded (library, version, OpenBLAS core). Volatile state (load, current clocks, hostname, time) would give
// every run its own hash; it is in DescribeVolatileState(), stored beside the
// fingerprint but never hashed.
#ifndef CB_HARNESS_PLATFORM_H_
#define CB_HARNESS_PLATFORM_H_

#include <nlohmann/json.hpp>

#include "harness/hash.h"

namespace cb::harness {

struct Platform {
  // Sorted keys (nlohmann::json's default object is a std::map), only ints,
  // bools, strings, arrays and objects (no doubles: their text is not stable).
  //   schema_version  1
  //   cpu     {model, vendor, microcode, flags: [sorted], logical_cores,
  //            physical_cores, governor, smt, boost}
  //   memory_gib, kernel, arch, os
  //   build   {version, type, compiler, flags, cuda_mode, have_cuda,
  //            cuda_compiler, cuda_architectures}
  //   cuda    {runtime, driver}       ("unavailable: ..." when absent)
  //   nvidia_driver                   (NVML's "580.159.03" or "unavailable: ...")
  //   gpus    [{index, name, cc, sm_count, memory_bytes, l2_bytes,
  //             sm_clock_khz, memory_clock_khz, memory_bus_bits, uuid,
  //             vbios, power_limit_mw}]
  //   blas    {library, vendor, version, corename, config}  (harness/blas_info.h)
  nlohmann::json json;
  Hash128 hash;  // == HashPlatformJson(json)
};

// Reads /proc, /sys, uname, /etc/os-release, the build facts, the CUDA
// runtime and NVML. Deterministic: two calls on one machine give equal
// results. Facts it cannot read are the string "unknown" (counts: 0), and
// the CUDA and NVIDIA driver entries say "unavailable: <reason>".
Platform DetectPlatform();

// Xxh3_128 of json.dump(): compact, sorted keys, the canonical text.
Hash128 HashPlatformJson(const nlohmann::json& json);

// Not hashed: hostname, load average, UTC time, current SM clocks (NVML).
nlohmann::json DescribeVolatileState();

}  // namespace cb::harness

#endif  // CB_HARNESS_PLATFORM_H_

// File: harness/blas_info.h
// -----------------------------------------------------------------------------
// The BLAS as loaded (issue 32): which library the process's cblas_sgemm
// resolves to, its version and, for OpenBLAS, the core whose kernels its
// runtime dispatch picked (openblas_get_corename / openblas_get_config,
// looked up as weak symbols so another CBLAS still links). Recorded in the
// platform fingerprint and in the cpu_sgemm ceiling's detail.
//
// A warning, never a change: when OpenBLAS runs a core without AVX2 kernels
// (Debian's 0.3.21 falls back to "Prescott" on CPUs it does not know) on a
// CPU whose flags have avx2 or avx512f, BlasKernelWarning() says so; callers
// print it. Nothing here sets OPENBLAS_CORETYPE.
#ifndef CB_HARNESS_BLAS_INFO_H_
#define CB_HARNESS_BLAS_INFO_H_

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cb::harness {

struct BlasInfo {
  std::string library = "unknown";  // file name of the object defining cblas_sgemm
  std::string vendor = "unknown";   // "OpenBLAS" when its queries exist, else "unknown"
  std::string version = "unknown";  // "0.3.21" (second word of openblas_get_config)
  std::string corename = "unknown"; // "Haswell", "Zen", "SkylakeX", "Prescott", ...
  std::string config = "unknown";   // openblas_get_config() verbatim
  // OPENBLAS_CORETYPE from the environment ("" when unset): it overrides
  // OpenBLAS's choice of core for this CPU (some machines set it for every
  // process), so the same CPU with and without it is a different platform.
  std::string coretype_env;
};

// Deterministic for one process on one machine (dispatch happens at load).
BlasInfo DetectBlas();

// {"library", "vendor", "version", "corename", "config", "coretype_env"}.
nlohmann::json ToJson(const BlasInfo& blas);

// Whether `corename` (case-insensitive) is an OpenBLAS core whose SGEMM
// kernels use neither AVX2 nor AVX-512: the generic SSE cores (Prescott,
// Core2, Penryn, Dunnington, Nehalem, Atom, Opteron, Barcelona, ...) and
// Sandybridge (AVX only).
bool IsPreAvx2Core(const std::string& corename);

// "" when fine; otherwise one line: OpenBLAS runs generic (pre-AVX2) kernels
// on a CPU with AVX2 or AVX-512 (naming the core and the features it leaves
// unused), and/or its core was forced by OPENBLAS_CORETYPE in the
// environment. cpu_flags: /proc/cpuinfo's flags (platform json cpu.flags).
std::string BlasKernelWarning(const BlasInfo& blas, const std::vector<std::string>& cpu_flags);

// /proc/cpuinfo's first "flags" line, split (empty when unreadable).
std::vector<std::string> CpuFlags();

// BlasKernelWarning(DetectBlas(), CpuFlags()).
std::string BlasKernelWarning();

// The same from a platform fingerprint JSON (harness/platform.h: "blas",
// "cpu.flags"); "" when either is missing.
std::string BlasKernelWarning(const nlohmann::json& platform_json);

}  // namespace cb::harness

#endif  // CB_HARNESS_BLAS_INFO_H_

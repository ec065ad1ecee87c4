// File: harness/platform.cpp
// -----------------------------------------------------------------------------
// DetectPlatform(): the fingerprint of harness/platform.h, read from Linux's
// /proc and /sys, uname(2), /etc/os-release, harness/build_info.h, the CUDA
// runtime (harness/device_info.h), NVML (harness/energy.h) and the loaded
// BLAS (harness/blas_info.h).
#include "harness/platform.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/blas_info.h"
#include "harness/build_info.h"
#include "harness/device_info.h"
#include "harness/energy.h"

namespace cb::harness {
namespace {

using nlohmann::json;

constexpr const char* kUnknown = "unknown";

// Keeps printable ASCII only: the JSON must dump() without throwing on
// invalid UTF-8, and stray control bytes would make the text unstable.
std::string Clean(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](unsigned char c) { return c < 0x20 || c > 0x7e; }),
          s.end());
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

std::optional<std::string> ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return Clean(line);
}

std::string ReadFirstLineOr(const std::string& path, const std::string& fallback) {
  return ReadFirstLine(path).value_or(fallback);
}

struct CpuInfo {
  std::string model = kUnknown;
  std::string vendor = kUnknown;
  std::string microcode = kUnknown;
  std::set<std::string> flags;  // sorted, unique
  int physical_cores = 0;
};

// The first processor's model/vendor/microcode/flags (they agree across
// processors on every machine we target) and the number of distinct
// (physical id, core id) pairs.
CpuInfo ReadCpuInfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical_id = "0";
  bool have_flags = false;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Clean(line.substr(0, colon));
    const std::string value = Clean(line.substr(colon + 1));
    if (key == "model name" && info.model == kUnknown) info.model = value;
    if (key == "vendor_id" && info.vendor == kUnknown) info.vendor = value;
    if (key == "microcode" && info.microcode == kUnknown) info.microcode = value;
    if ((key == "flags" || key == "Features") && !have_flags) {  // Features: Arm
      std::istringstream words(value);
      for (std::string w; words >> w;) info.flags.insert(w);
      have_flags = true;
    }
    if (key == "physical id") physical_id = value;
    if (key == "core id") cores.emplace(physical_id, value);
  }
  info.physical_cores = static_cast<int>(cores.size());
  return info;
}

// MemTotal rounded to whole GiB: the kernel's own reservations move the exact
// figure by a few MiB between boots, which must not change the fingerprint.
int64_t MemoryGib() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (in >> key) {
    if (key == "MemTotal:") {
      in >> kib;
      break;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return std::llround(static_cast<double>(kib) / (1024.0 * 1024.0));
}

std::string OsPrettyName() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
    return Clean(v);
  }
  return kUnknown;
}

// Turbo/boost: cpufreq's generic switch, else intel_pstate's inverse one.
std::string BoostSetting() {
  if (const auto b = ReadFirstLine("/sys/devices/system/cpu/cpufreq/boost")) {
    return *b == "1" ? "on" : "off";
  }
  if (const auto nt = ReadFirstLine("/sys/devices/system/cpu/intel_pstate/no_turbo")) {
    return *nt == "1" ? "off" : "on";
  }
  return kUnknown;
}

json BuildJson() {
  return json{{"version", build_info::kVersion},
              {"type", build_info::kBuildType},
              {"compiler", build_info::kCxxCompiler},
              {"flags", build_info::kCxxFlags},
              {"cuda_mode", build_info::kCudaMode},
              {"have_cuda", build_info::kHaveCuda},
              {"cuda_compiler", build_info::kCudaCompiler},
              {"cuda_architectures", build_info::kCudaArchitectures}};
}

json GpusJson(const std::optional<NvmlFacts>& nvml) {
  json gpus = json::array();
  std::string reason;
  for (const DeviceInfo& d : QueryDevices(&reason)) {
    json g{{"index", d.index},
           {"name", Clean(d.name)},
           {"cc", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
           {"sm_count", d.sm_count},
           {"memory_bytes", d.total_memory_bytes},
           {"l2_bytes", d.l2_bytes},
           {"sm_clock_khz", d.sm_clock_khz},
           {"memory_clock_khz", d.memory_clock_khz},
           {"memory_bus_bits", d.memory_bus_bits},
           {"uuid", d.uuid},
           {"vbios", kUnknown},
           {"power_limit_mw", kUnknown}};
    // NVML and CUDA may order devices differently; the UUID is the join key.
    if (nvml) {
      for (const NvmlDeviceFacts& f : nvml->devices) {
        if (f.uuid != d.uuid) continue;
        if (!f.vbios.empty()) g["vbios"] = Clean(f.vbios);
        if (f.power_limit_mw) g["power_limit_mw"] = *f.power_limit_mw;
      }
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace

Hash128 HashPlatformJson(const json& j) { return Xxh3_128(j.dump()); }

Platform DetectPlatform() {
  const CpuInfo cpu = ReadCpuInfo();
  utsname uts{};
  const bool have_uname = uname(&uts) == 0;
  std::string nvml_reason;
  const auto nvml = QueryNvmlFacts(&nvml_reason);

  json j;
  j["schema_version"] = 1;
  j["cpu"] = json{
      {"model", cpu.model},
      {"vendor", cpu.vendor},
      {"microcode", cpu.microcode},
      {"flags", json(std::vector<std::string>(cpu.flags.begin(), cpu.flags.end()))},
      {"logical_cores", static_cast<int64_t>(sysconf(_SC_NPROCESSORS_ONLN))},
      {"physical_cores", cpu.physical_cores},
      {"governor",
       ReadFirstLineOr("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", kUnknown)},
      {"smt", ReadFirstLineOr("/sys/devices/system/cpu/smt/control", kUnknown)},
      {"boost", BoostSetting()}};
  j["memory_gib"] = MemoryGib();
  j["kernel"] = have_uname ? Clean(uts.release) : kUnknown;
  j["arch"] = have_uname ? Clean(uts.machine) : kUnknown;
  j["os"] = OsPrettyName();
  j["build"] = BuildJson();
  j["cuda"] = json{{"runtime", CudaRuntimeVersion()}, {"driver", CudaDriverVersion()}};
  if (nvml) {
    j["nvidia_driver"] = nvml->driver_version.empty() ? kUnknown : Clean(nvml->driver_version);
  } else {
    j["nvidia_driver"] = nvml_reason;
  }
  j["gpus"] = GpusJson(nvml);
  // The BLAS as loaded: the same build runs other kernels on another CPU
  // (OpenBLAS dispatches at load), so the core is part of what was measured.
  j["blas"] = ToJson(DetectBlas());

  Platform p;
  p.json = std::move(j);
  p.hash = HashPlatformJson(p.json);
  return p;
}

json DescribeVolatileState() {
  json j;
  char host[256] = {};
  j["hostname"] = gethostname(host, sizeof(host) - 1) == 0 ? Clean(host) : kUnknown;
  j["loadavg"] = ReadFirstLineOr("/proc/loadavg", kUnknown);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &utc);
  j["time_utc"] = stamp;
  json clocks = json::array();
  std::string reason;
  const auto nvml = QueryNvmlFacts(&reason);
  const size_t n = nvml ? nvml->devices.size() : 0;
  for (size_t i = 0; i < n; ++i) {
    const auto mhz = CurrentSmClockMhz(static_cast<int>(i), &reason);
    clocks.push_back(mhz ? json(*mhz) : json(reason));
  }
  j["gpu_sm_clock_mhz"] = nvml ? clocks : json(reason);
  return j;
}

}  // namespace cb::harness

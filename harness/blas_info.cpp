// File: harness/blas_info.cpp
// -----------------------------------------------------------------------------
// harness/blas_info.h: dladdr on cblas_sgemm for the library, OpenBLAS's own
// queries (weak, so a non-OpenBLAS CBLAS links and reports "unknown").
#include "harness/blas_info.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

extern "C" char* openblas_get_corename(void) __attribute__((weak));
extern "C" char* openblas_get_config(void) __attribute__((weak));

namespace cb::harness {

BlasInfo DetectBlas() {
  BlasInfo b;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cblas_sgemm), &info) != 0 && info.dli_fname != nullptr) {
    // The file name only: a machine's absolute paths stay out of the ledger.
    b.library = std::filesystem::path(info.dli_fname).filename().string();
  }
  if (openblas_get_config != nullptr) {
    b.vendor = "OpenBLAS";
    if (const char* c = openblas_get_config(); c != nullptr) {
      b.config = c;
      std::istringstream words(b.config);
      std::string first, second;
      if (words >> first >> second && first == "OpenBLAS") b.version = second;
    }
  }
  if (openblas_get_corename != nullptr) {
    if (const char* c = openblas_get_corename(); c != nullptr) b.corename = c;
  }
  if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced != nullptr) b.coretype_env = forced;
  return b;
}

nlohmann::json ToJson(const BlasInfo& b) {
  return {{"library", b.library}, {"vendor", b.vendor},   {"version", b.version},
          {"corename", b.corename}, {"config", b.config}, {"coretype_env", b.coretype_env}};
}

bool IsPreAvx2Core(const std::string& corename) {
  // OpenBLAS's x86 core names (driver/others/dynamic.c corename[]) whose
  // kernels predate AVX2; "unknown" is OpenBLAS's own name for "no match".
  static const std::set<std::string> kPre = {
      "unknown", "generic", "katmai", "coppermine", "northwood", "prescott", "banias",
      "atom", "core2", "penryn", "dunnington", "nehalem", "athlon", "opteron",
      "opteron_sse3", "barcelona", "nano", "sandybridge", "bobcat", "bulldozer",
      "piledriver"};
  std::string lower = corename;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return kPre.count(lower) > 0;
}

std::string BlasKernelWarning(const BlasInfo& blas, const std::vector<std::string>& cpu_flags) {
  if (blas.vendor != "OpenBLAS") return "";
  const auto has = [&](const char* f) {
    return std::find(cpu_flags.begin(), cpu_flags.end(), f) != cpu_flags.end();
  };
  std::string unused;
  if (has("avx512f")) unused = "AVX-512";
  if (has("avx2")) unused += unused.empty() ? "AVX2" : " and AVX2";
  const bool generic = IsPreAvx2Core(blas.corename) && !unused.empty();
  const std::string forced =
      blas.coretype_env.empty() ? "" : "OPENBLAS_CORETYPE=" + blas.coretype_env + " in the environment";
  if (!generic && forced.empty()) return "";
  const std::string kernels = "OpenBLAS " + blas.version + " runs its " + (generic ? "generic " : "") +
                              "\"" + blas.corename + "\" kernels";
  const std::string why = forced.empty() ? "" : ", chosen by " + forced + ", not for this CPU";
  return (generic ? "warning: " : "note: ") + kernels + why +
         (generic ? " on this " + unused + " CPU" : "") +
         ": SGEMM (and the cpu_sgemm ceiling) are those kernels' rates" +
         (generic ? ", far below the machine" : "") + "; not changed (claimbench never sets OPENBLAS_CORETYPE)";
}

std::vector<std::string> CpuFlags() {
  std::vector<std::string> flags;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;) flags.push_back(w);
    break;
  }
  return flags;
}

std::string BlasKernelWarning() { return BlasKernelWarning(DetectBlas(), CpuFlags()); }

std::string BlasKernelWarning(const nlohmann::json& platform_json) {
  if (!platform_json.contains("blas") || !platform_json.contains("cpu")) return "";
  const auto& j = platform_json.at("blas");
  BlasInfo b;
  b.vendor = j.value("vendor", "unknown");
  b.version = j.value("version", "unknown");
  b.corename = j.value("corename", "unknown");
  b.coretype_env = j.value("coretype_env", "");
  std::vector<std::string> flags;
  const auto& cpu = platform_json.at("cpu");
  if (cpu.contains("flags")) flags = cpu.at("flags").get<std::vector<std::string>>();
  return BlasKernelWarning(b, flags);
}

}  // namespace cb::harness

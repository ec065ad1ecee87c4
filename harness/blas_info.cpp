// File: harness/blas_info.cpp
// -----------------------------------------------------------------------------
// harness/blas_info.h: dladdr on cblas_sgemm for the library, OpenBLAS's own
// queries (weak, so a non-OpenBLAS CBLAS links and reports "unknown").
#include "harness/blas_info.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
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
  return b;
}

nlohmann::json ToJson(const BlasInfo& b) {
  return {{"library", b.library}, {"vendor", b.vendor}, {"version", b.version},
          {"corename", b.corename}, {"config", b.config}};
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

std::string GenericBlasWarning(const BlasInfo& blas, const std::vector<std::string>& cpu_flags) {
  if (blas.vendor != "OpenBLAS" || !IsPreAvx2Core(blas.corename)) return "";
  const auto has = [&](const char* f) {
    return std::find(cpu_flags.begin(), cpu_flags.end(), f) != cpu_flags.end();
  };
  std::string unused;
  if (has("avx512f")) unused = "AVX-512";
  if (has("avx2")) unused += unused.empty() ? "AVX2" : " and AVX2";
  if (unused.empty()) return "";
  return "warning: OpenBLAS " + blas.version + " runs its generic \"" + blas.corename +
         "\" kernels on this " + unused +
         " CPU: SGEMM (and the cpu_sgemm ceiling) is far below the machine; not changed "
         "(OPENBLAS_CORETYPE is never set here)";
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

std::string GenericBlasWarning() { return GenericBlasWarning(DetectBlas(), CpuFlags()); }

std::string GenericBlasWarning(const nlohmann::json& platform_json) {
  if (!platform_json.contains("blas") || !platform_json.contains("cpu")) return "";
  const auto& j = platform_json.at("blas");
  BlasInfo b;
  b.vendor = j.value("vendor", "unknown");
  b.version = j.value("version", "unknown");
  b.corename = j.value("corename", "unknown");
  std::vector<std::string> flags;
  const auto& cpu = platform_json.at("cpu");
  if (cpu.contains("flags")) flags = cpu.at("flags").get<std::vector<std::string>>();
  return GenericBlasWarning(b, flags);
}

}  // namespace cb::harness

// File: ledger/cli/common.cpp
#include "ledger/cli/common.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "harness/build_info.h"
#include "harness/ceilings.h"
#include "harness/platform.h"
#include "harness/source_hash.h"

namespace cb::cli {
namespace {

// Output of a shell command with trailing newlines removed; empty on failure.
std::string Capture(const char* command) {
  std::string out;
  FILE* pipe = popen(command, "r");
  if (pipe == nullptr) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  if (pclose(pipe) != 0) return "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string ResolveLedgerPath(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = std::getenv("CLAIMBENCH_LEDGER"); env != nullptr && *env != '\0') return env;
  return "claimbench.db";
}

void AddLedgerOption(CLI::App* cmd, std::string* value) {
  cmd->add_option("--ledger", *value,
                  "Ledger file (default $CLAIMBENCH_LEDGER, else ./claimbench.db)");
}

void AddExpectHeadOption(CLI::App* cmd, std::string* value) {
  cmd->add_option("--expect-head", *value,
                   "Fail (exit 1) unless this chain hash (as `ledger head` printed it earlier) is "
                   "still in the ledger's verified chain: catches a newest run deleted or unsealed");
}

void CheckExpectHead(const std::string& value) {
  if (value.empty()) return;
  const bool hex = value.size() == 32 &&
                   std::all_of(value.begin(), value.end(),
                               [](unsigned char c) { return std::isxdigit(c) != 0; });
  if (!hex) {
    throw UsageError("--expect-head '" + value +
                     "': expected a chain hash of 32 hex digits, as `claimbench ledger head` prints it");
  }
}

cb::ledger::VerifyReport VerifyOrSay(cb::ledger::Ledger& ledger, const std::string& expect_head) {
  cb::ledger::VerifyReport rep = ledger.Verify(expect_head);
  if (!rep.ok) {
    std::fprintf(stderr, "claimbench: ledger '%s' does not verify: %s\n", ledger.path().c_str(),
                 rep.first_error.c_str());
  }
  return rep;
}

std::string JoinArgs(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) s += ' ';
    s += i == 0 ? "claimbench" : argv[i];  // argv[0] would leak a machine path
  }
  return s;
}

cb::ledger::RunMeta CollectRunMeta(const std::string& command, const std::string& profile,
                                   uint64_t seed) {
  cb::ledger::RunMeta meta;
  meta.command = command;
  meta.profile = profile;
  meta.seed = seed;
  // Ask git about the source tree, not the working directory: a run started
  // from another repository must not record that repository's commit.
  const std::string git = std::string("git -C '") + CB_SOURCE_DIR + "' ";
  meta.git_commit = Capture((git + "rev-parse HEAD 2>/dev/null").c_str());
  meta.git_dirty =
      !meta.git_commit.empty() &&
      !Capture((git + "status --porcelain --untracked-files=no 2>/dev/null").c_str()).empty();
  meta.source_hash = cb::harness::build_info::kSourceHash;
  const cb::harness::Platform platform = cb::harness::DetectPlatform();
  meta.platform_hash = platform.hash.Hex();
  meta.platform = platform.json;
  namespace bi = cb::harness::build_info;
  meta.build = {{"version", bi::kVersion},         {"build_type", bi::kBuildType},
                {"cxx", bi::kCxxCompiler},         {"cxx_flags", bi::kCxxFlags},
                {"cuda_mode", bi::kCudaMode},      {"cuda", bi::kHaveCuda},
                {"cuda_compiler", bi::kCudaCompiler}, {"cuda_architectures", bi::kCudaArchitectures}};
  return meta;
}

std::vector<cb::ledger::Ceiling> EnsureCeilings(cb::ledger::Ledger& ledger,
                                                const std::string& platform_hash,
                                                bool remeasure) {
  constexpr bool quick = true;
  auto stored = ledger.GetCeilings(platform_hash);
  if (!stored.empty() && !remeasure) return stored;
  std::vector<cb::ledger::Ceiling> measured;
  auto add = [&](const std::vector<cb::harness::CeilingMeasurement>& ms) {
    for (const auto& m : ms) measured.push_back({m.name, m.value, m.unit, m.detail});
  };
  add(cb::harness::MeasureCpuCeilings(quick));
  add(cb::harness::MeasureGpuCeilings(quick));
  std::vector<cb::ledger::Ceiling> raised;
  for (const auto& m : measured) {
    const auto old = std::find_if(stored.begin(), stored.end(),
                                  [&](const cb::ledger::Ceiling& c) { return c.name == m.name; });
    if (old == stored.end() || m.value > old->value) {
      if (old != stored.end()) {
        std::printf("ceiling %s: %.4g -> %.4g %s\n", m.name.c_str(), old->value, m.value,
                    m.unit.c_str());
      }
      raised.push_back(m);
    }
  }
  if (!raised.empty()) ledger.PutCeilings(platform_hash, raised);
  return ledger.GetCeilings(platform_hash);
}

void RemoveIfCreated(const std::string& path, bool created) {
  if (!created) return;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::error_code ignored;
    std::filesystem::remove(path + suffix, ignored);
  }
}

}  // namespace cb::cli

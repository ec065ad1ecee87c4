// File: ledger/cli/common.cpp
#include "ledger/cli/common.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "harness/build_info.h"
#include "harness/ceilings.h"
#include "harness/claim.h"
#include "harness/machine_load.h"
#include "harness/platform.h"
#include "harness/source_hash.h"
#include "ledger/ceiling_update.h"

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

namespace {

bool PlainArg(const std::string& a) {
  if (a.empty()) return false;
  for (unsigned char c : a)
    if (!std::isalnum(c) && std::string_view("_./:=,@%+^-").find(char(c)) == std::string_view::npos) return false;
  return true;
}

}  // namespace

std::string JoinArgs(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) s += ' ';
    const std::string arg = i == 0 ? "claimbench" : argv[i];  // argv[0] would leak a machine path
    if (PlainArg(arg)) {
      s += arg;
      continue;
    }
    s += '\'';
    for (char c : arg) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

std::vector<std::string> SplitArgs(const std::string& command) {
  std::vector<std::string> args;
  std::string current;
  bool in_arg = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == '\'') {
      const size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) throw UsageError("command '" + command + "': unterminated quote");
      current += command.substr(i + 1, end - i - 1);
      i = end;
      in_arg = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      current += command[++i];
      in_arg = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_arg) args.push_back(current);
      current.clear();
      in_arg = false;
    } else {
      current += c;
      in_arg = true;
    }
  }
  if (in_arg) args.push_back(current);
  return args;
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

std::string CeilingLoadOverride() {
  const char* env = std::getenv("CB_CEILING_LOAD");
  const std::string value = env != nullptr ? env : "";
  if (!value.empty() && value != "quiet" && value != "busy") {
    throw UsageError("CB_CEILING_LOAD='" + value + "': expected quiet or busy (or unset to sample the load)");
  }
  return value;
}

std::vector<cb::ledger::Ceiling> EnsureCeilings(cb::ledger::Ledger& ledger,
                                                const std::string& platform_hash,
                                                bool remeasure) {
  constexpr bool quick = true;
  const std::string override = CeilingLoadOverride();
  auto stored = ledger.GetCeilings(platform_hash);
  // Stored by an older build that measured fewer ceilings: measure again
  // (CeilingsToStore keeps every stored one that is not beaten).
  auto has_every_cpu_ceiling = [&] {
    for (const std::string& name : cb::harness::CpuCeilingNames()) {
      if (std::none_of(stored.begin(), stored.end(),
                       [&](const cb::ledger::Ceiling& c) { return c.name == name; })) {
        return false;
      }
    }
    return true;
  };
  auto done = [&] {
    return !stored.empty() && !remeasure && !cb::ledger::AnyProvisional(stored) &&
           has_every_cpu_ceiling();
  };
  if (done()) return stored;
  // One measurer at a time on this machine; then look again, since the
  // process we waited for may have measured into this very ledger.
  const cb::harness::MachineLock lock("ceilings", [] {
    std::fprintf(stderr, "claimbench: waiting for another claimbench process to finish measuring this "
                         "machine's ceilings\n");
  });
  if (cb::harness::InterruptRequested()) return stored;  // the caller reports the interrupt
  stored = ledger.GetCeilings(platform_hash);
  if (done()) return stored;

  const cb::harness::MachineLoad before = cb::harness::SampleMachineLoad();
  std::vector<cb::ledger::Ceiling> measured;
  auto add = [&](const std::vector<cb::harness::CeilingMeasurement>& ms) {
    for (const auto& m : ms) measured.push_back({m.name, m.value, m.unit, m.detail});
  };
  add(cb::harness::MeasureCpuCeilings(quick));
  add(cb::harness::MeasureGpuCeilings(quick));
  const cb::harness::MachineLoad load = cb::harness::Busier(before, cb::harness::SampleMachineLoad());
  const bool busy = override.empty() ? load.Busy() : override == "busy";
  for (auto& m : measured) {
    m.detail["provisional"] = busy;
    m.detail["load"] = load.ToJson();
    if (!override.empty()) m.detail["load"]["override"] = "CB_CEILING_LOAD=" + override;
    m.detail["machine_lock"] = lock.held() ? "held" : lock.reason();
  }
  if (busy) {
    std::fprintf(stderr, "claimbench: ceilings measured while %.3g other tasks were runnable: stored as "
                         "provisional, measured again by the next run on a quiet machine\n", load.others_runnable);
  }
  const auto to_store = cb::ledger::CeilingsToStore(stored, measured);
  for (const auto& m : to_store) {
    const auto old = std::find_if(stored.begin(), stored.end(),
                                  [&](const cb::ledger::Ceiling& c) { return c.name == m.name; });
    if (old != stored.end()) {
      // stderr: stdout is the command's output (a `run --json` document).
      std::fprintf(stderr, "claimbench: ceiling %s: %.4g -> %.4g %s%s\n", m.name.c_str(), old->value, m.value,
                   m.unit.c_str(), cb::ledger::IsProvisional(m) ? " (provisional)" : "");
    }
  }
  if (!to_store.empty()) ledger.PutCeilings(platform_hash, to_store);
  return ledger.GetCeilings(platform_hash);
}

std::optional<std::string> LedgerResponseCache::Get(const std::string& key) {
  std::optional<std::string> answer = ledger_.CacheGet(key);
  if (answer) used_[key] = cb::harness::Xxh3_128(*answer);
  return answer;
}

void LedgerResponseCache::Put(const std::string& key, std::string_view response) {
  ledger_.CachePut(key, response);
  used_[key] = cb::harness::Xxh3_128(response);
  ++stored_;
}

cb::harness::Result LedgerResponseCache::AnswersRow(const std::string& suite, const std::string& input_hash) const {
  std::string bytes;
  for (const auto& [key, answer] : used_) {  // std::map: key order
    bytes += key;
    bytes += '\0';  // a key never holds NUL (it is a hash in hex)
    bytes += answer.Hex();
  }
  cb::harness::Result r;
  r.suite = suite;
  r.case_name = "endpoint_answers";
  r.metric = "answers_used";
  r.unit = "count";
  r.value = static_cast<double>(used_.size());
  r.n = static_cast<int64_t>(used_.size());
  r.input_hash = input_hash;
  r.output_hash = cb::harness::Xxh3_128(bytes).Hex();
  r.kind = cb::harness::ResultKind::kExact;
  return r;
}

void RemoveIfCreated(const std::string& path, bool created) {
  if (!created) return;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::error_code ignored;
    std::filesystem::remove(path + suffix, ignored);
  }
}

}  // namespace cb::cli

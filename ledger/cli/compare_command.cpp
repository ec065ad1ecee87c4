// File: ledger/cli/compare_command.cpp
// `claimbench compare`: two ledgers, two platform hashes in one ledger, or the
// cpu and cuda rows of one run, side by side (ledger/analysis/compare.h).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/analysis/compare.h"
#include "ledger/analysis/run_data.h"

namespace cb::cli {
namespace {

namespace lg = cb::ledger;

struct CompareOptions {
  std::string ledger;
  std::string other;                   // mode 1: a second ledger
  std::string run, other_run;          // default: newest sealed complete run
  std::vector<std::string> platforms;  // mode 2: two platform hash prefixes
  std::string backends;                // mode 3: "cpu,cuda"
  std::vector<std::string> params;     // --param KEY=VALUE filters
  bool json = false;
};

lg::Ledger OpenExisting(const std::string& path) {
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  return lg::Ledger::OpenReadOnly(path);
}

int64_t PickRun(lg::Ledger& ledger, const std::string& ref) {
  return ref.empty() ? lg::NewestSealedRun(ledger) : ledger.ResolveRun(ref);
}

// The newest sealed run whose platform hash starts with `prefix`.
int64_t RunOnPlatform(lg::Ledger& ledger, const std::string& prefix) {
  int64_t found = 0;
  for (const auto& r : ledger.Log(1 << 30)) {
    if (r.run_hash.empty() || r.platform_hash.rfind(prefix, 0) != 0) continue;
    if (r.status == "complete") return r.id;
    if (found == 0) found = r.id;
  }
  if (found == 0) throw UsageError("no sealed run on a platform starting with '" + prefix + "'");
  return found;
}

std::string Label(const lg::RunData& d) {
  return d.label + " (platform " + d.run.platform_hash.substr(0, 12) + ")";
}

int Compare(const CompareOptions& o) {
  const int modes = !o.other.empty() + !o.platforms.empty() + !o.backends.empty();
  if (modes != 1) throw UsageError("give exactly one of --other, --platform (twice) or --backends");
  if (!o.platforms.empty() && o.platforms.size() != 2) {
    throw UsageError("--platform must be given exactly twice");
  }
  std::string backend_a, backend_b;
  if (!o.backends.empty()) {
    const auto comma = o.backends.find(',');
    if (comma == std::string::npos) throw UsageError("--backends '" + o.backends + "': expected A,B (e.g. cpu,cuda)");
    backend_a = o.backends.substr(0, comma);
    backend_b = o.backends.substr(comma + 1);
    if (backend_a.empty() || backend_b.empty() || backend_a == backend_b) {
      throw UsageError("--backends '" + o.backends + "': expected two different backends");
    }
  }
  std::vector<lg::ParamFilter> filters;
  for (const auto& p : o.params) {
    try {
      filters.push_back(lg::ParseParamFilter(p));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  lg::Ledger ledger = OpenExisting(ResolveLedgerPath(o.ledger));
  lg::RunData a, b;
  if (!o.other.empty()) {
    lg::Ledger other = OpenExisting(o.other);
    a = lg::LoadRun(ledger, PickRun(ledger, o.run));
    b = lg::LoadRun(other, PickRun(other, o.other_run));
  } else if (!o.platforms.empty()) {
    a = lg::LoadRun(ledger, RunOnPlatform(ledger, o.platforms[0]));
    b = lg::LoadRun(ledger, RunOnPlatform(ledger, o.platforms[1]));
  } else {
    a = lg::LoadRun(ledger, PickRun(ledger, o.run));
  }
  const lg::RunData& b_run = o.backends.empty() ? b : a;
  const lg::CompareReport rep =
      lg::Compare({o.backends.empty() ? Label(a) : Label(a) + " " + backend_a, backend_a, &a},
                  {o.backends.empty() ? Label(b_run) : Label(a) + " " + backend_b, backend_b, &b_run},
                  2000, filters);
  if (o.json) {
    std::cout << lg::CompareJson(rep).dump(2) << "\n";
  } else {
    std::cout << lg::CompareTable(rep);
  }
  return kExitOk;
}

}  // namespace

void AddCompareCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Two ledgers, two platforms or cpu vs cuda: per-case speedups with CIs, geometric means");
  AddLedgerOption(cmd, &o->ledger);
  cmd->add_option("--other", o->other, "A second ledger: its run is side B");
  cmd->add_option("--run", o->run, "Run of --ledger (default: the newest complete sealed run)");
  cmd->add_option("--other-run", o->other_run, "Run of --other (default: its newest complete sealed run)");
  cmd->add_option("--platform", o->platforms,
                  "A platform hash prefix; give two: the newest run on each, from --ledger");
  cmd->add_option("--backends", o->backends, "A,B: the two backends' rows of one run, e.g. cpu,cuda");
  cmd->add_option("--param", o->params,
                  "KEY=VALUE: only rows whose params have it (repeatable; numbers match numbers, "
                  "e.g. a benchmark axis rows=1000)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o, exit_code] { *exit_code = Compare(*o); });
}

CB_REGISTER_COMMAND(compare, AddCompareCommand);

}  // namespace cb::cli

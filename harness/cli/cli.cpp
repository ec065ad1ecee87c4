// File: harness/cli/cli.cpp
// The `claimbench` app: the command registry (the ledger's commands and the
// methods' register through it), and the single place where errors and
// interrupts become one line on stderr and exit code 3. The SIGINT/SIGTERM
// handlers are installed here, once, for every command (harness/interrupt.h).
#include "harness/cli/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "harness/build_info.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"

namespace cb::cli {
namespace {

// First line of a message: errors are always one line.
std::string OneLine(std::string s) {
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

// Names an unknown command ("claimbench frobnicate", "claimbench ledger frob")
// instead of CLI11's generic "a subcommand is required".
void CheckCommandNames(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  for (int i = 1; i < argc && level != nullptr; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-') return;  // options: CLI11 checks them
    const auto subs = level->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) return;  // a positional argument of a leaf command
    const CLI::App* next = nullptr;
    std::string names;
    for (const CLI::App* sub : subs) {
      if (sub->get_name() == arg) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (next == nullptr) throw UsageError("unknown command '" + arg + "' (expected " + names + ")");
    level = next;
  }
}

// The command that ran, as typed: "eval sgp", "gen videoniah", "run".
std::string ParsedCommand(const CLI::App& app) {
  std::string name;
  const CLI::App* level = &app;
  while (true) {
    const auto parsed = level->get_subcommands();
    if (parsed.empty()) break;
    level = parsed.front();
    name += (name.empty() ? "" : " ") + level->get_name();
  }
  return name;
}

std::vector<RegisteredCommand>& MutableCommands() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

}  // namespace

CommandRegistration::CommandRegistration(const char* name, AddCommandFn add) {
  auto& commands = MutableCommands();
  const auto at = std::lower_bound(
      commands.begin(), commands.end(), name,
      [](const RegisteredCommand& c, const char* n) { return std::strcmp(c.name, n) < 0; });
  commands.insert(at, {name, add});
}

const std::vector<RegisteredCommand>& RegisteredCommands() { return MutableCommands(); }

std::string Fit(const std::string& s, size_t width) {
  if (s.size() > width) return s.substr(0, width - 1) + "~";
  return s + std::string(width - s.size(), ' ');
}

CLI::App* CommandGroup(CLI::App& app, const std::string& name, const std::string& description) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  CLI::App* group = app.add_subcommand(name, description);
  group->require_subcommand(1);
  return group;
}

int Main(int argc, char** argv) {
  CLI::App app{"claimbench: check ICLR 2025 papers' claims on CPU and CUDA, and record every "
               "result in a hashed SQLite ledger."};
  app.name("claimbench");
  app.set_version_flag("--version", std::string("claimbench ") + cb::harness::build_info::kVersion);
  app.require_subcommand(1);

  int exit_code = kExitOk;
  const CommandLine cmdline{argc, argv};
  AddListCommand(app, &exit_code);
  for (const RegisteredCommand& command : RegisteredCommands()) {
    command.add(app, cmdline, &exit_code);
  }

  // Before any command runs: a signal then only sets the flag, and the command
  // stops at its next check point (a second signal kills).
  cb::harness::InstallInterruptHandlers();
  try {
    CheckCommandNames(app, argc, argv);
    app.parse(argc, argv);
  } catch (const cb::harness::Interrupted& e) {
    std::fprintf(stderr, "claimbench: %s\n", OneLine(cb::harness::InterruptLine(ParsedCommand(app), e)).c_str());
    return kExitError;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "claimbench: error: %s (see --help)\n", OneLine(e.what()).c_str());
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "claimbench: error: %s\n", OneLine(e.what()).c_str());
    return kExitError;
  } catch (...) {
    std::fprintf(stderr, "claimbench: error: unexpected exception\n");
    return kExitError;
  }
  return exit_code;
}

}  // namespace cb::cli

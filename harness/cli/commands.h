// File: harness/cli/commands.h
// -----------------------------------------------------------------------------
// The command registry of `claimbench`. Each command adds itself to the app;
// its callback stores the process exit code in `*exit_code`. Only `list` is
// the harness's own; the commands that read or write a ledger (ledger/cli/)
// and each method's commands (suites/<m>/*_command.cpp) register statically
// with CB_REGISTER_COMMAND, as claims do, so the harness depends on neither.
#ifndef CB_HARNESS_CLI_COMMANDS_H_
#define CB_HARNESS_CLI_COMMANDS_H_

#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cb::cli {

// Exit codes (DESIGN §8).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;    // a regression / failed claim, where asked to gate
inline constexpr int kExitInconclusive = 2;
inline constexpr int kExitError = 3;

// A user-facing error: one line, names the bad input; exit code 3.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Pads or cuts `s` to `width` characters (for terminal tables).
std::string Fit(const std::string& s, size_t width);

struct CommandLine {
  int argc;
  char** argv;
};

void AddListCommand(CLI::App& app, int* exit_code);

// A registered command: adds one subcommand (or a group of them) to `app`.
using AddCommandFn = void (*)(CLI::App& app, const CommandLine& cmdline, int* exit_code);

struct CommandRegistration {
  CommandRegistration(const char* name, AddCommandFn add);
};

struct RegisteredCommand {
  const char* name;
  AddCommandFn add;
};

// CommandGroup()
//
// The subcommand `name` of `app` that groups methods' commands ("gen" for
// generators, "eval" for evaluations on real models' outputs), created with
// `description` by whichever method registers under it first; each method
// then adds its own subcommand to it ("gen corpus", "eval mia").
CLI::App* CommandGroup(CLI::App& app, const std::string& name, const std::string& description);

// Every registered command, sorted by name.
const std::vector<RegisteredCommand>& RegisteredCommands();

#define CB_REGISTER_COMMAND(name, add_fn) \
  static const ::cb::cli::CommandRegistration cb_command_registration_##name(#name, add_fn)

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_COMMANDS_H_

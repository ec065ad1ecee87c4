// File: harness/cli/commands.h
// Each `claimbench` command adds itself to the app; its callback stores the
// process exit code in `*exit_code`. The harness's own commands are called by
// name from cli.cpp; a method's commands (e.g. `claimbench docs`) live in its
// suite folder and register statically with CB_REGISTER_COMMAND, as claims do,
// so the harness never depends on a paper.
#ifndef CB_HARNESS_CLI_COMMANDS_H_
#define CB_HARNESS_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cb::cli {

struct CommandLine {
  int argc;
  char** argv;
};

void AddListCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code);
void AddBenchCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code);
void AddLedgerCommand(CLI::App& app, int* exit_code);
void AddAnalysisCommands(CLI::App& app, int* exit_code);  // gate, compare, history, report

// A method's command: adds one subcommand to `app`.
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

// Every registered method command, sorted by name.
const std::vector<RegisteredCommand>& RegisteredCommands();

#define CB_REGISTER_COMMAND(name, add_fn) \
  static const ::cb::cli::CommandRegistration cb_command_registration_##name(#name, add_fn)

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_COMMANDS_H_

// File: harness/cli/commands.h
// Each `claimbench` command adds itself to the app; its callback stores the
// process exit code in `*exit_code`.
#ifndef CB_HARNESS_CLI_COMMANDS_H_
#define CB_HARNESS_CLI_COMMANDS_H_

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

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_COMMANDS_H_

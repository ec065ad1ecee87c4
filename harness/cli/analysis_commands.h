// File: harness/cli/analysis_commands.h
// -----------------------------------------------------------------------------
// The commands that read ledgers and judge them (issue 4): gate, compare,
// history, report. AddAnalysisCommands() registers them all (one line in cli.cpp).
#ifndef CB_HARNESS_CLI_ANALYSIS_COMMANDS_H_
#define CB_HARNESS_CLI_ANALYSIS_COMMANDS_H_

#include <string>

#include <CLI/CLI.hpp>

namespace cb::cli {

void AddGateCommand(CLI::App& app, int* exit_code);
void AddCompareCommand(CLI::App& app, int* exit_code);
void AddHistoryCommand(CLI::App& app, int* exit_code);
void AddReportCommand(CLI::App& app, int* exit_code);

// Writes `text` to `path` through a temporary file in the same folder and a
// rename, so a failed write never leaves a partial file.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_ANALYSIS_COMMANDS_H_

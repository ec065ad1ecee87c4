// File: harness/cli/cli.h
// The `claimbench` command line (DESIGN §8).
#ifndef CB_HARNESS_CLI_CLI_H_
#define CB_HARNESS_CLI_CLI_H_

namespace cb::cli {

// Parses argv, runs the command, returns the process exit code:
// 0 ok, 1 regression or failed claim (where asked to gate), 2 inconclusive, 3 error.
int Main(int argc, char** argv);

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_CLI_H_

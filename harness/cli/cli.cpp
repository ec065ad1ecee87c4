// File: harness/cli/cli.cpp
// The `claimbench` app: subcommands, and the single place where errors become
// one line on stderr and exit code 3.
#include "harness/cli/cli.h"

#include <cstdio>
#include <exception>
#include <string>

#include "harness/build_info.h"
#include "harness/cli/commands.h"
#include "harness/cli/common.h"

namespace cb::cli {
namespace {

// First line of a message: errors are always one line.
std::string OneLine(std::string s) {
  const auto nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"claimbench: check ICLR 2025 papers' claims on CPU and CUDA, and record every "
               "result in a hashed SQLite ledger."};
  app.name("claimbench");
  app.set_version_flag("--version", std::string("claimbench ") + cb::harness::build_info::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  int exit_code = kExitOk;
  const CommandLine cmdline{argc, argv};
  AddListCommand(app, &exit_code);
  AddRunCommand(app, cmdline, &exit_code);
  AddBenchCommand(app, cmdline, &exit_code);
  AddLedgerCommand(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "claimbench: error: %s (see --help)\n", OneLine(e.what()).c_str());
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "claimbench: error: %s\n", OneLine(e.what()).c_str());
    return kExitError;
  }
  return exit_code;
}

}  // namespace cb::cli

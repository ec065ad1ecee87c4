// File: harness/cli/analysis_commands.cpp
// -----------------------------------------------------------------------------
// Registration of gate / compare / history, and the atomic file writer they share.
#include "harness/cli/analysis_commands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "harness/cli/commands.h"

namespace cb::cli {

void AddAnalysisCommands(CLI::App& app, int* exit_code) {
  AddGateCommand(app, exit_code);
  AddCompareCommand(app, exit_code);
  AddHistoryCommand(app, exit_code);
  AddReportCommand(app, exit_code);
}

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write '" + path + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace cb::cli

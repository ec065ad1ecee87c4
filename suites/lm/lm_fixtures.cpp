// File: suites/lm/lm_fixtures.cpp
// -----------------------------------------------------------------------------
// The run-time lookup of fixtures/lm (lm_fixtures.h).
#include "suites/lm/lm_fixtures.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace cb::lm_suite {

namespace fs = std::filesystem;

std::string LmFixturesDir() {
  if (const char* env = std::getenv(kLmFixturesEnv); env != nullptr && *env != '\0') return env;
  // A relocated test binary (the GPU bundle) names its fixtures folder so.
  if (const char* env = std::getenv("CB_FIXTURES_DIR"); env != nullptr && *env != '\0')
    return (fs::path(env) / "lm").string();
  std::error_code ec;
  fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (; !ec && !dir.empty(); dir = dir.parent_path()) {
    const fs::path candidate = dir / "fixtures" / "lm";
    if (fs::exists(candidate / "draft" / "config.json", ec)) return candidate.string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

std::string MissingLmFixtures() {
  return std::string("the substrate's trained models (fixtures/lm) were not found: set ") +
         kLmFixturesEnv + " to that folder";
}

}  // namespace cb::lm_suite

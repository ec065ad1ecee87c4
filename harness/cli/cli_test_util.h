// File: harness/cli/cli_test_util.h
// -----------------------------------------------------------------------------
// What every end-to-end test of the `claimbench` binary needs (header-only:
// harness/cli/*.cpp other than tests are the CLI library itself):
//   ClaimbenchBinary()  $CB_CLAIMBENCH (a relocated GPU bundle) or the build's
//   ClaimbenchTest      a fresh temporary folder per test, and the binary
//                       started there with stdout/stderr captured to files.
#ifndef CB_HARNESS_CLI_CLI_TEST_UTIL_H_
#define CB_HARNESS_CLI_CLI_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cb::cli::testing {

inline const char* ClaimbenchBinary() {
  const char* env = std::getenv("CB_CLAIMBENCH");
  return env != nullptr && *env != '\0' ? env : CB_CLAIMBENCH;
}

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Output {
  int exit_code = -1;
  std::string out, err;
};

class ClaimbenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("cb_cli_" + std::to_string(getpid()) + "_" +
                                                     info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Starts claimbench with `args` in the test's folder (without
  // $CLAIMBENCH_LEDGER); its stdout goes to <log>, its stderr to <log>.err.
  pid_t Spawn(const std::vector<std::string>& args, const std::string& log = "stdout") {
    const pid_t pid = fork();
    if (pid == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(127);
      if (std::freopen((dir_ / log).c_str(), "w", stdout) == nullptr) _exit(127);
      if (std::freopen((dir_ / (log + ".err")).c_str(), "w", stderr) == nullptr) _exit(127);
      std::vector<char*> argv = {const_cast<char*>(ClaimbenchBinary())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      unsetenv("CLAIMBENCH_LEDGER");
      execv(ClaimbenchBinary(), argv.data());
      _exit(127);
    }
    return pid;
  }

  // Waits for `pid` and reads what Spawn(..., log) captured.
  Output Wait(pid_t pid, const std::string& log = "stdout") {
    int status = 0;
    waitpid(pid, &status, 0);
    Output o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = ReadFile(dir_ / log);
    o.err = ReadFile(dir_ / (log + ".err"));
    return o;
  }

  Output Run(const std::vector<std::string>& args) { return Wait(Spawn(args)); }

  // A path inside the test's folder.
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace cb::cli::testing

#endif  // CB_HARNESS_CLI_CLI_TEST_UTIL_H_

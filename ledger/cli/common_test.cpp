// File: ledger/cli/common_test.cpp
// The recorded command line: JoinArgs quotes what SplitArgs must read back
// (`claimbench reproduce` re-runs a run from it).
#include "ledger/cli/common.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cb::cli {
namespace {

std::string Join(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return JoinArgs(int(argv.size()), argv.data());
}

TEST(CommandLine, PlainArgumentsAreWrittenAsTheyAre) {
  EXPECT_EQ(Join({"/opt/bin/claimbench", "run", "--profile", "smoke", "--seed", "7", "--ledger", "a/b.db"}),
            "claimbench run --profile smoke --seed 7 --ledger a/b.db");
}

TEST(CommandLine, EveryArgumentRoundTrips) {
  const std::vector<std::vector<std::string>> cases = {
      {"claimbench", "run", "--claim", "harness\\.H[23]"},
      {"claimbench", "run", "--suite", "two words", "--claim", ""},
      {"claimbench", "eval", "--prompt", "it's \"quoted\" $HOME `x` \\ ;|&"},
      {"claimbench", "run", "--claim", "'", "--claim", "''", "--claim", "a'b'c"},
      {"claimbench", "x", "tab\there", "new\nline"},
  };
  for (const auto& args : cases) {
    const std::string joined = Join(args);
    EXPECT_EQ(SplitArgs(joined), args) << joined;
  }
}

TEST(CommandLine, SplitArgsReadsBackslashesAndRefusesAnOpenQuote) {
  EXPECT_EQ(SplitArgs("a\\ b  'c d'e"), (std::vector<std::string>{"a b", "c de"}));
  EXPECT_THROW(SplitArgs("claimbench run --claim 'open"), UsageError);
  EXPECT_TRUE(SplitArgs("   ").empty());
}

}  // namespace
}  // namespace cb::cli

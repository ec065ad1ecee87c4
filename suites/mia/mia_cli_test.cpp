// File: harness/cli/mia_cli_test.cpp
// End-to-end tests of `claimbench eval mia` and `claimbench gen corpus`: a
// valid statistics file is evaluated and recorded; malformed JSON, NaN, an
// empty text, mismatched lengths and a single class each give exit 3 with one
// line naming FILE:LINE and record nothing; gen corpus writes the WikiMIA and
// MIMIR schemas with a manifest, is deterministic, refuses bad input, and
// writes nothing when interrupted (SIGINT mid-run, harness/interrupt.h).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fixtures/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class MiaCliTest : public ClaimbenchTest {
 protected:
  // Runs claimbench with `args` (a shell-quoted string); returns the exit code.
  int Run(const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && env -u CLAIMBENCH_LEDGER '" +
                            cb::cli::testing::ClaimbenchBinary() + "' " + args +
                            " > stdout 2> stderr";
    const int status = std::system(cmd.c_str());
    out_ = ReadFile(dir_ / "stdout");
    err_ = ReadFile(dir_ / "stderr");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  std::string out_, err_;
};

// Four texts: members have higher log-likelihoods.
const char* kGoodStats =
    R"({"label": 1, "ll": [-1.0, -2.0, -0.5], "mu": [-1.5, -2.0, -1.0], "sigma": [1.0, 0.8, 0.9], "text": "A b c d"})"
    "\n"
    R"({"label": 1, "ll": [-1.5, -1.0], "mu": [-1.2, -1.1], "sigma": [0.7, 0.6], "text": "e f g"})"
    "\n\n"
    R"({"label": 0, "ll": [-4.0, -3.0, -5.0], "mu": [-1.5, -2.0, -1.0], "sigma": [1.0, 0.8, 0.9], "text": "h i j k"})"
    "\n"
    R"({"label": 0, "ll": [-3.5, -2.5], "mu": [-1.0, -1.0], "sigma": [0.5, 0.5], "text": "l m n"})"
    "\n";

TEST_F(MiaCliTest, EvalMiaRecordsEveryMethod) {
  Write("stats.jsonl", kGoodStats);
  ASSERT_EQ(Run("eval mia --stats stats.jsonl --ledger l.db --resamples 50 --json"), 0) << err_;
  const auto j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["texts"], 4);
  bool saw_minkpp = false;
  for (const auto& m : j["methods"]) {
    if (m["method"] == "loss") { EXPECT_DOUBLE_EQ(m["auroc"].get<double>(), 1.0); }
    saw_minkpp |= m["method"] == "minkpp_0.5";
  }
  EXPECT_TRUE(saw_minkpp);
  ASSERT_EQ(Run("ledger show latest --ledger l.db --json"), 0) << err_;
  EXPECT_NE(out_.find("eval_stats"), std::string::npos);
  ASSERT_EQ(Run("ledger verify --ledger l.db"), 0) << out_ << err_;
}

TEST_F(MiaCliTest, EvalMiaBadInputNamesTheLineAndRecordsNothing) {
  const std::string good_line = R"({"label": 1, "ll": [-1.0]})";
  const std::string bad_lines[] = {
      R"({"label": 0, "ll": [-1.0, NaN]})",  // Python's json.dumps of a NaN
      R"({"label": 0, "ll": []})",           // empty text
      R"({"label": 0, "ll": [-1.0, -2.0], "mu": [-1.0], "sigma": [1.0]})",  // lengths differ
      R"({"label": 0, "ll": [-1.0, null]})",
      R"({"label": 2, "ll": [-1.0]})",
      R"({"label": 0, "ll": [-1.0])",  // truncated JSON
  };
  const char* expected[] = {"not valid JSON",  "empty text",        "mismatched lengths",
                            "is not a number", "'label' must be 0", "not valid JSON"};
  for (size_t i = 0; i < std::size(bad_lines); ++i) {
    Write("bad.jsonl", good_line + "\n" + bad_lines[i] + "\n");
    EXPECT_EQ(Run("eval mia --stats bad.jsonl --ledger bad.db"), 3) << bad_lines[i];
    EXPECT_NE(err_.find("bad.jsonl:2: "), std::string::npos) << err_;
    EXPECT_NE(err_.find(expected[i]), std::string::npos) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "bad.db")) << "a ledger was created for bad input";
  }
  Write("one_class.jsonl", good_line + "\n" + good_line + "\n");
  EXPECT_EQ(Run("eval mia --stats one_class.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("needs members"), std::string::npos) << err_;
  Write("mixed.jsonl", good_line + "\n" + R"({"label": 0, "ll": [-2.0], "text": "x"})" + "\n");
  EXPECT_EQ(Run("eval mia --stats mixed.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("every line or on none"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval mia --stats missing.jsonl --ledger bad.db"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

TEST_F(MiaCliTest, EveryMutationOfAStatsFileIsNamed) {
  // A number beyond double was nlohmann's bare "number overflow" (issue 30).
  Write("big.jsonl", std::string(kGoodStats) + R"({"label": 0, "ll": [1e999]})" + "\n");
  EXPECT_EQ(Run("eval mia --stats big.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("big.jsonl:6: not valid JSON"), std::string::npos) << err_;
  ExpectMutationsNameTheFile({"eval", "mia", "--stats", "m.jsonl", "--resamples", "20", "--ledger", "m.db"},
                             "m.jsonl", kGoodStats);
}

TEST_F(MiaCliTest, GenCorpusWritesBothSchemasDeterministically) {
  const std::string args =
      "gen corpus --split wikimia --seed 5 --per-class 20 --background-docs 20 --length 32";
  ASSERT_EQ(Run(args + " --out a"), 0) << err_;
  ASSERT_EQ(Run(args + " --out b"), 0) << err_;
  const auto manifest = nlohmann::json::parse(ReadFile(dir_ / "a" / "manifest.json"));
  EXPECT_EQ(manifest["content_hash"],
            nlohmann::json::parse(ReadFile(dir_ / "b" / "manifest.json"))["content_hash"]);
  EXPECT_EQ(ReadFile(dir_ / "a" / "wikimia.jsonl"), ReadFile(dir_ / "b" / "wikimia.jsonl"));
  std::ifstream wiki(dir_ / "a" / "wikimia.jsonl");
  std::string line;
  int lines = 0, members = 0;
  while (std::getline(wiki, line)) {
    const auto j = nlohmann::json::parse(line);
    ++lines;
    members += j["label"].get<int>();
    EXPECT_TRUE(j["input"].is_string());
  }
  EXPECT_EQ(lines, 40);
  EXPECT_EQ(members, 20);
  std::ifstream mimir(dir_ / "a" / "mimir.jsonl");
  ASSERT_TRUE(std::getline(mimir, line));
  const auto pair = nlohmann::json::parse(line);
  EXPECT_TRUE(pair["member"].is_string() && pair["nonmember"].is_string());
  // An existing output folder, a bad split and a bad length are refused.
  EXPECT_EQ(Run(args + " --out a"), 3);
  EXPECT_NE(err_.find("already exists"), std::string::npos) << err_;
  EXPECT_EQ(Run("gen corpus --split nope --out c"), 3);
  EXPECT_EQ(Run("gen corpus --split wikimia --length 50 --out c"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "c"));
}

// SIGINT mid-run (issue 30, item 5): a corpus this large takes minutes; the
// generator stops at its next document and DIR is never made.
TEST_F(MiaCliTest, SigintMidGenCorpusWritesNothing) {
  const Output o = InterruptWhen(Spawn({"gen", "corpus", "--per-class", "100000", "--out", "big"}));
  ExpectInterruptLine(o, "gen corpus", {"nothing recorded, nothing written"});
  ExpectNothingWritten("big");
}

}  // namespace

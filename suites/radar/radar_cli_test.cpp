// File: suites/radar/radar_cli_test.cpp
// -----------------------------------------------------------------------------
// End-to-end tests of `claimbench eval radar --checkpoint DIR --ids FILE` on
// the shipped smoke model (fixtures/lm/smoke, HF layout): with a budget that
// covers every token Radar and StreamingLLM decode exactly as dense (gap 0 to
// fp32 rounding); with a small budget they skip tokens and the gap is
// recorded; one verifiable ledger run; bad input is one line with exit 3 and
// creates no ledger; SIGINT mid-run (harness/interrupt.h) exits 3 and
// records nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::ReadFile;

class RadarCliTest : public ClaimbenchTest {
 protected:
  int Run(const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && env -u CLAIMBENCH_LEDGER '" +
                            cb::cli::testing::ClaimbenchBinary() + "' " + args + " > stdout 2> stderr";
    const int status = std::system(cmd.c_str());
    out_ = ReadFile(dir_ / "stdout");
    err_ = ReadFile(dir_ / "stderr");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  // Two sequences of byte-level ids (< 256: single bytes in the smoke BPE).
  void WriteIds() {
    std::string a = "{\"ids\": [", b = "{\"ids\": [";
    for (int i = 0; i < 90; ++i) a += (i ? ", " : "") + std::to_string(97 + (i * 7) % 26);
    for (int i = 0; i < 70; ++i) b += (i ? ", " : "") + std::to_string(32 + (i * 11) % 90);
    Write("ids.jsonl", a + "]}\n\n" + b + "]}\n");
  }
  static std::string Smoke() { return cb::testing::FixturePath("lm/smoke"); }

  std::string out_, err_;
};

TEST_F(RadarCliTest, FullBudgetEqualsDenseAndSmallBudgetIsRecorded) {
  WriteIds();
  ASSERT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids ids.jsonl --budget 1000 --window 4 --ledger l.db --json"),
            0)
      << err_;
  nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j.at("sequences"), 2);
  EXPECT_EQ(j.at("max_length"), 90);
  ASSERT_FALSE(j.at("buckets").empty());
  for (const auto& b : j.at("buckets")) {
    ASSERT_EQ(b.at("methods").size(), 3u);  // dense, radar_B1000, streaming_B1000
    for (const auto& m : b.at("methods")) {
      EXPECT_TRUE(std::isfinite(m.at("perplexity").get<double>()));
      EXPECT_GT(m.at("perplexity").get<double>(), 1.0);
      if (m.contains("nll_gap")) {
        EXPECT_LT(std::abs(m.at("nll_gap").get<double>()), 1e-4) << m.dump();
      }
    }
  }
  ASSERT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids ids.jsonl --budget 4 --budget 8 --window 2 "
                "--ledger l.db --json"),
            0)
      << err_;
  j = nlohmann::json::parse(out_);
  const auto& last = j.at("buckets").back().at("methods");
  ASSERT_EQ(last.size(), 5u);
  double largest_gap = 0;
  for (const auto& m : last)
    if (m.contains("nll_gap")) largest_gap = std::max(largest_gap, std::abs(m.at("nll_gap").get<double>()));
  EXPECT_GT(largest_gap, 1e-4) << "a 4-token budget at t = 90 should change some prediction";
  ASSERT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids ids.jsonl --budget 8 --window 2 --ledger l.db"), 0)
      << err_;
  EXPECT_NE(out_.find("radar_B8"), std::string::npos) << out_;
  EXPECT_NE(out_.find("gap streaming_B8"), std::string::npos) << out_;
  ASSERT_EQ(Run("ledger verify --ledger l.db"), 0) << out_ << err_;
}

TEST_F(RadarCliTest, BadInputIsOneLineAndRecordsNothing) {
  for (const std::string& line : {std::string("{\"ids\": [1, 2, 99999]}"), std::string("{\"ids\": [5]}"),
                                  std::string("{\"text\": \"no ids\"}"), std::string("not json")}) {
    Write("bad.jsonl", line + "\n");
    EXPECT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids bad.jsonl --ledger bad.db"), 3) << line;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_NE(err_.find("bad.jsonl"), std::string::npos) << err_;
  }
  WriteIds();
  EXPECT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids ids.jsonl --budget 0 --ledger bad.db"), 3);
  EXPECT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ids ids.jsonl --aspect 0 --ledger bad.db"), 3);
  EXPECT_EQ(Run("eval radar --checkpoint nowhere --ids ids.jsonl --ledger bad.db"), 3);
  EXPECT_EQ(Run("eval radar --checkpoint '" + Smoke() + "' --ledger bad.db"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

// SIGINT mid-run (issue 30, item 5): 5000 sequences take minutes per method;
// the experiment stops at its next sequence, and as the ledger is opened
// only once every method is done, nothing is recorded.
TEST_F(RadarCliTest, SigintMidEvalRecordsNothing) {
  std::string ids;
  for (int s = 0; s < 5000; ++s) {
    ids += "{\"ids\": [";
    for (int i = 0; i < 90; ++i) ids += (i ? ", " : "") + std::to_string(97 + (i * 7 + s) % 26);
    ids += "]}\n";
  }
  Write("many.jsonl", ids);
  const auto o = InterruptWhen(Spawn({"eval", "radar", "--checkpoint", Smoke(), "--ids", "many.jsonl", "--budget",
                                      "8", "--window", "4", "--ledger", "l.db"}));
  ExpectInterruptLine(o, "eval radar", {"sequences", "nothing recorded, nothing written"});
  ExpectNothingWritten("l.db");
}

}  // namespace

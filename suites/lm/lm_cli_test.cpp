// File: suites/lm/lm_cli_test.cpp
// End-to-end tests of `claimbench lm score` on the PyTorch oracle's tiny HF
// checkpoint (fixtures/lm/oracle/untied_gqa): the log-probabilities and the
// --stats moments equal those computed here from the oracle's golden logits
// (fp64 reference to 1e-12, the fp32 path to 2e-5);
// bad input (an id outside the vocabulary, a missing checkpoint, a sequence
// longer than max_position_embeddings, an unknown --backend) exits 3 with one line
// and writes no output file; so does SIGINT mid-score (harness/interrupt.h),
// with exit 3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"
#include "harness/safetensors.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class LmCliTest : public ClaimbenchTest {
 protected:
  void Write(const std::string& name, const std::string& text) { std::ofstream(Path(name)) << text; }
  static std::string Checkpoint() { return cb::testing::FixturePath("lm/oracle/untied_gqa"); }
};

TEST_F(LmCliTest, ScoreEqualsTheOraclesLogSoftmax) {
  const auto golden = cb::harness::SafetensorsFile::Open(Checkpoint() + "/golden.safetensors");
  const std::vector<double> ids = golden.ReadAsDouble("tokens");
  const std::vector<double> logits = golden.ReadAsDouble("logits");
  const size_t T = ids.size(), V = logits.size() / T;
  nlohmann::json seq = nlohmann::json::array();
  for (const double id : ids) seq.push_back(static_cast<int>(id));
  // Two sequences with a blank line between them: the second is a prefix.
  nlohmann::json prefix(seq.begin(), seq.begin() + 4);
  Write("ids.jsonl", nlohmann::json{{"ids", seq}}.dump() + "\n\n" +
                         nlohmann::json{{"ids", prefix}, {"source", "x"}}.dump() + "\n");
  // The fp64 reference to 1e-12; the fp32 path (the default backend) to 2e-5.
  for (const auto& [backend, tol] : {std::pair{"reference", 1e-12}, std::pair{"cpu", 2e-5}}) {
  SCOPED_TRACE(backend);
  fs::remove(dir_ / "scores.jsonl");
  const Output o = Run({"lm", "score", "--checkpoint", Checkpoint(), "--ids", "ids.jsonl", "--stats",
                        "--out", "scores.jsonl", "--backend", backend});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream lines(ReadFile(dir_ / "scores.jsonl"));
  std::string first, second, extra;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, extra));
  const nlohmann::json a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  EXPECT_EQ(a.at("line"), 1);
  EXPECT_EQ(b.at("line"), 3);
  ASSERT_EQ(a.at("logprobs").size(), T - 1);
  ASSERT_EQ(b.at("logprobs").size(), 3u);
  for (size_t t = 0; t + 1 < T; ++t) {
    const double* row = logits.data() + t * V;
    const double m = *std::max_element(row, row + V);
    double z = 0;
    for (size_t v = 0; v < V; ++v) z += std::exp(row[v] - m);
    const double log_z = m + std::log(z);
    double mu = 0, m2 = 0;
    for (size_t v = 0; v < V; ++v) {
      const double lp = row[v] - log_z;
      mu += std::exp(lp) * lp;
      m2 += std::exp(lp) * lp * lp;
    }
    const double want = row[static_cast<size_t>(ids[t + 1])] - log_z;
    EXPECT_NEAR(a["logprobs"][t].get<double>(), want, tol) << t;
    EXPECT_NEAR(a["mu"][t].get<double>(), mu, tol) << t;
    EXPECT_NEAR(a["sigma"][t].get<double>(), std::sqrt(m2 - mu * mu), tol) << t;
    // Causal: the prefix scores its positions as the whole sequence does.
    if (t < 3) {
      EXPECT_NEAR(b["logprobs"][t].get<double>(), a["logprobs"][t].get<double>(), tol) << t;
    }
  }
  }
}

// A user's checkpoint into a method: `lm score --format mia` writes the
// statistics file that `eval mia` reads (Min-K%++ needs mu and sigma), and
// the label and text of each input line come through.
TEST_F(LmCliTest, ScoreFeedsEvalMia) {
  std::string text;
  for (int i = 0; i < 12; ++i) {
    nlohmann::json line = {{"ids", nlohmann::json::array()}, {"label", i % 2}, {"text", "t" + std::to_string(i)}};
    for (int t = 0; t < 6 + i % 3; ++t) line["ids"].push_back((7 * i + 3 * t) % 32);
    text += line.dump() + "\n";
  }
  Write("labelled.jsonl", text);
  const Output s = Run({"lm", "score", "--checkpoint", Checkpoint(), "--ids", "labelled.jsonl",
                        "--format", "mia", "--out", "stats.jsonl"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  std::istringstream lines(ReadFile(dir_ / "stats.jsonl"));
  std::string first;
  ASSERT_TRUE(std::getline(lines, first));
  const nlohmann::json j = nlohmann::json::parse(first);
  EXPECT_EQ(j.at("label"), 0);
  EXPECT_EQ(j.at("text"), "t0");
  EXPECT_EQ(j.at("ll").size(), 5u);
  EXPECT_EQ(j.at("mu").size(), 5u);
  EXPECT_FALSE(j.contains("ids"));
  const Output e = Run({"eval", "mia", "--stats", "stats.jsonl", "--json", "--ledger", "l.db"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("\"minkpp_0.2\""), std::string::npos) << e.out.substr(0, 400);
  EXPECT_NE(e.out.find("\"zlib\""), std::string::npos);  // the text came through

  Write("unlabelled.jsonl", "{\"ids\": [1, 2, 3]}\n");
  const Output bad = Run({"lm", "score", "--checkpoint", Checkpoint(), "--ids", "unlabelled.jsonl",
                          "--format", "mia", "--out", "x.jsonl"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("unlabelled.jsonl:1"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.jsonl"));
}

TEST_F(LmCliTest, BadInputIsOneLineAndWritesNothing) {
  Write("ok.jsonl", "{\"ids\": [1, 2, 3]}\n");
  Write("oov.jsonl", "{\"ids\": [1, 2]}\n{\"ids\": [5, 32]}\n");  // vocab_size is 32
  std::string long_ids = "{\"ids\": [0";
  for (int i = 0; i < 300; ++i) long_ids += ", 1";
  Write("long.jsonl", long_ids + "]}\n");
  struct Case {
    std::vector<std::string> args;
    std::string names;  // what the message must name
  };
  const std::vector<Case> cases = {
      {{"--checkpoint", Checkpoint(), "--ids", "oov.jsonl"}, "oov.jsonl:2"},
      {{"--checkpoint", Path("no_such_dir"), "--ids", "ok.jsonl"}, "no_such_dir"},
      {{"--checkpoint", Checkpoint(), "--ids", "missing.jsonl"}, "missing.jsonl"},
      {{"--checkpoint", Checkpoint(), "--ids", "long.jsonl"}, "max_position_embeddings"},
      {{"--checkpoint", Checkpoint(), "--ids", "ok.jsonl", "--backend", "gpu"}, "gpu"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"lm", "score", "--out", "out.jsonl"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << c.names;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(c.names), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.jsonl")) << c.names;
  }
}

// SIGINT mid-run (issue 30, item 5): 50000 sequences take minutes; scoring
// stops at the next sequence, and nothing is printed or written to --out.
TEST_F(LmCliTest, SigintMidScoreWritesNothing) {
  {
    std::ofstream ids(dir_ / "many.jsonl");
    for (int s = 0; s < 50000; ++s) ids << "{\"ids\": [1, 5, 9, " << (s % 32) << ", 7, 3, 2, 8, 4, 6, 1, 5]}\n";
  }
  const Output o = InterruptWhen(
      Spawn({"lm", "score", "--checkpoint", Checkpoint(), "--ids", "many.jsonl", "--stats", "--out", "s.jsonl"}));
  ExpectInterruptLine(o, "lm score", {"sequences", "nothing recorded, nothing written"});
  EXPECT_EQ(o.out, "");
  ExpectNothingWritten("s.jsonl");
}

}  // namespace

// File: suites/lm/lm_train_cli_test.cpp
// End-to-end tests of `claimbench train` and `claimbench lm generate`:
//   - the smoke preset on one thread reproduces the shipped fixtures/lm/smoke
//     bit for bit (weights hash and every file), where this machine's
//     OpenBLAS picks the kernels recorded in its trainer.json;
//   - a run paused with --for-steps and continued with --resume equals an
//     uninterrupted one; an unfinished run is neither overwritten nor
//     silently restarted; bad options exit 3 with one line;
//   - generate is a pure function of its seed, greedy decoding follows the
//     argmax of `lm score`, and its errors are one line;
//   - the shipped draft opens in `claimbench docs`.
#include <cblas.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

nlohmann::json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

class LmTrainCliTest : public ClaimbenchTest {
 protected:
  static std::string Smoke() { return cb::testing::FixturePath("lm/smoke"); }
};

TEST_F(LmTrainCliTest, SmokeRetrainReproducesTheShippedFixtureBitForBit) {
  const nlohmann::json shipped = ReadJson(fs::path(Smoke()) / "trainer.json");
  const Output o = Run({"train", "--preset", "smoke", "--out", "smoke", "--threads", "1"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json ours = ReadJson(dir_ / "smoke" / "trainer.json");
  EXPECT_EQ(ours["tokenizer_hash"], shipped["tokenizer_hash"]);
  EXPECT_EQ(ReadFile(dir_ / "smoke" / "merges.txt"), ReadFile(fs::path(Smoke()) / "merges.txt"));
  if (ours["openblas_core"] != shipped["openblas_core"])
    GTEST_SKIP() << "OpenBLAS core " << ours["openblas_core"] << " here, the fixture was trained on "
                 << shipped["openblas_core"] << ": other kernels round differently";
  EXPECT_EQ(ours["weights_xxh3_128"], shipped["weights_xxh3_128"]);
  EXPECT_EQ(ReadFile(dir_ / "smoke" / "model.safetensors"),
            ReadFile(fs::path(Smoke()) / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir_ / "smoke.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "smoke" / "optimizer.safetensors"));
}

TEST_F(LmTrainCliTest, PausedAndResumedEqualsUninterrupted) {
  ASSERT_EQ(Run({"train", "--preset", "smoke", "--out", "a", "--threads", "1", "--steps", "12"}).exit_code, 0);
  const Output paused = Run({"train", "--preset", "smoke", "--out", "b", "--threads", "1", "--steps",
                             "12", "--for-steps", "5", "--checkpoint-every", "2"});
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  EXPECT_NE(paused.err.find("paused at step 5 of 12"), std::string::npos) << paused.err;
  EXPECT_FALSE(fs::exists(dir_ / "b"));
  EXPECT_EQ(ReadFile(dir_ / "b.partial" / "latest"), "step-000005\n");
  EXPECT_FALSE(fs::exists(dir_ / "b.partial" / "step-000004"));  // older checkpoints pruned

  // Neither restarted silently nor resumed with another schedule.
  Output again = Run({"train", "--preset", "smoke", "--out", "b", "--threads", "1", "--steps", "12"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
  again = Run({"train", "--preset", "smoke", "--out", "b", "--resume", "--steps", "13"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("started with --steps 12"), std::string::npos) << again.err;
  again = Run({"train", "--preset", "draft", "--out", "b", "--resume"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("trains preset 'smoke'"), std::string::npos) << again.err;

  const Output resumed = Run({"train", "--preset", "smoke", "--out", "b", "--threads", "1", "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(ReadJson(dir_ / "b" / "trainer.json")["weights_xxh3_128"],
            ReadJson(dir_ / "a" / "trainer.json")["weights_xxh3_128"]);
  EXPECT_EQ(ReadFile(dir_ / "b" / "model.safetensors"), ReadFile(dir_ / "a" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir_ / "b.partial"));
}

TEST_F(LmTrainCliTest, BadTrainOptionsAreOneLine) {
  fs::create_directories(dir_ / "exists");
  struct Case {
    std::vector<std::string> args;
    std::string names;
  };
  const std::vector<Case> cases = {
      {{"--preset", "huge", "--out", "x"}, "huge"},
      {{"--preset", "smoke", "--out", "exists"}, "already exists"},
      {{"--preset", "smoke", "--out", "no/such/parent/x"}, "parent folder"},
      {{"--preset", "smoke", "--out", "x", "--resume"}, "no checkpoint"},
      {{"--preset", "smoke", "--out", "x", "--checkpoint-every", "0"}, "checkpoint-every"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"train"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << c.names;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(c.names), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "x")) << c.names;
  }
}

TEST_F(LmTrainCliTest, GenerateIsAPureFunctionOfItsSeed) {
  auto gen = [&](const std::string& seed) {
    const Output o = Run({"lm", "generate", "--checkpoint", Smoke(), "--prompt", "The", "--seed", seed,
                          "--max-new-tokens", "30", "--json"});
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(o.out);
  };
  const nlohmann::json a = gen("7"), b = gen("7"), c = gen("8");
  EXPECT_EQ(a, b);
  EXPECT_NE(a["ids"], c["ids"]);
  EXPECT_EQ(a["ids"].size(), 30u);
  EXPECT_FALSE(a["text"].get<std::string>().empty());
}

// Greedy step t is the argmax of the model's distribution after prompt +
// steps < t: each generated id must have the largest log-probability that
// `lm score` gives at its position (compared with the reference backend).
TEST_F(LmTrainCliTest, GreedyGenerationFollowsTheScoresArgmax) {
  const Output g = Run({"lm", "generate", "--checkpoint", Smoke(), "--prompt-ids", "84,101",
                        "--temperature", "0", "--max-new-tokens", "6", "--json"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const nlohmann::json j = nlohmann::json::parse(g.out);
  std::vector<int> ids = j["prompt_ids"].get<std::vector<int>>();
  const std::vector<int> gen = j["ids"].get<std::vector<int>>();
  ASSERT_EQ(gen.size(), 6u);
  for (size_t t = 0; t < gen.size(); ++t) {
    // Score every candidate continuation at this position; the generated one must be best.
    std::ofstream f(dir_ / "cands.jsonl");
    for (int v = 0; v < 384; ++v) {
      nlohmann::json line;
      std::vector<int> seq = ids;
      seq.push_back(v);
      line["ids"] = seq;
      f << line.dump() << "\n";
    }
    f.close();
    const Output s = Run({"lm", "score", "--checkpoint", Smoke(), "--ids", "cands.jsonl",
                          "--backend", "reference"});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    std::istringstream in(s.out);
    std::string line;
    double best = -1e300;
    int best_v = -1;
    for (int v = 0; std::getline(in, line); ++v) {
      const double lp = nlohmann::json::parse(line)["logprobs"].back().get<double>();
      if (lp > best) best = lp, best_v = v;
    }
    EXPECT_EQ(gen[t], best_v) << "step " << t;
    ids.push_back(gen[t]);
  }
}

// Our checkpoints open in `claimbench docs` (HF tensor names, safetensors).
TEST_F(LmTrainCliTest, ShippedDraftOpensInDocs) {
  const Output o = Run({"docs", "--safetensors", cb::testing::FixturePath("lm/draft/model.safetensors"),
                        "--match", "self_attn\\.q_proj", "--ledger", "d.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("model.layers.1.self_attn.q_proj.weight,"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("1.000000"), std::string::npos);  // a layer against itself
}

TEST_F(LmTrainCliTest, BadGenerateInputIsOneLine) {
  const std::string oracle = cb::testing::FixturePath("lm/oracle/untied_gqa");
  struct Case {
    std::vector<std::string> args;
    std::string names;
  };
  const std::vector<Case> cases = {
      {{"--checkpoint", oracle, "--prompt", "hi"}, "--prompt-ids"},
      {{"--checkpoint", oracle, "--prompt-ids", "1,x"}, "'x'"},
      {{"--checkpoint", oracle, "--prompt-ids", "1,32"}, "id 32"},
      {{"--checkpoint", Smoke()}, "exactly one of"},
      {{"--checkpoint", Smoke(), "--prompt", "a", "--max-new-tokens", "0"}, "max-new-tokens"},
      {{"--checkpoint", "nowhere", "--prompt", "a"}, "nowhere"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"lm", "generate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << c.names;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(c.names), std::string::npos) << o.err;
  }
}

}  // namespace

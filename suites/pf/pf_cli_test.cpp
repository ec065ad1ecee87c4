// File: suites/pf/pf_cli_test.cpp
// End-to-end tests of `claimbench gen text --checkpoint` and `detect` on a
// checkpoint in Hugging Face layout (fixtures/lm/smoke: a 22K-parameter Llama
// with claimbench's tokenizer; and the same weights without the tokenizer,
// as a user's checkpoint would come):
//   - PF-watermarked texts are flagged with the right key and not with a
//     wrong one; ids stay inside the vocabulary; the prompt is kept;
//   - greedy decoding picks exactly the tokens of `claimbench lm generate
//     --temperature 0` (the lm suite's own decode loop);
//   - output is a pure function of the arguments;
//   - without merges.txt, ids in (--prompts FILE) and ids out, no "text";
//   - bad input exits 3 with one line and writes no output file;
//   - SIGINT mid-run (harness/interrupt.h) exits 3 and writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"
#include "harness/backend.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class PfCliTest : public ClaimbenchTest {
 protected:
  static std::string Smoke() { return cb::testing::FixturePath("lm/smoke"); }
  std::vector<nlohmann::json> Lines(const std::string& name) {
    std::vector<nlohmann::json> rows;
    std::istringstream in(ReadFile(dir_ / name));
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
    return rows;
  }
  std::vector<std::string> Gen(std::vector<std::string> extra) {
    std::vector<std::string> a = {"gen", "text", "--checkpoint", Smoke()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST_F(PfCliTest, WatermarkedCheckpointTextIsDetectedWithItsKeyOnly) {
  const Output g = Run(Gen({"--prompt-ids", "5,17,3,99,250", "--decoder", "pf", "--watermark", "pf",
                            "--key", "42", "--count", "6", "--length", "40", "--out", "pf.jsonl"}));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const auto rows = Lines("pf.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) {
    EXPECT_EQ(r["prompt"], nlohmann::json({5, 17, 3, 99, 250}));
    ASSERT_EQ(r["tokens"].size(), 45u);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(r["tokens"][i], r["prompt"][i]);
    for (const auto& t : r["tokens"]) EXPECT_LT(t.get<int>(), 384);  // the smoke vocabulary
    EXPECT_TRUE(r.contains("text"));
  }
  // The PF watermark's noise is keyed by the key and the previous m tokens
  // only, so one prompt gives one text (upstream's scheme does the same).
  EXPECT_EQ(rows[0]["tokens"], rows[1]["tokens"]);

  const Output d = Run({"detect", "--watermark", "pf", "--key", "42", "--in", "pf.jsonl", "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const auto det = nlohmann::json::parse(d.out);
  ASSERT_EQ(det.size(), 6u);
  for (const auto& x : det) EXPECT_LT(x["p_value"].get<double>(), 1e-3) << x.dump();
  const Output wrong = Run({"detect", "--watermark", "pf", "--key", "43", "--in", "pf.jsonl", "--json"});
  ASSERT_EQ(wrong.exit_code, 0) << wrong.err;
  int flagged = 0;
  for (const auto& x : nlohmann::json::parse(wrong.out)) flagged += x["watermarked"].get<bool>();
  EXPECT_LE(flagged, 1);

  // A pure function of the arguments.
  ASSERT_EQ(Run(Gen({"--prompt-ids", "5,17,3,99,250", "--decoder", "pf", "--watermark", "pf", "--key",
                     "42", "--count", "6", "--length", "40", "--out", "again.jsonl"}))
                .exit_code,
            0);
  EXPECT_EQ(ReadFile(dir_ / "pf.jsonl"), ReadFile(dir_ / "again.jsonl"));

  // Unwatermarked PF: text i has its own noise stream.
  ASSERT_EQ(Run(Gen({"--prompt-ids", "5,17,3,99,250", "--decoder", "pf", "--count", "2", "--length", "40",
                     "--out", "plain.jsonl"}))
                .exit_code,
            0);
  const auto plain = Lines("plain.jsonl");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_NE(plain[0]["tokens"], plain[1]["tokens"]);
}

TEST_F(PfCliTest, GreedyEqualsLmGenerateAtTemperatureZero) {
  ASSERT_EQ(Run(Gen({"--prompt-ids", "7,8,9", "--decoder", "greedy", "--count", "2", "--length", "24",
                     "--out", "g.jsonl"}))
                .exit_code,
            0);
  const auto rows = Lines("g.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["tokens"], rows[1]["tokens"]);
  const Output lm = Run({"lm", "generate", "--checkpoint", Smoke(), "--prompt-ids", "7,8,9",
                         "--temperature", "0", "--max-new-tokens", "24", "--json"});
  ASSERT_EQ(lm.exit_code, 0) << lm.err;
  const auto ids = nlohmann::json::parse(lm.out)["ids"];
  ASSERT_EQ(ids.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(rows[0]["tokens"][3 + i], ids[i]) << i;
}

TEST_F(PfCliTest, UserCheckpointWithoutTokenizerTakesAndGivesIds) {
  const fs::path user = dir_ / "user_ck";
  fs::create_directories(user);
  fs::copy_file(fs::path(Smoke()) / "config.json", user / "config.json");
  fs::copy_file(fs::path(Smoke()) / "model.safetensors", user / "model.safetensors");
  std::ofstream(Path("prompts.jsonl")) << R"({"prompt": [1, 2, 3, 4]})" << "\n\n"
                                       << R"({"prompt": [300], "source": "x"})" << "\n";
  const Output g = Run({"gen", "text", "--checkpoint", user.string(), "--prompts", "prompts.jsonl",
                        "--decoder", "softmax", "--watermark", "gumbel", "--key", "7", "--length", "30",
                        "--out", "u.jsonl"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const auto rows = Lines("u.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["tokens"].size(), 34u);
  EXPECT_EQ(rows[1]["tokens"].size(), 31u);
  EXPECT_EQ(rows[1]["tokens"][0], 300);
  EXPECT_FALSE(rows[0].contains("text"));
  const Output d = Run({"detect", "--watermark", "gumbel", "--key", "7", "--in", "u.jsonl", "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  for (const auto& x : nlohmann::json::parse(d.out)) EXPECT_LT(x["p_value"].get<double>(), 1e-3) << x.dump();
}

TEST_F(PfCliTest, BadInputExitsThreeAndWritesNothing) {
  std::ofstream(Path("bad.jsonl")) << R"({"prompt": [1, 2]})" << "\n" << R"({"prompt": [1, 999]})" << "\n";
  std::ofstream(Path("ok.jsonl")) << R"({"prompt": [1, 2]})" << "\n";
  std::vector<std::vector<std::string>> cases = {
      Gen({"--prompt-ids", "1,384", "--out", "o.jsonl"}),                        // outside the vocabulary
      Gen({"--prompt-ids", "1,x", "--out", "o.jsonl"}),                          // not an id
      Gen({"--prompt-ids", "1", "--prompts", "ok.jsonl", "--out", "o.jsonl"}),   // both
      Gen({"--out", "o.jsonl"}),                                                 // neither
      Gen({"--prompts", "bad.jsonl", "--out", "o.jsonl"}),                       // bad line 2
      Gen({"--prompts", "missing.jsonl", "--out", "o.jsonl"}),
      Gen({"--prompt-ids", "1", "--decoder", "softmax", "--watermark", "pf", "--out", "o.jsonl"}),
      Gen({"--prompt-ids", "1", "--decoder", "beam", "--out", "o.jsonl"}),
      Gen({"--prompt-ids", "1", "--key", "-1", "--out", "o.jsonl"}),
      Gen({"--prompt-ids", "1", "--temperature", "0", "--out", "o.jsonl"}),
      {"gen", "text", "--checkpoint", Path("nope"), "--prompt-ids", "1", "--out", "o.jsonl"},
      {"gen", "text", "--prompt-ids", "1", "--out", "o.jsonl"},  // ids need a checkpoint
      Gen({"--prompt-ids", "1", "--backend", "gpu", "--out", "o.jsonl"}),
  };
  if (!cb::harness::Availability(cb::harness::Backend::kCuda).ok)  // "cuda unavailable: <reason>"
    cases.push_back(Gen({"--prompt-ids", "1", "--backend", "cuda", "--out", "o.jsonl"}));
  for (const auto& args : cases) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    SCOPED_TRACE(joined);
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "o.jsonl"));
  }
}

// SIGINT mid-run (issue 30, item 5): thousands of texts take minutes, from
// the n-gram LM or a checkpoint; each stops at its next text, and --out is
// written only whole.
TEST_F(PfCliTest, SigintMidGenTextWritesNothing) {
  const Output ngram = InterruptWhen(Spawn({"gen", "text", "--count", "20000", "--length", "200", "--out", "t.jsonl"}));
  ExpectInterruptLine(ngram, "gen text", {"nothing recorded, nothing written"});
  ExpectNothingWritten("t.jsonl");
  const Output lm = InterruptWhen(
      Spawn(Gen({"--prompt-ids", "5,17,3", "--count", "100000", "--length", "200", "--out", "c.jsonl"})));
  ExpectInterruptLine(lm, "gen text", {"nothing recorded, nothing written"});
  ExpectNothingWritten("c.jsonl");
}

}  // namespace

// File: suites/mtad/eval_mtad_cli_test.cpp
// End-to-end tests of `claimbench eval mtad --target DIR --draft DIR
// --prompts FILE` on the shipped HF-layout checkpoints (fixtures/lm/draft as
// the draft; fixtures/lm/target, or the draft itself, as the target): every
// decoder emits its tokens, the results land in one verifiable ledger run,
// and bad input is one line that records nothing; SIGINT mid-decoding
// (harness/interrupt.h) exits 3 and records nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fixtures/cli_test_util.h"
#include "fixtures/paths.h"
#include "harness/backend.h"

namespace {

using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;

class EvalMtadCliTest : public ClaimbenchTest {
 protected:
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  static std::string Fx(const char* name) { return cb::testing::FixturePath(std::string("lm/") + name); }
};

const char* kPrompts =
    "the cat sat on the mat .\n"
    "\n"
    R"({"text": "a dog ran"})" "\n"
    R"({"ids": [116, 104, 101, 32]})" "\n";

void ExpectDecoders(const nlohmann::json& j, int prompts, int tokens) {
  ASSERT_EQ(j.at("decoders").size(), 3u);
  EXPECT_EQ(j.at("prompts"), prompts);
  EXPECT_EQ(j.at("tokens"), tokens);
  EXPECT_GT(j.at("target_over_draft_decode_time_ratio").get<double>(), 0);
  for (const auto& d : j.at("decoders")) {
    const double ppl = d.at("target_ppl"), tpc = d.at("tokens_per_target_call");
    EXPECT_TRUE(ppl > 1 && std::isfinite(ppl)) << d.dump();
    EXPECT_GE(tpc, 1.0) << d.dump();
    if (d.at("decoder") == "ancestral") {
      EXPECT_EQ(tpc, 1.0);
    } else {
      EXPECT_LE(tpc, 5.0) << d.dump();  // g + 1 at most (g = 4)
    }
  }
}

TEST_F(EvalMtadCliTest, TargetAndDraftCheckpointsRunEveryDecoderAndRecordARun) {
  Write("p.txt", kPrompts);
  const Output o = Run({"eval", "mtad", "--target", Fx("target"), "--draft", Fx("draft"), "--prompts", "p.txt",
                        "--tokens", "6", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectDecoders(nlohmann::json::parse(o.out), 3, 6);
  EXPECT_EQ(Run({"ledger", "verify", "--ledger", "l.db"}).exit_code, 0);
}

// The same pair decoded on the GPU: the same table, the same seeds. The
// target-call counts equal the CPU run's unless fp32 rounding moves a
// sampled token, so only the shape is asserted here (the distributions
// themselves: CachedLmModel.CudaBackendMatchesTheCpuPath).
TEST_F(EvalMtadCliTest, CudaBackendRunsEveryDecoderWhereADeviceIs) {
  const auto st = cb::harness::Availability(cb::harness::Backend::kCuda);
  if (!st.ok) GTEST_SKIP() << "cuda: " << st.reason;
  Write("p.txt", kPrompts);
  const Output o = Run({"eval", "mtad", "--target", Fx("target"), "--draft", Fx("draft"), "--prompts", "p.txt",
                        "--tokens", "6", "--backend", "cuda", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectDecoders(nlohmann::json::parse(o.out), 3, 6);
}

TEST_F(EvalMtadCliTest, DraftAsBothModelsPrintsTheTable) {
  Write("p.txt", kPrompts);
  const Output o = Run({"eval", "mtad", "--target", Fx("draft"), "--draft", Fx("draft"), "--prompts", "p.txt",
                        "--tokens", "5", "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* want : {"ancestral", "speculative", "mtad", "decode-time ratio", "run 1 complete"})
    EXPECT_NE(o.out.find(want), std::string::npos) << want << "\n" << o.out;
}

TEST_F(EvalMtadCliTest, BadInputIsOneLineAndRecordsNothing) {
  Write("p.txt", kPrompts);
  Write("empty.txt", "\n\n");
  Write("bad_json.txt", "{\"text\": \n");
  Write("bad_id.txt", R"({"ids": [1, 99999]})" "\n");
  Write("no_field.txt", R"({"prompt": "x"})" "\n");
  const std::string d = Fx("draft");
  std::vector<std::vector<std::string>> bad = {
      {"--target", d, "--draft", Fx("smoke"), "--prompts", "p.txt"},          // vocabularies differ
      {"--target", d, "--draft", d + "/nope", "--prompts", "p.txt"},          // missing folder
      {"--target", d, "--draft", d, "--prompts", "missing.txt"},
      {"--target", d, "--draft", d, "--prompts", "empty.txt"},
      {"--target", d, "--draft", d, "--prompts", "bad_json.txt"},
      {"--target", d, "--draft", d, "--prompts", "bad_id.txt"},
      {"--target", d, "--draft", d, "--prompts", "no_field.txt"},
      {"--target", d, "--draft", d, "--prompts", "p.txt", "--tokens", "0"},
      {"--target", d, "--draft", d, "--prompts", "p.txt", "--gamma", "0"},
      {"--target", d, "--draft", d, "--prompts", "p.txt", "--top-p", "1.5"},
      {"--target", d, "--draft", d, "--prompts", "p.txt", "--tokens", "5000"},  // past the positions
      {"--draft", d, "--prompts", "p.txt"},
      {"--target", d, "--draft", d, "--prompts", "p.txt", "--backend", "gpu"},
  };
  if (!cb::harness::Availability(cb::harness::Backend::kCuda).ok)  // "cuda unavailable: <reason>"
    bad.push_back({"--target", d, "--draft", d, "--prompts", "p.txt", "--backend", "cuda"});
  for (const auto& args : bad) {
    std::vector<std::string> a = {"eval", "mtad"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"--ledger", "bad.db"});
    const Output o = Run(a);
    std::string joined;
    for (const auto& s : args) joined += s + " ";
    EXPECT_EQ(o.exit_code, 3) << joined << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << joined << o.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db")) << joined;
  }
}

// SIGINT mid-run (issue 30, item 5): 20000 prompts decode for minutes; the
// decoder stops at its next prompt, and as the ledger is opened only once
// all three decoders are done, nothing is recorded.
TEST_F(EvalMtadCliTest, SigintMidDecodingRecordsNothing) {
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "the cat sat on the mat .\n";
  Write("many.txt", many);
  const Output o = InterruptWhen(Spawn({"eval", "mtad", "--target", Fx("target"), "--draft", Fx("draft"),
                                        "--prompts", "many.txt", "--tokens", "40", "--ledger", "l.db"}));
  ExpectInterruptLine(o, "eval mtad", {"decoding, after", "of 20000 prompts", "nothing recorded, nothing written"});
  ExpectNothingWritten("l.db");
}

}  // namespace

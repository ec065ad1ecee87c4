// File: suites/mia/mia_neural_cli_test.cpp
// End-to-end tests of the transformer path: `claimbench eval mia --checkpoint
// DIR --dataset FILE [--finetune-on FILE]` on the shipped smoke model (HF
// layout with its claimbench BPE) computes the statistics itself, from text
// and from token ids, runs FSD's LoRA fine-tune, and records one verifiable
// ledger run; bad input is one line naming FILE:LINE and records nothing;
// `claimbench mia train-target --split wikimia --preset smoke` reproduces
// fixtures/lm/smoke bit for bit (same corpus, tokenizer and recipe) and
// refuses bad options. SIGINT mid-run (harness/interrupt.h): eval mia
// --checkpoint records nothing, train-target writes nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
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

class MiaNeuralCliTest : public ClaimbenchTest {
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
  static std::string Smoke() { return cb::testing::FixturePath("lm/smoke"); }

  std::string out_, err_;
};

// Members repeat a phrase the fine-tune set does not hold; ids lines use
// byte-level ids (< 256 are single bytes in the smoke BPE).
const char* kDataset =
    R"({"label": 1, "text": "the cat sat on the mat . the cat sat ."})" "\n"
    R"({"label": 0, "text": "Zorq vaxel mibb . QUUX plorn ."})" "\n"
    "\n"
    R"({"label": 1, "ids": [116, 104, 101, 32, 99, 97, 116], "text": "the cat"})" "\n"
    R"({"label": 0, "input": "Vaxel zorq . plorn QUUX mibb ."})" "\n";
const char* kFinetune =
    R"({"text": "Zorq vaxel mibb plorn . QUUX zorq ."})" "\n"
    R"({"text": "vaxel plorn Zorq . mibb QUUX ."})" "\n"
    R"({"ids": [90, 111, 114, 113, 32, 118, 97, 120, 101, 108]})" "\n";

TEST_F(MiaNeuralCliTest, CheckpointPathComputesStatsFineTunesAndRecords) {
  Write("d.jsonl", kDataset);
  Write("ft.jsonl", kFinetune);
  ASSERT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --dataset d.jsonl --finetune-on ft.jsonl "
                "--resamples 50 --ledger l.db --json"),
            0)
      << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j.at("texts"), 4);
  EXPECT_EQ(j.at("dataset"), "d.jsonl");
  EXPECT_EQ(j.at("checkpoint").at("parameters"), 22624);
  EXPECT_GT(j.at("finetune").at("steps").get<int>(), 0);
  std::vector<std::string> methods;
  for (const auto& m : j.at("methods")) {
    methods.push_back(m.at("method"));
    const double auc = m.at("auroc");
    EXPECT_GE(auc, 0.0);
    EXPECT_LE(auc, 1.0);
  }
  for (const char* want : {"loss", "zlib", "mink_0.2", "minkpp_0.2", "fsd_loss", "fsd_mink"})
    EXPECT_NE(std::find(methods.begin(), methods.end(), want), methods.end()) << want;
  ASSERT_EQ(Run("ledger verify --ledger l.db"), 0) << out_ << err_;
  // Without --finetune-on: no FSD method; the table form names the model.
  ASSERT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --dataset d.jsonl --resamples 50 --ledger l.db"), 0)
      << err_;
  EXPECT_NE(out_.find("22624 parameters"), std::string::npos) << out_;
  EXPECT_NE(out_.find("minkpp_0.2"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("fsd_loss"), std::string::npos) << out_;
}

TEST_F(MiaNeuralCliTest, CheckpointPathBadInputIsOneLineAndRecordsNothing) {
  const std::string good = R"({"label": 1, "text": "the cat sat ."})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"text": "no label"})", "d.jsonl:2: needs \"label\""},
      {R"({"label": 0})", "d.jsonl:2: needs \"ids\" or \"text\""},
      {R"({"label": 0, "ids": [1, 384]})", "d.jsonl:2: id 384 is not an integer in [0, 384)"},
      {R"({"label": 0, "ids": [5]})", "d.jsonl:2: 1 tokens"},
      {R"({"label": 0, "text": 7})", "d.jsonl:2: \"text\" is not a string"},
      {R"(not json)", "d.jsonl:2: not a JSON object"},
  };
  for (const auto& [line, want] : cases) {
    Write("d.jsonl", good + "\n" + line + "\n");
    EXPECT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --dataset d.jsonl --ledger bad.db"), 3) << line;
    EXPECT_NE(err_.find(want), std::string::npos) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "bad.db")) << "a ledger was created for bad input: " << line;
  }
  Write("d.jsonl", good + "\n" + good + "\n");
  EXPECT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --dataset d.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("needs both members"), std::string::npos) << err_;
  Write("d.jsonl", good + "\n" + R"({"label": 0, "text": "a dog ."})" + "\n");
  Write("ft.jsonl", R"({"ids": [1]})" "\n");  // too short for one window
  EXPECT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --dataset d.jsonl --finetune-on ft.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("fewer than 3"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --ledger bad.db"), 3);
  EXPECT_NE(err_.find("needs --dataset"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval mia --checkpoint '" + Smoke() + "' --stats x.jsonl --dataset d.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("not both"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval mia --checkpoint nowhere --dataset d.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("nowhere"), std::string::npos) << err_;
  // A checkpoint without a claimbench tokenizer takes ids only.
  fs::create_directories(dir_ / "notok");
  for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(Smoke() + "/" + f, dir_ / "notok" / f);
  EXPECT_EQ(Run("eval mia --checkpoint notok --dataset d.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("no claimbench tokenizer"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

TEST_F(MiaNeuralCliTest, TrainTargetReproducesTheSmokeFixtureAndRefusesBadOptions) {
  ASSERT_EQ(Run("mia train-target --split wikimia --preset smoke --threads 1 --out m"), 0) << err_;
  const auto ours = nlohmann::json::parse(ReadFile(dir_ / "m" / "trainer.json"));
  const auto shipped = nlohmann::json::parse(ReadFile(fs::path(Smoke()) / "trainer.json"));
  EXPECT_EQ(ours["corpus"]["content_hash"], shipped["corpus"]["content_hash"]);
  EXPECT_EQ(ours["tokenizer_hash"], shipped["tokenizer_hash"]);
  EXPECT_TRUE(fs::exists(dir_ / "m" / "merges.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "m" / "optimizer.safetensors"));
  if (ours["openblas_core"] != shipped["openblas_core"]) {
    GTEST_SKIP() << "OpenBLAS core " << ours["openblas_core"] << " here, the fixture was trained on "
                 << shipped["openblas_core"] << ": other kernels round differently";
  }
  EXPECT_EQ(ours["weights_xxh3_128"], shipped["weights_xxh3_128"]);
  EXPECT_EQ(Run("mia train-target --split wikimia --preset smoke --out m"), 3);
  EXPECT_NE(err_.find("already exists"), std::string::npos) << err_;
  EXPECT_EQ(Run("mia train-target --split pile --preset smoke --out m2"), 3);
  EXPECT_NE(err_.find("expected mimir or wikimia"), std::string::npos) << err_;
  EXPECT_EQ(Run("mia train-target --preset huge --out m2"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "m2"));
}

// SIGINT mid-run (issue 30, item 5). The LoRA fine-tune of --finetune-on runs
// for minutes at this many epochs: it stops at its next step; the ledger is
// opened only once everything is computed, so nothing is recorded.
TEST_F(MiaNeuralCliTest, SigintMidEvalFromCheckpointRecordsNothing) {
  Write("d.jsonl", kDataset);
  Write("ft.jsonl", kFinetune);
  const auto o = InterruptWhen(Spawn({"eval", "mia", "--checkpoint", Smoke(), "--dataset", "d.jsonl",
                                      "--finetune-on", "ft.jsonl", "--ft-epochs", "1000000", "--ledger", "l.db"}));
  ExpectInterruptLine(o, "eval mia", {"nothing recorded, nothing written"});
  ExpectNothingWritten("l.db");
}

// --preset smoke with a million steps: it stops before the next step and
// the model folder (built as DIR.tmp, renamed when done) is never made.
TEST_F(MiaNeuralCliTest, SigintMidTrainTargetWritesNothing) {
  const auto o = InterruptWhen(Spawn({"mia", "train-target", "--split", "wikimia", "--preset", "smoke", "--steps",
                                      "1000000", "--threads", "1", "--out", "m"}));
  ExpectInterruptLine(o, "mia train-target", {"nothing recorded, nothing written"});
  ExpectNothingWritten("m");
}

}  // namespace

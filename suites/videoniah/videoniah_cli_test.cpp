// File: harness/cli/videoniah_cli_test.cpp
// End-to-end tests of `claimbench gen videoniah` and `claimbench eval vnbench`:
// generation writes Y4M or MP4 + the release-schema annotation + a manifest, is
// deterministic (MP4: by the decoded frames) and refuses bad input, user
// haystacks included, writing nothing; a prediction file is scored and
// recorded (null preds as eval.py skips them), a malformed one is exit 3
// naming FILE:LINE with no ledger; an endpoint (a loopback server started
// here) is queried, a rerun is answered from the ledger's cache, and an
// endpoint returning garbage is a clear error. SIGINT mid-run
// (harness/interrupt.h): the endpoint eval seals its run "interrupted" and
// keeps the answers received; gen writes nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/http_server.h"
#include "fixtures/paths.h"

namespace {

namespace fs = std::filesystem;

const char* Binary() {
  const char* env = std::getenv("CB_CLAIMBENCH");
  return env != nullptr && *env != '\0' ? env : CB_CLAIMBENCH;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class VideoNiahCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cb_vniah_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int Run(const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && env -u CLAIMBENCH_LEDGER '" + Binary() + "' " + args +
                            " > stdout 2> stderr";
    const int status = std::system(cmd.c_str());
    out_ = Slurp(dir_ / "stdout");
    err_ = Slurp(dir_ / "stderr");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  static constexpr const char* kSmall = "--width 96 --height 64 --fps 2 --min-seconds 4 --max-seconds 6 --frames 8";
  fs::path dir_;
  std::string out_, err_;
};

TEST_F(VideoNiahCliTest, GenWritesDeterministicVideosAndAnnotation) {
  ASSERT_EQ(Run(std::string("gen videoniah --format y4m --tasks ret_edit1,ord_insert1 --count 2 --out a ") + kSmall), 0)
      << err_;
  const auto rows = nlohmann::json::parse(Slurp(dir_ / "a" / "VNBench-cb-4try.json"));
  ASSERT_EQ(rows.size(), 16u);
  for (const char* k : {"video", "question", "options", "gt", "gt_option", "needle_time", "length", "type", "try"})
    EXPECT_TRUE(rows[0].contains(k)) << k;
  EXPECT_TRUE(fs::exists(dir_ / "a" / "cbniah_ord_insert1_1.y4m"));
  const std::string y4m = Slurp(dir_ / "a" / "cbniah_ret_edit1_0.y4m");
  EXPECT_EQ(y4m.rfind("YUV4MPEG2 W96 H64 F2:1", 0), 0u);
  ASSERT_EQ(Run(std::string("gen videoniah --format y4m --tasks ret_edit1,ord_insert1 --count 2 --out b ") + kSmall), 0)
      << err_;
  const auto ma = nlohmann::json::parse(Slurp(dir_ / "a" / "manifest.json"));
  const auto mb = nlohmann::json::parse(Slurp(dir_ / "b" / "manifest.json"));
  EXPECT_EQ(ma["content_hashes"], mb["content_hashes"]);
  EXPECT_EQ(Slurp(dir_ / "a" / "cbniah_ord_insert1_1.y4m"), Slurp(dir_ / "b" / "cbniah_ord_insert1_1.y4m"));
  // An existing folder is refused.
  EXPECT_EQ(Run(std::string("gen videoniah --tasks ret_edit1 --out a ") + kSmall), 3);
  EXPECT_NE(err_.find("already exists"), std::string::npos) << err_;
}

TEST_F(VideoNiahCliTest, GenRefusesBadInput) {
  EXPECT_EQ(Run("gen videoniah --tasks ret_edit9 --out x"), 3);
  EXPECT_NE(err_.find("unknown task 'ret_edit9'"), std::string::npos) << err_;
  EXPECT_EQ(Run("gen videoniah --width 63 --out x"), 3);
  EXPECT_NE(err_.find("width"), std::string::npos) << err_;
  EXPECT_EQ(Run("gen videoniah --format avi --out x"), 3);
  EXPECT_NE(err_.find("use mp4 or y4m"), std::string::npos) << err_;
  EXPECT_EQ(Run("gen videoniah --format y4m --crf 20 --out x"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

TEST_F(VideoNiahCliTest, GenMp4DecodesToTheY4mFrames) {
  // The default format is lossless MP4: its decoded frames hash like the Y4M's.
  ASSERT_EQ(Run(std::string("gen videoniah --tasks ord_edit1,cnt_insert1 --out m ") + kSmall), 0) << err_;
  ASSERT_EQ(Run(std::string("gen videoniah --format y4m --tasks ord_edit1,cnt_insert1 --out y ") + kSmall), 0) << err_;
  EXPECT_TRUE(fs::exists(dir_ / "m" / "cbniah_cnt_insert1_0.mp4"));
  EXPECT_EQ(Slurp(dir_ / "m" / "cbniah_ord_edit1_0.mp4").substr(4, 4), "ftyp");
  const auto mm = nlohmann::json::parse(Slurp(dir_ / "m" / "manifest.json"));
  const auto my = nlohmann::json::parse(Slurp(dir_ / "y" / "manifest.json"));
  EXPECT_EQ(mm["format"], "mp4");
  EXPECT_EQ(mm["mp4"]["lossless"], true);
  EXPECT_EQ(mm["decoded_i420_hashes"], my["decoded_i420_hashes"]);
  EXPECT_EQ(mm["content_hashes"], my["content_hashes"]);
  EXPECT_EQ(Slurp(dir_ / "m" / "VNBench-cb-4try.json"), Slurp(dir_ / "y" / "VNBench-cb-4try.json"));
  // Lossy: smaller, and its decoded hash differs from the lossless one.
  ASSERT_EQ(Run(std::string("gen videoniah --crf 28 --tasks ord_edit1,cnt_insert1 --out q ") + kSmall), 0) << err_;
  const auto mq = nlohmann::json::parse(Slurp(dir_ / "q" / "manifest.json"));
  EXPECT_NE(mq["decoded_i420_hashes"], mm["decoded_i420_hashes"]);
  EXPECT_LT(fs::file_size(dir_ / "q" / "cbniah_ord_edit1_0.mp4"), fs::file_size(dir_ / "m" / "cbniah_ord_edit1_0.mp4"));
}

TEST_F(VideoNiahCliTest, GenEditsNeedlesIntoUserHaystacks) {
  // Two "user videos": procedural items of another seed and size, as MP4.
  ASSERT_EQ(Run("gen videoniah --tasks ret_edit1 --count 2 --seed 7 --width 128 --height 96 --fps 2 "
                "--min-seconds 30 --max-seconds 30 --out src"),
            0)
      << err_;
  const std::string h0 = (dir_ / "src" / "cbniah_ret_edit1_0.mp4").string(),
                    h1 = (dir_ / "src" / "cbniah_ret_edit1_1.mp4").string();
  const std::string args = std::string("gen videoniah --tasks ret_insert1,cnt_edit2,ord_edit1 ") + kSmall +
                           " --haystack " + h0 + " " + h1;
  ASSERT_EQ(Run(args + " --out u"), 0) << err_;
  const auto m = nlohmann::json::parse(Slurp(dir_ / "u" / "manifest.json"));
  ASSERT_EQ(m["haystacks"].size(), 2u);
  EXPECT_EQ(m["haystacks"][0]["file"], h0);
  EXPECT_EQ(m["haystacks"][0]["frames"], 30 * 2);  // resampled to --fps 2
  EXPECT_EQ(m["item_haystack"]["cbniah_cnt_edit2_0"], h1);  // item 1 of 3 -> file 1
  const auto rows = nlohmann::json::parse(Slurp(dir_ / "u" / "VNBench-cb-4try.json"));
  EXPECT_EQ(rows[0]["length"], (30 * 2 + 3) / 2.0);  // haystack + one inserted picture (D = 3 frames)
  // Same inputs, same frames.
  ASSERT_EQ(Run(args + " --out u2"), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(Slurp(dir_ / "u2" / "manifest.json"))["content_hashes"], m["content_hashes"]);
  // Bad haystacks: one line naming the file, exit 3, nothing written.
  std::ofstream(dir_ / "notes.mp4") << "not a video\n";
  const std::pair<std::string, std::string> bad[] = {
      {"missing.mp4", "missing.mp4: no such file"},
      {"notes.mp4", "notes.mp4: not a video libavformat can read"},
      {h0 + " " + kSmall + " --needle-seconds 10", "is too short for"}};
  for (const auto& [file, message] : bad) {
    EXPECT_EQ(Run(std::string("gen videoniah --tasks cnt_edit1 --out bad --haystack ") + file), 3) << file;
    EXPECT_NE(err_.find(message), std::string::npos) << err_;
    EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
    EXPECT_FALSE(fs::exists(dir_ / "bad"));
  }
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST_F(VideoNiahCliTest, ScoresAPredictionFileAndRefusesAMalformedOne) {
  ASSERT_EQ(Run(std::string("gen videoniah --tasks cnt_edit1 --count 3 --out g ") + kSmall), 0) << err_;
  const auto rows = nlohmann::json::parse(Slurp(dir_ / "g" / "VNBench-cb-4try.json"));
  std::ofstream preds(dir_ / "preds.jsonl");
  for (const auto& r : rows)
    preds << nlohmann::json{{"question_id", r["video"].get<std::string>() + "_" + r["type"].get<std::string>() + "_" +
                                                std::to_string(r["try"].get<int>())},
                            {"pred", r["gt_option"]},
                            {"gt", r["gt_option"]},
                            {"type", r["type"]}}
                 .dump()
          << "\n";
  preds.close();
  ASSERT_EQ(Run("eval vnbench --predictions preds.jsonl --ledger l.db --json"), 0) << err_;
  const auto j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["strict"]["overall_task_mean"], 100.0);
  EXPECT_EQ(j["strict"]["tasks"]["cnt_edit1"]["items"], 3);
  std::ofstream(dir_ / "bad.jsonl") << Slurp(dir_ / "preds.jsonl") << "{\"question_id\": 5}\n";
  EXPECT_EQ(Run("eval vnbench --predictions bad.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("bad.jsonl:13"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  EXPECT_EQ(Run("eval vnbench --ledger bad.db"), 3);
  EXPECT_NE(err_.find("exactly one of"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval vnbench --endpoint ftp://x --model m --ledger bad.db"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

// eval.py (joez17/VideoNIAH, evaluation/eval.py at commit
// 8193a3b20ac1c2fcac9c3e8c1550095628f7628f, lines 12-13) skips rows whose pred
// is null; on this file it prints "ret_edit1 ... acc: 0.5" and "Overall: 0.5"
// (Python 3.11). The same file through the CLI: accepted, paper mode as
// eval.py, strict mode counting the null tries wrong.
TEST_F(VideoNiahCliTest, NullPredsAreScoredAsEvalPyDoesAndMissingIsNamed) {
  fs::copy_file(cb::testing::FixturePath("vnbench/null_preds.jsonl"), dir_ / "nulls.jsonl");
  ASSERT_EQ(Run("eval vnbench --predictions nulls.jsonl --ledger l.db --json"), 0) << err_;
  const auto j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["paper_compatible"]["overall_task_mean"], 50.0);
  EXPECT_FALSE(j["paper_compatible"]["tasks"].contains("cnt_edit1"));
  EXPECT_EQ(j["paper_compatible"]["tasks"]["ret_edit1"]["items"], 2);
  EXPECT_EQ(j["strict"]["tasks"]["ret_edit1"]["items"], 3);
  EXPECT_EQ(j["strict"]["tasks"]["cnt_edit1"]["four_try"], 0.0);
  EXPECT_EQ(j["strict"]["null_preds"], 9);
  // Every pred null: eval.py divides by zero; here one line, nothing recorded.
  std::ofstream all(dir_ / "all_null.jsonl");
  for (int t = 0; t < 4; ++t)
    all << "{\"question_id\": \"v_ret_edit1_" << t << "\", \"pred\": null, \"gt\": \"A\", \"type\": \"ret_edit1\"}\n";
  all.close();
  EXPECT_EQ(Run("eval vnbench --predictions all_null.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("all_null.jsonl: every pred is null"), std::string::npos) << err_;
  EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
  std::ofstream(dir_ / "missing.jsonl") << "{\"question_id\": \"v_ret_edit1_0\", \"gt\": \"A\", \"type\": \"ret_edit1\"}\n";
  EXPECT_EQ(Run("eval vnbench --predictions missing.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("missing.jsonl:1: missing field 'pred'"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

TEST_F(VideoNiahCliTest, QueriesAnEndpointThenResumesFromTheLedgerCache) {
  cb::testing::HttpServer server([](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("B")};
  });
  const std::string args = "eval vnbench --endpoint " + server.url() +
                           " --model fake --tasks ret_edit1 --count 2 --frames 8 --ledger l.db";
  ASSERT_EQ(Run(args), 0) << err_;
  EXPECT_EQ(server.requests(), 8);
  EXPECT_NE(err_.find("8 requests sent, 0 answered from the cache"), std::string::npos) << err_;
  ASSERT_EQ(Run(args), 0) << err_;
  EXPECT_EQ(server.requests(), 8);
  EXPECT_NE(err_.find("0 requests sent, 8 answered from the cache"), std::string::npos) << err_;
}

TEST_F(VideoNiahCliTest, EvaluatesOnUserHaystacks) {
  ASSERT_EQ(Run("gen videoniah --tasks ret_edit1 --seed 7 --width 128 --height 96 --fps 8 --min-seconds 12 "
                "--max-seconds 12 --out src"),
            0)
      << err_;
  const std::string h0 = (dir_ / "src" / "cbniah_ret_edit1_0.mp4").string();
  cb::testing::HttpServer server([](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("A")};
  });
  const std::string args = "eval vnbench --endpoint " + server.url() +
                           " --model fake --tasks ret_edit1,ret_insert2 --count 1 --frames 8 --json --ledger l.db";
  EXPECT_EQ(Run(args + " --haystack missing.mp4"), 3);
  EXPECT_NE(err_.find("missing.mp4: no such file"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "l.db"));
  EXPECT_EQ(server.requests(), 0);
  ASSERT_EQ(Run(args + " --haystack " + h0), 0) << err_;
  EXPECT_EQ(server.requests(), 8);
  const auto j = nlohmann::json::parse(out_);
  ASSERT_EQ(j["params"]["haystacks"].size(), 1u);
  EXPECT_EQ(j["params"]["haystacks"][0]["file"], "cbniah_ret_edit1_0.mp4");
  EXPECT_EQ(j["params"]["haystacks"][0]["frames"], 12 * 8);
  // Other frames than the procedural run's: nothing answered from its cache.
  ASSERT_EQ(Run(args), 0) << err_;
  EXPECT_EQ(server.requests(), 16);
}

TEST_F(VideoNiahCliTest, AnEndpointReturningGarbageIsAClearError) {
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "garbage"}; });
  EXPECT_EQ(Run("eval vnbench --endpoint " + server.url() +
                " --model fake --tasks ret_edit1 --count 1 --frames 8 --retries 1 --ledger l.db"),
            3);
  EXPECT_NE(err_.find("gave no usable answer"), std::string::npos) << err_;
}

// Issue 30 item 12: an item whose tries are partly answered says how many are
// missing, on the first run and on a rerun that answers the rest from the cache.
TEST_F(VideoNiahCliTest, AFailedItemSaysHowManyOfItsTriesAreMissing) {
  const std::string args = " --model fake --tasks ret_edit1 --count 1 --frames 8 --ledger l.db";
  int port = 0;  // the cache is keyed by the URL: the second server takes the first one's port
  {
    cb::testing::HttpServer three_of_four([](int n, const cb::testing::HttpRequest&) {
      if (n < 3) return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("A")};
      return cb::testing::HttpReply{400, "no"};  // a 4xx is not retried
    });
    EXPECT_EQ(Run("eval vnbench --endpoint " + three_of_four.url() + args), 3);
    EXPECT_NE(err_.find("gave no usable answer for any of the 1 items (1 of 4 requests unanswered)"),
              std::string::npos)
        << err_;
    EXPECT_EQ(three_of_four.requests(), 4);
    port = three_of_four.port();
  }
  cb::testing::HttpServer refusing(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{400, "no"}; }, port);
  EXPECT_EQ(Run("eval vnbench --endpoint " + refusing.url() + args), 3);
  EXPECT_NE(err_.find("3 answered from the cache"), std::string::npos) << err_;
  EXPECT_NE(err_.find("(1 of 4 requests unanswered)"), std::string::npos) << err_;
  EXPECT_EQ(refusing.requests(), 1);
}

// SIGINT mid-run (issue 30, item 5), with the shared helpers of
// fixtures/cli_test_util.h.
class VideoNiahInterruptCliTest : public cb::cli::testing::ClaimbenchTest {};
using cb::cli::testing::Output;

// The endpoint holds the third request: the two answers received stay in
// the ledger's http_cache, no score is recorded, the run is sealed
// "interrupted" and verifies.
TEST_F(VideoNiahInterruptCliTest, SigintMidEndpointEvalSealsTheRunInterruptedAndKeepsTheAnswers) {
  cb::testing::HttpServer slow(cb::testing::AnswerThenHold(2, [](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("B")};
  }));
  double seconds = 0;
  const Output o = InterruptWhen(Spawn({"eval", "vnbench", "--endpoint", slow.url(), "--model", "fake", "--tasks",
                                        "ret_edit1", "--count", "2", "--frames", "8", "--concurrency", "1",
                                        "--ledger", "l.db"}),
                                 [&] { return slow.requests() > 2; }, 0, &seconds);
  ExpectInterruptLine(o, "eval vnbench",
                      {"after 2 of 8 requests", "2 answers received in this run kept in the ledger's http_cache",
                       "run 1 sealed interrupted with 0 results"});
  EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
  EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
}

// The output folder is built under a temporary name: interrupted once that
// exists (mid-way through the videos), neither it nor the folder remains.
TEST_F(VideoNiahInterruptCliTest, SigintMidGenWritesNothing) {
  auto tmp_exists = [&] {
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().rfind("big.tmp", 0) == 0) return true;
    return false;
  };
  const Output o = InterruptWhen(Spawn({"gen", "videoniah", "--format", "y4m", "--tasks", "ret_edit1", "--count",
                                        "2000", "--width", "96", "--height", "64", "--fps", "2", "--min-seconds", "4",
                                        "--max-seconds", "6", "--frames", "8", "--out", "big"}),
                                 tmp_exists);
  ExpectInterruptLine(o, "gen videoniah", {"items", "nothing recorded, nothing written"});
  ExpectNothingWritten("big");
}

}  // namespace

// Every input error names the file (issue 30 item 6): the try number that
// overflowed std::stoi and the item-level errors named nothing.
class VnbenchInputCliTest : public cb::cli::testing::ClaimbenchTest {};

TEST_F(VnbenchInputCliTest, EveryMutationOfAPredictionFileIsNamed) {
  const std::string valid = cb::cli::testing::ReadFile(cb::testing::FixturePath("vnbench/null_preds.jsonl"));
  { std::ofstream(dir_ / "big.jsonl") << R"({"question_id": "v1_ret_edit1_99999999999999999999", "type": "ret_edit1", "pred": null})" << "\n"; }
  const Output big = Run({"eval", "vnbench", "--predictions", "big.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(big.exit_code, 3);
  EXPECT_NE(big.err.find("big.jsonl:1: "), std::string::npos) << big.err;
  ExpectMutationsNameTheFile({"eval", "vnbench", "--predictions", "p.jsonl", "--ledger", "m.db"}, "p.jsonl", valid);
}

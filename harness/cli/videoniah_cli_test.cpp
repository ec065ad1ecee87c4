// File: harness/cli/videoniah_cli_test.cpp
// End-to-end tests of `claimbench gen videoniah` and `claimbench eval vnbench`:
// generation writes Y4M + the release-schema annotation + a manifest, is
// deterministic and refuses bad input; a prediction file is scored and
// recorded, a malformed one is exit 3 naming FILE:LINE with no ledger; an
// endpoint (a loopback server started here) is queried, a rerun is answered
// from the ledger's cache, and an endpoint returning garbage is a clear error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/http_server.h"

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
  ASSERT_EQ(Run(std::string("gen videoniah --tasks ret_edit1,ord_insert1 --count 2 --out a ") + kSmall), 0) << err_;
  const auto rows = nlohmann::json::parse(Slurp(dir_ / "a" / "VNBench-cb-4try.json"));
  ASSERT_EQ(rows.size(), 16u);
  for (const char* k : {"video", "question", "options", "gt", "gt_option", "needle_time", "length", "type", "try"})
    EXPECT_TRUE(rows[0].contains(k)) << k;
  EXPECT_TRUE(fs::exists(dir_ / "a" / "cbniah_ord_insert1_1.y4m"));
  const std::string y4m = Slurp(dir_ / "a" / "cbniah_ret_edit1_0.y4m");
  EXPECT_EQ(y4m.rfind("YUV4MPEG2 W96 H64 F2:1", 0), 0u);
  ASSERT_EQ(Run(std::string("gen videoniah --tasks ret_edit1,ord_insert1 --count 2 --out b ") + kSmall), 0) << err_;
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
  EXPECT_EQ(Run("gen videoniah --format mp4 --out x"), 3);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
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

TEST_F(VideoNiahCliTest, AnEndpointReturningGarbageIsAClearError) {
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "garbage"}; });
  EXPECT_EQ(Run("eval vnbench --endpoint " + server.url() +
                " --model fake --tasks ret_edit1 --count 1 --frames 8 --retries 1 --ledger l.db"),
            3);
  EXPECT_NE(err_.find("gave no usable answer"), std::string::npos) << err_;
}

}  // namespace

// File: suites/eagle/eagle_cli_test.cpp
// End-to-end tests of `claimbench eval eagle`: a prediction file over every
// task is scored in both modes and recorded; a malformed one is exit 3 naming
// FILE:LINE with no ledger; paper mode's MME assert is a clear error; an
// endpoint (a loopback server started here, answering from the generator's
// own key) is sent each question with its image as a PNG data URL, scores
// 100, and a rerun is answered from the ledger's cache. SIGINT mid-run
// (harness/interrupt.h): the endpoint eval seals its run "interrupted" and
// keeps the answers received; gen docvqa writes nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/http_server.h"
#include "generators/docvqa.h"

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

class EagleCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cb_eagle_cli_" + std::to_string(getpid()) + "_" +
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
  fs::path dir_;
  std::string out_, err_;
};

constexpr const char* kPreds =
    R"p({"question_id": 1, "task": "textvqa", "pred": "Coca-Cola", "answers": ["coca cola", "coca cola", "coke", "coke", "coke", "coke", "coke", "coke", "coke", "coke"]}
{"question_id": 2, "task": "vqav2", "pred": "yes", "answers": ["Yes", "Yes", "Yes", "Yes", "Yes", "Yes", "Yes", "Yes", "Yes", "Yes"]}
{"question_id": 3, "task": "docvqa", "pred": "abxy", "answers": ["abcd"]}
{"question_id": 4, "task": "chartqa", "pred": "0.0", "answer": "0", "type": "human_test"}
{"question_id": 5, "task": "ocrbench", "pred": "X ^ 2", "answer": "X^2", "dataset": "HME100k", "question_type": "Handwritten Mathematical Expression Recognition"}
{"question_id": "a.jpg", "task": "mme", "pred": "Yes", "answer": "yes", "category": "OCR"}
{"question_id": "a.jpg", "task": "mme", "pred": "Not sure", "answer": "No", "category": "OCR"}
{"question_id": 6, "task": "mcq", "pred": "(C)", "answer": "C"}
)p";

TEST_F(EagleCliTest, ScoresAPredictionFileInBothModes) {
  std::ofstream(dir_ / "p.jsonl") << kPreds;
  ASSERT_EQ(Run("eval eagle --predictions p.jsonl --ledger l.db --json"), 0) << err_;
  const auto j = nlohmann::json::parse(out_);
  const auto &s = j["strict"], &p = j["paper_compatible"];
  EXPECT_NEAR(p["textvqa"]["value"].get<double>(), 60.0, 1e-9);
  EXPECT_EQ(p["vqav2"]["value"], 0.0);  // ten identical "Yes" are not normalised
  EXPECT_EQ(s["vqav2"]["value"], 100.0);
  EXPECT_EQ(p["docvqa"]["value"], 50.0);  // NL = 0.5 kept
  EXPECT_EQ(s["docvqa"]["value"], 0.0);
  EXPECT_EQ(p["chartqa"]["value"], 0.0);  // zero target: string match
  EXPECT_EQ(s["chartqa"]["value"], 100.0);
  EXPECT_EQ(p["ocrbench"]["value"], 0.0);  // HME100k: lower-cased prediction, capital answer
  EXPECT_EQ(s["ocrbench"]["value"], 1.0);
  EXPECT_EQ(p["mme"]["value"], 200.0);  // "Not sure" parses as "no": both right
  EXPECT_EQ(p["mcq"]["value"], 100.0);
  EXPECT_EQ(j["params"]["rows"], 8);
  // Human table: both modes side by side.
  ASSERT_EQ(Run("eval eagle --predictions p.jsonl --ledger l.db"), 0) << err_;
  EXPECT_NE(out_.find("docvqa"), std::string::npos) << out_;
  EXPECT_NE(out_.find("run 2 complete"), std::string::npos) << out_;
}

TEST_F(EagleCliTest, RefusesBadInputWithoutTouchingTheLedger) {
  std::ofstream(dir_ / "bad.jsonl") << kPreds << R"({"question_id": 7, "task": "docvqa", "pred": "x"})" << "\n";
  EXPECT_EQ(Run("eval eagle --predictions bad.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("bad.jsonl:9: missing field 'answers'"), std::string::npos) << err_;
  EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  // Paper mode's MME assert (two questions per image).
  std::ofstream(dir_ / "mme.jsonl") << R"({"question_id": "a.jpg", "task": "mme", "pred": "yes", "answer": "yes", "category": "OCR"})"
                                    << "\n";
  EXPECT_EQ(Run("eval eagle --predictions mme.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("mme.jsonl: MME image 'a.jpg' in category 'OCR' has 1 questions"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  EXPECT_EQ(Run("eval eagle --ledger bad.db"), 3);
  EXPECT_NE(err_.find("exactly one of"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval eagle --predictions missing.jsonl --ledger bad.db"), 3);
  EXPECT_NE(err_.find("missing.jsonl: cannot read"), std::string::npos) << err_;
  EXPECT_EQ(Run("eval eagle --endpoint http://127.0.0.1:1 --ledger bad.db"), 3);
  EXPECT_NE(err_.find("--model is required"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

TEST_F(EagleCliTest, QueriesAnEndpointWithImagesThenResumesFromTheCache) {
  // The server answers from the generator's own key (same seed and count as
  // the command), so a correct pipeline scores 100 on every task.
  namespace gd = cb::gen::docvqa;
  std::map<std::string, std::string> key;
  const gd::Generator g(gd::Params{.seed = 11, .count = 2});
  for (const auto& item : g.All())
    for (const auto& q : item.questions) key[q.text] = q.answer;
  std::mutex mu;
  int with_png = 0;
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& r) {
    const auto body = nlohmann::json::parse(r.body);
    std::string text, url;
    for (const auto& part : body["messages"][0]["content"]) {
      if (part["type"] == "text") text = part["text"];
      if (part["type"] == "image_url") url = part["image_url"]["url"];
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      with_png += url.rfind("data:image/png;base64,iVBORw0KGgo", 0) == 0;
    }
    const auto it = key.find(text);
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody(it == key.end() ? "?" : it->second)};
  });
  const std::string args = "eval eagle --endpoint " + server.url() + " --model fake --count 2 --seed 11 --ledger l.db";
  ASSERT_EQ(Run(args + " --json"), 0) << err_;
  EXPECT_EQ(server.requests(), 12);
  EXPECT_EQ(with_png, 12);
  EXPECT_NE(err_.find("12 requests sent, 0 answered from the cache"), std::string::npos) << err_;
  const auto j = nlohmann::json::parse(out_);
  for (const char* mode : {"strict", "paper_compatible"})
    for (const char* task : {"docvqa", "chartqa", "mcq"}) EXPECT_EQ(j[mode][task]["value"], 100.0) << mode << task;
  EXPECT_EQ(j["params"]["generator"], "docvqa");
  ASSERT_EQ(Run(args), 0) << err_;
  EXPECT_EQ(server.requests(), 12);
  EXPECT_NE(err_.find("0 requests sent, 12 answered from the cache"), std::string::npos) << err_;
}

TEST_F(EagleCliTest, GenWritesImagesAndQuestionsThatScoreWhenAnswered) {
  ASSERT_EQ(Run("gen docvqa --count 2 --seed 4 --out d"), 0) << err_;
  EXPECT_TRUE(fs::exists(dir_ / "d" / "images" / "cbdoc_bar_1.png"));
  EXPECT_EQ(Slurp(dir_ / "d" / "images" / "cbdoc_line_0.png").substr(1, 3), "PNG");
  const auto m = nlohmann::json::parse(Slurp(dir_ / "d" / "manifest.json"));
  EXPECT_EQ(m["questions"], 12);
  ASSERT_EQ(Run("gen docvqa --count 2 --seed 4 --out d2"), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(Slurp(dir_ / "d2" / "manifest.json"))["content_hash"], m["content_hash"]);
  EXPECT_EQ(Run("gen docvqa --count 2 --seed 4 --out d"), 3);
  EXPECT_NE(err_.find("already exists"), std::string::npos) << err_;
  // Each line plus the answer as "pred" is a prediction file scoring 100.
  std::ifstream in(dir_ / "d" / "questions.jsonl");
  std::ofstream preds(dir_ / "p.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    j["pred"] = j.contains("answers") ? j["answers"][0] : j["answer"];
    preds << j.dump() << "\n";
  }
  preds.close();
  ASSERT_EQ(Run("eval eagle --predictions p.jsonl --ledger l.db --json"), 0) << err_;
  const auto s = nlohmann::json::parse(out_)["strict"];
  for (const char* task : {"docvqa", "chartqa", "mcq"}) EXPECT_EQ(s[task]["value"], 100.0) << task;
}

// With only an endpoint, P1 runs the model on our generated documents (the
// requests below) and records the scores, but they are not DocVQA: UNMEASURABLE
// with that reason, never a verdict against the paper's number (issue 49).
TEST_F(EagleCliTest, ModelClaimsOnAnEndpointAreRecordedButNotJudged) {
  cb::testing::HttpServer server([](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("A")};
  });
  setenv("CLAIMBENCH_ENDPOINT", server.url().c_str(), 1);
  setenv("CLAIMBENCH_MODEL", "fake", 1);
  const int rc = Run("run --claim eagle.P1 --claim eagle.P3 --profile smoke --json --ledger l.db");
  unsetenv("CLAIMBENCH_ENDPOINT");
  unsetenv("CLAIMBENCH_MODEL");
  ASSERT_EQ(rc, 0) << err_;
  EXPECT_EQ(server.requests(), 3 * 3 * 2);  // 3 items per kind at smoke, 2 questions each
  const auto j = nlohmann::json::parse(out_);
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& c : j["claims"]) by_id[c["id"]] = c;
  EXPECT_EQ(by_id["eagle.P1"]["verdict"], "UNMEASURABLE");
  EXPECT_NE(by_id["eagle.P1"]["reason"].get<std::string>().find("are not DocVQA val"), std::string::npos)
      << by_id["eagle.P1"]["reason"];
  EXPECT_EQ(by_id["eagle.P3"]["verdict"], "UNMEASURABLE");
  EXPECT_NE(by_id["eagle.P3"]["reason"].get<std::string>().find("eval eagle --predictions"), std::string::npos);
}

// P3 is judged on a prediction file covering TextVQA val: 3,560 of 5,000 right
// is the paper's 71.2 (REPRODUCED); a model answering "no" to everything
// scores 0 (NOT_REPRODUCED); a file with part of the split is UNMEASURABLE.
TEST_F(EagleCliTest, BenchmarkClaimsAreJudgedOnAPredictionFile) {
  auto write = [&](const std::string& name, int rows, int right) {
    std::ofstream f(dir_ / name);
    for (int i = 0; i < rows; ++i)
      f << nlohmann::json({{"question_id", i}, {"task", "textvqa"}, {"pred", i < right ? "yes" : "no"},
                           {"answers", std::vector<std::string>(10, "yes")}})
               .dump()
        << "\n";
  };
  write("paper.jsonl", 5000, 3560);
  write("constant.jsonl", 5000, 0);
  write("part.jsonl", 100, 71);
  std::map<std::string, std::string> verdict, reason;
  for (const char* file : {"paper.jsonl", "constant.jsonl", "part.jsonl"}) {
    setenv("CLAIMBENCH_EAGLE_PREDICTIONS", (dir_ / file).c_str(), 1);
    const int rc = Run("run --claim eagle.P3 --profile smoke --json --ledger l.db");
    unsetenv("CLAIMBENCH_EAGLE_PREDICTIONS");
    ASSERT_EQ(rc, 0) << err_;
    const auto c = nlohmann::json::parse(out_)["claims"][0];
    verdict[file] = c["verdict"];
    reason[file] = c["reason"].is_string() ? c["reason"].get<std::string>() : "";
  }
  EXPECT_EQ(verdict["paper.jsonl"], "REPRODUCED") << reason["paper.jsonl"];
  EXPECT_EQ(verdict["constant.jsonl"], "NOT_REPRODUCED");
  EXPECT_EQ(verdict["part.jsonl"], "UNMEASURABLE");
  EXPECT_NE(reason["part.jsonl"].find("over all 5000"), std::string::npos) << reason["part.jsonl"];
}

TEST_F(EagleCliTest, AnEndpointReturningGarbageIsAClearError) {
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "garbage"}; });
  EXPECT_EQ(Run("eval eagle --endpoint " + server.url() + " --model fake --count 1 --retries 1 --ledger l.db"), 3);
  EXPECT_NE(err_.find("gave no usable answer"), std::string::npos) << err_;
}

// SIGINT mid-run (issue 30, item 5), with the shared helpers of
// fixtures/cli_test_util.h.
class EagleInterruptCliTest : public cb::cli::testing::ClaimbenchTest {};
using cb::cli::testing::Output;

// The endpoint holds the third request: the two answers received stay in
// the ledger's http_cache, no score is recorded, the run is sealed
// "interrupted" and verifies.
TEST_F(EagleInterruptCliTest, SigintMidEndpointEvalSealsTheRunInterruptedAndKeepsTheAnswers) {
  cb::testing::HttpServer slow(cb::testing::AnswerThenHold(2, [](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("A")};
  }));
  double seconds = 0;
  const Output o = InterruptWhen(Spawn({"eval", "eagle", "--endpoint", slow.url(), "--model", "fake", "--count", "2",
                                        "--seed", "11", "--concurrency", "1", "--ledger", "l.db"}),
                                 [&] { return slow.requests() > 2; }, 0, &seconds);
  ExpectInterruptLine(o, "eval eagle",
                      {"after 2 of 12 requests", "2 answers received in this run kept in the ledger's http_cache",
                       "run 1 sealed interrupted with 0 results"});
  EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
  EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
}

TEST_F(EagleInterruptCliTest, SigintMidGenDocvqaWritesNothing) {
  // 2000 items per kind render for minutes; the generator stops at its next
  // item and the output folder is never made.
  const Output o = InterruptWhen(Spawn({"gen", "docvqa", "--count", "2000", "--out", "big"}));
  ExpectInterruptLine(o, "gen docvqa", {"nothing recorded, nothing written"});
  ExpectNothingWritten("big");
}

// Every input error names the file (issue 30 item 6).
class EagleInputCliTest : public cb::cli::testing::ClaimbenchTest {};

TEST_F(EagleInputCliTest, EveryMutationOfAPredictionFileIsNamed) {
  ExpectMutationsNameTheFile({"eval", "eagle", "--predictions", "p.jsonl", "--ledger", "m.db"}, "p.jsonl", kPreds);
}

}  // namespace

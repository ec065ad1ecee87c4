// File: suites/medrega/medrega_cli_test.cpp
// End-to-end tests of `claimbench eval medrega`: a prediction file is scored
// in both modes and recorded, a task the authors' code fails on is reported as
// that error; a malformed line is exit 3 naming FILE:LINE with no ledger; an
// endpoint (a loopback server started here, answering boxes and words from
// the ground truth of the scans it regenerates) gets one PNG data URL per
// question, scores perfectly, and a rerun is answered from the ledger's cache.
// SIGINT mid-run (harness/interrupt.h) seals the run "interrupted" and keeps
// the answers received.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/http_server.h"
#include "generators/regions.h"

namespace {

namespace fs = std::filesystem;
namespace gr = cb::gen::regions;
using cb::cli::testing::ClaimbenchTest;

class MedregaCliTest : public ClaimbenchTest {};

TEST_F(MedregaCliTest, ScoresAPredictionFileInBothModes) {
  std::ofstream(dir_ / "p.jsonl")
      << "{\"task\": \"ss\", \"answer\": \"lesion [[0, 0, 300, 999]]\", \"gt\": \"<ref>lesion</ref><box>[[0, 0, 600, "
         "999]]</box>\", \"hw\": [999, 999]}\n"
         "{\"task\": \"sm\", \"answer\": \"[[0, 0, 300, 999], [300, 0, 500, 999]]\", \"gt\": \"<ref>a</ref><box>[[0, "
         "0, 300, 999]]</box><ref>b</ref><box>[[300, 0, 600, 999]]</box><ref>c</ref><box>[[600, 0, 999, "
         "999]]</box>\", \"hw\": [999, 999]}\n"
         "{\"task\": \"ms\", \"answer\": \"liver [[0, 0, 300, 999]]\", \"gt\": \"\", \"hw\": [999, 999]}\n"
         "{\"task\": \"r2t\", \"pred_answer\": \"mass\", \"gt_answer\": \"liver mass\"}\n";
  const auto o = Run({"eval", "medrega", "--predictions", "p.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  // IoU exactly 0.5: strict > in the code, >= in strict mode.
  EXPECT_EQ(j["paper_compatible"]["ss"]["metrics"]["acc50"], 0.0);
  EXPECT_EQ(j["strict"]["ss"]["metrics"]["acc50"], 1.0);
  // sm: the code's "precision" is matches / #GT at its 0.75 threshold.
  EXPECT_NEAR(j["paper_compatible"]["sm"]["metrics"]["precision"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(j["strict"]["sm"]["metrics"]["precision"].get<double>(), 1.0, 1e-12);
  // ms with an empty ground truth: the code's ZeroDivisionError, no numbers.
  EXPECT_NE(j["paper_compatible"]["ms"]["error"].get<std::string>().find("ZeroDivisionError"), std::string::npos);
  EXPECT_FALSE(j["paper_compatible"]["ms"].contains("metrics"));
  EXPECT_EQ(j["strict"]["ms"]["items_without_gt"], 1);
  EXPECT_TRUE(fs::exists(dir_ / "l.db"));
  // The table names the error too.
  const auto t = Run({"eval", "medrega", "--predictions", "p.jsonl", "--ledger", "l.db"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("error: ZeroDivisionError"), std::string::npos) << t.out;
}

TEST_F(MedregaCliTest, BadLineIsNamedAndNothingIsRecorded) {
  std::ofstream(dir_ / "bad.jsonl") << "{\"task\": \"r2t\", \"pred_answer\": \"a\", \"gt_answer\": \"a\"}\n"
                                       "{\"task\": \"ss\", \"answer\": \"x\", \"gt\": \"\", \"hw\": \"999\"}\n";
  const auto o = Run({"eval", "medrega", "--predictions", "bad.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("bad.jsonl:2: 'hw' must be [H, W]"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  EXPECT_EQ(Run({"eval", "medrega", "--predictions", "bad.jsonl", "--task", "zz", "--ledger", "bad.db"}).exit_code, 3);
  EXPECT_EQ(Run({"eval", "medrega", "--ledger", "bad.db"}).exit_code, 3);  // neither input
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

// The fake model: regenerates the scans the command asks about and answers
// each prompt from its ground truth, in the prompt's format.
std::string AnswerFromGt(const gr::Question& q) {
  if (q.task == gr::Task::kR2t || q.task == gr::Task::kRg) return q.gt;
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t r = q.gt.find("<ref>", pos);
    if (r == std::string::npos) break;
    const size_t m = q.gt.find("</ref><box>", r), e = q.gt.find("</box>", m);
    out += q.gt.substr(r + 5, m - r - 5) + " " + q.gt.substr(m + 11, e - m - 11) + " ";
    pos = e;
  }
  return out;
}

TEST_F(MedregaCliTest, EveryMutationOfAPredictionFileIsNamed) {
  const std::string jsonl =
      R"({"task": "ss", "answer": "lesion [[0, 0, 300, 999]]", "gt": "<ref>lesion</ref><box>[[0, 0, 600, 999]]</box>", "hw": [999, 999]})"
      "\n"
      R"({"task": "r2t", "pred_answer": "mass", "gt_answer": "liver mass"})"
      "\n";
  ExpectMutationsNameTheFile({"eval", "medrega", "--predictions", "p.jsonl", "--ledger", "m.db"}, "p.jsonl", jsonl);
  // The JSON-array form (one task for all): a 1e999 was nlohmann's bare "number overflow".
  const std::string array =
      R"([{"answer": "lesion [[0, 0, 300, 999]]", "gt": "<ref>lesion</ref><box>[[0, 0, 600, 999]]</box>", "hw": [999, 999]},
 {"answer": "liver [[0, 0, 300, 999]]", "gt": "<ref>liver</ref><box>[[0, 0, 300, 999]]</box>", "hw": [999, 999]}])"
      "\n";
  ExpectMutationsNameTheFile({"eval", "medrega", "--predictions", "a.json", "--task", "ss", "--ledger", "m.db"},
                             "a.json", array);
}

TEST_F(MedregaCliTest, EndpointGetsImagesScoresAndCaches) {
  const auto scans = gr::Generate({.seed = 5, .count = 2, .size = 128});
  std::map<std::string, std::string> answers;
  for (const auto& s : scans)
    for (const auto& q : s.questions) answers[q.prompt] = AnswerFromGt(q);
  std::atomic<int> images{0}, unknown{0};
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& req) {
    const auto body = nlohmann::json::parse(req.body);
    const auto& content = body["messages"][0]["content"];
    std::string prompt;
    for (const auto& part : content) {
      if (part["type"] == "image_url" &&
          part["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,iVBORw0KGgo", 0) == 0)
        ++images;
      if (part["type"] == "text") prompt = part["text"];
    }
    const auto it = answers.find(prompt);
    if (it == answers.end()) ++unknown;
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody(it == answers.end() ? "?" : it->second)};
  });
  const std::vector<std::string> args = {"eval",   "medrega", "--endpoint", server.url(), "--model", "fake",
                                         "--seed", "5",       "--count",    "2",          "--size",  "128",
                                         "--json", "--ledger", "l.db"};
  const auto o = Run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(server.requests(), 12);  // 2 scans x 6 tasks
  EXPECT_EQ(images.load(), 12);
  EXPECT_EQ(unknown.load(), 0);
  const auto j = nlohmann::json::parse(o.out);
  for (const char* mode : {"strict", "paper_compatible"})
    for (const char* task : {"ss", "sm", "ms", "mm", "r2t", "rg"})
      for (const auto& [k, v] : j[mode][task]["metrics"].items())
        EXPECT_NEAR(v.get<double>(), 1.0, 1e-6) << mode << " " << task << " " << k;
  EXPECT_NE(o.err.find("12 requests sent, 0 answered from the cache"), std::string::npos) << o.err;
  const auto again = Run(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.requests(), 12);
  EXPECT_NE(again.err.find("0 requests sent, 12 answered from the cache"), std::string::npos) << again.err;
}

TEST_F(MedregaCliTest, GarbageAnswersScoreZeroNotAnError) {
  cb::testing::HttpServer server([](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("I cannot see any image.")};
  });
  const auto o = Run({"eval", "medrega", "--endpoint", server.url(), "--model", "fake", "--count", "1", "--size",
                      "128", "--tasks", "ss,r2t", "--json", "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["strict"]["ss"]["metrics"]["iou"], 0.0);
  EXPECT_EQ(j["paper_compatible"]["r2t"]["metrics"]["accuracy"], 0.0);
  EXPECT_EQ(server.requests(), 2);
}

// SIGINT while the endpoint holds the third request (issue 30, item 5): the
// two answers received stay in the ledger's http_cache, no score is
// recorded, the run is sealed "interrupted" and verifies.
TEST_F(MedregaCliTest, SigintMidEndpointEvalSealsTheRunInterruptedAndKeepsTheAnswers) {
  cb::testing::HttpServer slow(cb::testing::AnswerThenHold(2, [](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("?")};
  }));
  double seconds = 0;
  const auto o = InterruptWhen(Spawn({"eval", "medrega", "--endpoint", slow.url(), "--model", "fake", "--seed", "5",
                                      "--count", "2", "--size", "128", "--concurrency", "1", "--ledger", "l.db"}),
                               [&] { return slow.requests() > 2; }, 0, &seconds);
  ExpectInterruptLine(o, "eval medrega",
                      {"after 2 of 12 requests", "2 answers received in this run kept in the ledger's http_cache",
                       "run 1 sealed interrupted with 0 results"});
  EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
  EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
}

}  // namespace

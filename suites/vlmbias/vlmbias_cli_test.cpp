// File: suites/vlmbias/vlmbias_cli_test.cpp
// End-to-end tests of `claimbench eval vlmbias`: a generation file is scored
// and recorded, a malformed one is exit 3 naming FILE:LINE with no ledger; an
// endpoint (a loopback server started here, stopped with the test) gets each
// item's image as a data URL and its prompt per language, the optional mapper
// step gets the authors' QA_PROMPT, a rerun is answered from the ledger's
// cache, and garbage replies are a clear error. SIGINT mid-run
// (harness/interrupt.h) seals the run "interrupted" and keeps the answers
// received.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/http_server.h"
#include "fixtures/paths.h"

namespace {

using cb::cli::testing::ClaimbenchTest;
using nlohmann::json;

class VlmbiasCliTest : public ClaimbenchTest {
 protected:
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name, std::ios::binary) << text; }
  void WriteItems(const std::string& extra_bad = "");
};

TEST_F(VlmbiasCliTest, ScoresAGenerationFileAndRefusesAMalformedOne) {
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    rows += json{{"task", "aokvqa"}, {"id", "w" + std::to_string(i)}, {"region", "west"}, {"prompt_lang", "en"},
                 {"generation", i < 15 ? "Lotus" : "Rose"}, {"options", {"Rose", "Lotus"}}, {"label", 1}}
                .dump() + "\n";
    rows += json{{"task", "aokvqa"}, {"id", "e" + std::to_string(i)}, {"region", "east_asia"}, {"prompt_lang", "en"},
                 {"generation", i < 10 ? "2" : "no idea"}, {"options", {"Rose", "Lotus"}}, {"label", 1}}
                .dump() + "\n";
  }
  Write("g.jsonl", rows);
  auto o = Run({"eval", "vlmbias", "--predictions", "g.jsonl", "--ledger", "l.db", "--json", "--resamples", "500"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = json::parse(o.out);
  ASSERT_EQ(j["strict"]["groups"].size(), 1u);
  const auto& g = j["strict"]["groups"][0];
  EXPECT_DOUBLE_EQ(g["perf_west"].get<double>(), 0.75);
  EXPECT_EQ(g["by_digit"], 10);
  EXPECT_EQ(g["by_random"], 10);
  EXPECT_DOUBLE_EQ(g["random_fallback_rate"].get<double>(), 0.25);
  // East Asia: 10 by digit "2" (right) + 10 random fallbacks: seeded, so a rerun repeats it.
  auto o2 = Run({"eval", "vlmbias", "--predictions", "g.jsonl", "--ledger", "l.db", "--json", "--resamples", "500"});
  ASSERT_EQ(o2.exit_code, 0) << o2.err;
  EXPECT_EQ(json::parse(o2.out)["strict"]["groups"][0]["perf_east_asia"], g["perf_east_asia"]);
  // The table.
  auto t = Run({"eval", "vlmbias", "--predictions", "g.jsonl", "--ledger", "l.db", "--resamples", "500"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("ratio W/EA"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("per split"), std::string::npos) << t.out;
  // A bad line: exit 3, FILE:LINE, no ledger.
  Write("bad.jsonl", rows + "{\"task\": \"aokvqa\", \"id\": 1, \"region\": \"mars\", \"score\": 1}\n");
  auto b = Run({"eval", "vlmbias", "--predictions", "bad.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_NE(b.err.find("bad.jsonl:41: 'region' must be"), std::string::npos) << b.err;
  EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
  Write("west.jsonl", "{\"task\": \"t\", \"id\": 1, \"region\": \"west\", \"score\": 1}\n");
  auto w = Run({"eval", "vlmbias", "--predictions", "west.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(w.exit_code, 3);
  EXPECT_NE(w.err.find("both regions"), std::string::npos) << w.err;
  EXPECT_EQ(Run({"eval", "vlmbias", "--ledger", "bad.db"}).exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
}

// Items: 3 West and 3 East-Asian images (PNG signature + bytes), prompts in en and zh.
void VlmbiasCliTest::WriteItems(const std::string& extra_bad) {
  std::string items;
  for (int i = 0; i < 6; ++i) {
    const std::string img = "img" + std::to_string(i) + ".png";
    std::ofstream(Path(img), std::ios::binary) << std::string("\x89PNG\r\n\x1a\n", 8) << "pixels" << i;
    items += json{{"task", "cvqa"},
                  {"id", "q" + std::to_string(i)},
                  {"region", i < 3 ? "west" : "east_asia"},
                  {"image", img},
                  {"prompt", {{"en", "EN question " + std::to_string(i)}, {"zh", "ZH question " + std::to_string(i)}}},
                  {"question_en", "What flower is this?"},
                  {"options", {"Rose", "Lotus", "Jasmine", "Hibiscus"}},
                  {"label", "Lotus"}}
                 .dump() + "\n";
  }
  std::ofstream(Path("items.jsonl")) << items << extra_bad;
}

TEST_F(VlmbiasCliTest, QueriesAnEndpointWithImagesThenResumesFromTheCache) {
  WriteItems();
  std::atomic<int> images{0}, mapper{0};
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& req) {
    const auto body = json::parse(req.body);
    const auto& content = body["messages"][0]["content"];
    if (content.is_array()) {  // the VLM: an image part and the prompt
      EXPECT_EQ(content[0]["type"], "image_url");
      EXPECT_EQ(content[0]["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,", 0), 0u);
      ++images;
      const std::string prompt = content[1]["text"];
      const bool west = prompt.back() < '3';
      return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody(west ? "a lotus flower" : "a pink rose")};
    }
    ++mapper;
    const std::string text = content;
    EXPECT_NE(text.find("Which of the following answers is closest"), std::string::npos) << text;
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody(text.find("lotus") != std::string::npos ? "2" : "1")};
  });
  const std::vector<std::string> args = {"eval", "vlmbias", "--endpoint", server.url(), "--model", "vlm",
                                         "--items", "items.jsonl", "--ledger", "l.db", "--json", "--resamples", "200"};
  auto o = Run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(images.load(), 12);
  EXPECT_EQ(server.requests(), 12);
  const auto j = json::parse(o.out);
  ASSERT_EQ(j["strict"]["groups"].size(), 2u);  // en and zh
  EXPECT_DOUBLE_EQ(j["strict"]["groups"][0]["perf_west"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["strict"]["groups"][0]["perf_east_asia"].get<double>(), 0.0);
  EXPECT_TRUE(j["strict"]["groups"][0]["bias_ratio"].is_null());  // East Asia 0: undefined
  EXPECT_NE(o.err.find("12 requests sent, 0 answered from the cache"), std::string::npos) << o.err;
  auto again = Run(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.requests(), 12);
  EXPECT_NE(again.err.find("0 requests sent, 12 answered from the cache"), std::string::npos) << again.err;
  // The mapper step: 12 more VLM answers from the cache, 12 mapper requests.
  std::vector<std::string> with_mapper = args;
  with_mapper.insert(with_mapper.end(), {"--mapper-model", "mistral", "--prompt-langs", "en,zh"});
  auto m = Run(with_mapper);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(mapper.load(), 12);
  EXPECT_EQ(server.requests(), 24);
  EXPECT_DOUBLE_EQ(json::parse(m.out)["strict"]["groups"][1]["perf_west"].get<double>(), 1.0);
  server.Stop();
}

TEST_F(VlmbiasCliTest, BadItemsAndGarbageRepliesAreClearErrors) {
  WriteItems("{\"task\": \"cvqa\", \"id\": \"x\", \"region\": \"west\", \"image\": \"missing.png\", "
                   "\"prompt\": {\"en\": \"q\"}, \"options\": [\"a\"], \"label\": 0}\n");
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "garbage"}; });
  auto b = Run({"eval", "vlmbias", "--endpoint", server.url(), "--model", "vlm", "--items", "items.jsonl", "--ledger",
                "l.db"});
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_NE(b.err.find("items.jsonl:7: image missing.png: no such file"), std::string::npos) << b.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "l.db"));
  EXPECT_EQ(server.requests(), 0);
  WriteItems();
  auto g = Run({"eval", "vlmbias", "--endpoint", server.url(), "--model", "vlm", "--items", "items.jsonl", "--retries",
                "1", "--ledger", "l.db"});
  EXPECT_EQ(g.exit_code, 3);
  EXPECT_NE(g.err.find("gave no usable answer"), std::string::npos) << g.err;
  server.Stop();
}

// The authors' fixture CSV (fixtures/vlmbias/, PROVENANCE.md): the labels of
// their test_en_anns_in_en and test_zh_anns_in_zh, in their order.
TEST_F(VlmbiasCliTest, LabelsReproduceTheAuthorsArtelingoTests) {
  auto o = Run({"vlmbias", "labels", "--csv", cb::testing::FixturePath("vlmbias/artelingo_release_min.csv"), "--splits",
                "train", "--out", "labels.jsonl"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<json> rows;
  std::ifstream in(Path("labels.jsonl"));
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  ASSERT_EQ(rows.size(), 6u);
  const char* expected[] = {"sadness", "awe", "awe", "sadness", "contentment", "contentment"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rows[i]["label"], expected[i]) << i;
    EXPECT_EQ(rows[i]["language"], i < 3 ? "en" : "zh") << i;
  }
  EXPECT_EQ(rows[3]["label_zh"], "伤感");
  EXPECT_EQ(Run({"vlmbias", "labels", "--csv", "missing.csv", "--out", "x.jsonl"}).exit_code, 3);
  EXPECT_EQ(Run({"vlmbias", "labels", "--csv", cb::testing::FixturePath("vlmbias/artelingo_release_min.csv"),
                 "--skip-labels", "joy", "--out", "x.jsonl"}).exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.jsonl"));
}

// SIGINT while the endpoint holds the third request (issue 30, item 5): the
// two answers received stay in the ledger's http_cache, no score is
// recorded, the run is sealed "interrupted" and verifies.
TEST_F(VlmbiasCliTest, SigintMidEndpointEvalSealsTheRunInterruptedAndKeepsTheAnswers) {
  WriteItems();
  cb::testing::HttpServer slow(cb::testing::AnswerThenHold(2, [](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("a lotus flower")};
  }));
  double seconds = 0;
  const auto o = InterruptWhen(Spawn({"eval", "vlmbias", "--endpoint", slow.url(), "--model", "vlm", "--items",
                                      "items.jsonl", "--concurrency", "1", "--ledger", "l.db"}),
                               [&] { return slow.requests() > 2; }, 0, &seconds);
  ExpectInterruptLine(o, "eval vlmbias",
                      {"after 2 of 12 requests", "2 answers received in this run kept in the ledger's http_cache",
                       "run 1 sealed interrupted with 0 results"});
  EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
  EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
}

}  // namespace

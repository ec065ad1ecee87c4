// File: suites/regenesis/regenesis_cli_test.cpp
// End-to-end tests of `claimbench eval regenesis` (two prediction files ->
// per-task and mean deltas; bad input is exit 3 naming FILE:LINE with no
// ledger) and `claimbench regenesis synthesize` against a fake model on a
// loopback server started here (bounded: a fixed number of requests, stopped
// with the test): the three-step ReGenesis chain, the filter (duplicates and
// wrong answers dropped), the SFT file, a resumed rerun answered from the
// ledger's cache, the STaR baseline's rationalisation, bad input; SIGINT
// mid-run (harness/interrupt.h): synthesize seals its run "interrupted",
// keeps the answers received and writes no SFT file; gen reasoning writes
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "fixtures/http_server.h"
#include "generators/reasoning.h"

namespace {

using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using nlohmann::json;
namespace gr = cb::gen::reasoning;

class RegenesisCliTest : public ClaimbenchTest {
 protected:
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name, std::ios::binary) << text; }
};

std::string Rows(const std::string& task, int right, int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += json{{"task", task}, {"id", i}, {"prediction", "... The answer is " + std::string(i < right ? "7" : "8") + "."},
              {"gold", 7}}
             .dump() + "\n";
  return s;
}

TEST_F(RegenesisCliTest, EvalComputesInDomainAndOodDeltas) {
  Write("before.jsonl", Rows("gsm8k", 40, 100) + Rows("svamp", 50, 100) + Rows("asdiv", 30, 50));
  Write("after.jsonl", Rows("gsm8k", 63, 100) + Rows("svamp", 58, 100) + Rows("asdiv", 32, 50));
  auto o = Run({"eval", "regenesis", "--predictions", "before.jsonl", "after.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = json::parse(o.out)["strict"]["rules"]["standard"];
  EXPECT_DOUBLE_EQ(j["in_domain_delta"].get<double>(), 23.0);
  EXPECT_DOUBLE_EQ(j["ood_delta"].get<double>(), (8.0 + 4.0) / 2);
  EXPECT_EQ(j["ood_tasks_present"], 2);
  EXPECT_DOUBLE_EQ(j["tasks"]["gsm8k"]["accuracy_after"].get<double>(), 63.0);
  // --ood changes the set; the table names the rules.
  auto t = Run({"eval", "regenesis", "--predictions", "before.jsonl", "after.jsonl", "--ood", "svamp", "--ledger", "l.db"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("+8.00 pp (1 tasks)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("strict"), std::string::npos) << t.out;
  // Bad input: one line, exit 3, nothing recorded.
  Write("bad.jsonl", Rows("gsm8k", 1, 3) + "{\"task\": \"gsm8k\", \"prediction\": \"1\"}\n");
  auto b = Run({"eval", "regenesis", "--predictions", "before.jsonl", "bad.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_NE(b.err.find("bad.jsonl:4: missing field 'gold'"), std::string::npos) << b.err;
  EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  Write("other.jsonl", Rows("anli", 1, 2));
  auto d = Run({"eval", "regenesis", "--predictions", "before.jsonl", "other.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(d.exit_code, 3);
  EXPECT_NE(d.err.find("share no task"), std::string::npos) << d.err;
  EXPECT_NE(Run({"eval", "regenesis", "--predictions", "before.jsonl", "--ledger", "bad.db"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.db"));
}

// A fake model for the generated items of `gen_seed` (the command's --seed): right when the
// request seed is even (the same path text each time: duplicates), wrong when
// odd; STaR: wrong unless the prompt carries the hint.
struct FakeModel {
  std::map<std::string, gr::Item> by_question;
  std::atomic<int> guidelines{0}, structures{0}, paths{0}, star{0};
  FakeModel(int per_task, uint64_t gen_seed) {
    for (const auto& it : gr::Generate({.seed = gen_seed, .arith = per_task, .order = per_task, .compare = per_task}))
      by_question[it.question] = it;
  }
  static std::string Wrong(const gr::Item& it) {
    if (it.family == "number") return std::to_string(std::stoll(it.answer) + 1);
    if (it.family == "letter") return it.answer == "A" ? "B" : "A";
    return it.answer == "yes" ? "no" : "yes";
  }
  const gr::Item& Find(const std::string& prompt) {
    for (const auto& [q, it] : by_question)
      if (prompt.find(q) != std::string::npos) return it;
    ADD_FAILURE() << "no item in prompt: " << prompt;
    return by_question.begin()->second;
  }
  cb::testing::HttpReply operator()(const cb::testing::HttpRequest& req) {
    const auto body = json::parse(req.body);
    const std::string prompt = body["messages"][0]["content"];
    EXPECT_GT(body["temperature"].get<double>(), 0.0);
    const uint64_t seed = body["seed"].get<uint64_t>();
    std::string reply;
    if (prompt.find("Adapt the seed guidelines") != std::string::npos) {
      ++guidelines;
      reply = "Read the numbers; combine them in order.";
    } else if (prompt.find("Turn these guidelines into a reasoning structure") != std::string::npos) {
      ++structures;
      EXPECT_NE(prompt.find("Read the numbers"), std::string::npos);
      reply = "1. List the facts. 2. Combine them. 3. State the answer.";
    } else if (prompt.find("Follow the reasoning structure") != std::string::npos) {
      ++paths;
      EXPECT_NE(prompt.find("1. List the facts."), std::string::npos);
      const gr::Item& it = Find(prompt);
      reply = seed % 2 == 0 ? it.rationale : "I combined the facts. The answer is " + Wrong(it) + ".";
    } else {
      ++star;
      const gr::Item& it = Find(prompt);
      reply = prompt.find("(The correct answer is") != std::string::npos ? it.rationale
                                                                          : "Quickly: the answer is " + Wrong(it) + ".";
    }
    return {200, cb::testing::HttpServer::ChatBody(reply)};
  }
};

std::vector<json> ReadJsonl(const std::string& path) {
  std::vector<json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(json::parse(line));
  return rows;
}

TEST_F(RegenesisCliTest, EveryMutationOfAPredictionFileIsNamed) {
  Write("before.jsonl", Rows("gsm8k", 4, 10) + Rows("svamp", 5, 10));
  ExpectMutationsNameTheFile({"eval", "regenesis", "--predictions", "before.jsonl", "after.jsonl", "--ledger", "m.db"},
                             "after.jsonl", Rows("gsm8k", 6, 10) + Rows("svamp", 6, 10));
}

TEST_F(RegenesisCliTest, SynthesizesFiltersWritesSftAndResumes) {
  FakeModel model(2, 20250100);  // 6 items
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& r) { return model(r); });
  const std::vector<std::string> base = {"regenesis", "synthesize", "--endpoint", server.url(), "--model", "fake",
                                         "--generate", "2", "--samples", "3", "--seed", "20250100", "--ledger", "l.db",
                                         "--json"};
  auto args = base;
  args.insert(args.end(), {"--out", "sft.jsonl"});
  auto o = Run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(server.requests(), 6 * 3 * 3);
  EXPECT_EQ(model.guidelines.load(), 18);
  EXPECT_EQ(model.paths.load(), 18);
  const auto j = json::parse(o.out)["strict"];
  EXPECT_EQ(j["paths"], 18);
  EXPECT_EQ(j["duplicates"], 6);  // samples 0 and 2 (even seeds) give the same right path
  EXPECT_EQ(j["wrong"], 6);
  EXPECT_EQ(j["kept"], 6);
  const auto sft = ReadJsonl(Path("sft.jsonl"));
  ASSERT_EQ(sft.size(), 6u);
  EXPECT_EQ(sft[0]["messages"][0]["role"], "user");
  EXPECT_EQ(model.by_question.count(sft[0]["messages"][0]["content"]), 1u);
  EXPECT_EQ(sft[0]["method"], "regenesis");
  // Rerun (another output): every response comes from the ledger's cache.
  args = base;
  args.insert(args.end(), {"--out", "sft2.jsonl"});
  auto again = Run(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(server.requests(), 54);
  EXPECT_NE(again.err.find("0 requests sent, 54 answered from the cache"), std::string::npos) << again.err;
  EXPECT_EQ(cb::cli::testing::ReadFile(dir_ / "sft2.jsonl"), cb::cli::testing::ReadFile(dir_ / "sft.jsonl"));
  // An existing --out is refused before any request.
  EXPECT_EQ(Run(args).exit_code, 3);
  server.Stop();
}

TEST_F(RegenesisCliTest, StarRationalisesWithTheHintAndKeepsTheHintFreeQuestion) {
  FakeModel model(1, 20250101);  // 3 items (the default seed)
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& r) { return model(r); });
  auto o = Run({"regenesis", "synthesize", "--endpoint", server.url(), "--model", "fake", "--method", "star",
                "--generate", "1", "--samples", "2", "--out", "star.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(model.star.load(), 3 * 2 + 3);  // samples, then one rationalisation per item
  const auto j = json::parse(o.out)["strict"];
  EXPECT_EQ(j["rationalised"], 3);
  EXPECT_EQ(j["kept"], 3);
  for (const auto& row : ReadJsonl(Path("star.jsonl")))
    EXPECT_EQ(row["messages"][0]["content"].get<std::string>().find("correct answer"), std::string::npos);
  server.Stop();
}

TEST_F(RegenesisCliTest, GenReasoningWritesAnItemsFileThatSynthesizeReads) {
  auto g = Run({"gen", "reasoning", "--out", "items.jsonl", "--count", "1", "--seed", "7"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const auto items = ReadJsonl(Path("items.jsonl"));
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0]["task"], "arith");
  const auto manifest = json::parse(cb::cli::testing::ReadFile(dir_ / "items.jsonl.manifest.json"));
  EXPECT_EQ(manifest["content_hash"], gr::ContentHash(gr::Generate({.seed = 7, .arith = 1, .order = 1, .compare = 1})));
  EXPECT_EQ(Run({"gen", "reasoning", "--out", "items.jsonl"}).exit_code, 3);  // exists
  FakeModel model(1, 7);
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& r) { return model(r); });
  auto o = Run({"regenesis", "synthesize", "--endpoint", server.url(), "--model", "fake", "--items", "items.jsonl",
                "--samples", "1", "--seed", "0", "--out", "sft.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(json::parse(o.out)["strict"]["kept"], 3);  // seed 0: even, right
  EXPECT_EQ(server.requests(), 9);
  server.Stop();
}

TEST_F(RegenesisCliTest, SynthesizeRefusesBadInput) {
  Write("items.jsonl", "{\"id\": \"a\", \"task\": \"gsm8k\", \"question\": \"1+1?\", \"gold\": 2}\n{\"id\": \"b\"}\n");
  auto b = Run({"regenesis", "synthesize", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--items", "items.jsonl",
                "--out", "o.jsonl", "--ledger", "l.db"});
  EXPECT_EQ(b.exit_code, 3);
  EXPECT_NE(b.err.find("items.jsonl:2: missing field 'task'"), std::string::npos) << b.err;
  auto t = Run({"regenesis", "synthesize", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--temperature", "0",
                "--out", "o.jsonl", "--ledger", "l.db"});
  EXPECT_EQ(t.exit_code, 3);
  EXPECT_NE(t.err.find("--temperature"), std::string::npos) << t.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "l.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "o.jsonl"));
}

// SIGINT while the endpoint holds the third request (issue 30, item 5): the
// two answers received stay in the ledger's http_cache, nothing is recorded
// or written to --out, the run is sealed "interrupted" and verifies.
TEST_F(RegenesisCliTest, SigintMidSynthesizeSealsTheRunInterruptedKeepsTheAnswersAndWritesNothing) {
  FakeModel model(2, 20250100);
  cb::testing::HttpServer slow(
      cb::testing::AnswerThenHold(2, [&](int, const cb::testing::HttpRequest& r) { return model(r); }));
  double seconds = 0;
  const Output o = InterruptWhen(Spawn({"regenesis", "synthesize", "--endpoint", slow.url(), "--model", "fake",
                                        "--generate", "2", "--samples", "3", "--seed", "20250100", "--concurrency",
                                        "1", "--ledger", "l.db", "--out", "sft.jsonl"}),
                                 [&] { return slow.requests() > 2; }, 0, &seconds);
  ExpectInterruptLine(o, "regenesis synthesize",
                      {"after 2 of ", "2 answers received in this run kept in the ledger's http_cache",
                       "run 1 sealed interrupted with 0 results"});
  EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
  EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
  ExpectNothingWritten("sft.jsonl");
}

TEST_F(RegenesisCliTest, SigintMidGenReasoningWritesNothing) {
  const Output o = InterruptWhen(Spawn({"gen", "reasoning", "--count", "100000", "--out", "items.jsonl"}));
  ExpectInterruptLine(o, "gen reasoning", {"nothing recorded, nothing written"});
  ExpectNothingWritten("items.jsonl");
  ExpectNothingWritten("items.jsonl.manifest.json");
}

}  // namespace

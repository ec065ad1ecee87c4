// File: harness/cli/sgp_cli_test.cpp
// End-to-end tests of `claimbench gen sgp` and `claimbench eval sgp`:
// generation writes SGP-Bench-schema JSONL splits, meta, programs and a
// manifest, is deterministic and refuses bad input, and its help names the
// subjects of the invariance splits as the files hold them; a prediction file
// (with re-query attempts too) is scored and recorded, a malformed one or an
// unknown subject is exit 3 naming FILE:LINE with no ledger; an endpoint (a loopback server started here) is
// queried, a rerun is answered from the ledger's cache, an endpoint
// returning garbage is a clear error, and an endpoint echoing the API key
// leaves it in no file the run writes (ledger, cache, stdout, stderr).
// SIGINT mid-run (harness/interrupt.h): the endpoint eval seals its run
// "interrupted", keeps the answers received and resumes; gen writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/http_server.h"
#include "fixtures/cli_test_util.h"

namespace {

namespace fs = std::filesystem;
using cb::cli::testing::ClaimbenchTest;
using cb::cli::testing::Output;
using cb::cli::testing::ReadFile;

class SgpCliTest : public ClaimbenchTest {};

std::vector<nlohmann::json> ReadRows(const fs::path& p) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

TEST_F(SgpCliTest, GenWritesDeterministicSplits) {
  auto o = Run({"gen", "sgp", "--count", "12", "--seed", "5", "--variants", "2", "--cad", "4", "--out", "a"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(ReadRows(dir_ / "a" / "cad.jsonl").size(), ReadRows(dir_ / "a" / "meta" / "cad.jsonl").size());
  EXPECT_TRUE(fs::exists(dir_ / "a" / "cad" / "000003.cad"));
  EXPECT_TRUE(fs::exists(dir_ / "a" / "cad" / "000003.views.svg"));
  for (const char* f : {"svg.jsonl", "inv.jsonl", "inv_t0.jsonl", "inv_t1.jsonl", "inv_r0.jsonl", "inv_r1.jsonl",
                        "meta/svg.jsonl", "programs/000011.svg", "manifest.json"})
    EXPECT_TRUE(fs::exists(dir_ / "a" / f)) << f;
  const auto rows = ReadRows(dir_ / "a" / "svg.jsonl");
  ASSERT_FALSE(rows.empty());
  for (const char* k : {"Question", "A", "B", "C", "D", "Answer", "Subject"}) EXPECT_TRUE(rows[0].contains(k)) << k;
  EXPECT_EQ(ReadRows(dir_ / "a" / "inv.jsonl").size(), ReadRows(dir_ / "a" / "inv_r1.jsonl").size());
  ASSERT_EQ(Run({"gen", "sgp", "--count", "12", "--seed", "5", "--variants", "2", "--out", "b"}).exit_code, 0);
  const auto ma = nlohmann::json::parse(ReadFile(dir_ / "a" / "manifest.json"));
  const auto mb = nlohmann::json::parse(ReadFile(dir_ / "b" / "manifest.json"));
  EXPECT_EQ(ma["content_hash"], mb["content_hash"]);
  EXPECT_EQ(ReadFile(dir_ / "a" / "inv_r1.jsonl"), ReadFile(dir_ / "b" / "inv_r1.jsonl"));
  o = Run({"gen", "sgp", "--count", "3", "--out", "a"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("already exists"), std::string::npos) << o.err;
}

// The invariance splits hold only rotation-invariant subjects by design; the
// help says which, and the files agree with it.
TEST_F(SgpCliTest, HelpNamesTheSubjectsOfTheInvarianceSplits) {
  const auto help = Run({"gen", "sgp", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const std::string cue = "only the rotation-invariant subjects (";
  const size_t at = help.out.find(cue);
  ASSERT_NE(at, std::string::npos) << help.out;
  const std::string named = help.out.substr(at + cue.size(), help.out.find(')', at) - at - cue.size());
  ASSERT_EQ(Run({"gen", "sgp", "--count", "30", "--variants", "1", "--out", "g"}).exit_code, 0);
  std::set<std::string> in_inv, in_svg;
  for (const char* f : {"inv.jsonl", "inv_t0.jsonl", "inv_r0.jsonl"})
    for (const auto& r : ReadRows(dir_ / "g" / f)) in_inv.insert(r["Subject"].get<std::string>());
  for (const auto& r : ReadRows(dir_ / "g" / "svg.jsonl")) in_svg.insert(r["Subject"].get<std::string>());
  for (const std::string s : {"Semantics", "Color", "Count", "Shape", "Reasoning"}) {
    ASSERT_TRUE(in_svg.count(s)) << s;  // 30 programs ask every subject
    EXPECT_EQ(named.find(s) != std::string::npos, in_inv.count(s) == 1) << s << " vs help: " << named;
  }
  EXPECT_EQ(in_inv.count("Shape") + in_inv.count("Reasoning"), 0u);
}

TEST_F(SgpCliTest, GenRefusesBadInput) {
  auto o = Run({"gen", "sgp", "--count", "0", "--out", "x"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("--count must be in [1, 1000000]"), std::string::npos) << o.err;
  o = Run({"gen", "sgp", "--variants", "9", "--out", "x"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("--variants"), std::string::npos) << o.err;
  o = Run({"gen", "sgp", "--count", "abc", "--out", "x"});
  EXPECT_NE(o.exit_code, 0);
  o = Run({"gen", "sgp", "--cad", "-1", "--out", "x"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("--cad must be in"), std::string::npos) << o.err;
  o = Run({"gen", "sgp", "--count", "2", "--out", "no/such/parent"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

TEST_F(SgpCliTest, ScoresAPredictionFileAndRefusesAMalformedOne) {
  ASSERT_EQ(Run({"gen", "sgp", "--count", "8", "--variants", "1", "--out", "g"}).exit_code, 0);
  std::ofstream preds(dir_ / "preds.jsonl");
  for (const char* split : {"inv", "inv_t0", "inv_r0"}) {
    const auto rows = ReadRows(dir_ / "g" / (std::string(split) + ".jsonl"));
    for (size_t i = 0; i < rows.size(); ++i) {
      nlohmann::json p = rows[i];
      p["response"] = "Let me think.\nAnswer: " + p["Answer"].get<std::string>();
      p["split"] = split;
      p["index"] = i;
      preds << p.dump() << "\n";
    }
  }
  preds.close();
  auto o = Run({"eval", "sgp", "--predictions", "preds.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["strict"]["overall"], 100.0);
  EXPECT_EQ(j["paper_compatible"]["overall"], 100.0);
  EXPECT_EQ(j["strict"]["consistency_translation"], 1.0);
  EXPECT_EQ(j["strict"]["consistency_se2"], 1.0);
  EXPECT_TRUE(j["strict"]["subjects"].contains("Count"));

  // A row may carry the re-query attempts; paper mode replays sgp-bench's loop
  // (sgp_eval.py lines 33-45 at e7906399beebb82ab5dcc4aa547eaec8674c9144):
  // the third attempt is the first that matches. Strict reads the first only.
  std::ofstream(dir_ / "requery.jsonl")
      << "{\"Answer\":\"C\",\"Subject\":\"Color\",\"responses\":[\"hmm\",\"no idea\",\"Answer:\u00a0C\"]}\n";
  o = Run({"eval", "sgp", "--predictions", "requery.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto rq = nlohmann::json::parse(o.out);
  EXPECT_EQ(rq["paper_compatible"]["overall"], 100.0);
  EXPECT_EQ(rq["strict"]["overall"], 0.0);

  std::ofstream(dir_ / "bad.jsonl") << ReadFile(dir_ / "preds.jsonl") << "{\"Answer\": 5}\n";
  const int bad_line = static_cast<int>(ReadRows(dir_ / "preds.jsonl").size()) + 1;
  o = Run({"eval", "sgp", "--predictions", "bad.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("bad.jsonl:" + std::to_string(bad_line) + ": 'Answer' must be a string, not a number"), std::string::npos)
      << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  std::ofstream(dir_ / "subj.jsonl") << "{\"Answer\":\"A\",\"Subject\":\"Texture\",\"response\":\"Answer: A\"}\n";
  o = Run({"eval", "sgp", "--predictions", "subj.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("subj.jsonl:1: unknown Subject 'Texture'"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;  // one line
  EXPECT_EQ(Run({"eval", "sgp", "--ledger", "bad.db"}).exit_code, 3);
  EXPECT_EQ(Run({"eval", "sgp", "--endpoint", "ftp://x", "--model", "m", "--ledger", "bad.db"}).exit_code, 3);
  EXPECT_EQ(Run({"eval", "sgp", "--endpoint", "http://127.0.0.1:1", "--model", "m", "--system", "x", "--ledger",
                 "bad.db"}).exit_code,
            3);
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

TEST_F(SgpCliTest, QueriesAnEndpointThenResumesFromTheLedgerCache) {
  cb::testing::HttpServer server([](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("Thinking...\nAnswer: B")};
  });
  const std::vector<std::string> args = {"eval",    "sgp", "--endpoint", server.url(), "--model", "fake", "--count",
                                         "3",       "--cad", "2",        "--ledger",   "l.db",    "--json"};
  auto o = Run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const int asked = server.requests();
  EXPECT_GT(asked, 3);
  EXPECT_NE(o.err.find(std::to_string(asked) + " requests sent, 0 answered from the cache"), std::string::npos) << o.err;
  o = Run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(server.requests(), asked);
  EXPECT_NE(o.err.find("0 requests sent, " + std::to_string(asked) + " answered from the cache"), std::string::npos)
      << o.err;
}

TEST_F(SgpCliTest, AnEndpointReturningGarbageIsAClearError) {
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "garbage"}; });
  const auto o = Run({"eval", "sgp", "--endpoint", server.url(), "--model", "fake", "--count", "1", "--retries", "0",
                      "--ledger", "l.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("gave no usable answer"), std::string::npos) << o.err;
}

// Every file under `dir` that holds `needle` (the ledger with its WAL and
// journal files, the captured stdout and stderr).
std::vector<std::string> FilesHolding(const fs::path& dir, const std::string& needle) {
  std::vector<std::string> hits;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.is_regular_file() && ReadFile(f.path()).find(needle) != std::string::npos)
      hits.push_back(f.path().filename().string());
  return hits;
}

TEST_F(SgpCliTest, AnEndpointEchoingTheKeyLeavesItInNoFile) {
  const std::string key = "sk-cli-echo-secret-7171";
  // Answers echo the Authorization header; in the second run every request
  // gets a 401 whose message quotes it.
  std::atomic<bool> refuse{false};
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& req) {
    std::string auth;
    for (const auto& h : req.headers)
      if (h.rfind("Authorization: ", 0) == 0) auth = h.substr(15);
    if (refuse)
      return cb::testing::HttpReply{401, nlohmann::json{{"error", {{"message", "bad key " + auth}}}}.dump()};
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("You sent " + auth + "\nAnswer: B")};
  });
  ::setenv("OPENAI_API_KEY", key.c_str(), 1);  // the child inherits it
  auto o = Run({"eval", "sgp", "--endpoint", server.url(), "--model", "fake", "--count", "2", "--cad", "0",
                "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  refuse = true;
  const auto failed = Run({"eval", "sgp", "--endpoint", server.url(), "--model", "fake", "--count", "3", "--cad",
                           "0", "--seed", "9", "--retries", "0", "--ledger", "l.db"});
  ::unsetenv("OPENAI_API_KEY");
  EXPECT_EQ(failed.exit_code, 3);
  // The error line carries the server's message, with the key replaced.
  EXPECT_NE(failed.err.find("HTTP 401: bad key Bearer [REDACTED]"), std::string::npos) << failed.err;
  EXPECT_EQ(FilesHolding(dir_, key), std::vector<std::string>{});
  // The echo did reach the ledger's http_cache, redacted.
  EXPECT_FALSE(FilesHolding(dir_, "You sent Bearer [REDACTED]").empty());
}

// SIGINT while the endpoint holds a request (issue 30, item 5): the client
// stops at once, the two answers received stay in the ledger's http_cache,
// no score is recorded (it would be of a part of the rows), the run is
// sealed "interrupted" and verifies, and a rerun asks only the rest.
TEST_F(SgpCliTest, SigintMidEndpointEvalSealsTheRunInterruptedAndKeepsTheAnswers) {
  auto answer = [](int, const cb::testing::HttpRequest&) {
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("Answer: B")};
  };
  std::vector<std::string> args = {"eval",          "sgp", "--endpoint", "",       "--model", "fake", "--count",
                                   "3",             "--cad", "0",        "--concurrency", "1", "--ledger", "l.db"};
  int port = 0;  // the rerun asks the same URL: it is part of the cache key
  {
    cb::testing::HttpServer slow(cb::testing::AnswerThenHold(2, answer));
    args[3] = slow.url();
    port = slow.port();
    double seconds = 0;
    const Output o = InterruptWhen(Spawn(args), [&] { return slow.requests() > 2; }, 0, &seconds);
    ExpectInterruptLine(o, "eval sgp",
                        {"after 2 of ", "2 answers received in this run kept in the ledger's http_cache",
                         "run 1 sealed interrupted with 0 results"});
    EXPECT_LT(seconds, 10) << "the held request is aborted, not waited for";
    EXPECT_EQ(ExpectSealedInterrupted("l.db", 0).value("cache_entries", -1), 2);
  }
  cb::testing::HttpServer fast(answer, port);
  ASSERT_EQ(fast.url(), args[3]);
  const Output r = Run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(std::to_string(fast.requests()) + " requests sent, 2 answered from the cache"),
            std::string::npos)
      << r.err;
}

TEST_F(SgpCliTest, SigintMidGenWritesNothing) {
  // 50000 programs with variants take minutes; the generator stops at its
  // next program and the output folder is never made.
  const Output o = InterruptWhen(Spawn({"gen", "sgp", "--count", "50000", "--variants", "2", "--out", "big"}));
  ExpectInterruptLine(o, "gen sgp", {"nothing recorded, nothing written"});
  ExpectNothingWritten("big");
}

}  // namespace

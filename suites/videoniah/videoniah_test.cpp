// File: suites/videoniah/videoniah_test.cpp
// The VNBench scorer (strict and paper-compatible extraction, 4-try rule,
// both overall conventions, null preds and gpt_judge as eval.py reads them,
// bad files), the frame encodings, and the endpoint
// evaluation against a loopback server (fixtures/http_server.h): every try
// asked once, a rerun answered from the cache, garbage answers reported.
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <zlib.h>

#include "fixtures/http_server.h"
#include "fixtures/paths.h"
#include "reference/vnbench/vnbench.h"
#include "suites/videoniah/media.h"
#include "suites/videoniah/vnbench_eval.h"

namespace cb::videoniah {
namespace {

namespace vb = cb::ref::vnbench;
namespace gv = cb::gen::videoniah;
using vb::ExtractLetter;
using vb::Mode;

TEST(Scorer, StrictExtraction) {
  EXPECT_EQ(ExtractLetter("C", Mode::kStrict), 2);
  EXPECT_EQ(ExtractLetter(" B.", Mode::kStrict), 1);
  EXPECT_EQ(ExtractLetter("(D) mango", Mode::kStrict), 3);
  EXPECT_EQ(ExtractLetter("A) Alice", Mode::kStrict), 0);
  EXPECT_EQ(ExtractLetter("Answer: C", Mode::kStrict), 2);
  EXPECT_EQ(ExtractLetter("The answer is (B).", Mode::kStrict), 1);
  EXPECT_EQ(ExtractLetter("answer: d", Mode::kStrict), -1);      // lowercase letter is no answer
  EXPECT_EQ(ExtractLetter("b", Mode::kStrict), -1);
  EXPECT_EQ(ExtractLetter("I cannot watch videos.", Mode::kStrict), -1);  // refusal
  EXPECT_EQ(ExtractLetter("", Mode::kStrict), -1);
  EXPECT_EQ(ExtractLetter("E", Mode::kStrict), -1);
  EXPECT_EQ(ExtractLetter("Banana", Mode::kStrict), -1);         // a word, not a letter
}

TEST(Scorer, PaperCompatibleQuirks) {
  // eval.py: cut at the first '.', then the first of A, B, C, D found anywhere.
  EXPECT_EQ(ExtractLetter("Answer: C", Mode::kPaperCompatible), 0);    // the A of "Answer"
  EXPECT_EQ(ExtractLetter("C. Answer", Mode::kPaperCompatible), 2);    // cut before "Answer"
  EXPECT_EQ(ExtractLetter("I think D", Mode::kPaperCompatible), 3);
  EXPECT_EQ(ExtractLetter("Both C and B", Mode::kPaperCompatible), 1);  // B is tested before C
  EXPECT_EQ(ExtractLetter("b", Mode::kPaperCompatible), -1);
  EXPECT_EQ(ExtractLetter("Answer: C", Mode::kStrict), 2);             // the strict mode disagrees
}

std::vector<vb::Prediction> Rows(const std::string& type, const std::string& item, std::array<const char*, 4> preds,
                                 std::array<int, 4> gts) {
  std::vector<vb::Prediction> out;
  for (int t = 0; t < 4; ++t) out.push_back({item + "_" + type + "_" + std::to_string(t), preds[t], gts[t], type});
  return out;
}

TEST(Scorer, FourTryRuleAndBothOverallConventions) {
  std::vector<vb::Prediction> p;
  auto add = [&](std::vector<vb::Prediction> r) { p.insert(p.end(), r.begin(), r.end()); };
  add(Rows("ret_edit1", "v1", {"A", "B", "C", "D"}, {0, 1, 2, 3}));    // all right
  add(Rows("ret_edit1", "v2", {"A", "B", "C", "A"}, {0, 1, 2, 3}));    // 3 of 4
  add(Rows("ord_edit1", "v3", {"A", "A", "A", "A"}, {0, 0, 0, 0}));    // all right
  add(Rows("cnt_edit1", "v4", {"B", "B", "x", "B"}, {1, 1, 1, 1}));    // 3 of 4 (one unanswered)
  add(Rows("cnt_edit2", "v5", {"C", "C", "C", "C"}, {2, 2, 2, 2}));    // all right
  const vb::Scores s = vb::Score(p, Mode::kStrict);
  EXPECT_DOUBLE_EQ(s.tasks.at("ret_edit1").FourTry(), 50.0);
  EXPECT_DOUBLE_EQ(s.tasks.at("ret_edit1").SingleTry(), 87.5);
  EXPECT_DOUBLE_EQ(s.tasks.at("cnt_edit1").FourTry(), 0.0);
  EXPECT_EQ(s.tasks.at("cnt_edit1").unanswered, 1);
  // eval.py: mean over 4 subtasks = (50 + 100 + 0 + 100) / 4.
  EXPECT_DOUBLE_EQ(s.overall_task_mean, 62.5);
  // evaluation_utils.py: groups ret = 50, ord = 100, cnt = (0 + 100) / 2 = 50.
  EXPECT_DOUBLE_EQ(s.overall_group_mean, (50.0 + 100.0 + 50.0) / 3);
}

TEST(Scorer, RejectsIncompleteOrRepeatedItems) {
  auto p = Rows("ret_edit1", "v1", {"A", "B", "C", "D"}, {0, 1, 2, 3});
  p.pop_back();
  EXPECT_THROW(vb::Score(p, Mode::kStrict), std::runtime_error);
  p = Rows("ret_edit1", "v1", {"A", "B", "C", "D"}, {0, 1, 2, 3});
  p.push_back(p[0]);
  EXPECT_THROW(vb::Score(p, Mode::kStrict), std::runtime_error);
}

TEST(Scorer, ParsesTheOfficialFormatAndNamesBadLines) {
  const std::string good =
      "{\"question_id\": \"video1_ret_edit1_0\", \"pred\": \"A\", \"gt\": \"A\", \"type\": \"ret_edit1\"}\n"
      "\n"
      "{\"question_id\": \"video1_ret_edit1_1\", \"pred\": \"B\", \"gt\": 2, \"type\": \"ret_edit1\"}\n";
  const auto rows = vb::ParsePredictions(good, "p.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gt, 0);
  EXPECT_EQ(rows[1].gt, 2);
  auto error_of = [](const std::string& text) {
    try {
      vb::ParsePredictions(text, "p.jsonl");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("{\"question_id\": \"a_0\", \"pred\": \"A\", \"gt\": \"A\", \"type\": \"t\"}\n{oops\n")
                .find("p.jsonl:2"),
            std::string::npos);
  EXPECT_NE(error_of("{\"question_id\": \"a_0\", \"pred\": \"A\", \"gt\": \"E\", \"type\": \"t\"}").find("'gt'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"question_id\": \"a_0\", \"gt\": \"A\", \"type\": \"t\"}").find("'pred'"), std::string::npos);
  EXPECT_NE(error_of("{\"question_id\": \"a\", \"pred\": \"A\", \"gt\": 1, \"type\": \"t\"}").find("_<try>"),
            std::string::npos);
}

// A null `pred` (a try the model never answered) is how eval.py's input marks
// a failed inference. eval.py (joez17/VideoNIAH, evaluation/eval.py at commit
// 8193a3b20ac1c2fcac9c3e8c1550095628f7628f, lines 12-13) skips such a row before
// reading anything but question_id and type, so an item whose 4 tries are all
// null leaves the denominator, a subtask whose rows are all null leaves the
// overall mean, and an item with some null tries can never reach 4 correct
// (line 52: ac == 4). Strict mode keeps every row and counts a null try wrong.
// The expected numbers are eval.py's own output on this text (Python 3.11:
// "ret_edit1 true: 1, total: 2, acc: 0.5", "Overall: 0.5").
// fixtures/vnbench/null_preds.jsonl (PROVENANCE.md).
std::string NullPreds() {
  std::ifstream in(cb::testing::FixturePath("vnbench/null_preds.jsonl"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Scorer, PaperModeSkipsNullPredsAsEvalPyDoesStrictCountsThemWrong) {
  const auto rows = vb::ParsePredictions(NullPreds(), "nulls.jsonl");
  ASSERT_EQ(rows.size(), 16u);
  const vb::Scores paper = vb::Score(rows, Mode::kPaperCompatible);
  ASSERT_EQ(paper.tasks.count("ret_edit1"), 1u);
  EXPECT_EQ(paper.tasks.count("cnt_edit1"), 0u);  // all null: not a subtask eval.py sees
  EXPECT_EQ(paper.tasks.at("ret_edit1").items, 2);  // v2 (all null) left out, v1 (one null) kept
  EXPECT_EQ(paper.tasks.at("ret_edit1").items_correct, 1);
  EXPECT_DOUBLE_EQ(paper.tasks.at("ret_edit1").FourTry(), 50.0);
  EXPECT_EQ(paper.tasks.at("ret_edit1").tries, 7);  // the non-null tries
  EXPECT_DOUBLE_EQ(paper.overall_task_mean, 50.0);   // eval.py's "Overall: 0.5"
  const vb::Scores strict = vb::Score(rows, Mode::kStrict);
  ASSERT_EQ(strict.tasks.count("cnt_edit1"), 1u);
  EXPECT_EQ(strict.tasks.at("ret_edit1").items, 3);
  EXPECT_EQ(strict.tasks.at("ret_edit1").items_correct, 1);
  EXPECT_EQ(strict.tasks.at("ret_edit1").tries, 12);
  EXPECT_EQ(strict.tasks.at("ret_edit1").tries_correct, 7);
  EXPECT_EQ(strict.tasks.at("ret_edit1").unanswered, 5);
  EXPECT_DOUBLE_EQ(strict.tasks.at("cnt_edit1").FourTry(), 0.0);
  EXPECT_DOUBLE_EQ(strict.overall_task_mean, (100.0 / 3 + 0.0) / 2);
}

// eval.py lines 24-25 and 37-38: a row with `gpt_judge` is right iff
// anno['gpt_judge'][0] == '1', whatever `pred` says. [0] is Python indexing:
// the first character of a string ("1. It matches." and "10" are right), the
// first element of a list, which gpt_judge.py writes (["1"] is right, ["1."] and
// [1] are not). eval.py on this text (Python 3.11): "true: 1, total: 4, acc: 0.25".
constexpr const char* kGptJudge = R"({"question_id": "j1_ret_edit1_0", "pred": "A", "gt": "A", "type": "ret_edit1", "gpt_judge": "0"}
{"question_id": "j1_ret_edit1_1", "pred": "B", "gt": "B", "type": "ret_edit1", "gpt_judge": "1"}
{"question_id": "j1_ret_edit1_2", "pred": "C", "gt": "C", "type": "ret_edit1", "gpt_judge": ["1"]}
{"question_id": "j1_ret_edit1_3", "pred": "D", "gt": "D", "type": "ret_edit1", "gpt_judge": "1"}
{"question_id": "j2_ret_edit1_0", "pred": "no idea", "gt": "A", "type": "ret_edit1", "gpt_judge": "1. It matches."}
{"question_id": "j2_ret_edit1_1", "pred": "no idea", "gt": "B", "type": "ret_edit1", "gpt_judge": ["1"]}
{"question_id": "j2_ret_edit1_2", "pred": "no idea", "gt": "C", "type": "ret_edit1", "gpt_judge": "10"}
{"question_id": "j2_ret_edit1_3", "pred": "no idea", "gt": "D", "type": "ret_edit1", "gpt_judge": "1"}
{"question_id": "j3_ret_edit1_0", "pred": "A", "gt": "A", "type": "ret_edit1", "gpt_judge": ["1."]}
{"question_id": "j3_ret_edit1_1", "pred": "B", "gt": "B", "type": "ret_edit1"}
{"question_id": "j3_ret_edit1_2", "pred": "C", "gt": "C", "type": "ret_edit1"}
{"question_id": "j3_ret_edit1_3", "pred": "D", "gt": "D", "type": "ret_edit1"}
{"question_id": "j4_ret_edit1_0", "pred": "x", "gt": "A", "type": "ret_edit1", "gpt_judge": [1]}
{"question_id": "j4_ret_edit1_1", "pred": "x", "gt": "B", "type": "ret_edit1", "gpt_judge": "1"}
{"question_id": "j4_ret_edit1_2", "pred": "x", "gt": "C", "type": "ret_edit1", "gpt_judge": "1"}
{"question_id": "j4_ret_edit1_3", "pred": null, "gt": "D", "type": "ret_edit1", "gpt_judge": "1"}
)";

TEST(Scorer, PaperModeTrustsGptJudgeFirstElementStrictIgnoresIt) {
  const auto rows = vb::ParsePredictions(kGptJudge, "judge.jsonl");
  const vb::Scores paper = vb::Score(rows, Mode::kPaperCompatible);
  const vb::TaskScore& tp = paper.tasks.at("ret_edit1");
  EXPECT_EQ(tp.items, 4);
  EXPECT_EQ(tp.items_correct, 1);  // only j2, whose letters are all wrong
  EXPECT_EQ(tp.tries, 15);         // j4's null try is skipped
  EXPECT_EQ(tp.tries_correct, 12);
  EXPECT_DOUBLE_EQ(paper.overall_task_mean, 25.0);
  const vb::Scores strict = vb::Score(rows, Mode::kStrict);
  const vb::TaskScore& ts = strict.tasks.at("ret_edit1");
  EXPECT_EQ(ts.items_correct, 2);  // j1 and j3 by their letters
  EXPECT_EQ(ts.tries, 16);
}

// What eval.py cannot read is an error here too (it raises TypeError,
// IndexError or KeyError on these), each one line naming the file, line and
// field; a field that is there but null is never called missing.
TEST(Scorer, NullIsNotMissingAndBadJudgesAreErrors) {
  auto error_of = [](const std::string& fields) {
    try {
      vb::ParsePredictions("{\"question_id\": \"v_t_0\", \"type\": \"t\", \"gt\": \"A\"" + fields + "}",
                           "p.jsonl");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(""), "p.jsonl:1: missing field 'pred'");
  EXPECT_EQ(error_of(", \"pred\": null"), "no error");
  EXPECT_EQ(error_of(", \"pred\": 5"), "p.jsonl:1: 'pred' must be a string or null, not a number");
  EXPECT_EQ(error_of(", \"pred\": \"A\", \"gpt_judge\": null"),
            "p.jsonl:1: 'gpt_judge' must be a non-empty string or list, not null");
  EXPECT_EQ(error_of(", \"pred\": \"A\", \"gpt_judge\": \"\""),
            "p.jsonl:1: 'gpt_judge' must be a non-empty string or list, not an empty string");
  EXPECT_EQ(error_of(", \"pred\": \"A\", \"gpt_judge\": []"),
            "p.jsonl:1: 'gpt_judge' must be a non-empty string or list, not an empty list");
  EXPECT_EQ(error_of(", \"pred\": \"A\", \"gpt_judge\": 1"),
            "p.jsonl:1: 'gpt_judge' must be a non-empty string or list, not a number");
  EXPECT_EQ(error_of(", \"pred\": null, \"gpt_judge\": null"), "no error");  // eval.py skips the row first
  try {
    vb::ParsePredictions("{\"question_id\": null, \"pred\": \"A\", \"gt\": \"A\", \"type\": \"t\"}", "p.jsonl");
    ADD_FAILURE() << "a null question_id was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "p.jsonl:1: 'question_id' must be a string, not null");
  }
  try {
    vb::ParsePredictions("{\"question_id\": \"v_t_0\", \"pred\": \"A\", \"type\": \"t\"}", "p.jsonl");
    ADD_FAILURE() << "a row without gt was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "p.jsonl:1: missing field 'gt'");
  }
}

TEST(Media, PngRoundTripsThroughZlib) {
  gv::Params p;
  p.width = 64;
  p.height = 64;
  gv::Renderer r(p);
  gv::Frame fr;
  r.Haystack(3, 5, &fr);
  const std::string png = EncodePng(fr);
  ASSERT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // IDAT payload inflates to filter byte + RGB per row.
  const size_t idat = png.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  const uint32_t len = (uint8_t(png[idat - 4]) << 24) | (uint8_t(png[idat - 3]) << 16) |
                       (uint8_t(png[idat - 2]) << 8) | uint8_t(png[idat - 1]);
  std::string raw(64 * (64 * 3 + 1), '\0');
  uLongf raw_len = raw.size();
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &raw_len,
                       reinterpret_cast<const Bytef*>(png.data() + idat + 4), len),
            Z_OK);
  ASSERT_EQ(raw_len, raw.size());
  for (int y = 0; y < 64; ++y) {
    EXPECT_EQ(raw[y * 193], 0);
    EXPECT_EQ(std::memcmp(&raw[y * 193 + 1], &fr.rgb[y * 192], 192), 0) << "row " << y;
  }
}

TEST(Media, I420OfGrayIsGray) {
  gv::Frame fr{4, 2, std::vector<uint8_t>(4 * 2 * 3, 77)};
  std::string yuv;
  RgbToI420(fr, &yuv);
  ASSERT_EQ(yuv.size(), 12u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(uint8_t(yuv[i]), 77);
  for (int i = 8; i < 12; ++i) EXPECT_EQ(uint8_t(yuv[i]), 128);
}

EndpointEvalConfig SmallEval(const std::string& url) {
  EndpointEvalConfig c;
  c.client.endpoint = url;
  c.client.max_retries = 1;
  c.client.backoff_base_s = 0.01;
  c.client.timeout_s = 5;
  c.model = "fake";
  c.frames = 8;
  c.gen.width = 96;
  c.gen.height = 64;
  c.gen.fps = 2;
  c.gen.min_seconds = 4;
  c.gen.max_seconds = 6;
  c.gen.needle_seconds = 1.0;
  c.gen.sample_frames = 8;
  c.tasks = {gv::Task::kRetEdit1, gv::Task::kCntInsert1};
  c.count = 2;
  return c;
}

TEST(EndpointEval, AsksEveryTryOnceThenResumesFromCache) {
  // The handler runs on the server's connection threads, several at once: each request's image
  // count is recorded under a lock rather than in one shared counter.
  std::mutex images_mu;
  std::multiset<int> images_per_request;
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& req) {
    const auto j = nlohmann::json::parse(req.body);
    int images = 0;
    for (const auto& part : j["messages"][0]["content"]) images += part["type"] == "image_url";
    std::lock_guard<std::mutex> lock(images_mu);
    images_per_request.insert(images);
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody("A")};
  });
  cb::harness::MemoryCache cache;
  const EndpointEvalConfig c = SmallEval(server.url());
  const auto first = EvaluateEndpoint(c, &cache);
  EXPECT_EQ(first.items, 4);
  EXPECT_EQ(first.items_failed, 0);
  EXPECT_EQ(first.predictions.size(), 16u);
  EXPECT_EQ(server.requests(), 16);
  EXPECT_EQ(images_per_request.size(), 16u);
  EXPECT_EQ(images_per_request.count(8), 16u);  // K frames in every request
  // "always A" is right exactly where the key says A.
  int right = 0;
  for (const auto& p : first.predictions) right += p.gt == 0;
  int single = 0;
  for (const auto& [k, ts] : first.strict.tasks) single += ts.tries_correct;
  EXPECT_EQ(single, right);
  const auto second = EvaluateEndpoint(c, &cache);
  EXPECT_EQ(server.requests(), 16);  // nothing asked again
  EXPECT_EQ(second.cache_hits, 16);
  EXPECT_EQ(second.strict.overall_task_mean, first.strict.overall_task_mean);
}

TEST(EndpointEval, GarbageAnswersAreFailuresNotScores) {
  cb::testing::HttpServer server(
      [](int, const cb::testing::HttpRequest&) { return cb::testing::HttpReply{200, "<html>not json</html>"}; });
  cb::harness::MemoryCache cache;
  const auto out = EvaluateEndpoint(SmallEval(server.url()), &cache);
  EXPECT_EQ(out.items_failed, out.items);
  EXPECT_TRUE(out.predictions.empty());
  ASSERT_FALSE(out.errors.empty());
  EXPECT_NE(out.errors[0].find("not a chat completion"), std::string::npos);
  EXPECT_TRUE(cache.entries.empty());
}

TEST(EndpointEval, ScoreRowsCarryTheSetting) {
  auto p = Rows("ret_edit1", "v1", {"A", "B", "C", "D"}, {0, 1, 2, 3});
  const auto rows = ScoreRows(vb::Score(p, Mode::kStrict), Mode::kStrict, {{"model", "m"}}, "abc");
  ASSERT_FALSE(rows.empty());
  for (const auto& r : rows) {
    EXPECT_EQ(r.params["model"], "m");
    EXPECT_EQ(r.params["scorer_mode"], "strict");
    EXPECT_TRUE(r.samples.empty());  // accuracies are not speed rows
  }
}

}  // namespace
}  // namespace cb::videoniah

// File: suites/eagle/eagle_scorers_test.cpp
// -----------------------------------------------------------------------------
// Scorer parity: fixtures/eagle/golden.jsonl holds the outputs of EAGLE's own
// scorer functions (NVlabs/EAGLE at fef95f103b5e9899acbbe2c237e5b99147ab7e8e:
// lmms_eval/tasks/_task_utils/vqa_eval_metric.py, textvqa/utils.py,
// vqav2/utils.py, api/metrics.py anls, chartqa/utils.py relaxed_correctness,
// ocrbench/utils.py, mme/utils.py), run by fixtures/eagle/make_golden.py under
// Python 3.11 on hand-written inputs; paper mode must reproduce every one.
// Strict mode's differences are written here by hand, next to the quirk.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fixtures/paths.h"
#include "reference/eagle/bench.h"
#include "reference/eagle/scorers.h"
#include "reference/eagle/vqa_normalize.h"
#include "suites/eagle/golden_check.h"

namespace cb::ref::eagle {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(EagleScorers, PaperModeMatchesTheAuthorsCodeOnEveryGoldenCase) {
  const std::string file = Slurp(cb::testing::FixturePath("eagle/golden.jsonl"));
  const cb::eagle::GoldenReport rep = cb::eagle::CheckGolden(file);
  EXPECT_GE(rep.cases, 110);
  EXPECT_EQ(rep.agreed, rep.cases);
  for (const auto& p : rep.problems) ADD_FAILURE() << p;
  for (const char* k : {"normalize", "punctuation", "textvqa", "vqav2", "anls", "chartqa", "ocrbench", "mme_parse",
                        "mme_aggregate"})
    EXPECT_TRUE(rep.by_kind.count(k)) << k;
  // The copy compiled into claimbench (claim eagle.S1) is the fixture, byte for byte.
  EXPECT_EQ(cb::eagle::EmbeddedGolden(), file);
}

TEST(EagleScorers, AWrongScorerWouldBeCaught) {
  // The check can fail: a case whose recorded output is not the code's.
  const cb::eagle::GoldenReport rep =
      cb::eagle::CheckGolden(R"({"kind": "normalize", "input": "The Cat.", "paper": "the cat"})" "\n");
  EXPECT_EQ(rep.cases, 1);
  EXPECT_EQ(rep.agreed, 0);
  ASSERT_EQ(rep.problems.size(), 1u);
  EXPECT_NE(rep.problems[0].find("ours \"cat\""), std::string::npos) << rep.problems[0];
}

// The quirks, named, with what strict mode does instead.
TEST(EagleScorers, PeriodStripStopsAfter32InPaperModeOnly) {
  std::string s;
  for (int i = 0; i < 40; ++i) s += "a.";
  const std::string paper = Normalize(s, Mode::kPaperCompatible), strict = Normalize(s, Mode::kStrict);
  EXPECT_EQ(std::count(paper.begin(), paper.end(), '.'), 8);
  EXPECT_EQ(strict.find('.'), std::string::npos);
  EXPECT_EQ(Normalize("3.14 and 2.", Mode::kStrict), "3.14 and 2");  // a period before a digit stays
}

TEST(EagleScorers, Vqav2IdenticalAnswersAreNotNormalisedInPaperMode) {
  const std::vector<std::string> yes(10, "Yes");
  EXPECT_EQ(Vqav2Accuracy("yes", yes, Mode::kPaperCompatible), 0.0);
  EXPECT_EQ(Vqav2Accuracy("yes", yes, Mode::kStrict), 1.0);
  EXPECT_EQ(Vqav2Accuracy("Yes", yes, Mode::kStrict), 1.0);
}

TEST(EagleScorers, TextVqaLeaveOneOut) {
  // 3 of 10 answers match: each left-out match sees 2 others (2/3), each
  // left-out non-match sees 3 (1): (3 * 2/3 + 7) / 10 = 0.9.
  std::vector<std::string> a(7, "x");
  a.insert(a.end(), 3, "y");
  EXPECT_NEAR(TextVqaAccuracy("y", a, Mode::kStrict), 0.9, 1e-15);
  EXPECT_THROW(TextVqaAccuracy("y", {}, Mode::kStrict), std::invalid_argument);
}

TEST(EagleScorers, AnlsBoundaryAndRawLengths) {
  // NL = 0.5 exactly: lmms-eval keeps 0.5 (q < 0.5 -> 0), DocVQA's rule (NL < 0.5) gives 0.
  EXPECT_EQ(Anls("abxy", {"abcd"}, Mode::kPaperCompatible), 0.5);
  EXPECT_EQ(Anls("abxy", {"abcd"}, Mode::kStrict), 0.0);
  // Untrimmed lengths in paper mode: "  fo  " is 1 edit over 6 characters.
  EXPECT_NEAR(Anls("  fo  ", {"foo"}, Mode::kPaperCompatible), 1 - 1.0 / 6, 1e-15);
  EXPECT_NEAR(Anls("  fo  ", {"foo"}, Mode::kStrict), 1 - 1.0 / 3, 1e-15);
  EXPECT_EQ(Levenshtein("caf\xc3\xa9", "cafe"), 1);  // code points, not bytes
  EXPECT_EQ(Levenshtein("kitten", "sitting"), 3);
  EXPECT_THROW(Anls("x", {}, Mode::kStrict), std::invalid_argument);
}

TEST(EagleScorers, ChartQaFloatParsingAndZeroTarget) {
  EXPECT_EQ(PyFloat(" 1_000.5e1 "), 10005.0);
  EXPECT_FALSE(PyFloat("1,000"));
  EXPECT_FALSE(PyFloat("1e"));
  EXPECT_FALSE(PyFloat("."));
  EXPECT_TRUE(std::isnan(*PyFloat("-NaN")));
  EXPECT_EQ(*ChartFloat("50%%"), 0.5);
  // A zero target is a string match in the code; strict compares numbers.
  EXPECT_FALSE(RelaxedCorrect("0.0", "0", Mode::kPaperCompatible));
  EXPECT_TRUE(RelaxedCorrect("0.0", "0", Mode::kStrict));
  EXPECT_FALSE(RelaxedCorrect("Paris.", "paris", Mode::kPaperCompatible));
  EXPECT_TRUE(RelaxedCorrect("Paris.", "paris", Mode::kStrict));
  EXPECT_TRUE(RelaxedCorrect("105", "100", Mode::kStrict));
  EXPECT_FALSE(RelaxedCorrect("105.1", "100", Mode::kStrict));
}

TEST(EagleScorers, OcrBenchHme100kCase) {
  EXPECT_FALSE(OcrBenchCorrect("X ^ 2", {"X^2"}, true, Mode::kPaperCompatible));
  EXPECT_TRUE(OcrBenchCorrect("X ^ 2", {"X^2"}, true, Mode::kStrict));
  EXPECT_FALSE(OcrBenchCorrect("x ^ 2", {"X^2"}, true, Mode::kStrict));
}

TEST(EagleScorers, MmeAssertsTwoQuestionsPerImageInPaperModeOnly) {
  std::vector<Prediction> preds = {{"a.jpg", "mme", "yes", {"yes"}, "OCR", ""},
                                   {"a.jpg", "mme", "no", {"yes"}, "OCR", ""},
                                   {"b.jpg", "mme", "yes", {"yes"}, "OCR", ""}};
  EXPECT_THROW(Score(preds, Mode::kPaperCompatible), std::runtime_error);
  const Scores s = Score(preds, Mode::kStrict);
  // a: acc 50 + acc+ 0; b: 100 + 100; mean 125.
  EXPECT_DOUBLE_EQ(s.tasks.at("mme").value, 125.0);
  EXPECT_DOUBLE_EQ(s.tasks.at("mme").parts.at("OCR"), 125.0);
}

TEST(EagleScorers, PredictionFileErrorsNameTheLine) {
  const std::string ok = R"({"question_id": 1, "task": "textvqa", "pred": "a", "answers": ["a"]})";
  const std::pair<std::string, std::string> bad[] = {
      {R"({"question_id": 2, "task": "gqa", "pred": "a"})", "f.jsonl:2: unknown task 'gqa'"},
      {R"({"question_id": 2, "task": "docvqa", "pred": "a", "answers": []})", "f.jsonl:2: 'answers' must be"},
      {R"({"question_id": 2, "task": "mme", "pred": "a", "answer": "maybe", "category": "OCR"})",
       "f.jsonl:2: MME 'answer' must be yes or no"},
      {R"({"question_id": 2, "task": "chartqa", "answer": "1"})", "f.jsonl:2: missing field 'pred'"},
      {R"({"question_id": 2, "task": "chartqa", "pred": 3, "answer": "1"})", "f.jsonl:2: 'pred' must be a string"},
      {"not json", "f.jsonl:2: "}};
  for (const auto& [line, message] : bad) {
    try {
      ParsePredictions(ok + "\n" + line + "\n", "f.jsonl");
      ADD_FAILURE() << line;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ParsePredictions(ok + "\n", "f.jsonl").size(), 1u);
}

TEST(EagleScorers, AggregatesPerTask) {
  const std::string text =
      R"({"question_id": 1, "task": "chartqa", "pred": "10", "answer": "10", "type": "human_test"}
{"question_id": 2, "task": "chartqa", "pred": "12", "answer": "10", "type": "augmented_test"}
{"question_id": 3, "task": "ocrbench", "pred": "Hello", "answer": "hello", "dataset": "IIIT5K", "question_type": "Regular Text Recognition"}
{"question_id": 4, "task": "ocrbench", "pred": "x", "answer": ["y"], "dataset": "IIIT5K", "question_type": "Regular Text Recognition"}
{"question_id": 5, "task": "mcq", "pred": "(B) the second", "answer": "B"}
)";
  const Scores s = Score(ParsePredictions(text, "t"), Mode::kStrict);
  EXPECT_EQ(s.tasks.at("chartqa").value, 50.0);
  EXPECT_EQ(s.tasks.at("chartqa").parts.at("human"), 100.0);
  EXPECT_EQ(s.tasks.at("chartqa").parts.at("augmented"), 0.0);
  EXPECT_EQ(s.tasks.at("ocrbench").value, 1.0);
  EXPECT_EQ(s.tasks.at("ocrbench").parts.at("per_1000"), 500.0);
  EXPECT_EQ(s.tasks.at("mcq").value, 100.0);
  EXPECT_EQ(ExtractLetter("Bees"), -1);
  EXPECT_EQ(ExtractLetter(" D."), 3);
}

}  // namespace
}  // namespace cb::ref::eagle

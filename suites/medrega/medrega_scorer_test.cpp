// File: suites/medrega/medrega_scorer_test.cpp
// Golden cases for the MedRegA scorers (reference/medrega), written from the
// authors' code: xmed-lab/MedRegA at dfdb0dbbcca0b80b8f1c121c3c45490dc8001529,
//   src/eval/regt2r/evaluator_reg.py   (ss, sm, ms, mm; box parsing, IoU)
//   src/eval/regr2t/evaluator.py       (region-to-text)
//   src/eval/rg/evaluator_rg.py, src/eval/rg/postprocess_utils.py (reports)
// Each expected value is derived by hand in the comment beside it, following
// the code line by line; boxes on a 999 x 999 image so that the grid values
// used (0, 300, 500, 600, 999) scale exactly (checked first).
#include <cmath>

#include <gtest/gtest.h>

#include "reference/medrega/boxes.h"
#include "reference/medrega/grounding.h"
#include "reference/medrega/pytext.h"
#include "reference/medrega/text_metrics.h"

namespace cb::ref::medrega {
namespace {

constexpr Mode kPaper = Mode::kPaperCompatible;
constexpr Mode kStrict = Mode::kStrict;

GroundingItem Item(std::optional<std::string> answer, std::string gt) {
  return {std::move(answer), std::move(gt), 999, 999};
}

const char* kGt600 = "<ref>lesion</ref><box>[[0, 0, 600, 999]]</box>";

TEST(Boxes, GridValuesUsedHereScaleExactly) {
  for (Mode m : {kPaper, kStrict})
    for (int v : {0, 300, 500, 600, 999}) EXPECT_EQ(ScaleGridBox(v, v, v, v, 999, 999, m).x1, v) << ModeName(m);
}

TEST(Boxes, ScalingIsWidthOverHeightFromHw) {
  // process_box(bbox, hw[1], hw[0]): x by W = hw[1], y by H = hw[0].
  const Box b = ScaleGridBox(999, 999, 999, 999, /*height=*/200, /*width=*/400, kStrict);
  EXPECT_DOUBLE_EQ(b.x1, 400);
  EXPECT_DOUBLE_EQ(b.y1, 200);
}

TEST(Boxes, AnswerGroupsNamesAndPattern) {
  const ParsedAnswer a = ParseAnswer("The Liver [[0, 0, 300, 999]] and spleen [[300, 0, 600, 999],[600,0,999,999]]",
                                     999, 999, kPaper);
  ASSERT_EQ(a.groups.size(), 2u);
  EXPECT_EQ(a.groups[0].name, "the liver ");  // lowercased, not stripped
  EXPECT_EQ(a.groups[1].name, " and spleen ");
  EXPECT_EQ(a.groups[1].boxes.size(), 2u);
  EXPECT_FALSE(a.failed);
  // `\d+,\s*\d+`: no space before a comma, none inside "[[": no match, no box.
  EXPECT_TRUE(ParseAnswer("[[0 ,0,1,1]] [ [1,2,3,4]]", 999, 999, kPaper).AllBoxes().empty());
  EXPECT_EQ(ParseAnswer("[[1,2,3]]", 999, 999, kPaper).AllBoxes().size(), 0u);
}

TEST(Boxes, ParseFailureBecomesZeroBoxAfterEarlierGroups) {
  // "05" is a SyntaxError in ast.literal_eval: the except appends [0,0,0,0].
  const ParsedAnswer a = ParseAnswer("liver [[0,0,300,999]] kidney [[05,0,600,999]] spleen [[1,1,2,2]]", 999, 999,
                                     kPaper);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_TRUE(a.failed);
  const auto boxes = a.AllBoxes();
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[1].x2, 0);
  // Strict reads 05 as 5 and keeps going.
  const ParsedAnswer s = ParseAnswer("liver [[0,0,300,999]] kidney [[05,0,600,999]] spleen [[1,1,2,2]]", 999, 999,
                                     kStrict);
  EXPECT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[1].name, "kidney");
  EXPECT_FALSE(s.failed);
  // \v after a comma matches \s but literal_eval refuses it; "00" is fine.
  EXPECT_TRUE(ParseAnswer("[[0,\v0,1,1]]", 999, 999, kPaper).failed);
  EXPECT_FALSE(ParseAnswer("[[00,0,1,1]]", 999, 999, kPaper).failed);
  // Python's `\d` and `\s` are Unicode: fullwidth digits and U+3000 match the
  // pattern, and literal_eval raises on them. Strict reads the digits.
  EXPECT_TRUE(ParseAnswer("[[\xef\xbc\x91\xef\xbc\x90,0,1,1]]", 999, 999, kPaper).failed);  // "１０"
  EXPECT_TRUE(ParseAnswer("[[1,\xe3\x80\x80" "0,1,1]]", 999, 999, kPaper).failed);
  const ParsedAnswer fw = ParseAnswer("[[\xef\xbc\x91\xef\xbc\x90,0,999,999]]", 999, 999, kStrict);
  ASSERT_EQ(fw.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(fw.groups[0].boxes[0].x1, 10);
  EXPECT_TRUE(ParseAnswer("[[\xd9\xa1,0,1,1]]", 999, 999, kPaper).failed);  // Arabic-Indic one
  // A null answer: re.findall raises, the phantom box; strict: no box.
  EXPECT_EQ(ParseAnswer(std::nullopt, 999, 999, kPaper).AllBoxes().size(), 1u);
  EXPECT_EQ(ParseAnswer(std::nullopt, 999, 999, kStrict).AllBoxes().size(), 0u);
}

TEST(Boxes, GroundTruthRefBox) {
  const auto g = ParseGroundTruth("<ref>Liver</ref><box>[[0,0,300,999],[1, 2, 3, 4, 5, 6, 7, 8]]</box> x "
                                  "<ref>b</ref><box>[[1.5,2,3,4],]</box>",
                                  999, 999, kPaper);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "liver");
  ASSERT_EQ(g[0].boxes.size(), 2u);
  EXPECT_EQ(g[1].boxes.size(), 1u);  // trailing comma: a valid Python list
  EXPECT_THROW(ParseGroundTruth("<ref>a</ref><box>[1,2,3,4]</box>", 999, 999, kPaper), std::invalid_argument);
  EXPECT_THROW(ParseGroundTruth("<ref>a</ref><box>[[1,2,3]]</box>", 999, 999, kPaper), std::invalid_argument);
  // '.' does not cross a newline: no group.
  EXPECT_TRUE(ParseGroundTruth("<ref>a\n</ref><box>[[1,2,3,4]]</box>", 999, 999, kPaper).empty());
}

TEST(Boxes, IouTorchvision) {
  const Box a{0, 0, 10, 10}, b{5, 0, 15, 10};
  EXPECT_NEAR(Iou(a, b, kStrict), 50.0 / 150.0, 1e-15);  // no +1
  EXPECT_NEAR(Iou(a, b, kPaper), 50.0 / 150.0, 1e-7);
  EXPECT_TRUE(std::isnan(Iou(Box{}, Box{}, kPaper)));  // 0/0 in torch
  EXPECT_EQ(Iou(Box{}, Box{}, kStrict), 0.0);
}

TEST(SingleObject, StrictGreaterThanAndFirstGtRule) {
  // IoU of [0,0,300,999] with [0,0,600,999] is 299700 / 599400 = 0.5 exactly.
  std::vector<GroundingItem> items = {
      Item("lesion [[0, 0, 300, 999]]", kGt600),                    // 0.5: not > 0.5
      Item("[[0, 0, 300, 999], [0, 0, 600, 999]]", kGt600),         // 2 preds > 1 GT: best vs GT0 = 1
      Item("[[0, 0, 300, 999]]", std::string(kGt600) + "<ref>b</ref><box>[[0, 0, 300, 999]]</box>"),  // P0 vs G0
      Item("lesion [[05, 0, 600, 999]]", kGt600),                   // parse failure: [0,0,0,0] -> 0
      Item(std::nullopt, kGt600)};                                  // null -> phantom -> 0
  const TaskScores p = ScoreGrounding(Task::kSs, items, kPaper);
  EXPECT_EQ(p.parse_failures, 2);
  EXPECT_DOUBLE_EQ(p.Get("acc25"), 0.6);  // 0.5, 1, 0.5
  EXPECT_DOUBLE_EQ(p.Get("acc50"), 0.2);  // only the 1.0
  EXPECT_DOUBLE_EQ(p.Get("acc75"), 0.2);
  EXPECT_DOUBLE_EQ(p.Get("iou"), 0.4);    // (0.5 + 1 + 0.5 + 0 + 0) / 5, rounded to 4 places
  const TaskScores s = ScoreGrounding(Task::kSs, items, kStrict);
  // Strict: first box only (0.5, 0.5, 0.5), ">=", 05 read as 5: IoU 595/600.
  EXPECT_DOUBLE_EQ(s.Get("acc50"), 0.8);
  EXPECT_DOUBLE_EQ(s.Get("acc75"), 0.2);
  EXPECT_NEAR(s.Get("iou"), (0.5 * 3 + 595.0 / 600.0) / 5, 1e-12);
}

TEST(SingleObject, EmptyGroundTruth) {
  const std::vector<GroundingItem> items = {Item("[[0,0,300,999]]", "no box here"), Item("[[0,0,300,999]]", kGt600)};
  EXPECT_THROW(ScoreGrounding(Task::kSs, items, kPaper), PaperError);  // IndexError
  const TaskScores s = ScoreGrounding(Task::kSs, items, kStrict);
  EXPECT_EQ(s.items, 1);
  EXPECT_EQ(s.items_without_gt, 1);
  EXPECT_DOUBLE_EQ(s.Get("acc50"), 1.0);
  EXPECT_THROW(ScoreGrounding(Task::kSs, {}, kPaper), PaperError);  // ZeroDivisionError
  EXPECT_EQ(ScoreGrounding(Task::kSs, {}, kStrict).Get("iou"), 0.0);
}

const char* kThreeGt =
    "<ref>liver</ref><box>[[0, 0, 300, 999]]</box><ref>kidney</ref><box>[[300, 0, 600, 999]]</box>"
    "<ref>spleen</ref><box>[[600, 0, 999, 999]]</box>";

TEST(SingleRegionMulti, SwappedPrecisionRecallAndThreshold075) {
  // p0 = g0 (IoU 1), p1 = [300,0,500,999] vs g1: 200/300 = 0.667.
  const std::vector<GroundingItem> items = {Item("[[0, 0, 300, 999], [300, 0, 500, 999]]", kThreeGt)};
  const TaskScores p = ScoreGrounding(Task::kSm, items, kPaper);
  // This class's threshold is 0.75: 1 match. "precision" = 1/3 (GT), "recall" = 1/2 (pred).
  EXPECT_NEAR(p.Get("precision"), 1.0 / 3, 1e-12);
  EXPECT_NEAR(p.Get("recall"), 0.5, 1e-12);
  EXPECT_NEAR(p.Get("f1"), 0.4, 1e-12);
  EXPECT_NEAR(p.Get("iou"), (1 + 2.0 / 3) / 2, 1e-6);  // sum over pairs / #pairs
  const TaskScores s = ScoreGrounding(Task::kSm, items, kStrict);
  // Strict: threshold 0.5, 2 matches; precision 2/2, recall 2/3.
  EXPECT_NEAR(s.Get("precision"), 1.0, 1e-12);
  EXPECT_NEAR(s.Get("recall"), 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.Get("f1"), 0.8, 1e-12);
}

TEST(SingleRegionMulti, NoPairsAnywhereIsZeroDivisionInPaperMode) {
  const std::vector<GroundingItem> items = {Item("no boxes", kThreeGt)};
  EXPECT_THROW(ScoreGrounding(Task::kSm, items, kPaper), PaperError);
  EXPECT_EQ(ScoreGrounding(Task::kSm, items, kStrict).Get("recall"), 0.0);
}

TEST(MultiRegionSingle, NamesByGroupIndexAndObjectIouAboveOne) {
  // Three boxes all IoU 1; the first group holds two boxes, so box 1 is named
  // by group 1 (" spleen ") and box 2 by nothing.
  const std::vector<GroundingItem> items = {
      Item("liver [[0, 0, 300, 999], [300, 0, 600, 999]] spleen [[600, 0, 999, 999]]", kThreeGt)};
  const TaskScores p = ScoreGrounding(Task::kMs, items, kPaper);
  EXPECT_DOUBLE_EQ(p.Get("box_acc"), 1.0);
  EXPECT_DOUBLE_EQ(p.Get("box_iou"), 1.0);
  EXPECT_NEAR(p.Get("object_acc"), 1.0 / 3, 1e-12);      // only "liver " ~ "liver"
  EXPECT_DOUBLE_EQ(p.Get("object_iou"), 2.0);            // 2 named pairs' IoU / 1 aligned pair
  EXPECT_NEAR(p.Get("object_box_acc"), 1.0 / 3, 1e-12);
  EXPECT_NEAR(p.Get("object_box_alignment"), 1.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(p.Get("object_box_detection"), 1.0);
  const TaskScores s = ScoreGrounding(Task::kMs, items, kStrict);  // names per box
  EXPECT_NEAR(s.Get("object_precision"), 2.0 / 3, 1e-12);
  EXPECT_NEAR(s.Get("name_alignment"), 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(s.Get("box_recall"), 1.0);
}

TEST(MultiRegionSingle, EmptyGroundTruthIsZeroDivisionInPaperMode) {
  const std::vector<GroundingItem> items = {Item("liver [[0, 0, 300, 999]]", "")};
  EXPECT_THROW(ScoreGrounding(Task::kMs, items, kPaper), PaperError);
  const TaskScores s = ScoreGrounding(Task::kMs, items, kStrict);
  EXPECT_EQ(s.items_without_gt, 1);
  EXPECT_DOUBLE_EQ(s.Get("box_precision"), 0.0);
  EXPECT_DOUBLE_EQ(s.Get("box_recall"), 1.0);  // nothing to find
  const TaskScores none = ScoreGrounding(Task::kMs, {Item("nothing", "")}, kStrict);
  EXPECT_DOUBLE_EQ(none.Get("box_f1"), 1.0);  // nothing for nothing
}

TEST(MultiRegionMulti, SwappedNamesAndPhantomKeyError) {
  const std::vector<GroundingItem> items = {
      Item("liver [[0, 0, 300, 999]] liver [[300, 0, 600, 999]]", "<ref>liver</ref><box>[[0, 0, 300, 999]]</box>")};
  const TaskScores p = ScoreGrounding(Task::kMm, items, kPaper);
  EXPECT_DOUBLE_EQ(p.Get("box_pre"), 1.0);  // matches / #GT
  EXPECT_DOUBLE_EQ(p.Get("box_recall"), 0.5);  // matches / #pred
  const TaskScores s = ScoreGrounding(Task::kMm, items, kStrict);
  EXPECT_DOUBLE_EQ(s.Get("box_precision"), 0.5);
  EXPECT_DOUBLE_EQ(s.Get("box_recall"), 1.0);
  // The phantom box of a failed parse is assigned and has no name: KeyError.
  const std::vector<GroundingItem> bad = {Item("liver [[0,0,300,999]] kidney [[01,0,5,5]]", kThreeGt)};
  EXPECT_THROW(ScoreGrounding(Task::kMm, bad, kPaper), PaperError);
  EXPECT_NO_THROW(ScoreGrounding(Task::kMm, bad, kStrict));
  // ms guards its name lookups: the same answer scores.
  EXPECT_NO_THROW(ScoreGrounding(Task::kMs, bad, kPaper));
}

TEST(RegionToText, TokenSetsBleuAndAccuracy) {
  const std::vector<TextItem> items = {{"The Liver lesion [[1,2,3,4]] is hypodense", "liver lesion hypodense mass"},
                                       {"mass", "liver mass"}};
  const TaskScores p = ScoreText(Task::kR2t, items, kPaper);
  // Item 0: P = {the, liver, lesion, is, hypodense}, G = 4 words, 3 shared:
  // precision 0.6, recall 0.75 (>= 0.75: accurate), F1 = 0.9 / (1.35 + 1e-8).
  // BLEU-1 = 3/5 (5 > 4 words, no brevity penalty), in float32.
  // Item 1: precision 1, recall 0.5, BLEU-1 = exp(1 - 2/1) (brevity).
  const double f0 = 2 * 0.6 * 0.75 / (1.35 + 1e-8), f1 = 2 * 0.5 / (1.5 + 1e-8);
  EXPECT_NEAR(p.Get("F1"), (f0 + f1) / 2, 1e-12);
  EXPECT_NEAR(p.Get("recall"), 0.625, 1e-12);
  EXPECT_DOUBLE_EQ(p.Get("accuracy"), 0.5);
  EXPECT_NEAR(p.Get("bleu1"), (0.6 + std::exp(-1.0)) / 2, 1e-7);
  EXPECT_NEAR(TorchmetricsBleu1("a b", "c d", kPaper), 0.0, 0);  // no unigram matches
  EXPECT_THROW(ScoreText(Task::kR2t, {}, kPaper), PaperError);
  const TaskScores s = ScoreText(Task::kR2t, items, kStrict);
  EXPECT_NEAR(s.Get("f1"), (2 * 0.6 * 0.75 / 1.35 + 2 * 0.5 / 1.5) / 2, 1e-12);
  EXPECT_NEAR(s.Get("precision"), 0.8, 1e-12);
}

TEST(Report, EnglishCorpusBleuAndRouge) {
  const std::vector<TextItem> items = {{"No acute findings. Heart size normal.", "Heart size is normal. No acute findings."}};
  EXPECT_EQ(CleanStr(items[0].pred), "no acute findings.heart size normal");
  EXPECT_EQ(Tokenize13a("no acute findings.heart size normal"),
            (std::vector<std::string>{"no", "acute", "findings", ".", "heart", "size", "normal"}));
  const TaskScores p = ScoreText(Task::kRg, items, kPaper);
  // 7 of 7 unigrams match; 7 vs 8 tokens: BP = exp(1 - 8/7). No 4-gram matches: BLEU-4 = 0.
  EXPECT_NEAR(p.Get("bleu1"), std::exp(1 - 8.0 / 7), 1e-12);
  EXPECT_EQ(p.Get("bleu4"), 0.0);
  // ROUGE tokens 6 vs 7, all 6 shared: R1 F = 12/13; LCS 3: RL F = 6/13.
  EXPECT_NEAR(p.Get("rouge1"), 12.0 / 13, 1e-12);
  EXPECT_NEAR(p.Get("rougeL"), 6.0 / 13, 1e-12);
  EXPECT_THROW(ScoreText(Task::kRg, {{"", "x"}}, kPaper), PaperError);  // nothing translated: 1 / ratio
  EXPECT_EQ(ScoreText(Task::kRg, {{"", "x"}}, kStrict).Get("bleu1"), 0.0);
}

TEST(Report, Tokenizer13aAndBleu4) {
  EXPECT_EQ(Tokenize13a("Hello, world. 3.5-4 mm"),
            (std::vector<std::string>{"Hello", ",", "world", ".", "3.5", "-", "4", "mm"}));
  // Identical 4-word texts: every order matches, BP 1.
  EXPECT_NEAR(CorpusBleu({{"a", "b", "c", "d"}}, {{"a", "b", "c", "d"}}, 4, kPaper), 1.0, 1e-12);
}

TEST(Report, ChineseRougeSwapAndAsciiOnlyRouge) {
  // ROUGE sees only [a-z0-9] runs: pred [3cm, ct], ref [ct, 3cm]: rouge1 1, rougeL 0.5.
  const std::vector<TextItem> items = {{"大小3cm，肝脏CT正常", "肝脏CT正常，3cm"}};
  const TaskScores p = ScoreText(Task::kRgZh, items, kPaper);
  EXPECT_DOUBLE_EQ(p.Get("rouge1"), 0.5);  // the code's swap
  EXPECT_DOUBLE_EQ(p.Get("rougeL"), 1.0);
  const TaskScores s = ScoreText(Task::kRgZh, items, kStrict);
  EXPECT_DOUBLE_EQ(s.Get("rouge1"), 1.0);
  EXPECT_DOUBLE_EQ(s.Get("rougeL"), 0.5);
  // All-Chinese reports: ROUGE 0 whatever is said, identical texts included.
  const TaskScores same = ScoreText(Task::kRgZh, {{"肝脏正常", "肝脏正常"}}, kPaper);
  EXPECT_EQ(same.Get("rouge1"), 0.0);
  EXPECT_GT(same.Get("bleu1"), 0.99);  // BLEU does see the characters
}

TEST(Report, CleanStrZh) {
  EXPECT_EQ(CleanStrZh("1.肝脏[注]正常。\n2.脾脏-\n"), "肝脏正常，脾脏");
  EXPECT_EQ(CleanStrZh("肝脏：\n正常"), "肝脏：正常");
}

TEST(PyText, SplitStripLower) {
  EXPECT_EQ(PySplit(" a\x1c" "b\xc2\xa0" "c  "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(PyStrip("\xe3\x80\x80 x y \n"), "x y");
  EXPECT_EQ(AsciiLower("AbC"), "abc");
}

}  // namespace
}  // namespace cb::ref::medrega

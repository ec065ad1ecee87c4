// File: suites/sgp/sgp_test.cpp
// SGP-Bench checks that need the renderer or the scorer: librsvg rendering and
// its errors, render(T.P) ~ T.render(P) for the invariance variants, the raster
// oracle against the answer key, the scorer's two extraction modes (paper
// mode as Python's re on Unicode text, with the re-query loop),
// consistency, and the endpoint evaluation against a loopback server.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "fixtures/http_server.h"
#include "generators/sgp.h"
#include "reference/sgp/sgp.h"
#include "suites/sgp/raster_oracle.h"
#include "suites/sgp/sgp_checks.h"
#include "suites/sgp/sgp_eval.h"
#include "suites/sgp/svg_render.h"

namespace cb::sgp {
namespace {

namespace gs = cb::gen::sgp;
namespace rs = cb::ref::sgp;

constexpr const char* kHead = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 256 256\">";

TEST(SgpRender, DrawsWhereTheProgramSays) {
  const Raster r = RenderSvg(std::string(kHead) + "<rect x=\"10\" y=\"20\" width=\"30\" height=\"40\" fill=\"#d62728\"/></svg>");
  ASSERT_EQ(r.width, 256);
  EXPECT_EQ(r.A(5, 5), 0);
  EXPECT_EQ(r.A(25, 40), 255);
  const uint8_t* p = &r.rgba[(40 * 256 + 25) * 4];
  EXPECT_EQ(p[0], 0xd6);
  EXPECT_EQ(p[1], 0x27);
  EXPECT_EQ(p[2], 0x28);
  EXPECT_EQ(r.A(40, 40), 0);  // x + width is exclusive
  EXPECT_EQ(r.A(39, 59), 255);
}

TEST(SgpRender, MalformedSvgIsAClearError) {
  for (const std::string& bad : {std::string("<svg"), std::string("not xml at all"), std::string(kHead) + "<rect></svg>",
                                std::string("")}) {
    try {
      RenderSvg(bad);
      ADD_FAILURE() << "no error for: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("malformed SVG"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(RenderSvg(std::string(kHead) + "</svg>", 0, 10), std::invalid_argument);
}

TEST(SgpOracle, RefusesUnknownOpsAndColours) {
  const Raster r = RenderSvg(std::string(kHead) + "</svg>");
  EXPECT_THROW(AskOracle(r, {"count_colour", "#d62728", 0, 0}), std::invalid_argument);
  EXPECT_THROW(AskOracle(r, {"count_color", "#123456", 0, 0}), std::invalid_argument);
  EXPECT_FALSE(AskOracle(r, {"color_at", "", 10, 10}).answered);
}

TEST(SgpOracle, MeasuresHandDrawnShapes) {
  const std::string svg = std::string(kHead) +
                          "<circle cx=\"50\" cy=\"50\" r=\"20\" fill=\"#1f77b4\"/>"
                          "<circle cx=\"120\" cy=\"50\" r=\"20\" fill=\"#1f77b4\"/>"
                          "<polygon points=\"60,200 100,130 140,200\" fill=\"#2ca02c\"/>"
                          "<rect x=\"170\" y=\"150\" width=\"60\" height=\"30\" fill=\"#ff7f0e\"/></svg>";
  const Raster r = RenderSvg(svg);
  EXPECT_EQ(AskOracle(r, {"count_color", "#1f77b4", 0, 0}).value, "2");
  EXPECT_EQ(AskOracle(r, {"color_at", "", 100, 180}).value, "green");
  EXPECT_EQ(AskOracle(r, {"shape_at", "#1f77b4", 50, 50}).value, "circle");
  EXPECT_EQ(AskOracle(r, {"shape_at", "#2ca02c", 100, 180}).value, "triangle");
  EXPECT_EQ(AskOracle(r, {"shape_at", "#ff7f0e", 200, 165}).value, "rectangle");
  const auto sym = AskOracle(r, {"symmetry", "", 0, 0});
  EXPECT_TRUE(sym.answered) << sym.reason;
  EXPECT_EQ(sym.value, "neither axis");
}

// The answer key against pixels, originals and every variant: 100% of the
// questions the oracle covers (Color, Count, Shape, Reasoning) must agree.
TEST(SgpOracle, AgreesWithEveryAnswerKey) {
  const gs::Dataset d = gs::Generate({.seed = 20250101, .count = 70, .variants = 2});
  const OracleReport rep = CheckOracle(d, /*with_variants=*/true);
  for (const auto& p : rep.problems) ADD_FAILURE() << p;
  EXPECT_EQ(rep.total.agreed, rep.total.asked);
  for (const char* s : {"Color", "Count", "Shape", "Reasoning"}) {
    ASSERT_TRUE(rep.by_subject.count(s)) << s;
    EXPECT_GT(rep.by_subject.at(s).asked, 10) << s;
  }
  EXPECT_EQ(rep.by_subject.count("Semantics"), 0u);
}

TEST(SgpOracle, AgreesWithEveryCadAnswerKey) {
  const OracleReport rep = CheckCadOracle(gs::GenerateCad(20250101, 120));
  for (const auto& p : rep.problems) ADD_FAILURE() << p;
  EXPECT_EQ(rep.total.agreed, rep.total.asked);
  for (const char* s : {"Count", "Shape", "Reasoning"}) {
    ASSERT_TRUE(rep.by_subject.count(s)) << s;
    EXPECT_GT(rep.by_subject.at(s).asked, 30) << s;
  }
}

// Rounded corners bulge outwards: 3.5 px in from the sharp corner along the
// diagonal is inside the part (a concave arc would have carved it out).
TEST(SgpRender, CadCornersAreConvex) {
  for (const auto& it : gs::GenerateCad(1, 60)) {
    if (it.part.kind != "plate") continue;
    const Raster r = RenderSvg(it.views, 768, 256);
    const gs::CadBox b = gs::Bounds(it.part);
    const int x = static_cast<int>(128 + b.x1 - 3.5), y = static_cast<int>(128 - b.y1 + 3.5);
    EXPECT_EQ(r.A(x, y), 255) << it.code;
    EXPECT_EQ(r.A(static_cast<int>(128 + b.x1 - 0.5), static_cast<int>(128 - b.y1 + 0.5)), 0) << it.code;
  }
}

TEST(SgpOracle, CadOracleCatchesWrongKeys) {
  auto items = gs::GenerateCad(4, 30);
  for (auto& it : items)
    for (auto& q : it.questions) q.answer = (q.answer + 1) % 4;
  const OracleReport rep = CheckCadOracle(items);
  EXPECT_GT(rep.total.asked, 60);
  EXPECT_EQ(rep.total.agreed, 0);
}

TEST(SgpOracle, CatchesAWrongKey) {
  gs::Dataset d = gs::Generate({.seed = 3, .count = 12, .variants = 0});
  int flipped = 0;
  for (auto& p : d.programs)
    for (auto& q : p.questions)
      if (!q.oracle.op.empty()) q.answer = (q.answer + 1) % 4, ++flipped;
  const OracleReport rep = CheckOracle(d, false);
  EXPECT_EQ(rep.total.asked, flipped);
  EXPECT_EQ(rep.total.agreed, 0);
}

TEST(SgpInvariance, MovedRendersMatchMovedPixels) {
  const gs::Dataset d = gs::Generate({.seed = 77, .count = 40, .variants = 3});
  const InvarianceReport rep = CheckInvariance(d);
  EXPECT_EQ(rep.translated, 120);
  EXPECT_EQ(rep.rotated, 120);
  EXPECT_GE(rep.min_iou_translated, 0.98);
  EXPECT_GE(rep.min_iou_rotated, 0.98);
  EXPECT_EQ(rep.touching_border, 0);
}

TEST(SgpInvariance, IoUDetectsAWrongMotion) {
  const gs::Program p = gs::MakeProgram(5, 1);
  const gs::Se2 m{30, 10, -5};
  const Raster base = RenderSvg(p.svg), moved = RenderSvg(gs::ToSvg(gs::Transform(p.scene, m)));
  EXPECT_GE(MovedIoU(base, moved, m), 0.98);
  EXPECT_LT(MovedIoU(base, moved, {-30, 10, -5}), 0.9);  // the arc/rotation sign matters
  EXPECT_LT(MovedIoU(base, moved, {30, 14, -5}), 0.98);
}

// ---- scorer ------------------------------------------------------------------

TEST(SgpScorer, PaperModeTakesTheFirstMatchAndComparesCaseSensitively) {
  using rs::Mode;
  EXPECT_EQ(rs::Extract("Answer: C", Mode::kPaperCompatible), 'C');
  EXPECT_EQ(rs::Extract("reasoning...\nANSWER :\n b", Mode::kPaperCompatible), 'b');
  EXPECT_FALSE(rs::Correct("answer: b", 'B', Mode::kPaperCompatible));  // case-sensitive compare
  EXPECT_TRUE(rs::Correct("answer: b", 'B', Mode::kStrict));
  EXPECT_EQ(rs::Extract("Answer: A is wrong, so\nAnswer: D", Mode::kPaperCompatible), 'A');  // first match
  EXPECT_EQ(rs::Extract("Answer: A is wrong, so\nAnswer: D", Mode::kStrict), 'D');           // last answer line
  EXPECT_EQ(rs::Extract("The answer is C.", Mode::kPaperCompatible), 0);
  EXPECT_EQ(rs::Extract("I cannot render images.", Mode::kStrict), 0);
  EXPECT_EQ(rs::Extract("Answer: E", Mode::kPaperCompatible), 0);
  EXPECT_EQ(rs::Extract("Answer:Bold claim", Mode::kPaperCompatible), 'B');  // the regex does not need a word end
  EXPECT_EQ(rs::Extract("Answer:Bold claim", Mode::kStrict), 0);
  EXPECT_EQ(rs::Extract("**Answer: (C)**", Mode::kStrict), 'C');
  EXPECT_EQ(rs::Extract("Answer: c.", Mode::kStrict), 'C');
  EXPECT_EQ(rs::Extract("Final Answer: C", Mode::kStrict), 0);
  EXPECT_EQ(rs::Extract("Final Answer: C", Mode::kPaperCompatible), 'C');
}

// The official extraction is re.search(ANSWER_PATTERN_MULTICHOICE, response_text)
// with ANSWER_PATTERN_MULTICHOICE = r"(?i)Answer\s*:\s*([A-D])" (sgp-bench/sgp-bench
// at commit e7906399beebb82ab5dcc4aa547eaec8674c9144, common.py line 35,
// sgp_eval.py line 43) on a Python str. There \s is every character for which
// str.isspace() is true (29 code points), (?i) lets [A-D] match a-d and lets 's'
// match U+017F LATIN SMALL LETTER LONG S (re's case-folding equivalences), and
// the captured letter is compared with row["Answer"] as it is (sgp_eval.py line
// 47). Each expectation below is what Python 3.11.7's re returns for that string
// (checked by running the pattern on every case).
TEST(SgpScorer, PaperModeIsPythonsReOnUnicodeText) {
  using rs::Mode;
  const auto paper = [](std::string_view s) { return rs::Extract(s, Mode::kPaperCompatible); };
  EXPECT_EQ(paper("Answer:\u00a0B"), 'B');                 // NO-BREAK SPACE after the colon
  EXPECT_EQ(paper("Answer\u3000:\u2003C"), 'C');           // IDEOGRAPHIC SPACE, EM SPACE
  EXPECT_EQ(paper("Answer\u2028:\u0085D"), 'D');           // LINE SEPARATOR, NEXT LINE
  EXPECT_EQ(paper("Answer" "\x1c" ":" "\x1f" "A"), 'A');   // the file/unit separators are \s too
  EXPECT_EQ(paper("Answer:\u00a0\u00a0\nB"), 'B');
  EXPECT_EQ(paper("Answer :  B"), 'B');
  EXPECT_EQ(paper("Answer\uff1a B"), 0);                   // FULLWIDTH COLON is not ':'
  EXPECT_EQ(paper("Answer:\u200bB"), 0);                   // ZERO WIDTH SPACE is not \s
  EXPECT_EQ(paper("Answer:\ufeffB"), 0);                   // nor ZERO WIDTH NO-BREAK SPACE
  EXPECT_EQ(paper("Answer\u180e: B"), 0);                  // nor MONGOLIAN VOWEL SEPARATOR
  EXPECT_EQ(paper("Answer: \uff22"), 0);                   // FULLWIDTH B is not in [A-D]
  EXPECT_EQ(paper("An\u017fwer: C"), 'C');                 // long s matches s under (?i)
  EXPECT_EQ(paper("ANSWER: d"), 'd');
  EXPECT_EQ(paper("Answer:\u202fA and Answer: B"), 'A');   // the first match
  EXPECT_EQ(paper("Answer\u00a0\uff1aC then answer:\u205fD"), 'D');  // the first colon is fullwidth
  EXPECT_FALSE(rs::Correct("answer: b", 'B', Mode::kPaperCompatible));  // 'b' != 'B'
  EXPECT_TRUE(rs::Correct("Answer:\u00a0B", 'B', Mode::kPaperCompatible));
  EXPECT_EQ(paper("Answer:\xc2"), 0);                      // a cut UTF-8 sequence is no space, and no crash
}

// sgp_eval.py lines 33-45 (same commit): up to max_retries = 5 calls, stopping
// at the first response the pattern matches, even when the letter it captures
// is lower case (which then scores 0). A row's `responses` are those attempts
// in order; paper mode replays the loop, strict mode scores the first attempt
// only. Python's loop on these rows gives C, None, D, d, A: 3 of 5 right.
TEST(SgpScorer, PaperModeReplaysTheRequeryLoopStrictTakesTheFirstAttempt) {
  const std::string text =
      "{\"Answer\":\"C\",\"Subject\":\"Color\",\"responses\":[\"I think it's B\",\"no idea\",\"Answer: C\",\"Answer: A\"]}\n"
      "{\"Answer\":\"D\",\"Subject\":\"Count\",\"responses\":[\"x\",\"x\",\"x\",\"x\",\"x\",\"Answer: D\"]}\n"
      "{\"Answer\":\"D\",\"Subject\":\"Count\",\"responses\":[\"x\",\"x\",\"x\",\"x\",\"Answer: D\"]}\n"
      "{\"Answer\":\"D\",\"Subject\":\"Shape\",\"responses\":[\"answer: d\",\"Answer: D\"]}\n"
      "{\"Answer\":\"A\",\"Subject\":\"Shape\",\"response\":\"Answer: A\"}\n";
  const auto preds = rs::ParsePredictions(text, "r.jsonl");
  ASSERT_EQ(preds.size(), 5u);
  const rs::Scores paper = rs::Score(preds, rs::Mode::kPaperCompatible);
  EXPECT_EQ(paper.overall.n, 5);
  EXPECT_EQ(paper.overall.correct, 3);  // rows 1 (3rd attempt), 3 (5th), 5
  EXPECT_EQ(paper.overall.unanswered, 1);  // row 2: a 6th attempt is never made
  EXPECT_EQ(paper.subjects.at("Count").correct, 1);
  EXPECT_EQ(paper.subjects.at("Shape").correct, 1);  // 'd' stopped the loop before "Answer: D"
  const rs::Scores strict = rs::Score(preds, rs::Mode::kStrict);
  EXPECT_EQ(strict.overall.correct, 2);  // rows 4 ("answer: d" upper-cased) and 5
  EXPECT_EQ(strict.subjects.at("Color").correct, 0);
  // Consistency reads the same extraction.
  const std::string inv =
      "{\"Answer\":\"C\",\"Subject\":\"Color\",\"split\":\"inv\",\"index\":0,\"responses\":[\"?\",\"Answer: C\"]}\n"
      "{\"Answer\":\"C\",\"Subject\":\"Color\",\"split\":\"inv_t0\",\"index\":0,\"response\":\"Answer: C\"}\n";
  const auto c = rs::ScoreConsistency(rs::ParsePredictions(inv, "i.jsonl"), "inv", {"inv_t0"}, rs::Mode::kPaperCompatible);
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->value, 1.0);
}

TEST(SgpScorer, ResponseFieldsAreCheckedNullIsNotMissing) {
  auto error = [](const std::string& fields) {
    try {
      rs::ParsePredictions("{\"Answer\":\"A\",\"Subject\":\"Color\"" + fields + "}", "f.jsonl");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(""), "f.jsonl:1: missing field 'response' (or 'responses', the re-query attempts)");
  EXPECT_EQ(error(",\"response\":null"), "f.jsonl:1: 'response' must be a string, not null");
  EXPECT_EQ(error(",\"responses\":[]"), "f.jsonl:1: 'responses' must be a non-empty list of strings");
  EXPECT_EQ(error(",\"responses\":\"Answer: A\""), "f.jsonl:1: 'responses' must be a non-empty list of strings");
  EXPECT_EQ(error(",\"responses\":[\"x\",null]"), "f.jsonl:1: 'responses' must be a non-empty list of strings");
  EXPECT_EQ(error(",\"response\":\"x\",\"responses\":[\"x\"]"),
            "f.jsonl:1: give 'response' or 'responses', not both");
  EXPECT_EQ(error(",\"responses\":[\"Answer: A\"]"), "no error");
}

TEST(SgpScorer, PromptIsSimpleEvalsTemplate) {
  const std::string p = rs::Prompt("Q?", "a", "b", "c", "d");
  EXPECT_EQ(p.rfind("Answer the following multiple choice question. The last line of your response should be of the "
                    "following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by "
                    "step before answering.\n\nQ?\n\nA) a\nB) b\nC) c\nD) d",
                    0),
            0u);
}

TEST(SgpScorer, ParsesPredictionsAndNamesBadLines) {
  const std::string good =
      "{\"Answer\":\"B\",\"Subject\":\"Color\",\"response\":\"Answer: B\"}\n\n"
      "{\"Answer\":\"C\",\"Subject\":\"Count\",\"response\":\"answer: c\",\"split\":\"inv\",\"index\":0}\n";
  const auto preds = rs::ParsePredictions(good, "p.jsonl");
  ASSERT_EQ(preds.size(), 2u);
  EXPECT_EQ(preds[1].split, "inv");
  const auto strict = rs::Score(preds, rs::Mode::kStrict), paper = rs::Score(preds, rs::Mode::kPaperCompatible);
  EXPECT_DOUBLE_EQ(strict.overall.Accuracy(), 100);
  EXPECT_DOUBLE_EQ(paper.overall.Accuracy(), 50);
  EXPECT_DOUBLE_EQ(paper.subjects.at("Count").Accuracy(), 0);
  auto error = [](const std::string& text) {
    try {
      rs::ParsePredictions(text, "f.jsonl");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{\"Answer\":\"B\",\"Subject\":\"Colour\",\"response\":\"\"}"),
            "f.jsonl:1: unknown Subject 'Colour' (known: Semantics, Color, Shape, Count, Reasoning)");
  EXPECT_EQ(error("\n{\"Answer\":\"E\",\"Subject\":\"Color\",\"response\":\"\"}"),
            "f.jsonl:2: Answer must be one of A, B, C, D, not 'E'");
  EXPECT_EQ(error("{\"Answer\":\"A\",\"Subject\":\"Color\"}"),
            "f.jsonl:1: missing field 'response' (or 'responses', the re-query attempts)");
  EXPECT_EQ(error("[1,2]"), "f.jsonl:1: not a JSON object");
  EXPECT_EQ(error("{\"Answer\":\"A\",\"Subject\":\"Color\",\"response\":\"\",\"index\":-1}"),
            "f.jsonl:1: 'index' must be a non-negative integer");
}

TEST(SgpScorer, ConsistencyIsTheMajorityShare) {
  std::vector<rs::Prediction> preds;
  // Question 0: A on the original, A A B on variants -> 3/4. Question 1: all D -> 1.
  const char* answers[2][4] = {{"A", "A", "A", "B"}, {"D", "D", "D", "D"}};
  const char* splits[4] = {"inv", "inv_r0", "inv_r1", "inv_r2"};
  for (int q = 0; q < 2; ++q)
    for (int s = 0; s < 4; ++s) preds.push_back({"Color", 'A', std::string("Answer: ") + answers[q][s], splits[s], q});
  const auto c = rs::ScoreConsistency(preds, "inv", {"inv_r0", "inv_r1", "inv_r2"}, rs::Mode::kStrict);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->questions, 2);
  EXPECT_DOUBLE_EQ(c->value, (0.75 + 1.0) / 2);
  EXPECT_FALSE(rs::ScoreConsistency(preds, "svg", {"inv_r0"}, rs::Mode::kStrict).has_value());
}

// ---- endpoint ----------------------------------------------------------------

TEST(SgpEndpoint, AsksEveryRowWithTheTemplateAndScoresBothModes) {
  // The fake model answers "answer: a" to Color questions and "Answer: A" otherwise.
  std::mutex mu;
  std::vector<std::string> bodies;
  cb::testing::HttpServer server([&](int, const cb::testing::HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    bodies.push_back(req.body);
    const bool color = req.body.find("Question: What color") != std::string::npos;
    return cb::testing::HttpReply{200, cb::testing::HttpServer::ChatBody(color ? "answer: a" : "Answer: A")};
  });
  EndpointEvalConfig c;
  c.client.endpoint = server.url();
  c.model = "fake";
  c.gen = {.seed = 4, .count = 6, .variants = 1};
  c.invariance = true;
  const EndpointEvalOutput out = EvaluateEndpoint(c, nullptr);
  const gs::Dataset d = gs::Generate(c.gen);
  size_t rows = 0;
  for (const auto& [split, r] : gs::Splits(d)) rows += r.size();
  EXPECT_EQ(out.rows, static_cast<int>(rows));
  EXPECT_EQ(out.rows_failed, 0);
  EXPECT_EQ(server.requests(), static_cast<int>(rows));
  const auto body = nlohmann::json::parse(bodies[0]);
  EXPECT_EQ(body["messages"][0]["content"], rs::kSystemOpenAi);
  EXPECT_EQ(body["max_tokens"], 2048);
  EXPECT_EQ(body["temperature"], 0);
  // Always-A: accuracy equals the share of A keys; lowercase answers only count in strict mode.
  int a_keys = 0, color_a = 0;
  for (const auto& p : out.predictions) a_keys += p.answer == 'A', color_a += p.answer == 'A' && p.subject == "Color";
  EXPECT_EQ(out.strict.scores.overall.correct, a_keys);
  EXPECT_EQ(out.paper.scores.overall.correct, a_keys - color_a);
  ASSERT_TRUE(out.strict.consistency_t.has_value());
  EXPECT_DOUBLE_EQ(out.strict.consistency_t->value, 1.0);  // a constant answer is perfectly consistent
  const auto rows_out = ScoreRows(out.strict, rs::Mode::kStrict, {{"model", "fake"}}, "x");
  EXPECT_EQ(rows_out.front().params["scorer_mode"], "strict");
  EXPECT_EQ(rows_out.front().metric, "accuracy");
}

}  // namespace
}  // namespace cb::sgp

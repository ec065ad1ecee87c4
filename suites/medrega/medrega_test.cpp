// File: suites/medrega/medrega_test.cpp
// The suite's pieces: every golden case (golden_cases.h) agrees; prediction
// files (JSONL and the authors' JSON arrays) are read with FILE:LINE errors;
// paper-mode failures are reported per task, not recorded; the pixel oracle
// sees the generator's structures and its answers score perfectly; the PNG
// writer's framing and checksums.
#include <gtest/gtest.h>

#include "suites/medrega/golden_cases.h"
#include "suites/medrega/medrega_eval.h"
#include "suites/medrega/pixel_oracle.h"
#include "suites/medrega/png.h"

namespace cb::medrega {
namespace {

namespace gr = cb::gen::regions;

TEST(Golden, EveryCaseAgrees) {
  for (const GoldenCase& c : GoldenCases()) {
    std::string got;
    EXPECT_TRUE(RunGoldenCase(c, &got)) << c.name << " (" << c.file << "): expected "
                                        << (c.raises ? "an error" : std::to_string(c.expected)) << ", got " << got
                                        << "; " << c.why;
  }
}

TEST(Golden, AWrongExpectationFails) {
  GoldenCase c = GoldenCases()[0];
  c.expected = 1 - c.expected;
  std::string got;
  EXPECT_FALSE(RunGoldenCase(c, &got));
}

TEST(Predictions, JsonlAndErrors) {
  const std::string text =
      "{\"task\": \"ss\", \"answer\": \"liver [[0, 0, 300, 999]]\", \"gt\": \"<ref>liver</ref><box>[[0, 0, 300, "
      "999]]</box>\", \"hw\": [999, 999]}\n"
      "{\"task\": \"r2t\", \"pred_answer\": \"liver\", \"gt_answer\": \"liver\"}\n"
      "{\"task\": \"ms\", \"answer\": null, \"gt\": \"\", \"hw\": [10, 10]}\n";
  const Predictions p = ParsePredictions(text, "p.jsonl");
  EXPECT_EQ(p.rows, 3u);
  const AllScores paper = ScoreAll(p, mr::Mode::kPaperCompatible);
  EXPECT_FALSE(paper.tasks.at(mr::Task::kMs).error.empty());  // empty GT: ZeroDivisionError
  EXPECT_TRUE(paper.tasks.at(mr::Task::kSs).error.empty());
  const auto rows = ScoreRows(paper, mr::Mode::kPaperCompatible, {}, "h");
  for (const auto& r : rows) EXPECT_NE(r.params["task"], "ms");
  EXPECT_TRUE(ScoreAll(p, mr::Mode::kStrict).tasks.at(mr::Task::kMs).error.empty());
  auto error = [](const std::string& t) {
    try {
      ParsePredictions(t, "f.jsonl");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("{\"task\": \"r2t\", \"pred_answer\": \"a\", \"gt_answer\": \"b\"}\n{\"task\": \"zz\"}")
                .find("f.jsonl:2: unknown task 'zz'"),
            std::string::npos);
  EXPECT_NE(error("{\"task\": \"ss\", \"answer\": 3, \"gt\": \"\", \"hw\": [1, 1]}").find("f.jsonl:1: 'answer'"),
            std::string::npos);
  EXPECT_NE(error("{\"task\": \"ss\", \"answer\": \"\", \"gt\": \"\", \"hw\": [1]}").find("'hw'"), std::string::npos);
  EXPECT_NE(error("{\"task\": \"ss\", \"answer\": \"\", \"gt\": \"<ref>a</ref><box>[1,2,3,4]</box>\", \"hw\": [1, 1]}")
                .find("f.jsonl:1: ground-truth"),
            std::string::npos);
  EXPECT_NE(error("{\"answer\": \"\"}").find("missing field 'task'"), std::string::npos);
  // An authors' answer file: a JSON array, with the task given.
  const Predictions a = ParsePredictions("[{\"pred_answer\": \"x\", \"gt_answer\": \"x\"}]", "a.json", mr::Task::kR2t);
  EXPECT_EQ(a.text.at(mr::Task::kR2t).size(), 1u);
}

TEST(Oracle, SeesTheStructuresAndScoresPerfectly) {
  const auto scans = gr::Generate({.seed = 3, .count = 8, .size = 128});
  std::vector<SeenStructures> seen;
  for (const auto& s : scans) {
    seen.push_back(SeeStructures(s));
    EXPECT_EQ(seen.back().unclassified_pixels, 0);
    EXPECT_EQ(seen.back().organs.size(), s.organs.size());
    EXPECT_EQ(seen.back().lesions.size(), s.lesions.size());
    for (const auto& l : seen.back().lesions) EXPECT_GE(l.organ, 0);
  }
  const Predictions p = AnswerScans(scans, {}, [&](const gr::Scan& s, const gr::Question& q) {
    return std::optional<std::string>(OracleAnswer(s, seen[static_cast<size_t>(s.index)], q));
  });
  for (auto mode : {mr::Mode::kStrict, mr::Mode::kPaperCompatible})
    for (const auto& [t, r] : ScoreAll(p, mode).tasks) {
      EXPECT_TRUE(r.error.empty()) << r.error;
      for (const auto& [m, v] : r.scores.metrics) EXPECT_NEAR(v, 1.0, 1e-6) << mr::TaskKey(t) << " " << m;
    }
  // A blank answer scores 0, so the perfect scores above are not automatic.
  const Predictions blank = AnswerScans(scans, {gr::Task::kSs}, [](const gr::Scan&, const gr::Question&) {
    return std::optional<std::string>("no idea");
  });
  EXPECT_EQ(ScoreAll(blank, mr::Mode::kStrict).tasks.at(mr::Task::kSs).scores.Get("acc25"), 0.0);
}

TEST(Png, FramingAndChecksums) {
  EXPECT_EQ(Crc32("IEND"), 0xae426082u);  // the well-known IEND chunk CRC
  EXPECT_EQ(Crc32("123456789"), 0xcbf43926u);  // CRC-32 check value
  const std::vector<uint8_t> px(300 * 250, 7);
  const std::string png = EncodeGreyPng(px, 300, 250);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  // 250 rows of 301 bytes = 75250 > 65535: two stored blocks.
  EXPECT_GT(png.size(), 75250u);
  EXPECT_THROW(EncodeGreyPng(px, 10, 10), std::invalid_argument);
  // Inflate the stored blocks by hand: the rows come back, each after filter byte 0.
  std::vector<uint8_t> grad(40 * 30);
  for (size_t i = 0; i < grad.size(); ++i) grad[i] = static_cast<uint8_t>(i * 7);
  const std::string g = EncodeGreyPng(grad, 40, 30);
  const size_t idat = g.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  const auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(g[at])) << 24) | (uint32_t(uint8_t(g[at + 1])) << 16) | (uint32_t(uint8_t(g[at + 2])) << 8) |
           uint32_t(uint8_t(g[at + 3]));
  };
  const uint32_t len = be32(idat - 4);
  EXPECT_EQ(be32(idat + 4 + len), Crc32(g.substr(idat, 4 + len)));
  size_t pos = idat + 4 + 2;  // past the zlib header
  std::string raw;
  while (true) {
    const bool last = g[pos] & 1;
    const size_t n = uint8_t(g[pos + 1]) | (size_t(uint8_t(g[pos + 2])) << 8);
    raw += g.substr(pos + 5, n);
    pos += 5 + n;
    if (last) break;
  }
  ASSERT_EQ(raw.size(), 30u * 41u);
  for (int y = 0; y < 30; ++y) {
    EXPECT_EQ(raw[y * 41], 0);
    for (int x = 0; x < 40; ++x) ASSERT_EQ(uint8_t(raw[y * 41 + 1 + x]), grad[y * 40 + x]);
  }
}

}  // namespace
}  // namespace cb::medrega

// File: suites/vlmbias/vlmbias_test.cpp
// Tests of reference/vlmbias and the generation-file scorer:
//   - parse_selection against the authors' function (amith-ananthram/
//     see-it-from-my-perspective, 2_extract_mcvqa_artelingo_selections.py at
//     af9710436956f141f1b3354d8e5cf39c93ff1e64, lines 25-47): every expected
//     index below was printed by that function itself (extracted with ast and
//     run on Python 3.11) on the same inputs, except the random-fallback
//     cases, where Python's draw is unseeded and only "random" is asserted;
//   - the ArtELingo majority labels against the authors' own test
//     (tests/test_benchmarks_artelingo.py at the same commit) on their
//     fixture CSV (fixtures/vlmbias/artelingo_release_min.csv, its columns cut
//     down), plus a tie the authors' test does not cover (Arabic annotators);
//   - the bias ratio's bootstrap, pairing and +inf handling; the file parser's
//     errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/claim_runner.h"
#include "fixtures/paths.h"
#include "reference/vlmbias/artelingo.h"
#include "reference/vlmbias/bias.h"
#include "reference/vlmbias/parse_selection.h"
#include "suites/vlmbias/vlmbias_eval.h"

namespace {

namespace rv = cb::ref::vlmbias;
namespace vb = cb::vlmbias;

struct Golden {
  std::string output;
  std::vector<std::string> choices;
  int index;
  rv::SelectionHow how;
};

std::vector<std::string> W(int n) {
  std::vector<std::string> w;
  for (int i = 0; i < n; ++i) {
    char b[8];
    std::snprintf(b, sizeof b, "w%02d", i);
    w.push_back(b);
  }
  return w;
}

TEST(ParseSelection, MatchesTheAuthorsFunction) {
  using H = rv::SelectionHow;
  const std::vector<std::string> flowers = {"Rose", "Lotus", "Jasmine", "Hibiscus"};
  const std::vector<std::string> emotions = rv::ArtelingoCandidates();
  std::vector<std::string> a_to_j, a_to_l, x10y(10, "x");
  for (char c = 'a'; c <= 'l'; ++c) (c <= 'j' ? a_to_j : a_to_l).push_back(std::string(1, c));
  a_to_l.insert(a_to_l.begin(), a_to_j.begin(), a_to_j.end());
  x10y.push_back("y");
  const std::vector<Golden> golden = {
      {"The answer is Lotus.", flowers, 1, H::kOption},
      {"rose or lotus? I'd say LOTUS, not rose", flowers, 0, H::kOption},  // earliest, case-folded
      {"2", flowers, 1, H::kDigit},
      {"1 or 2", flowers, 1, H::kDigit},             // the last k that occurs wins
      {"3) or 1)", flowers, 2, H::kDigit},
      {"The closest is 4) Hibiscus", flowers, 3, H::kOption},
      {"cat", {"cat", "category", "dog", "bird"}, 0, H::kOption},
      {"category", {"category", "cat", "dog", "bird"}, 1, H::kOption},  // same position: "cat" < "category"
      {"a tabby cat", {"cat", "tab", "dog", "a tabby"}, 3, H::kOption},
      {"sadness", emotions, 7, H::kOption},
      {"Awe-inspiring, with some fear", emotions, 2, H::kOption},
      {"the answer is 10", a_to_j, 7, H::kOption},   // 'h' of "the" at 1 comes first
      {"pick 1", x10y, 0, H::kDigit},
      {"Stick", {"stick", "Stick", "pole", "rod"}, 1, H::kOption},  // "Stick" < "stick"
      {"x", {"", "x", "y", "z"}, 0, H::kOption},   // the empty choice is found at 0
      {"some dog", {"Dog", "dog", "cat", "bird"}, 0, H::kOption},
      {"4", {"10", "4", "x", "y"}, 1, H::kOption},
      {"answer: 12", a_to_l, 0, H::kOption},
      {"惊叹 awe", {"amusement", "awe"}, 1, H::kOption},
      {"I choose 10", W(10), 9, H::kDigit},         // "1" and "10" occur: 10 wins
      {"I choose 10", W(9), 0, H::kDigit},
      {"11 then 2", W(12), 10, H::kDigit},
      {"Option 3 (not 4)", W(4), 3, H::kDigit},
  };
  for (const auto& g : golden) {
    const rv::Selection s = rv::ParseSelection(g.output, g.choices, 7, 0);
    EXPECT_EQ(s.index, g.index) << g.output;
    EXPECT_EQ(s.how, g.how) << g.output;
  }
}

TEST(ParseSelection, RandomFallbackIsSeededAndUniform) {
  // Python: "２" (fullwidth) is neither an option nor str(k): random.choice.
  const auto choices = W(4);
  const rv::Selection a = rv::ParseSelection("２", choices, 11, 5), b = rv::ParseSelection("２", choices, 11, 5);
  EXPECT_EQ(a.how, rv::SelectionHow::kRandom);
  EXPECT_EQ(a.index, b.index);
  std::vector<int> counts(4, 0);
  for (uint64_t stream = 0; stream < 4000; ++stream) ++counts[rv::ParseSelection("none", choices, 3, stream).index];
  for (int c : counts) EXPECT_NEAR(c, 1000, 120);  // ~4 sd of Binomial(4000, 1/4)
  EXPECT_THROW(rv::ParseSelection("x", {}, 1, 1), std::invalid_argument);
}

std::string ReadFixture(const std::string& rel) {
  std::ifstream in(cb::testing::FixturePath(rel), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tests/test_benchmarks_artelingo.py at af97104: the expected (image, label)
// lists of test_en_anns_in_en, test_zh_anns_in_zh, test_required_agreement,
// test_skip_labels and test_splits.
TEST(ArtelingoLabels, MatchTheAuthorsTests) {
  const auto rows = rv::ReadAnnotationsCsv(ReadFixture("vlmbias/artelingo_release_min.csv"), "art.csv");
  ASSERT_EQ(rows.size(), 48u);
  const std::string d = "YOUR/PATH/TO/WIKIART/";
  const std::string crying = d + "Expressionism/toyen_crying.jpg", havana = d + "Impressionism/willard-metcalf_havana-harbor.jpg",
                    wolf = d + "Romanticism/viktor-vasnetsov_ivan-tsarevich-riding-the-grey-wolf-1889.jpg";
  auto labels = [&](rv::LabelOptions o) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& l : rv::MajorityLabels(rows, o)) out.emplace_back(l.image_file, l.label);
    return out;
  };
  using P = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(labels({.ann_langs = {"en"}, .splits = {"train"}}),
            (P{{crying, "sadness"}, {havana, "awe"}, {wolf, "awe"}}));
  EXPECT_EQ(labels({.ann_langs = {"zh"}, .splits = {"train"}}),
            (P{{crying, "sadness"}, {havana, "contentment"}, {wolf, "contentment"}}));
  EXPECT_EQ(labels({.ann_langs = {"en"}, .splits = {"train"}, .required_agreement = 5}), (P{{crying, "sadness"}}));
  EXPECT_EQ(labels({.ann_langs = {"en"}, .splits = {"train"}, .skip_labels = {"sadness"}}),
            (P{{havana, "awe"}, {wolf, "awe"}}));
  EXPECT_TRUE(labels({.ann_langs = {"en"}, .splits = {"test"}}).empty());
  // Both languages: sorted by (language, image); agreement counts.
  const auto both = rv::MajorityLabels(rows, {.ann_langs = {"zh", "en"}, .splits = {"train"}});
  ASSERT_EQ(both.size(), 6u);
  EXPECT_EQ(both[0].ann_lang, "en");
  EXPECT_EQ(both[3].ann_lang, "zh");
  EXPECT_EQ(both[0].agreement, 6);
  EXPECT_EQ(both[2].agreement, 4);  // wolf, English: awe 4, fear 3
  EXPECT_EQ(both[2].annotators, 7);
  // A three-way tie (havana, Arabic: awe, excitement, amusement once each):
  // Counter.most_common(1) returns the first inserted, "awe".
  const auto ar = rv::MajorityLabels(rows, {.ann_langs = {"ar"}, .splits = {"train"}});
  ASSERT_EQ(ar.size(), 3u);
  EXPECT_EQ(ar[0].image_file, crying);
  EXPECT_EQ(ar[1].label, "awe");
  EXPECT_EQ(ar[1].agreement, 1);
  EXPECT_EQ(ar[2].label, "contentment");  // wolf, Arabic: contentment 2 beats fear, awe, amusement 1
  EXPECT_THROW(rv::MajorityLabels(rows, {.ann_langs = {"fr"}}), std::invalid_argument);
  EXPECT_THROW(rv::MajorityLabels(rows, {.skip_labels = {"joy"}}), std::invalid_argument);
}

TEST(ArtelingoLabels, CsvErrorsNameTheLine) {
  EXPECT_THROW(rv::ReadAnnotationsCsv("emotion,language,split\n", "a.csv"), std::runtime_error);
  try {
    rv::ReadAnnotationsCsv("emotion,language,image_file,split\nawe,english,x.jpg,test\nawe,english\n", "a.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a.csv:3"), std::string::npos) << e.what();
  }
  const auto rows = rv::ReadAnnotationsCsv("emotion,language,image_file,split\r\n\"fe\"\"ar\",chinese,\"a,\nb.jpg\",val\r\n", "a.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].emotion, "fe\"ar");
  EXPECT_EQ(rows[0].image_file, "a,\nb.jpg");
}

std::vector<rv::Observation> Obs(int w_right, int w_n, int e_right, int e_n) {
  std::vector<rv::Observation> o;
  for (int i = 0; i < w_n; ++i) o.push_back({"w" + std::to_string(i), "", rv::Region::kWest, i < w_right ? 1.0 : 0.0});
  for (int i = 0; i < e_n; ++i) o.push_back({"e" + std::to_string(i), "", rv::Region::kEastAsia, i < e_right ? 1.0 : 0.0});
  return o;
}

TEST(BiasRatio, PointEstimateIntervalsAndDeterminism) {
  const auto o = Obs(60, 100, 40, 100);
  const rv::BiasEstimate b = rv::BiasRatio(o, "", 2000, 5);
  EXPECT_DOUBLE_EQ(b.west, 0.6);
  EXPECT_DOUBLE_EQ(b.east, 0.4);
  EXPECT_DOUBLE_EQ(b.ratio, 1.5);
  EXPECT_LT(b.ratio_ci.low, 1.5);
  EXPECT_GT(b.ratio_ci.high, 1.5);
  EXPECT_LT(b.west_ci.low, 0.6);
  EXPECT_GT(b.east_ci.high, 0.4);
  // Delta-method check of the interval's width: sd(log ratio) ~ sqrt(0.4/60 + 0.6/40) = 0.147.
  EXPECT_NEAR(std::log(b.ratio_ci.high / b.ratio_ci.low), 2 * 1.96 * 0.147, 0.08);
  const rv::BiasEstimate c = rv::BiasRatio(o, "", 2000, 5);
  EXPECT_EQ(b.ratio_ci.low, c.ratio_ci.low);
  EXPECT_EQ(b.ratio_ci.high, c.ratio_ci.high);
  EXPECT_THROW(rv::BiasRatio(Obs(1, 3, 0, 0), "", 100, 1), std::invalid_argument);
}

TEST(BiasRatio, SmallEastScoreGivesAnUnboundedInterval) {
  const rv::BiasEstimate b = rv::BiasRatio(Obs(50, 100, 1, 100), "", 1000, 2);
  EXPECT_DOUBLE_EQ(b.ratio, 50.0);
  EXPECT_GT(b.zero_east_replicates, 300);  // P(no correct in 100 draws at 1%) = 0.366
  EXPECT_TRUE(std::isinf(b.ratio_ci.high));
  EXPECT_TRUE(std::isfinite(b.ratio_ci.low));
  const rv::BiasEstimate z = rv::BiasRatio(Obs(50, 100, 0, 100), "", 200, 2);
  EXPECT_FALSE(z.ratio_defined);
}

TEST(BiasRatio, PairingNarrowsTheIntervalOfSharedUnits) {
  // The same 200 images in both regions, with a shared per-image difficulty:
  // paired resampling keeps the correlation, independent resampling loses it.
  std::vector<rv::Observation> paired, unpaired;
  for (int i = 0; i < 200; ++i) {
    const bool easy = i % 2 == 0;
    const double w = easy ? 1.0 : (i % 10 == 1 ? 1.0 : 0.0), e = easy ? (i % 8 == 0 ? 0.0 : 1.0) : 0.0;
    paired.push_back({"img" + std::to_string(i), "", rv::Region::kWest, w});
    paired.push_back({"img" + std::to_string(i), "", rv::Region::kEastAsia, e});
    unpaired.push_back({"w" + std::to_string(i), "", rv::Region::kWest, w});
    unpaired.push_back({"e" + std::to_string(i), "", rv::Region::kEastAsia, e});
  }
  const auto p = rv::BiasRatio(paired, "", 2000, 9), u = rv::BiasRatio(unpaired, "", 2000, 9);
  EXPECT_DOUBLE_EQ(p.ratio, u.ratio);
  EXPECT_LT(p.ratio_ci.high - p.ratio_ci.low, 0.8 * (u.ratio_ci.high - u.ratio_ci.low));
}

TEST(BiasRatio, PromptLanguageDeltaIsPaired) {
  std::vector<rv::Observation> o;
  for (int i = 0; i < 100; ++i) {
    o.push_back({"w" + std::to_string(i), "en", rv::Region::kWest, i < 80 ? 1.0 : 0.0});
    o.push_back({"w" + std::to_string(i), "zh", rv::Region::kWest, i < 70 ? 1.0 : 0.0});
    o.push_back({"e" + std::to_string(i), "en", rv::Region::kEastAsia, i < 40 ? 1.0 : 0.0});
    o.push_back({"e" + std::to_string(i), "zh", rv::Region::kEastAsia, i < 50 ? 1.0 : 0.0});
  }
  const rv::RatioDelta d = rv::BiasRatioDelta(o, "en", "zh", 1000, 4);
  EXPECT_TRUE(d.defined);
  EXPECT_NEAR(d.delta, 2.0 - 1.4, 1e-12);
  EXPECT_GT(d.ci.low, 0.0);
  EXPECT_LT(d.ci.low, d.delta);
  EXPECT_GT(d.ci.high, d.delta);
}

TEST(GenerationFile, ParsesScoresAndNamesBadLines) {
  const std::string ok =
      R"J({"task": "cvqa", "id": 1, "split": "('Chinese', 'China')", "region": "east_asia", "prompt_lang": "zh", "generation": "Lotus", "options": ["Rose", "Lotus"], "label": 1})J"
      "\n"
      R"J({"task": "cvqa", "id": 2, "language": "en", "selection": 0, "options": ["Rose", "Lotus"], "label": "Lotus"})J"
      "\n\n"
      R"J({"task": "dollar", "id": "a", "region": "west", "score": 4.2})J"
      "\n";
  const auto rows = vb::ParseRows(ok, "g.jsonl");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].region, rv::Region::kEastAsia);
  EXPECT_EQ(rows[1].region, rv::Region::kWest);
  EXPECT_EQ(rows[1].split, "west");
  EXPECT_EQ(rows[2].line, 4);
  EXPECT_EQ(vb::ScoreRow(rows[0], 1).value, 1.0);
  EXPECT_EQ(*vb::ScoreRow(rows[0], 1).how, rv::SelectionHow::kOption);
  EXPECT_EQ(vb::ScoreRow(rows[1], 1).value, 0.0);
  EXPECT_EQ(vb::ScoreRow(rows[2], 1).value, 4.2);
  const std::pair<std::string, std::string> bad[] = {
      {R"J({"id": 1, "region": "west", "score": 1})J", "g.jsonl:2: missing field 'task'"},
      {R"J({"task": "t", "id": 1, "region": "europe", "score": 1})J", "g.jsonl:2: 'region' must be"},
      {R"J({"task": "t", "id": 1, "region": "west", "score": 1, "generation": "x"})J", "g.jsonl:2: give exactly one"},
      {R"J({"task": "t", "id": 1, "region": "west", "generation": "x", "options": ["a"], "label": 3})J",
       "g.jsonl:2: 'label' 3 is not an option index"},
      {R"J({"task": "t", "id": 1, "region": "west", "generation": 5, "options": ["a"], "label": 0})J",
       "g.jsonl:2: 'generation' must be a string"},
      {R"J({"task": "dollar", "id": "a", "region": "west", "score": 2})J", "g.jsonl:2: repeats"},
      {"{not json", "g.jsonl:2:"},
  };
  for (const auto& [line, msg] : bad) {
    try {
      vb::ParseRows(R"J({"task": "dollar", "id": "a", "region": "west", "score": 4.2})J"
                    "\n" + line + "\n",
                    "g.jsonl");
      ADD_FAILURE() << line;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  }
}

TEST(GenerationFile, EvaluateGroupsSplitsAndDeltas) {
  std::string text;
  for (int i = 0; i < 40; ++i)
    for (const char* lang : {"en", "zh"}) {
      const bool w_right = i < (lang[0] == 'e' ? 30 : 28), e_right = i < (lang[0] == 'e' ? 15 : 20);
      text += R"J({"task": "aokvqa", "model": "m", "id": "w)J" + std::to_string(i) + R"J(", "region": "west", "prompt_lang": ")J" +
              lang + R"J(", "generation": ")J" + (w_right ? "yes" : "no") + R"J(", "options": ["yes", "no"], "label": 0})J" + "\n";
      text += R"J({"task": "aokvqa", "model": "m", "id": "e)J" + std::to_string(i) + R"J(", "split": "('Korean', 'South Korea')", "region": "east_asia", "prompt_lang": ")J" +
              lang + R"J(", "generation": ")J" + (e_right ? "Yes." : "nothing") + R"J(", "options": ["yes", "no"], "label": 0})J" + "\n";
    }
  const vb::Report r = vb::Evaluate(vb::ParseRows(text, "x"), 1, 500);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].prompt_lang, "en");
  EXPECT_DOUBLE_EQ(r.groups[0].bias.west, 0.75);
  EXPECT_EQ(r.groups[0].by_random, 0);  // "nothing" contains "no": an option
  EXPECT_DOUBLE_EQ(r.groups[0].bias.ratio, 0.75 / 0.375);
  EXPECT_DOUBLE_EQ(r.groups[1].bias.ratio, 0.7 / 0.5);
  ASSERT_EQ(r.deltas.size(), 1u);
  EXPECT_NEAR(r.deltas[0].delta.delta, 2.0 - 1.4, 1e-12);
  ASSERT_EQ(r.splits.size(), 4u);
  EXPECT_EQ(r.splits[0].split, "('Korean', 'South Korea')");
  EXPECT_FALSE(vb::ReportRows(r, {{"source", "x"}}, "h").empty());
  // One region only: no ratio, a clear error.
  EXPECT_THROW(vb::Evaluate(vb::ParseRows(R"J({"task": "t", "id": 1, "region": "west", "score": 1})J", "x"), 1, 100),
               std::runtime_error);
}

// F1-F4 measure the user's file: West 0.8 against East Asia 0.4 for every
// llama2 group (ratio 2), 0.6 for Baichuan2 (less biased), and Chinese prompts
// make Dollar Street worse (East Asia 0.1 lower with zh prompts).
TEST(Claims, FindingsAreMeasuredOnTheUsersFile) {
  std::string text;
  for (const std::string model : {"mllava/llama2-en", "mllava/baichuan2-en"})
    for (const std::string task : {"cvqa", "dollar"})
      for (const std::string lang : {"en", "zh"}) {
        const int east = (model.find("baichuan2") != std::string::npos ? 60 : 40) - (task == "dollar" && lang == "zh" ? 10 : 0);
        for (int i = 0; i < 200; ++i) {
          text += R"J({"task": ")J" + task + R"J(", "model": ")J" + model + R"J(", "prompt_lang": ")J" + lang +
                  R"J(", "id": "w)J" + std::to_string(i) + R"J(", "region": "west", "score": )J" +
                  (i % 100 < 80 ? "1" : "0") + "}\n";
          text += R"J({"task": ")J" + task + R"J(", "model": ")J" + model + R"J(", "prompt_lang": ")J" + lang +
                  R"J(", "id": "e)J" + std::to_string(i) + R"J(", "region": "east_asia", "score": )J" +
                  (i % 100 < east ? "1" : "0") + "}\n";
        }
      }
  const std::string path = ::testing::TempDir() + "/cb_vlmbias_user.jsonl";
  std::ofstream(path) << text;
  setenv("CLAIMBENCH_VLMBIAS_PREDICTIONS", path.c_str(), 1);
  std::vector<cb::harness::Result> rows;
  const auto f1 = cb::testing::RunClaimAtSmoke("vlmbias.F1", &rows);
  EXPECT_EQ(f1.verdict, cb::harness::Verdict::kReproduced) << f1.reason;
  EXPECT_NEAR(*f1.value, 0.8 / 0.6, 1e-12);  // the lowest ratio: Baichuan2
  // F2 and F3 are judged on an interval (items resampled per task), so they can also be INCONCLUSIVE.
  const auto f2 = cb::testing::RunClaimAtSmoke("vlmbias.F2", &rows);
  EXPECT_EQ(f2.verdict, cb::harness::Verdict::kReproduced) << f2.reason;
  ASSERT_TRUE(f2.ci_low && f2.ci_high);
  // Baichuan2: 0.8/0.6 three times and Dollar Street zh 0.8/0.5; llama2: 0.8/0.4 three times and 0.8/0.3.
  EXPECT_NEAR(*f2.value, (3 * 0.8 / 0.6 + 0.8 / 0.5) / 4 - (3 * 0.8 / 0.4 + 0.8 / 0.3) / 4, 1e-12);
  EXPECT_LT(*f2.ci_high, 0);
  // Outside Dollar Street both prompt languages score alike: no gain for either family, in every replicate.
  const auto f3 = cb::testing::RunClaimAtSmoke("vlmbias.F3", &rows);
  EXPECT_EQ(f3.verdict, cb::harness::Verdict::kReproduced) << f3.reason;
  EXPECT_NEAR(*f3.value, 0, 1e-12);
  ASSERT_TRUE(f3.ci_low && f3.ci_high);
  EXPECT_NEAR(*f3.ci_low, 0, 1e-12);
  const auto f4 = cb::testing::RunClaimAtSmoke("vlmbias.F4", &rows);
  EXPECT_EQ(f4.verdict, cb::harness::Verdict::kReproduced) << f4.reason;
  // Dollar Street, en - zh: llama2 0.8/0.4 - 0.8/0.3 = -0.667, Baichuan2 0.8/0.6 - 0.8/0.5 = -0.267 (the largest).
  EXPECT_NEAR(*f4.value, 0.8 / 0.6 - 0.8 / 0.5, 1e-12);
  setenv("CLAIMBENCH_VLMBIAS_PREDICTIONS", (path + ".missing").c_str(), 1);
  EXPECT_EQ(cb::testing::RunClaimAtSmoke("vlmbias.F1", &rows).verdict, cb::harness::Verdict::kUnmeasurable);
  unsetenv("CLAIMBENCH_VLMBIAS_PREDICTIONS");
}

}  // namespace

// File: generators/sgp_test.cpp
// SGP program generator checks (brief §4): determinism and golden hashes,
// SGP-Bench's row schema, answer-key integrity, letter balance, path
// rewriting (relative -> absolute, H/V -> L, arcs), and the invariance
// variants' rewriting rules. Rendering checks live in suites/sgp/sgp_test.cpp.
#include "generators/sgp.h"
#include "generators/sgp_cad.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "fixtures/paths.h"
#include "harness/stats.h"

namespace cb::gen::sgp {
namespace {

TEST(Sgp, FormatNumberIsShortAndStable) {
  EXPECT_EQ(FormatNumber(12.0), "12");
  EXPECT_EQ(FormatNumber(12.5), "12.5");
  EXPECT_EQ(FormatNumber(-0.001), "0");
  EXPECT_EQ(FormatNumber(1.0 / 3), "0.33");
  EXPECT_EQ(FormatNumber(-7.125), "-7.12");  // printf rounds half to even on the binary value
}

TEST(Sgp, ToAbsoluteResolvesEveryRelativeCommand) {
  const std::vector<PathCmd> rel = {{'M', {10, 20}}, {'l', {5, 5}},  {'h', {10}}, {'v', {-5}},
                                    {'c', {1, 1, 2, 2, 3, 3}},       {'q', {1, 0, 2, 0}},
                                    {'a', {5, 3, 30, 0, 1, 4, 0}},   {'z', {}}, {'m', {1, 1}}, {'L', {0, 0}}};
  const auto abs = ToAbsolute(rel, false);
  EXPECT_EQ(PathData(abs), "M 10 20 L 15 25 H 25 V 20 C 26 21 27 22 28 23 Q 29 23 30 23 A 5 3 30 0 1 34 23 Z M 11 21 L 0 0");
  const auto expanded = ToAbsolute(rel, true);
  EXPECT_EQ(PathData(expanded).substr(0, 30), "M 10 20 L 15 25 L 25 25 L 25 2");
  for (const auto& c : expanded) EXPECT_TRUE(std::isupper(static_cast<unsigned char>(c.c)) && c.c != 'H' && c.c != 'V');
}

TEST(Sgp, TranslationKeepsElementsAndRelativeCommands) {
  const Program p = MakeProgram(3, 2);  // whatever it is, rewrite it
  const Scene t = Transform(p.scene, {0, 7, -5});
  ASSERT_EQ(t.elements.size(), p.scene.elements.size());
  for (size_t i = 0; i < t.elements.size(); ++i) {
    const Element &a = p.scene.elements[i], &b = t.elements[i];
    EXPECT_EQ(a.kind, b.kind);
    if (a.kind == Kind::kRect) {
      EXPECT_DOUBLE_EQ(b.x - a.x, 7);
    }
    if (a.kind == Kind::kPath) {
      ASSERT_EQ(a.path.size(), b.path.size());
      for (size_t k = 0; k < a.path.size(); ++k)
        if (std::islower(static_cast<unsigned char>(a.path[k].c))) {
          EXPECT_EQ(a.path[k].a, b.path[k].a);
        }
    }
  }
}

TEST(Sgp, RotationRewritesToAbsolutePathsAndTurnsArcs) {
  // A scene with every element kind and an arc.
  Scene s;
  Element r;
  r.kind = Kind::kRect, r.x = 100, r.y = 100, r.w = 20, r.h = 10, r.fill = "#d62728";
  Element e;
  e.kind = Kind::kEllipse, e.cx = 128, e.cy = 128, e.rx = 30, e.ry = 10, e.fill = "#1f77b4";
  Element a;
  a.kind = Kind::kPath, a.fill = "#2ca02c";
  a.path = {{'M', {120, 100}}, {'a', {10, 5, 15, 0, 1, 20, 0}}, {'h', {5}}, {'z', {}}};
  s.elements = {r, e, a};
  const Scene t = Transform(s, {30, 3, 4});
  const std::string svg = ToSvg(t);
  EXPECT_EQ(svg.find("<rect"), std::string::npos);
  EXPECT_EQ(svg.find("<ellipse"), std::string::npos);
  EXPECT_TRUE(std::regex_search(svg, std::regex("A 10 5 45 0 1")));   // 15 + 30 degrees
  EXPECT_TRUE(std::regex_search(svg, std::regex("A 30 10 30 0 1")));  // the ellipse's arcs
  ASSERT_EQ(t.elements[2].path.size(), 4u);
  for (const auto& c : t.elements[2].path) EXPECT_TRUE(c.c == 'M' || c.c == 'A' || c.c == 'L' || c.c == 'Z') << c.c;
  // The rect's corners are the rotated corners.
  const Pt c0 = Se2{30, 3, 4}.Apply({100, 100});
  EXPECT_NEAR(t.elements[0].path[0].a[0], c0.x, 1e-12);
  EXPECT_NEAR(t.elements[0].path[0].a[1], c0.y, 1e-12);
}

TEST(Sgp, MotionsStayWithinBounds) {
  for (int i = 0; i < 200; ++i) {
    for (int k = 0; k < 5; ++k) {
      const Se2 t = VariantMotion(11, i, k, false), r = VariantMotion(11, i, k, true);
      EXPECT_EQ(t.theta_deg, 0);
      EXPECT_GE(std::abs(r.theta_deg), 5);
      EXPECT_LE(std::abs(r.theta_deg), kMaxTurnDeg);
      for (const Se2& m : {t, r}) {
        EXPECT_LE(std::abs(m.dx), kMaxShift);
        EXPECT_LE(std::abs(m.dy), kMaxShift);
      }
    }
  }
}

TEST(Sgp, RowsFollowSgpBenchSchemaAndKeysAreValid) {
  const Dataset d = Generate({.seed = 5, .count = 120, .variants = 2});
  const auto splits = Splits(d);
  ASSERT_GE(splits.size(), 6u);
  EXPECT_EQ(splits[0].first, "svg");
  EXPECT_EQ(splits[1].first, "inv");
  std::set<std::string> subjects;
  for (const auto& r : splits[0].second) {
    ASSERT_EQ(r.size(), 7u) << r.dump();
    for (const char* k : {"Question", "A", "B", "C", "D", "Answer", "Subject"}) EXPECT_TRUE(r.contains(k)) << k;
    const std::string q = r["Question"];
    EXPECT_EQ(q.rfind("Examine the following SVG code carefully", 0), 0u);
    EXPECT_NE(q.find("<svg xmlns="), std::string::npos);
    EXPECT_NE(q.find("\n\nQuestion: "), std::string::npos);
    const std::set<std::string> opts = {r["A"], r["B"], r["C"], r["D"]};
    EXPECT_EQ(opts.size(), 4u) << r.dump();
    subjects.insert(r["Subject"].get<std::string>());
  }
  EXPECT_EQ(subjects.size(), 5u);
  // Invariance splits: same rows, same order, same keys; only the code differs.
  for (size_t s = 2; s < splits.size(); ++s) {
    ASSERT_EQ(splits[s].second.size(), splits[1].second.size()) << splits[s].first;
    for (size_t i = 0; i < splits[1].second.size(); ++i) {
      EXPECT_EQ(splits[s].second[i]["Answer"], splits[1].second[i]["Answer"]);
      EXPECT_EQ(splits[s].second[i]["A"], splits[1].second[i]["A"]);
      EXPECT_NE(splits[s].second[i]["Question"], splits[1].second[i]["Question"]);
    }
  }
  for (const auto& r : splits[1].second) EXPECT_NE(r["Subject"], "Reasoning");
  for (const auto& r : splits[1].second) EXPECT_NE(r["Subject"], "Shape");
}

TEST(Sgp, LettersAreBalancedPerSubject) {
  const Dataset d = Generate({.seed = 9, .count = 400, .variants = 0});
  std::map<std::string, std::array<int, 4>> counts;
  for (const auto& p : d.programs)
    for (const auto& q : p.questions) ++counts[q.subject][static_cast<size_t>(q.answer)];
  ASSERT_EQ(counts.size(), 5u);
  for (const auto& [subject, c] : counts) {
    const int lo = *std::min_element(c.begin(), c.end()), hi = *std::max_element(c.begin(), c.end());
    EXPECT_LE(hi - lo, 1) << subject;  // shuffled blocks of four
    EXPECT_GT(lo, 20) << subject;
  }
}

TEST(Sgp, EveryCategoryAndDigitAppears) {
  const Dataset d = Generate({.seed = 1, .count = 1000, .variants = 0});
  std::set<std::string> cats, digits;
  for (const auto& p : d.programs) {
    cats.insert(p.category);
    if (p.category == "digit") digits.insert(p.label);
    EXPECT_FALSE(p.questions.empty());
    EXPECT_EQ(p.questions[0].subject, "Semantics");
  }
  EXPECT_EQ(cats.size(), 7u);
  EXPECT_EQ(digits.size(), 10u);
}

TEST(Sgp, SvgUsesTheWholeSubset) {
  const Dataset d = Generate({.seed = 2, .count = 200, .variants = 1});
  std::string all;
  for (const auto& p : d.programs) all += p.svg;
  for (const auto& v : d.variants) all += v[1].svg;
  for (const char* tag : {"<rect ", "<circle ", "<ellipse ", "<polygon ", "<path ", "stroke=", "stroke-linecap"})
    EXPECT_NE(all.find(tag), std::string::npos) << tag;
  for (const char* cmd : {" M ", " L ", " H ", " V ", " C ", " Q ", " A ", " Z", " l ", " h ", " v ", " c ", " q ",
                          " a ", " z"}) {
    const std::string pat = std::string("d=\"") + (cmd + 1);
    EXPECT_TRUE(all.find(cmd) != std::string::npos || all.find(pat) != std::string::npos) << "'" << cmd << "'";
  }
}

TEST(Sgp, ValidateRefusesBadParams) {
  EXPECT_THROW(Generate({.seed = 1, .count = 0}), std::invalid_argument);
  EXPECT_THROW(Generate({.seed = 1, .count = 3, .variants = 6}), std::invalid_argument);
}

TEST(Sgp, DeterministicAndSeedSensitive) {
  const Params p{.seed = 42, .count = 50, .variants = 2};
  EXPECT_EQ(ContentHash(Generate(p)), ContentHash(Generate(p)));
  Params q = p;
  q.seed = 43;
  EXPECT_NE(ContentHash(Generate(p)), ContentHash(Generate(q)));
  // A program is a function of (seed, index), not of the count.
  EXPECT_EQ(Generate({.seed = 42, .count = 10}).programs[7].svg, Generate(p).programs[7].svg);
}

TEST(SgpCad, ProgramsUseLinesArcsCirclesAndExtrude) {
  const auto items = GenerateCad(3, 200);
  std::set<std::string> kinds;
  std::string all;
  for (const auto& it : items) {
    kinds.insert(it.part.kind);
    all += it.code;
    EXPECT_EQ(it.code.rfind("# cb-cad v1", 0), 0u);
    EXPECT_NE(it.code.find("\nextrude "), std::string::npos);
    EXPECT_NE(it.views.find("viewBox=\"0 0 768 256\""), std::string::npos);
    ASSERT_GE(it.questions.size(), 3u);
    for (const auto& q : it.questions) {
      const std::set<std::string> opts(q.options.begin(), q.options.end());
      EXPECT_EQ(opts.size(), 4u);
      const nlohmann::json row = CadRow(it, q);
      EXPECT_EQ(row.size(), 7u);
      EXPECT_EQ(row["Question"].get<std::string>().rfind("Examine the following CAD code", 0), 0u);
    }
    const CadBox b = Bounds(it.part);  // fits its 256x256 panels
    EXPECT_LE(std::max({-b.x0, b.x1, -b.y0, b.y1}), 100);
    EXPECT_LE(it.part.height, 200);
  }
  EXPECT_EQ(kinds.size(), 5u);
  for (const char* k : {"    line ", "    arc ", "  circle ", "  loop\n", "  end\n"})
    EXPECT_NE(all.find(k), std::string::npos) << k;
}

TEST(SgpCad, ArcsBecomeSvgArcsWithTheRightSense) {
  CadPart p;
  p.kind = "plate";
  // A rounded-rectangle plate is counter-clockwise as seen (y up in the model,
  // the view drawn upright), and SVG's sweep-flag 1 is clockwise as seen: 0.
  for (const auto& it : GenerateCad(1, 50))
    if (it.part.kind == "plate") p = it.part;
  ASSERT_EQ(p.kind, "plate");
  const std::string svg = CadViewsSvg(p);
  EXPECT_NE(svg.find(" A 8 8 0 0 0 "), std::string::npos) << svg;
  EXPECT_EQ(svg.find(" A 8 8 0 0 1 "), std::string::npos) << svg;
}

TEST(SgpCad, LettersBalancedAndDeterministic) {
  const auto a = GenerateCad(9, 400), b = GenerateCad(9, 400);
  EXPECT_EQ(CadContentHash(9, a), CadContentHash(9, b));
  EXPECT_NE(CadContentHash(9, a), CadContentHash(10, GenerateCad(10, 400)));
  std::map<std::string, std::array<int, 4>> counts;
  for (const auto& it : a)
    for (const auto& q : it.questions) ++counts[q.subject][static_cast<size_t>(q.answer)];
  EXPECT_EQ(counts.size(), 4u);
  for (const auto& [subject, c] : counts)
    EXPECT_LE(*std::max_element(c.begin(), c.end()) - *std::min_element(c.begin(), c.end()), 1) << subject;
}

// Golden content hashes (fixtures/generators/sgp_golden.txt, see fixtures/PROVENANCE.md).
TEST(Sgp, ContentHashesMatchFixture) {
  std::map<std::string, std::string> actual;
  actual["seed1_count50_variants5"] = ContentHash(Generate({.seed = 1, .count = 50, .variants = 5}));
  actual["seed20250101_count200_variants2"] = ContentHash(Generate({.seed = 20250101, .count = 200, .variants = 2}));
  actual["cad_seed20250101_count100"] = CadContentHash(20250101, GenerateCad(20250101, 100));
  const std::string path = cb::testing::FixturePath("generators/sgp_golden.txt");
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path;
  std::map<std::string, std::string> golden;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string label, hex;
    fields >> label >> hex;
    golden[label] = hex;
  }
  for (const auto& [label, hex] : actual) EXPECT_EQ(golden[label], hex) << "actual: " << label << " " << hex;
  EXPECT_EQ(golden.size(), actual.size());
}

}  // namespace
}  // namespace cb::gen::sgp

// File: suites/cbplm/protparam_test.cpp
// -----------------------------------------------------------------------------
// reference/protparam against Biopython itself: every concept of the 452
// rows of fixtures/protparam/biopython_golden.tsv (Biopython 1.84 and 1.81
// run on hand-picked and generated sequences, errors included), the doctest
// values to their printed precision, hand-worked cases, lobster's
// preprocessing and the concept-vector shift its bare `except` causes, and
// invariants on fresh random sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "fixtures/paths.h"
#include "harness/random.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::ref::protparam {
namespace {

constexpr char kDoctest[] =
    "MAEGEITTFTALTEKFNLPPGNYKKPKLLYCSNGGHFLRILPDGTVDGTRDRSDQHIQLQLSAESVGEVYIKSTETGQYLAMDTSGLLYGSQTPSEEC"
    "LFLERLEENHYNTYTSKKHAEKNWFVGLKKNGSCKRGPRTHYGQKAILFLPLPV";

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t')) out.push_back(field);
  return out;
}

std::string Printed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

TEST(ProtParam, EqualsBiopythonOnEveryGoldenRow) {
  std::ifstream in(cb::testing::FixturePath("protparam/biopython_golden.tsv"));
  ASSERT_TRUE(in) << "fixtures/protparam/biopython_golden.tsv";
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = SplitTabs(line.substr(2));  // "# version\tsequence\t..."
  ASSERT_EQ(header.size(), 2u + kNumConcepts);
  for (int k = 0; k < kNumConcepts; ++k) ASSERT_EQ(header[2 + k], ConceptNames()[k]);
  int rows = 0, errors = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = SplitTabs(line);
    ASSERT_EQ(f.size(), 2u + kNumConcepts) << line;
    SCOPED_TRACE("Biopython " + f[0] + ", sequence " + f[1]);
    const ConceptValues got = ComputeConcepts(
        f[1], f[0] == "1.84" ? SecondaryStructure::kBiopython182 : SecondaryStructure::kBiopython181);
    for (int k = 0; k < kNumConcepts; ++k) {
      const std::string& want = f[2 + k];
      if (want.rfind("error:", 0) == 0) {
        EXPECT_TRUE(std::isnan(got.value[k])) << ConceptNames()[k];
        EXPECT_FALSE(got.error[k].empty()) << ConceptNames()[k];
        ++errors;
        continue;
      }
      EXPECT_TRUE(got.error[k].empty()) << ConceptNames()[k] << ": " << got.error[k];
      // The same operations in the same order: equal up to the last bits of
      // pow() and of Python's sum() (plain summation up to Python 3.11; 3.12
      // compensates, which moves a 150-term sum by a few ulps).
      const double w = std::stod(want);
      EXPECT_NEAR(got.value[k], w, 1e-12 * std::max(1.0, std::abs(w))) << ConceptNames()[k];
    }
    ++rows;
  }
  EXPECT_EQ(rows, 452);
  // MW, instability and GRAVY of X / '.' / '-' sequences, and O / U's two.
  EXPECT_GT(errors, 0);
}

TEST(ProtParam, DoctestValuesToThePrintedPrecision) {
  // Bio/SeqUtils/ProtParam.py and IsoelectricPoint.py doctests (biopython-184).
  const std::string seq = kDoctest;
  EXPECT_EQ(Printed("%0.2f", MolecularWeight(seq)), "17103.16");
  EXPECT_EQ(Printed("%0.2f", Aromaticity(seq)), "0.10");
  EXPECT_EQ(Printed("%0.2f", InstabilityIndex(seq)), "41.98");
  EXPECT_EQ(Printed("%0.2f", IsoelectricPoint(seq)), "7.72");
  const auto ss = SecondaryStructureFraction(seq, SecondaryStructure::kBiopython182);
  EXPECT_EQ(Printed("%0.2f", ss[0]), "0.33");
  EXPECT_EQ(Printed("%0.2f", ss[1]), "0.29");
  EXPECT_EQ(Printed("%0.2f", ss[2]), "0.37");
  // Biopython 1.81's doctest printed helix 0.28 (the sheet letters).
  EXPECT_EQ(Printed("%0.2f", SecondaryStructureFraction(seq, SecondaryStructure::kBiopython181)[0]), "0.28");
  EXPECT_EQ(MolarExtinctionCoefficient(seq), (std::array<int64_t, 2>{17420, 17545}));
  EXPECT_EQ(Printed("%.2f", IsoelectricPoint("INGAR")), "9.75");
  EXPECT_EQ(Printed("%.2f", ChargeAtPH("INGAR", 7.0)), "0.76");
  EXPECT_EQ(Printed("%.2f", IsoelectricPoint("PETER")), "4.53");
  EXPECT_EQ(Printed("%.2f", ChargeAtPH("PETER", 4.53)), "0.00");
}

TEST(ProtParam, HandWorkedValues) {
  // "GA": 75.0666 + 89.0932 - 18.0153 = 146.1445.
  EXPECT_NEAR(MolecularWeight("GA"), 146.1445, 1e-12);
  // Whitespace is dropped by molecular_weight() only.
  EXPECT_EQ(MolecularWeight("G A\n"), MolecularWeight("GA"));
  EXPECT_THROW(Gravy("G A"), std::invalid_argument);
  // "WC": DIWV[W][C] = 1.0, so 10/2 * 1 = 5; "AC": 44.94 -> 224.7.
  EXPECT_DOUBLE_EQ(InstabilityIndex("WC"), 5.0);
  EXPECT_DOUBLE_EQ(InstabilityIndex("AC"), 224.7);
  // One residue has no dipeptide: 0, even when it is not a standard letter.
  EXPECT_EQ(InstabilityIndex("X"), 0.0);
  EXPECT_THROW(InstabilityIndex("AX"), std::invalid_argument);
  // GRAVY of "IR" = (4.5 - 4.5) / 2 = 0.
  EXPECT_EQ(Gravy("IR"), 0.0);
  // Extinction: 2 W, 1 Y, 3 C -> 11000 + 1490 = 12490; + 1 cystine 125.
  EXPECT_EQ(MolarExtinctionCoefficient("WWYCCC"), (std::array<int64_t, 2>{12490, 12615}));
  // The N-terminal override: at pH = pK the terminus carries 1/2.
  //   "A": N-term pK 7.59, C-term 3.55: charge(7.59) = 0.5 - 1/(10^(3.55 - 7.59) + 1).
  EXPECT_NEAR(ChargeAtPH("A", 7.59), 0.5 - 1.0 / (std::pow(10.0, 3.55 - 7.59) + 1.0), 1e-15);
  // The C-terminal override for D: 4.55, and D's side chain 4.05.
  const double d = ChargeAtPH("GD", 4.55);
  const double want = 1.0 / (std::pow(10.0, 4.55 - 7.5) + 1.0) - 0.5 - 1.0 / (std::pow(10.0, 4.05 - 4.55) + 1.0);
  EXPECT_NEAR(d, want, 1e-15);
  // Hopp-Woods / Emini: unknown characters count 0 but add to the length.
  EXPECT_DOUBLE_EQ(AverageHydrophilicity("RX"), 3.0 / 2);
  EXPECT_DOUBLE_EQ(AverageSurfaceAccessibility("r"), 0.0);  // lower case is unknown to the table
}

TEST(ProtParam, ErrorsNameTheResidue) {
  try {
    MolecularWeight("MAXK");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'X'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(MolecularWeight("MAUKO"));  // selenocysteine and pyrrolysine have masses
  EXPECT_THROW(Aromaticity(""), std::invalid_argument);
  EXPECT_THROW(ComputeConcepts(""), std::invalid_argument);
  EXPECT_THROW(ParseSecondaryStructure("biopython-1.80"), std::invalid_argument);
  EXPECT_EQ(ParseSecondaryStructure("biopython-1.81"), SecondaryStructure::kBiopython181);
}

TEST(Lobster, PreprocessingReplacesTruncatesAndKeepsDotAndDash) {
  // Lower case is outside the alphabet, so it becomes A before Biopython
  // would have upper-cased it; '.' and '-' are in the alphabet and survive.
  EXPECT_EQ(LobsterSequence("mK v\tX*B.-"), "AKAAAA.-");
  EXPECT_EQ(LobsterSequence(std::string(600, 'W')).size(), 512u);
  EXPECT_EQ(LobsterSequence("  ACD  ", 2), "AC");
  // Bounds: lobster's concepts_min / concepts_max, checked at the ends.
  EXPECT_DOUBLE_EQ(LobsterNormalize(260, 0), 0.0);
  EXPECT_DOUBLE_EQ(LobsterNormalize(83158, 0), 1.0);
  EXPECT_DOUBLE_EQ(LobsterNormalize(1.55, 13), 1.0);
  EXPECT_DOUBLE_EQ(LobsterNormalize(4.5, 4), 1.0);
  EXPECT_DOUBLE_EQ(LobsterNormalize(-0.5, 12), (-0.5 + 3) / 6);  // not clipped either way
  EXPECT_GT(LobsterNormalize(20, 3), 1.0);
  EXPECT_THROW(LobsterNormalize(0, 14), std::invalid_argument);
}

TEST(Lobster, BareExceptShiftsTheConceptsAfterAFailure) {
  // "MA-K": molecular weight, instability and GRAVY raise; lobster keeps
  // the other 11 and packs them, so position 2 holds the pI, not instability.
  const ConceptValues c = ComputeConcepts(LobsterSequence("MA-K"));
  const std::vector<double> v = LobsterConceptVector(c);
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(v[0], LobsterNormalize(c.value[1], 1));  // aromaticity moved to slot 0
  EXPECT_EQ(v[1], LobsterNormalize(c.value[3], 3));  // pI to slot 1
  for (int k : {0, 2, 4}) {
    EXPECT_TRUE(std::isnan(c.value[k])) << k;
    EXPECT_FALSE(c.error[k].empty()) << k;
  }
  EXPECT_EQ(LobsterConceptVector(ComputeConcepts(kDoctest)).size(), 14u);
}

TEST(ProtParam, InvariantsOnFreshRandomSequences) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  for (int t = 0; t < 200; ++t) {
    const int n = static_cast<int>(rng.UniformInt(1, 300));
    std::string s;
    for (int i = 0; i < n; ++i) s += kStandardResidues[rng.UniformInt(0, kNumStandard - 1)];
    SCOPED_TRACE(s);
    const ConceptValues c = ComputeConcepts(s);
    for (int k = 0; k < kNumConcepts; ++k) ASSERT_TRUE(c.error[k].empty() && std::isfinite(c.value[k])) << k;
    // Charge falls with pH; at the pI it is within the bisection's last step.
    EXPECT_GT(ChargeAtPH(s, 5.0), ChargeAtPH(s, 9.0));
    const double pi = c.value[3];
    EXPECT_GE(pi, 4.05);
    EXPECT_LE(pi, 12.0);
    if (pi > 4.06 && pi < 11.99) {
      EXPECT_GT(ChargeAtPH(s, pi - 2e-4), 0.0);
      EXPECT_LT(ChargeAtPH(s, pi + 2e-4), 0.0);
    }
    // Each convention's three sets share only L (1.82: C H Q R in none;
    // 1.81: C D H K Q R T in none), so the fractions sum to at most 1 + f_L.
    const double f_l = static_cast<double>(std::count(s.begin(), s.end(), 'L')) / n;
    for (const auto& f : {SecondaryStructureFraction(s, SecondaryStructure::kBiopython182),
                          SecondaryStructureFraction(s, SecondaryStructure::kBiopython181)}) {
      for (double x : f) EXPECT_TRUE(x >= 0.0 && x <= 1.0 + 1e-12) << x;
      EXPECT_LE(f[0] + f[1] + f[2], 1.0 + f_l + 1e-12);
    }
    // One more peptide bond: MW(s + s) = 2 MW(s) - water.
    EXPECT_NEAR(MolecularWeight(s + s), 2 * c.value[0] - kAverageWaterMass, 1e-9 * c.value[0]);
    // Where a table's range lies inside lobster's bounds, so does the concept
    // (not MW: a lone G weighs 75 < 260; not Hopp-Woods: W is -3.4 < -3; not
    // instability: three residues can reach -106 < -101).
    for (int k : {1, 3, 4, 7, 8, 9, 10, 11, 13}) {
      const double z = LobsterNormalize(c.value[k], k);
      EXPECT_TRUE(z >= 0.0 && z <= 1.0) << ConceptNames()[k] << " " << c.value[k];
    }
  }
}

}  // namespace
}  // namespace cb::ref::protparam

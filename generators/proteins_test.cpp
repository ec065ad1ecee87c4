// File: generators/proteins_test.cpp
// -----------------------------------------------------------------------------
// generators/proteins.h: determinism and golden hashes, well-formed
// sequences, the background composition recovered from a large sample, and
// the families moving the concepts they are built to move, measured with
// reference/protparam on the generated text (not the generator's params).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "fixtures/golden.h"
#include "generators/proteins.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::gen {
namespace {

namespace pp = cb::ref::protparam;

TEST(Proteins, DeterministicAndGolden) {
  const ProteinSet a = MakeProteins({});
  const ProteinSet b = MakeProteins({});
  EXPECT_EQ(a.content_hash, b.content_hash);
  EXPECT_EQ(ProteinsFasta(a), ProteinsFasta(b));
  ProteinParams other;
  other.seed = 7;
  EXPECT_NE(MakeProteins(other).content_hash, a.content_hash);
  ProteinParams small;
  small.count = 12;
  small.min_length = 10;
  small.max_length = 40;
  small.median_length = 20;
  cb::testing::ExpectMatchesGolden("generators/proteins_golden.txt",
                                   {{"default", a.content_hash}, {"seed7", MakeProteins(other).content_hash},
                                    {"count12_len10-40", MakeProteins(small).content_hash}});
}

TEST(Proteins, WellFormed) {
  ProteinParams p;
  p.count = 300;
  const ProteinSet set = MakeProteins(p);
  ASSERT_EQ(set.proteins.size(), 300u);
  std::map<int, int> per_family;
  for (const Protein& prot : set.proteins) {
    SCOPED_TRACE(prot.id);
    ++per_family[prot.family];
    EXPECT_GE(static_cast<int>(prot.sequence.size()), p.min_length);
    EXPECT_LE(static_cast<int>(prot.sequence.size()), p.max_length);
    EXPECT_EQ(prot.sequence[0], 'M');
    for (char c : prot.sequence) ASSERT_TRUE(pp::StandardIndex(c).has_value()) << c;
    // The written motifs are where the set says, whole.
    int written = 0;
    for (int m = 0; m < 2; ++m) {
      if (prot.motif_at[m] < 0) continue;
      ++written;
      EXPECT_EQ(prot.sequence.compare(prot.motif_at[m], set.motifs[prot.family][m].size(), set.motifs[prot.family][m]),
                0);
    }
    EXPECT_EQ(written, prot.motifs);
  }
  for (int f = 0; f < kNumProteinFamilies; ++f) EXPECT_EQ(per_family[f], 50) << kProteinFamilies[f];
  EXPECT_THROW(MakeProteins({.count = 0}), std::invalid_argument);
  EXPECT_THROW(MakeProteins({.min_length = 5}), std::invalid_argument);
  EXPECT_THROW(MakeProteins({.min_length = 50, .max_length = 40}), std::invalid_argument);
  EXPECT_THROW(MakeProteins({.median_length = 500}), std::invalid_argument);
}

TEST(Proteins, GlobularCompositionIsSwissProts) {
  ProteinParams p;
  p.count = 1200;  // 200 globular sequences, ~24k residues
  const ProteinSet set = MakeProteins(p);
  std::array<double, 20> n{};
  double total = 0;
  for (const Protein& prot : set.proteins) {
    if (prot.family != 0) continue;
    for (size_t i = 1; i < prot.sequence.size(); ++i) {  // residue 0 is always M
      bool in_motif = false;
      for (int m = 0; m < 2; ++m) {
        const int at = prot.motif_at[m];
        in_motif |= at >= 0 && static_cast<int>(i) >= at && i < at + set.motifs[0][m].size();
      }
      if (in_motif) continue;
      n[*pp::StandardIndex(prot.sequence[i])] += 1;
      total += 1;
    }
  }
  // Each frequency, outside the motifs, within 5 binomial standard errors.
  for (int a = 0; a < 20; ++a) {
    const double q = SwissProtComposition()[a];
    EXPECT_NEAR(n[a] / total, q, 5 * std::sqrt(q * (1 - q) / total)) << pp::kStandardResidues[a];
  }
}

TEST(Proteins, FamiliesMoveTheirConcepts) {
  ProteinParams p;
  p.count = 600;
  const ProteinSet set = MakeProteins(p);
  // Mean concept per family, computed from the sequences.
  std::array<std::array<double, pp::kNumConcepts>, kNumProteinFamilies> mean{};
  for (const Protein& prot : set.proteins) {
    const pp::ConceptValues c = pp::ComputeConcepts(prot.sequence);
    for (int k = 0; k < pp::kNumConcepts; ++k) mean[prot.family][k] += c.value[k] / 100.0;
  }
  const int kGravy = 4, kPi = 3, kExtinction = 10, kInstability = 2;
  for (int f : {0, 2, 3, 4, 5}) EXPECT_GT(mean[1][kGravy], mean[f][kGravy] + 0.5) << kProteinFamilies[f];
  EXPECT_LT(mean[2][kPi], mean[0][kPi] - 1.0);
  EXPECT_GT(mean[3][kPi], mean[0][kPi] + 1.0);
  EXPECT_GT(mean[4][kExtinction], 2 * mean[0][kExtinction]);
  EXPECT_GT(mean[5][kInstability], mean[0][kInstability] + 5.0);
}

}  // namespace
}  // namespace cb::gen

// File: suites/cbplm/cbplm_cli_test.cpp
// -----------------------------------------------------------------------------
// `claimbench eval protparam` end to end: CSV and JSON of a FASTA file with a
// non-standard residue, lobster's preprocessing and scaling, --out, and every
// bad input as one line that writes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"

namespace cb::cli::testing {
namespace {

// Biopython's doctest protein over four lines, INGAR, and a record with X, a
// gap and a stop whose id needs CSV quoting.
constexpr char kFasta[] =
    ">doctest Biopython's ProtParam example\n"
    "MAEGEITTFTALTEKFNLPPGNYKKPKLLYCSNGGHFLRILPDGTVDGT\n"
    "RDRSDQHIQLQLSAESVGEVYIKSTETGQYLAMDTSGLLYGSQTPSEEC\n"
    "\n"
    "LFLERLEENHYNTYTSKKHAEKNWFVGLKKNGSCKRGPRTHYGQKAILF\r\n"
    "LPLPV\n"
    ">ingar\n"
    "INGAR\n"
    ">odd,id with X\n"
    "MAX-K*\n";

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, sep);) out.push_back(f);
  return out;
}

class ProtparamCliTest : public ClaimbenchTest {
 protected:
  void SetUp() override {
    ClaimbenchTest::SetUp();
    std::ofstream(Path("p.fa")) << kFasta;
  }
};

TEST_F(ProtparamCliTest, CsvHasBiopythonsValuesAndNamesWhatItCouldNotCompute) {
  const Output o = Run({"eval", "protparam", "--fasta", "p.fa"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<std::string> lines = Split(o.out, '\n');
  ASSERT_EQ(lines.size(), 4u) << o.out;
  const std::vector<std::string> header = Split(lines[0], ',');
  ASSERT_EQ(header.size(), 18u);
  EXPECT_EQ(header[3], "molecular_weight");
  EXPECT_EQ(header[17], "errors");
  // Biopython 1.84 on the doctest protein (fixtures/protparam/biopython_golden.tsv).
  const std::vector<std::string> doctest = Split(lines[1], ',');
  ASSERT_EQ(doctest.size(), 17u) << lines[1];  // the empty errors field ends the line
  EXPECT_EQ(doctest[0], "doctest");
  EXPECT_EQ(doctest[1], "152");
  EXPECT_NEAR(std::stod(doctest[3]), 17103.1617, 1e-9);
  EXPECT_NEAR(std::stod(doctest[6]), 7.7224523544311525, 1e-12);
  EXPECT_EQ(doctest[13], "17420");
  EXPECT_NEAR(std::stod(Split(lines[2], ',')[9]), 0.7600916142893016, 1e-12);  // INGAR charge at pH 7
  // The odd record: quoted id, its non-standard characters counted, three
  // concepts left empty with the reasons.
  EXPECT_EQ(lines[3].rfind("\"odd,id\",6,*:1 -:1 X:1,,", 0), 0u) << lines[3];
  EXPECT_NE(lines[3].find("molecular_weight: 'X' is not a valid unambiguous letter"), std::string::npos);
  EXPECT_NE(lines[3].find("gravy: no Kyte-Doolittle value for 'X'"), std::string::npos);
  EXPECT_NE(o.err.find("3 sequences, 1 with residues outside the 20 standard ones; 3 concepts not computable"),
            std::string::npos)
      << o.err;
}

TEST_F(ProtparamCliTest, JsonWithLobstersPreprocessingAndScaling) {
  const Output o =
      Run({"eval", "protparam", "--fasta", "p.fa", "--format", "json", "--lobster", "--normalize"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j.at("preprocessing"), "lobster");
  EXPECT_EQ(j.at("normalized"), true);
  EXPECT_EQ(j.at("secondary_structure"), "biopython-1.82");
  const auto& seqs = j.at("sequences");
  ASSERT_EQ(seqs.size(), 3u);
  EXPECT_NEAR(seqs[0].at("concepts").at("molecular_weight").get<double>(), (17103.1617 - 260) / (83158 - 260), 1e-12);
  // lobster maps X and * to A but keeps '-', so MW, instability and GRAVY
  // still fail on "MAA-KA" (reported; lobster would drop them silently).
  const auto& odd = seqs[2];
  EXPECT_EQ(odd.at("id"), "odd,id");
  EXPECT_EQ(odd.at("description"), "with X");
  EXPECT_EQ(odd.at("length"), 6);
  EXPECT_EQ(odd.at("nonstandard"), (nlohmann::json{{"*", 1}, {"-", 1}, {"X", 1}}));
  EXPECT_TRUE(odd.at("concepts").at("molecular_weight").is_null());
  EXPECT_NE(odd.at("errors").at("molecular_weight").get<std::string>().find("'-'"), std::string::npos);
  EXPECT_EQ(odd.at("errors").size(), 3u);
  // Lysine's pK 10 moves the pI up: (8.5 - 4) / 8 for "MAA-KA".
  EXPECT_GT(odd.at("concepts").at("isoelectric_point").get<double>(), 0.5);
}

TEST_F(ProtparamCliTest, OldSecondaryStructureConventionSwapsHelixAndSheetLetters) {
  const Output o = Run({"eval", "protparam", "--fasta", "p.fa", "--format", "json", "--secondary-structure",
                        "biopython-1.81"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  // Biopython 1.81's doctest printed helix 0.28.
  EXPECT_NEAR(j.at("sequences")[0].at("concepts").at("helix_fraction").get<double>(), 0.28289473684210525, 1e-12);
}

TEST_F(ProtparamCliTest, OutIsWrittenWholeAndNeverOverwritten) {
  const Output o = Run({"eval", "protparam", "--fasta", "p.fa", "--out", "c.csv"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(ReadFile(Path("c.csv")).rfind("id,length,nonstandard,molecular_weight", 0), 0u);
  const std::string before = ReadFile(Path("c.csv"));
  const Output again = Run({"eval", "protparam", "--fasta", "p.fa", "--out", "c.csv"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_EQ(ReadFile(Path("c.csv")), before);
}

TEST_F(ProtparamCliTest, BadInputIsOneLineAndWritesNothing) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"no_header.fa", "MKV\n>a\nMKV\n"},
      {"no_id.fa", ">\nMKV\n"},
      {"empty_record.fa", ">a\n>b\nMKV\n"},
      {"last_empty.fa", ">a\nMKV\n>b\n"},
      {"nothing.fa", "\n\n"},
      {"binary.fa", ">a\nMK\xc3\xa9V\n"},
  };
  for (const auto& [name, text] : files) {
    std::ofstream(Path(name), std::ios::binary) << text;
    const Output o = Run({"eval", "protparam", "--fasta", name, "--out", "x.csv"});
    SCOPED_TRACE(name);
    EXPECT_EQ(o.exit_code, 3) << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(name), std::string::npos) << o.err;
    ExpectNothingWritten("x.csv");
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"eval", "protparam", "--fasta", "missing.fa"},
           {"eval", "protparam", "--fasta", "p.fa", "--format", "tsv"},
           {"eval", "protparam", "--fasta", "p.fa", "--secondary-structure", "biopython-1.80"}}) {
    const Output o = Run(args);
    EXPECT_EQ(o.exit_code, 3) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
}

TEST_F(ProtparamCliTest, GeneratedProteinsReadBackWithTheirFamiliesConcepts) {
  const Output gen = Run({"gen", "proteins", "--out", "g.fa", "--count", "12", "--seed", "5"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_NE(gen.err.find("12 sequences -> g.fa (proteins v1, content hash "), std::string::npos) << gen.err;
  const Output eval = Run({"eval", "protparam", "--fasta", "g.fa", "--format", "json"});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto seqs = nlohmann::json::parse(eval.out).at("sequences");
  ASSERT_EQ(seqs.size(), 12u);
  // Families cycle globular, membrane, acidic, basic, ...: the basic ones
  // (3, 9) have a higher pI than the acidic ones (2, 8).
  EXPECT_EQ(seqs[3].at("id"), "basic_3");
  for (int acidic : {2, 8}) {
    for (int basic : {3, 9}) {
      EXPECT_GT(seqs[basic].at("concepts").at("isoelectric_point").get<double>(),
                seqs[acidic].at("concepts").at("isoelectric_point").get<double>());
    }
  }
  // Never over an existing file; a bad parameter is one line.
  const std::string before = ReadFile(Path("g.fa"));
  EXPECT_EQ(Run({"gen", "proteins", "--out", "g.fa"}).exit_code, 3);
  EXPECT_EQ(ReadFile(Path("g.fa")), before);
  const Output bad = Run({"gen", "proteins", "--out", "h.fa", "--min-length", "50", "--max-length", "20"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  ExpectNothingWritten("h.fa");
}

TEST_F(ProtparamCliTest, EveryMutationOfAFastaFileIsNamed) {
  ExpectMutationsNameTheFile({"eval", "protparam", "--fasta", "m.fa"}, "m.fa", kFasta);
}

}  // namespace
}  // namespace cb::cli::testing

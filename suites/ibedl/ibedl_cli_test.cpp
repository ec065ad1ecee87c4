// File: suites/ibedl/ibedl_cli_test.cpp
// End-to-end tests of `claimbench eval ibedl`: a JSONL prediction file with ID
// and OOD rows (logits or alphas) is scored and recorded; the authors' .npz
// layout (written here as numpy writes it) is read for the ID and the OOD
// split, a K_ID != K_OOD pair is flagged; a malformed line is exit 3 naming
// FILE:LINE with no ledger written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "suites/ibedl/npz_writer_testutil.h"

namespace {

namespace fs = std::filesystem;
namespace tu = cb::ibedl::testutil;
using cb::cli::testing::ClaimbenchTest;

class IbedlCliTest : public ClaimbenchTest {};

TEST_F(IbedlCliTest, ScoresJsonl) {
  std::ofstream(dir_ / "p.jsonl") << "{\"label\": 0, \"logits\": [3.0, 0.0, 0.0], \"uncertainty\": 0.1}\n"
                                     "{\"label\": 1, \"alphas\": [1.0, 9.0, 1.0], \"split\": \"id\"}\n"
                                     "\n"
                                     "{\"label\": 2, \"logits\": [0.0, 0.0, 0.1], \"uncertainty\": 0.9, \"split\": \"ood\"}\n"
                                     "{\"label\": 0, \"alphas\": [1.0, 1.2, 1.0], \"split\": \"ood\"}\n";
  const auto o = Run({"eval", "ibedl", "--predictions", "p.jsonl", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["paper_compatible"]["id"]["n"], 2);
  EXPECT_EQ(j["paper_compatible"]["id"]["acc"], 1.0);
  EXPECT_EQ(j["paper_compatible"]["ood"]["auroc_mp"], 1.0);
  EXPECT_EQ(j["paper_compatible"]["ood"]["auroc_um"], 1.0);  // u of the alphas rows: K / S
  // NLL of the alphas row: -ln(9/11); of the first: -ln softmax(3, 0, 0)_0.
  const double nll = 0.5 * (-std::log(9.0 / 11) + std::log(std::exp(3.0) + 2) - 3.0);
  EXPECT_NEAR(j["strict"]["id"]["nll"].get<double>(), nll, 1e-12);
  EXPECT_TRUE(fs::exists(dir_ / "l.db"));
}

TEST_F(IbedlCliTest, ReadsTheAuthorsNpzAndFlagsKMismatch) {
  // ID: K = 2, logits float16 (1, 0), (0, 0.5); OOD: K = 3.
  std::ofstream(dir_ / "id.npz", std::ios::binary)
      << tu::Zip({{"logits.npy", tu::Npy("<f2", "(2, 2)", tu::Halves({0x3c00, 0x0000, 0x0000, 0x3800}))},
                  {"labels.npy", tu::Npy("<i8", "(2,)", tu::Int64s({0, 1}))},
                  {"uncertainties.npy", tu::Npy("<f2", "(2,)", tu::Halves({0x3400, 0x3800}))}},
                 true);
  std::ofstream(dir_ / "ood.npz", std::ios::binary)
      << tu::Zip({{"logits.npy", tu::Npy("<f2", "(1, 3)", tu::Halves({0x0000, 0x0000, 0x0000}))},
                  {"labels.npy", tu::Npy("<i8", "(1,)", tu::Int64s({2}))},
                  {"uncertainties.npy", tu::Npy("<f2", "(1,)", tu::Halves({0x3c00}))}},
                 true);
  auto o = Run({"eval", "ibedl", "--predictions", "id.npz", "--ood", "ood.npz", "--ledger", "l.db"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("K_ID = 2 != K_OOD = 3"), std::string::npos) << o.out;
  o = Run({"eval", "ibedl", "--predictions", "id.npz", "--ood", "ood.npz", "--ledger", "l.db", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["paper_compatible"]["id"]["acc"], 1.0);
  EXPECT_EQ(j["paper_compatible"]["ood"]["K_ood"], 3);
  EXPECT_EQ(j["paper_compatible"]["ood"]["auroc_um"], 1.0);  // 1/u: ID 4, 2; OOD 1
}

TEST_F(IbedlCliTest, EveryMutationOfAPredictionFileIsNamed) {
  const std::string jsonl = "{\"label\": 0, \"logits\": [3.0, 0.0, 0.0], \"uncertainty\": 0.1}\n"
                            "{\"label\": 1, \"alphas\": [1.0, 9.0, 1.0], \"split\": \"id\"}\n"
                            "{\"label\": 2, \"logits\": [0.0, 0.0, 0.1], \"uncertainty\": 0.9, \"split\": \"ood\"}\n";
  ExpectMutationsNameTheFile({"eval", "ibedl", "--predictions", "p.jsonl", "--ledger", "m.db"}, "p.jsonl", jsonl);
  // The .npz pair, stored uncompressed so the mutations reach the .npy
  // headers; the OOD file mutated: its errors must name it, not the ID file.
  auto npz = [](const std::string& shape, const std::string& u) {
    return tu::Zip({{"logits.npy", tu::Npy("<f2", "(2, 2)", tu::Halves({0x3c00, 0x0000, 0x0000, 0x3800}))},
                    {"labels.npy", tu::Npy("<i8", shape, tu::Int64s({0, 1}))},
                    {"uncertainties.npy", tu::Npy("<f2", "(2,)", u)}},
                   false);
  };
  { std::ofstream(dir_ / "id.npz", std::ios::binary) << npz("(2,)", tu::Halves({0x3400, 0x3800})); }
  { std::ofstream(dir_ / "huge.npz", std::ios::binary) << npz("(99999999999999999999,)", tu::Halves({0x3400, 0x3800})); }
  { std::ofstream(dir_ / "nan.npz", std::ios::binary) << npz("(2,)", tu::Halves({0x7e00, 0x3800})); }
  for (const char* bad : {"huge.npz", "nan.npz"}) {
    const auto o = Run({"eval", "ibedl", "--predictions", "id.npz", "--ood", bad, "--ledger", "bad.db"});
    EXPECT_EQ(o.exit_code, 3) << o.err;
    EXPECT_NE(o.err.find(bad), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("id.npz"), std::string::npos) << o.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  ExpectMutationsNameTheFile({"eval", "ibedl", "--predictions", "id.npz", "--ood", "ood.npz", "--ledger", "m.db"},
                             "ood.npz", npz("(2,)", tu::Halves({0x3c00, 0x3800})));
}

TEST_F(IbedlCliTest, BadInputNamesTheLineAndWritesNoLedger) {
  std::ofstream(dir_ / "bad.jsonl") << "{\"label\": 0, \"logits\": [1.0, 0.0]}\n"
                                       "{\"label\": 2, \"logits\": [1.0, 0.0]}\n";
  auto o = Run({"eval", "ibedl", "--predictions", "bad.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("bad.jsonl:2: label 2 outside [0, 2)"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
  std::ofstream(dir_ / "both.jsonl") << "{\"label\": 0, \"logits\": [1.0, 0.0], \"alphas\": [1, 2]}\n";
  o = Run({"eval", "ibedl", "--predictions", "both.jsonl", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("both.jsonl:1: give exactly one of"), std::string::npos) << o.err;
  std::ofstream(dir_ / "broken.npz", std::ios::binary) << std::string("PK\x03\x04garbage", 11);
  o = Run({"eval", "ibedl", "--predictions", "broken.npz", "--ledger", "bad.db"});
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_NE(o.err.find("broken.npz"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.db"));
}

}  // namespace

// File: suites/ibedl/npz_test.cpp
// The .npz reader on archives written here in the layout numpy gives the
// IB-EDL authors' prediction files (ib_edl/utils/misc.py save_predictions at
// sandylaker/ib-edl ac8d8bc: np.savez_compressed with logits float16 [N, K],
// labels int64 [N], uncertainties float16 [N]; numpy's _savez opens each
// member with force_zip64=True, so local headers carry a ZIP64 extra field
// with 0xFFFFFFFF sizes), and on damaged ones.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "suites/ibedl/eval_predictions.h"
#include "suites/ibedl/npz.h"
#include "suites/ibedl/npz_writer_testutil.h"

namespace cb::ibedl {
namespace {

using testutil::Halves;
using testutil::Int64s;
using testutil::Npy;
using testutil::Zip;

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const auto p = std::filesystem::temp_directory_path() / ("cb_ibedl_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

// float16 bits: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, 0.25 = 0x3400, 0 = 0.
const std::vector<uint16_t> kLogits = {0x3c00, 0xc000, 0x0000, 0x3800, 0x3400, 0x0000};  // [2, 3]
const std::vector<int64_t> kLabels = {0, 2};
const std::vector<uint16_t> kU = {0x3800, 0x3400};

std::string AuthorsNpz(bool deflate) {
  return Zip({{"logits.npy", Npy("<f2", "(2, 3)", Halves(kLogits))},
              {"labels.npy", Npy("<i8", "(2,)", Int64s(kLabels))},
              {"uncertainties.npy", Npy("<f2", "(2,)", Halves(kU))}},
             deflate);
}

TEST(Npz, ReadsTheAuthorsLayout) {
  for (bool deflate : {true, false}) {
    const std::string path = WriteTemp(deflate ? "d.npz" : "s.npz", AuthorsNpz(deflate));
    const auto arrays = ReadNpz(path);
    ASSERT_EQ(arrays.size(), 3u);
    EXPECT_EQ(arrays.at("logits").descr, "<f2");
    EXPECT_EQ(arrays.at("logits").shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(arrays.at("logits").values, (std::vector<double>{1.0, -2.0, 0.0, 0.5, 0.25, 0.0}));
    EXPECT_EQ(arrays.at("labels").values, (std::vector<double>{0, 2}));
    EXPECT_EQ(arrays.at("uncertainties").values, (std::vector<double>{0.5, 0.25}));
    const PredictionSet s = ReadPredictionsNpz(path);
    EXPECT_EQ(s.k, 3);
    EXPECT_EQ(s.labels, (std::vector<int>{0, 2}));
    EXPECT_EQ(s.uncertainty.size(), 2u);
    std::filesystem::remove(path);
  }
}

TEST(Npz, HalfPrecisionIsExact) {
  EXPECT_EQ(DoubleFromHalf(0x3c00), 1.0);
  EXPECT_EQ(DoubleFromHalf(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(DoubleFromHalf(0x7bff), 65504.0);
  EXPECT_TRUE(std::isinf(DoubleFromHalf(0xfc00)));
  EXPECT_EQ(DoubleFromHalf(0x8000), 0.0);
}

TEST(Npz, RejectsDamagedArchives) {
  std::string good = AuthorsNpz(true);
  const std::string trunc = WriteTemp("t.npz", good.substr(0, good.size() / 2));
  EXPECT_THROW(ReadNpz(trunc), std::runtime_error);
  std::string bad_crc = AuthorsNpz(false);
  bad_crc[bad_crc.find("NUMPY") + 40] ^= 1;  // a header byte of the first member: CRC mismatch
  const std::string crc_path = WriteTemp("c.npz", bad_crc);
  try {
    ReadNpz(crc_path);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("logits.npy"), std::string::npos) << e.what();
  }
  const std::string no_labels =
      WriteTemp("n.npz", Zip({{"logits.npy", Npy("<f2", "(2, 3)", Halves(kLogits))}}, true));
  EXPECT_THROW(ReadPredictionsNpz(no_labels), std::runtime_error);
  const std::string big_endian =
      WriteTemp("b.npz", Zip({{"x.npy", Npy(">f4", "(1,)", std::string(4, '\0'))}}, false));
  EXPECT_THROW(ReadNpz(big_endian), std::runtime_error);
  for (const auto& p : {trunc, crc_path, no_labels, big_endian}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace cb::ibedl

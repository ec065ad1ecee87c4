// File: harness/safetensors_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/safetensors.h: writer/reader round trips in F32, F16 and
// BF16 (exact where the value is representable, within half an ulp and ties to
// even otherwise); hand-assembled files with known bit patterns, so the reader
// is checked independently of the writer; one test per validation error, each
// asserting a one-line message that names the file; and a seeded fuzz of the
// header parser (Open() must either succeed with in-file offsets or throw
// std::runtime_error, never crash; CI runs it under ASan/UBSan).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "harness/random.h"
#include "harness/safetensors.h"

namespace cb::harness {
namespace {

namespace fs = std::filesystem;

const double kInf = std::numeric_limits<double>::infinity();

// A private folder per test process, removed at the end of each test.
class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cb_safetensors_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string U64Le(uint64_t n) {
  std::string s;
  for (int i = 0; i < 8; ++i) s += static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

// A file made by hand: the length prefix, `header` verbatim, then `buffer`.
std::string RawFile(const std::string& header, const std::string& buffer) {
  return U64Le(header.size()) + header + buffer;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string LeU16s(const std::vector<uint16_t>& v) {
  std::string s;
  for (uint16_t u : v) {
    s += static_cast<char>(u & 0xff);
    s += static_cast<char>(u >> 8);
  }
  return s;
}

// Half the distance between adjacent values of a binary format with `p`
// stored mantissa bits and minimum normal exponent `emin`, at magnitude |y|.
double HalfUlp(double y, int p, int emin) {
  int e2 = 0;
  std::frexp(y, &e2);
  return std::ldexp(1.0, std::max(e2 - 1, emin) - p - 1);
}

// ---------------------------------------------------------------------------
// Round trips

TEST_F(SafetensorsTest, RoundTripExactValuesInAllThreeDtypes) {
  // Each value is representable in F16 and in BF16 (and so in F32): small
  // integers, dyadic fractions, signed zero, infinities, and each format's
  // extremes where they are exact.
  const std::vector<double> common = {0.0, -0.0, 1.0, -2.0, 0.5, 0.375, 3.0, -96.0, 0.015625,
                                      kInf, -kInf};
  std::vector<double> f16 = common;
  f16.insert(f16.end(), {65504.0, std::ldexp(1.0, -24), std::ldexp(1023.0, -24),
                         std::ldexp(1.0, -14), 1.0 + std::ldexp(1.0, -10)});
  std::vector<double> bf16 = common;
  bf16.insert(bf16.end(), {std::ldexp(1.0, -133), std::ldexp(1.0, -126),
                           std::ldexp(255.0, 120), 1.0 + std::ldexp(1.0, -7)});
  std::vector<double> f32 = f16;
  f32.insert(f32.end(), {std::ldexp(1.0, -149), 0.1f, 16777215.0, std::ldexp(1.0, 127)});

  const std::string path = Path("exact.safetensors");
  WriteSafetensors(path,
                   {{"w.f32", {"F32", {static_cast<int64_t>(f32.size())}, f32}},
                    {"w.f16", {"F16", {static_cast<int64_t>(f16.size())}, f16}},
                    {"w.bf16", {"BF16", {static_cast<int64_t>(bf16.size())}, bf16}}});
  const SafetensorsFile f = SafetensorsFile::Open(path);
  for (const auto& [name, want] : std::vector<std::pair<std::string, std::vector<double>>>{
           {"w.f32", f32}, {"w.f16", f16}, {"w.bf16", bf16}}) {
    const std::vector<double> got = f.ReadAsDouble(name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << name << "[" << i << "]";
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << name << "[" << i << "]";
    }
  }
  // NaN survives in every dtype.
  WriteSafetensors(path, {{"a", {"F16", {1}, {std::nan("")}}},
                          {"b", {"BF16", {1}, {std::nan("")}}},
                          {"c", {"F32", {1}, {std::nan("")}}}});
  const SafetensorsFile g = SafetensorsFile::Open(path);
  for (const char* n : {"a", "b", "c"}) EXPECT_TRUE(std::isnan(g.ReadAsDouble(n).at(0))) << n;
}

TEST_F(SafetensorsTest, RoundTripInexactValuesWithinHalfUlp) {
  Rng rng(20261130, 1);
  std::vector<double> x(3000);
  for (size_t i = 0; i < x.size(); ++i) {
    // Magnitudes from 2^-30 (F16 subnormal range) to 2^15.
    x[i] = rng.Normal() * std::ldexp(1.0, static_cast<int>(rng.UniformInt(0, 45)) - 30);
  }
  const int64_t n = static_cast<int64_t>(x.size());
  const std::string path = Path("inexact.safetensors");
  WriteSafetensors(path, {{"f32", {"F32", {3, n / 3}, x}},
                          {"f16", {"F16", {n}, x}},
                          {"bf16", {"BF16", {n, 1}, x}}});
  const SafetensorsFile f = SafetensorsFile::Open(path);
  struct Fmt {
    const char* name;
    int p, emin;
  };
  for (const Fmt& fmt : {Fmt{"f32", 23, -126}, Fmt{"f16", 10, -14}, Fmt{"bf16", 7, -126}}) {
    const std::vector<double> y = f.ReadAsDouble(fmt.name);
    ASSERT_EQ(y.size(), x.size());
    int inexact = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_TRUE(std::isfinite(y[i])) << fmt.name << " " << x[i];
      EXPECT_LE(std::fabs(y[i] - x[i]), HalfUlp(y[i], fmt.p, fmt.emin))
          << fmt.name << " x=" << x[i] << " y=" << y[i];
      inexact += y[i] != x[i];
    }
    EXPECT_GT(inexact, 2000) << fmt.name << ": the values should mostly need rounding";
  }
}

TEST_F(SafetensorsTest, RoundingIsToNearestEvenWithOverflowToInfinity) {
  // F16 around 1 has spacing 2^-10: ties go to the even mantissa.
  EXPECT_EQ(DoubleToHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(DoubleToHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  EXPECT_EQ(DoubleToHalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  // Largest finite 65504; 65520 is the tie with 2^16, which overflows.
  EXPECT_EQ(DoubleToHalfBits(65519.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalfBits(65520.0), 0x7C00);
  EXPECT_EQ(DoubleToHalfBits(-1e300), 0xFC00);
  // Subnormals: 2^-25 ties to 0, 3 * 2^-25 ties to 2 * 2^-24; the top
  // subnormal rounds up into the smallest normal.
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(3.0, -25)), 0x0002);
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(2047.0, -25)), 0x0400);
  EXPECT_EQ(DoubleToHalfBits(-1e-300), 0x8000);
  // BF16 around 1 has spacing 2^-7, directly from double (no double rounding
  // through float: 1 + 2^-8 + 2^-30 rounds up, which a float would lose).
  EXPECT_EQ(DoubleToBf16Bits(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(DoubleToBf16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  EXPECT_EQ(DoubleToBf16Bits(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);
  EXPECT_EQ(DoubleToBf16Bits(1e39), 0x7F80);
  EXPECT_EQ(DoubleToBf16Bits(-2.0), 0xC000);
}

// ---------------------------------------------------------------------------
// Known bit patterns, in files assembled by hand

TEST_F(SafetensorsTest, KnownBitPatternsDecodeExactly) {
  const std::vector<uint16_t> f16 = {0x3C00, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x0400,
                                     0x7BFF, 0x8000, 0xC000, 0x3555, 0x7E00};
  const std::vector<uint16_t> bf16 = {0x3F80, 0xC000, 0x7F80, 0x0001, 0x4049, 0x7FC0};
  const std::string f32 = std::string("\x00\x00\x80\x3f", 4) + std::string("\x01\x00\x00\x00", 4);
  const std::string f64 = std::string("\x00\x00\x00\x00\x00\x00\xf0\xbf", 8);  // -1.0
  const std::string buffer = LeU16s(f16) + LeU16s(bf16) + f32 + f64;
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[11],"data_offsets":[0,22]},)"
      R"("b":{"dtype":"BF16","shape":[2,3],"data_offsets":[22,34]},)"
      R"("s":{"dtype":"F32","shape":[2],"data_offsets":[34,42]},)"
      R"("d":{"dtype":"F64","shape":[],"data_offsets":[42,50]}})";
  const std::string path = Path("bits.safetensors");
  WriteBytes(path, RawFile(header, buffer));
  const SafetensorsFile f = SafetensorsFile::Open(path);

  const std::vector<double> h = f.ReadAsDouble("h");
  ASSERT_EQ(h.size(), 11u);
  EXPECT_EQ(h[0], 1.0);
  EXPECT_EQ(h[1], kInf);
  EXPECT_EQ(h[2], -kInf);
  EXPECT_EQ(h[3], std::ldexp(1.0, -24));     // smallest subnormal
  EXPECT_EQ(h[4], std::ldexp(1023.0, -24));  // largest subnormal
  EXPECT_EQ(h[5], std::ldexp(1.0, -14));     // smallest normal
  EXPECT_EQ(h[6], 65504.0);
  EXPECT_EQ(h[7], 0.0);
  EXPECT_TRUE(std::signbit(h[7]));
  EXPECT_EQ(h[8], -2.0);
  EXPECT_EQ(h[9], 1365.0 / 4096.0);  // 0x3555: (1 + 0x155/1024) * 2^-2
  EXPECT_TRUE(std::isnan(h[10]));

  const std::vector<double> b = f.ReadAsDouble("b");
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0], 1.0);
  EXPECT_EQ(b[1], -2.0);
  EXPECT_EQ(b[2], kInf);
  EXPECT_EQ(b[3], std::ldexp(1.0, -133));  // smallest bf16 subnormal
  EXPECT_EQ(b[4], 3.140625);               // 0x4049
  EXPECT_TRUE(std::isnan(b[5]));

  EXPECT_EQ(f.ReadAsDouble("s"), (std::vector<double>{1.0, std::ldexp(1.0, -149)}));
  EXPECT_EQ(f.ReadAsDouble("d"), (std::vector<double>{-1.0}));
  EXPECT_EQ(f.data_start(), 8 + header.size());
}

TEST_F(SafetensorsTest, WriterEmitsKnownBitPatternsAndAlignedHeader) {
  const std::string path = Path("w.safetensors");
  WriteSafetensors(path, {{"h", {"F16", {4}, {1.0, kInf, std::ldexp(1.0, -24), -2.0}}},
                          {"b", {"BF16", {1}, {1.0}}}});
  const std::string bytes = ReadBytes(path);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 10);
  EXPECT_EQ(bytes.substr(8 + n), LeU16s({0x3C00, 0x7C00, 0x0001, 0xC000, 0x3F80}));
  EXPECT_FALSE(fs::exists(path + ".tmp" + std::to_string(::getpid())));
}

TEST_F(SafetensorsTest, ListsTensorsByNameWithShapesOffsetsAndMetadata) {
  const std::string path = Path("list.safetensors");
  WriteSafetensors(path,
                   {{"z.weight", {"F32", {2, 3}, {1, 2, 3, 4, 5, 6}}},
                    {"a.bias", {"BF16", {3}, {1, 2, 3}}},
                    {"m.empty", {"F16", {0, 5}, {}}},
                    {"s.scalar", {"F64", {}, {7.25}}}},
                   {{"format", "pt"}, {"note", "synthetic"}});
  const SafetensorsFile f = SafetensorsFile::Open(path);
  ASSERT_EQ(f.tensors().size(), 4u);
  EXPECT_EQ(f.tensors()[0].name, "a.bias");
  EXPECT_EQ(f.tensors()[1].name, "m.empty");
  EXPECT_EQ(f.tensors()[2].name, "s.scalar");
  EXPECT_EQ(f.tensors()[3].name, "z.weight");
  const SafetensorsTensor& z = f.tensors()[3];
  EXPECT_EQ(z.dtype, "F32");
  EXPECT_EQ(z.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(z.begin, 0u);  // written first
  EXPECT_EQ(z.end, 24u);
  EXPECT_EQ(f.tensors()[0].begin, 24u);
  EXPECT_EQ(f.tensors()[0].end, 30u);
  EXPECT_EQ(f.tensors()[1].begin, f.tensors()[1].end);
  EXPECT_EQ(f.ReadAsDouble("z.weight"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(f.ReadAsDouble("a.bias"), (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(f.ReadAsDouble("m.empty").empty());
  EXPECT_EQ(f.ReadAsDouble("s.scalar"), (std::vector<double>{7.25}));
  EXPECT_EQ(f.metadata(), (std::map<std::string, std::string>{{"format", "pt"},
                                                              {"note", "synthetic"}}));
  EXPECT_EQ(f.Find("nope"), nullptr);
  ASSERT_NE(f.Find("s.scalar"), nullptr);
  EXPECT_EQ(f.Find("s.scalar")->dtype, "F64");
}

// ---------------------------------------------------------------------------
// Errors

// Runs `fn`, which must throw std::runtime_error whose message is one line,
// names `path` and contains `needle`.
template <typename Fn>
void ExpectOneLineError(Fn fn, const std::string& path, const std::string& needle,
                        const std::string& label) {
  try {
    fn();
    ADD_FAILURE() << label << ": no exception";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << label << ": " << what;
    EXPECT_NE(what.find(path), std::string::npos) << label << ": " << what;
    EXPECT_NE(what.find(needle), std::string::npos) << label << ": '" << needle << "' not in "
                                                    << what;
  }
}

TEST_F(SafetensorsTest, EachMalformedFileIsAOneLineErrorNamingTheFile) {
  const std::string ok_entry = R"("t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string buf8(8, '\0');
  struct Case {
    const char* label;
    std::string bytes;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {"empty file", "", "shorter than the 8-byte"},
      {"7 bytes", std::string(7, '\0'), "shorter than the 8-byte"},
      {"header past eof", U64Le(100) + "{}", "past the end of the file"},
      {"absurd header", U64Le(uint64_t{1} << 40) + "{}", "exceeds the limit"},
      {"max u64 header", U64Le(~uint64_t{0}) + "{}", "exceeds the limit"},
      {"zero-length header", U64Le(0), "not valid JSON"},
      {"not json", RawFile("{\"t\":", buf8), "not valid JSON"},
      {"invalid utf-8", RawFile("{\"\xff\":1}", ""), "not valid JSON"},
      {"json array", RawFile("[1,2]", ""), "not a JSON object"},
      {"entry not object", RawFile(R"({"t":3})", ""), "entry is not an object"},
      {"missing dtype", RawFile(R"({"t":{"shape":[2],"data_offsets":[0,8]}})", buf8),
       "missing \"dtype\""},
      {"dtype number", RawFile(R"({"t":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})", buf8),
       "\"dtype\" is not a string"},
      {"unknown dtype", RawFile(R"({"t":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", buf8),
       "unknown dtype 'F33'"},
      {"missing shape", RawFile(R"({"t":{"dtype":"F32","data_offsets":[0,8]}})", buf8),
       "missing \"shape\""},
      {"shape object", RawFile(R"({"t":{"dtype":"F32","shape":{},"data_offsets":[0,8]}})", buf8),
       "\"shape\" is not an array"},
      {"negative shape", RawFile(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", buf8),
       "not a non-negative integer"},
      {"fractional shape",
       RawFile(R"({"t":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", buf8),
       "not a non-negative integer"},
      {"overflowing shape",
       RawFile(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
               buf8),
       "overflows 64 bits"},
      {"huge shape entry",
       RawFile(R"({"t":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,8]}})",
               buf8),
       "too large"},
      {"missing offsets", RawFile(R"({"t":{"dtype":"F32","shape":[2]}})", buf8),
       "missing \"data_offsets\""},
      {"one offset", RawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", buf8),
       "not an array of two"},
      {"string offsets",
       RawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":["0","8"]}})", buf8),
       "not non-negative integers"},
      {"begin > end", RawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", buf8),
       "begin 8 > end 0"},
      {"end past buffer",
       RawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(5, '\0')),
       "past the end of the byte buffer"},
      {"size mismatch", RawFile(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", buf8),
       "needs 12"},
      {"overlap",
       RawFile("{" + ok_entry + R"(,"u":{"dtype":"F16","shape":[2],"data_offsets":[6,10]}})",
               std::string(10, '\0')),
       "overlap"},
      {"metadata not object", RawFile("{" + ok_entry + R"(,"__metadata__":[1]})", buf8),
       "\"__metadata__\" is not an object"},
      {"metadata value not string", RawFile("{" + ok_entry + R"(,"__metadata__":{"k":1}})", buf8),
       "'k' is not a string"},
      {"name with newline",
       RawFile(R"({"a\nb":{"dtype":"X","shape":[],"data_offsets":[0,0]}})", ""), "a\\x0ab"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = Path("bad" + std::to_string(i) + ".safetensors");
    WriteBytes(path, cases[i].bytes);
    ExpectOneLineError([&] { SafetensorsFile::Open(path); }, path, cases[i].needle,
                       cases[i].label);
  }
  ExpectOneLineError([&] { SafetensorsFile::Open(Path("missing")); }, Path("missing"),
                     "cannot open", "missing file");
}

TEST_F(SafetensorsTest, ReadAsDoubleRejectsOtherDtypesUnknownNamesAndTruncation) {
  const std::string path = Path("ints.safetensors");
  WriteBytes(path, RawFile(R"({"i":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})",
                           std::string(8, '\x01')));
  const SafetensorsFile f = SafetensorsFile::Open(path);
  EXPECT_EQ(f.tensors().at(0).dtype, "I32");
  ExpectOneLineError([&] { f.ReadAsDouble("i"); }, path, "dtype I32", "I32");
  ExpectOneLineError([&] { f.ReadAsDouble("j"); }, path, "no tensor named 'j'", "unknown");

  // The file shrinks after Open(): the read fails cleanly.
  const std::string p2 = Path("shrink.safetensors");
  WriteSafetensors(p2, {{"w", {"F32", {64}, std::vector<double>(64, 1.0)}}});
  const SafetensorsFile g = SafetensorsFile::Open(p2);
  fs::resize_file(p2, g.data_start() + 16);
  ExpectOneLineError([&] { g.ReadAsDouble("w"); }, p2, "short read", "shrunk");
}

TEST_F(SafetensorsTest, WriterRejectsBadInputAndLeavesNoFile) {
  const std::string path = Path("never.safetensors");
  using T = SafetensorsWriteTensor;
  const std::vector<std::vector<std::pair<std::string, T>>> bad = {
      {{"w", {"F32", {2, 2}, {1, 2, 3}}}},          // 3 values for 4 elements
      {{"w", {"I32", {1}, {1}}}},                   // not writable
      {{"w", {"F32", {-1}, {}}}},                   // negative shape
      {{"w", {"F32", {1}, {1}}}, {"w", {"F16", {1}, {1}}}},  // duplicate
      {{"", {"F32", {1}, {1}}}},                    // empty name
      {{"__metadata__", {"F32", {1}, {1}}}},        // reserved name
      {{"bad\xff", {"F32", {1}, {1}}}},            // not UTF-8
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_THROW(WriteSafetensors(path, bad[i]), std::invalid_argument) << i;
    EXPECT_FALSE(fs::exists(path)) << i;
  }
  ExpectOneLineError(
      [&] { WriteSafetensors(Path("no/such/dir/x.safetensors"), {{"w", {"F32", {1}, {1}}}}); },
      Path("no/such/dir/x.safetensors"), "cannot write", "unwritable");
}

// ---------------------------------------------------------------------------
// Fuzz

TEST_F(SafetensorsTest, FuzzedHeadersEitherOpenWithInFileOffsetsOrThrow) {
  const std::string seed_path = Path("seed.safetensors");
  WriteSafetensors(seed_path,
                   {{"layers.0.w", {"F32", {3, 4}, std::vector<double>(12, 0.5)}},
                    {"layers.1.w", {"F16", {4, 2}, std::vector<double>(8, -1.0)}},
                    {"layers.2.w", {"BF16", {2, 2, 2}, std::vector<double>(8, 2.0)}},
                    {"empty", {"F32", {0}, {}}}},
                   {{"k", "v"}});
  const std::string valid = ReadBytes(seed_path);
  ASSERT_GT(valid.size(), 16u);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(valid[i]);
  ASSERT_LT(header_len, valid.size());

  const char kJsonChars[] = "{}[]\":,0123456789-.e \\F";
  Rng rng(0x5AFE7E, 7);
  const int kIterations = 3000;
  int opened = 0, rejected = 0;
  const std::string path = Path("fuzz.safetensors");
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < kIterations; ++it) {
    std::string bytes = valid;
    const int mutations = 1 + static_cast<int>(rng.UniformInt(0, 2));
    for (int m = 0; m < mutations; ++m) {
      // Positions are drawn first and applied only when still inside the
      // (possibly already truncated) file.
      const uint64_t op = rng.UniformInt(0, 5);
      const uint64_t at = op == 0 ? rng.UniformInt(0, 7) : 8 + rng.UniformInt(0, header_len - 1);
      const bool inside = at < bytes.size();
      switch (op) {
        case 0:  // flip one bit of the length prefix
          if (inside) bytes[at] ^= static_cast<char>(1u << rng.UniformInt(0, 7));
          break;
        case 1:  // a random byte in the header
          if (inside) bytes[at] = static_cast<char>(rng.UniformInt(0, 255));
          break;
        case 2:  // a JSON-significant character in the header
          if (inside) bytes[at] = kJsonChars[rng.UniformInt(0, sizeof kJsonChars - 2)];
          break;
        case 3: {  // replace a digit by another: shapes and offsets change, JSON stays valid
          for (int tries = 0; tries < 50; ++tries) {
            const uint64_t pos = 8 + rng.UniformInt(0, header_len - 1);
            if (pos < bytes.size() && bytes[pos] >= '0' && bytes[pos] <= '9') {
              bytes[pos] = static_cast<char>('0' + rng.UniformInt(0, 9));
              break;
            }
          }
          break;
        }
        case 4:  // truncate
          bytes.resize(rng.UniformInt(0, bytes.size()));
          break;
        default: {  // a random header length, small or anything
          const uint64_t n = rng.UniformInt(0, 1) ? rng.UniformInt(0, bytes.size() + 16)
                                                  : rng.NextU64();
          for (size_t i = 0; i < 8 && i < bytes.size(); ++i) {
            bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
          }
          break;
        }
      }
    }
    WriteBytes(path, bytes);
    try {
      const SafetensorsFile f = SafetensorsFile::Open(path);
      ++opened;
      ASSERT_EQ(f.file_size(), bytes.size());
      ASSERT_LE(f.data_start(), f.file_size());
      for (const SafetensorsTensor& t : f.tensors()) {
        ASSERT_LE(t.begin, t.end) << t.name;
        ASSERT_LE(f.data_start() + t.end, f.file_size()) << t.name << " iteration " << it;
        const int esz = SafetensorsDtypeSize(t.dtype);
        ASSERT_GT(esz, 0) << t.dtype;
        uint64_t count = 1;
        for (int64_t d : t.shape) count *= static_cast<uint64_t>(d);
        ASSERT_EQ(t.end - t.begin, count * static_cast<uint64_t>(esz)) << t.name;
        if (t.dtype == "F32" || t.dtype == "F16" || t.dtype == "BF16" || t.dtype == "F64") {
          ASSERT_EQ(f.ReadAsDouble(t.name).size(), count) << t.name;
        }
      }
    } catch (const std::runtime_error& e) {
      ++rejected;
      ASSERT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fuzz: %d mutants, %d opened, %d rejected, %.3f s\n", kIterations, opened,
              rejected, seconds);
  // Both outcomes must occur, or the mutations are not exercising the parser.
  EXPECT_GT(opened, 20);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace cb::harness

// File: suites/unip/unip_cli_test.cpp
// -----------------------------------------------------------------------------
// `claimbench eval unip --attention FILE` end to end: a three-layer dump whose
// NMI is known in closed form (identity, windows, uniform, each with a CLS
// row and column around it), the NMI-HAD choice, JSON, and every bad input as
// one line naming the file; `claimbench gen segscenes` read back against the
// generator, never over an existing file, a bad parameter as one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/cli_test_util.h"
#include "generators/segscenes.h"
#include "harness/safetensors.h"

namespace cb::cli::testing {
namespace {

// [heads = 2, n + 1, n + 1]: token 0 is a CLS that every query attends to a
// little; tokens 1..n attend to circular windows of width w among themselves.
cb::harness::SafetensorsWriteTensor WindowLayer(int n, int w) {
  const int m = n + 1;
  cb::harness::SafetensorsWriteTensor t{"F32", {2, m, m}, std::vector<double>(2 * m * m, 0.0)};
  for (int h = 0; h < 2; ++h) {
    double* map = t.values.data() + h * m * m;
    for (int j = 0; j < m; ++j) map[j] = 1.0 / m;  // the CLS query: uniform
    for (int i = 1; i < m; ++i) {
      map[i * m] = 0.5;  // CLS key
      for (int j = 0; j < w; ++j) map[i * m + 1 + (i - 1 + j) % n] = 0.5 / w;
    }
  }
  return t;
}

class UnipCliTest : public ClaimbenchTest {
 protected:
  static constexpr int kN = 16;
  void WriteDump(const std::string& name) {
    cb::harness::WriteSafetensors(Path(name), {{"blocks.0.attn", WindowLayer(kN, 1)},
                                               {"blocks.1.attn", WindowLayer(kN, 4)},
                                               {"blocks.2.attn", WindowLayer(kN, kN)}});
  }
};

TEST_F(UnipCliTest, ProfileOfKnownMapsAndTheNmiHadLayer) {
  WriteDump("a.safetensors");
  const Output o = Run({"eval", "unip", "--attention", "a.safetensors", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  const auto& layers = j.at("layers");
  ASSERT_EQ(layers.size(), 3u);
  // The CLS row and column dropped, the rest renormalised: identity, windows
  // of 4 (ln 4 / ln 16 = 1/2) and uniform, each lowered a little by the 1e-8.
  EXPECT_NEAR(layers[0].at("nmi").get<double>(), 1.0, 1e-5);
  EXPECT_NEAR(layers[1].at("nmi").get<double>(), 0.5, 1e-5);
  EXPECT_NEAR(layers[2].at("nmi").get<double>(), 0.0, 1e-9);
  EXPECT_EQ(layers[0].at("kind"), "local");
  EXPECT_EQ(layers[2].at("kind"), "global");
  // 0.09 is nearest the uniform layer's 0.
  EXPECT_EQ(j.at("nmi_had").at("layer"), 2);
  EXPECT_EQ(j.at("stability").size(), 5u);
  // With the CLS kept, the maps are not the oracles any more.
  const Output keep = Run({"eval", "unip", "--attention", "a.safetensors", "--json", "--no-cls"});
  ASSERT_EQ(keep.exit_code, 0) << keep.err;
  EXPECT_LT(nlohmann::json::parse(keep.out).at("layers")[0].at("nmi").get<double>(), 0.9);
  // The table names the chosen layer.
  const Output table = Run({"eval", "unip", "--attention", "a.safetensors", "--target", "0.6"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("NMI-HAD: layer 1 (NMI closest to 0.600)"), std::string::npos) << table.out;
}

TEST_F(UnipCliTest, BadInputIsOneLineNamingTheFile) {
  auto expect_error = [&](const std::string& name, const std::string& what) {
    const Output o = Run({"eval", "unip", "--attention", name});
    EXPECT_EQ(o.exit_code, 3) << name << ": " << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(name), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(what), std::string::npos) << o.err;
  };
  expect_error("missing.safetensors", "missing.safetensors");
  cb::harness::WriteSafetensors(Path("nonumber.safetensors"), {{"attn", WindowLayer(4, 1)}});
  expect_error("nonumber.safetensors", "no layer number");
  cb::harness::WriteSafetensors(Path("twice.safetensors"), {{"a.1", WindowLayer(4, 1)}, {"b.1", WindowLayer(4, 1)}});
  expect_error("twice.safetensors", "both layer 1");
  cb::harness::SafetensorsWriteTensor logits = WindowLayer(4, 1);
  for (double& v : logits.values) v *= 3.0;
  cb::harness::WriteSafetensors(Path("logits.safetensors"), {{"l.0", logits}});
  expect_error("logits.safetensors", "not logits");
  cb::harness::WriteSafetensors(Path("flat.safetensors"), {{"l.0", {"F32", {5, 5}, std::vector<double>(25, 0.2)}}});
  expect_error("flat.safetensors", "[B, H, N, N]");
  cb::harness::WriteSafetensors(Path("rect.safetensors"), {{"l.0", {"F32", {1, 4, 5}, std::vector<double>(20, 0.2)}}});
  expect_error("rect.safetensors", "not square");
}

TEST_F(UnipCliTest, EveryMutationOfADumpIsNamed) {
  WriteDump("m.safetensors");
  ExpectMutationsNameTheFile({"eval", "unip", "--attention", "m.safetensors"}, "m.safetensors",
                             ReadFile(Path("m.safetensors")));
}

TEST_F(UnipCliTest, GenSegScenesWritesTheGeneratorsScenes) {
  const Output o = Run({"gen", "segscenes", "--out", "s.safetensors", "--count", "3", "--size", "24", "--classes",
                        "3", "--seed", "9"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const cb::gen::SegScenes want =
      cb::gen::MakeSegScenes({.size = 24, .classes = 3, .min_objects = 2, .max_objects = 4, .count = 3, .seed = 9});
  EXPECT_NE(o.err.find("3 scenes of 24x24 -> s.safetensors (segscenes v1, content hash " + want.hash.Hex()),
            std::string::npos)
      << o.err;
  const auto f = cb::harness::SafetensorsFile::Open(Path("s.safetensors"));
  EXPECT_EQ(f.metadata().at("content_hash"), want.hash.Hex());
  EXPECT_EQ(f.Find("rgb")->shape, (std::vector<int64_t>{3, 24, 24, 3}));
  EXPECT_EQ(f.Find("ir")->shape, (std::vector<int64_t>{3, 24, 24}));
  const std::vector<double> rgb = f.ReadAsDouble("rgb"), ir = f.ReadAsDouble("ir"), label = f.ReadAsDouble("label");
  ASSERT_EQ(label.size(), size_t(3 * 24 * 24));
  for (size_t s = 0; s < 3; ++s)
    for (size_t i = 0; i < 24 * 24; ++i) {
      const size_t at = s * 24 * 24 + i;
      ASSERT_EQ(label[at], double(want.scenes[s].label[i]));
      ASSERT_NEAR(ir[at], want.scenes[s].ir[i], 1e-7);  // fp32 rounding
      for (size_t c = 0; c < 3; ++c) ASSERT_NEAR(rgb[at * 3 + c], want.scenes[s].rgb[i * 3 + c], 1e-7);
    }
  // Never over an existing file; a bad parameter is one line, nothing written.
  const std::string before = ReadFile(Path("s.safetensors"));
  EXPECT_EQ(Run({"gen", "segscenes", "--out", "s.safetensors"}).exit_code, 3);
  EXPECT_EQ(ReadFile(Path("s.safetensors")), before);
  const Output bad = Run({"gen", "segscenes", "--out", "b.safetensors", "--classes", "9"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("segscenes"), std::string::npos) << bad.err;
  ExpectNothingWritten("b.safetensors");
}

}  // namespace
}  // namespace cb::cli::testing

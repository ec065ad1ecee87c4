// File: harness/blas_info_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/blas_info.h: the loaded BLAS is named, and the generic-
// kernel warning fires exactly when a pre-AVX2 OpenBLAS core runs on a CPU
// with AVX2 or AVX-512 (issue 32's Prescott-on-Sapphire-Rapids case).
#include "harness/blas_info.h"

#include <gtest/gtest.h>

#include "harness/platform.h"

namespace cb::harness {
namespace {

TEST(BlasInfoTest, NamesTheLoadedOpenBlasAndItsCore) {
  const BlasInfo b = DetectBlas();
  EXPECT_EQ(b.vendor, "OpenBLAS");
  EXPECT_NE(b.library.find("blas"), std::string::npos) << b.library;
  EXPECT_EQ(b.library.find('/'), std::string::npos) << "file name only, no machine path";
  EXPECT_NE(b.version, "unknown") << b.config;
  EXPECT_NE(b.corename, "unknown") << b.config;
  EXPECT_NE(b.config.find(b.version), std::string::npos);
}

TEST(BlasInfoTest, PlatformFingerprintCarriesTheBlas) {
  const Platform p = DetectPlatform();
  ASSERT_TRUE(p.json.contains("blas"));
  EXPECT_EQ(p.json.at("blas"), ToJson(DetectBlas()));
  EXPECT_EQ(GenericBlasWarning(p.json), GenericBlasWarning());
}

TEST(BlasInfoTest, PreAvx2CoresAreRecognisedCaseInsensitively) {
  for (const char* c : {"Prescott", "prescott", "Core2", "Nehalem", "Sandybridge", "unknown"}) {
    EXPECT_TRUE(IsPreAvx2Core(c)) << c;
  }
  for (const char* c : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"}) {
    EXPECT_FALSE(IsPreAvx2Core(c)) << c;
  }
}

TEST(BlasInfoTest, WarnsOnlyForGenericKernelsOnAvx2OrAvx512Cpus) {
  BlasInfo prescott;
  prescott.vendor = "OpenBLAS";
  prescott.version = "0.3.21";
  prescott.corename = "Prescott";
  const std::string w = GenericBlasWarning(prescott, {"sse2", "avx2", "avx512f"});
  EXPECT_NE(w.find("Prescott"), std::string::npos) << w;
  EXPECT_NE(w.find("AVX-512"), std::string::npos) << w;
  EXPECT_NE(w.find("0.3.21"), std::string::npos) << w;
  EXPECT_NE(GenericBlasWarning(prescott, {"avx2"}).find("AVX2"), std::string::npos);
  // An SSE-only CPU: the generic kernels are the right ones.
  EXPECT_EQ(GenericBlasWarning(prescott, {"sse2", "sse3"}), "");
  BlasInfo haswell = prescott;
  haswell.corename = "Haswell";
  EXPECT_EQ(GenericBlasWarning(haswell, {"avx2", "avx512f"}), "");
  BlasInfo other = prescott;
  other.vendor = "unknown";  // not OpenBLAS: its core names mean nothing here
  EXPECT_EQ(GenericBlasWarning(other, {"avx2"}), "");
  // From a fingerprint: missing parts give no warning rather than a guess.
  EXPECT_EQ(GenericBlasWarning(nlohmann::json::object()), "");
  const nlohmann::json fp = {{"blas", ToJson(prescott)}, {"cpu", {{"flags", {"avx2"}}}}};
  EXPECT_NE(GenericBlasWarning(fp), "");
}

}  // namespace
}  // namespace cb::harness

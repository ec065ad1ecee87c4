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
  EXPECT_EQ(BlasKernelWarning(p.json), BlasKernelWarning());
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
  const std::string w = BlasKernelWarning(prescott, {"sse2", "avx2", "avx512f"});
  EXPECT_NE(w.find("Prescott"), std::string::npos) << w;
  EXPECT_NE(w.find("AVX-512"), std::string::npos) << w;
  EXPECT_NE(w.find("0.3.21"), std::string::npos) << w;
  EXPECT_NE(BlasKernelWarning(prescott, {"avx2"}).find("AVX2"), std::string::npos);
  // An SSE-only CPU: the generic kernels are the right ones.
  EXPECT_EQ(BlasKernelWarning(prescott, {"sse2", "sse3"}), "");
  BlasInfo haswell = prescott;
  haswell.corename = "Haswell";
  EXPECT_EQ(BlasKernelWarning(haswell, {"avx2", "avx512f"}), "");
  BlasInfo other = prescott;
  other.vendor = "unknown";  // not OpenBLAS: its core names mean nothing here
  EXPECT_EQ(BlasKernelWarning(other, {"avx2"}), "");
  // A core forced by OPENBLAS_CORETYPE is named, generic or not.
  BlasInfo forced = haswell;
  forced.coretype_env = "Haswell";
  const std::string note = BlasKernelWarning(forced, {"avx2", "avx512f"});
  EXPECT_EQ(note.rfind("note: ", 0), 0u) << note;
  EXPECT_NE(note.find("OPENBLAS_CORETYPE=Haswell"), std::string::npos) << note;
  BlasInfo forced_generic = prescott;
  forced_generic.coretype_env = "Prescott";
  const std::string both = BlasKernelWarning(forced_generic, {"avx2"});
  EXPECT_EQ(both.rfind("warning: ", 0), 0u) << both;
  EXPECT_NE(both.find("OPENBLAS_CORETYPE=Prescott"), std::string::npos) << both;
  EXPECT_NE(both.find("AVX2"), std::string::npos) << both;
  EXPECT_EQ(both.find('\n'), std::string::npos) << both;
  // From a fingerprint: missing parts give no warning rather than a guess.
  EXPECT_EQ(BlasKernelWarning(nlohmann::json::object()), "");
  const nlohmann::json fp = {{"blas", ToJson(prescott)}, {"cpu", {{"flags", {"avx2"}}}}};
  EXPECT_NE(BlasKernelWarning(fp), "");
  const nlohmann::json fp_forced = {{"blas", ToJson(forced)}, {"cpu", {{"flags", {"avx2"}}}}};
  EXPECT_EQ(BlasKernelWarning(fp_forced), BlasKernelWarning(forced, {"avx2"}));
}

}  // namespace
}  // namespace cb::harness

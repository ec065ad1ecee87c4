// File: harness/cublas_loader_test.cpp
// -----------------------------------------------------------------------------
// cuBLAS is opened on first use (harness/cuda/cublas_loader.h): a process
// that never calls it does not map the libraries, and the toolkit the build
// found provides every entry point the project forwards. Needs no GPU:
// opening the libraries and resolving symbols does not touch a device.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#if CB_HAVE_CUDA
#include "harness/cuda/cublas_loader.h"
#endif

namespace cb::harness {
namespace {

// Whether a file whose name contains `name` is mapped into this process.
bool Mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(name) != std::string::npos) return true;
  }
  return false;
}

TEST(CublasLoader, OpensTheLibrariesOnlyWhenAsked) {
#if !CB_HAVE_CUDA
  GTEST_SKIP() << "built without CUDA";
#else
  EXPECT_FALSE(Mapped("libcublas.so")) << "linked, or opened before any cuBLAS call";
  EXPECT_FALSE(Mapped("libcublasLt.so"));
  EXPECT_EQ(cuda_internal::UnresolvedCublasEntryPoints(), std::vector<std::string>{});
  EXPECT_EQ(cuda_internal::CublasLoadFailure(), "");
  EXPECT_TRUE(Mapped("libcublas.so"));
  EXPECT_TRUE(Mapped("libcublasLt.so"));
#endif
}

}  // namespace
}  // namespace cb::harness

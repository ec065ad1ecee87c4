// File: suites/zz_demo/zz_demo_test.cpp
#include <gtest/gtest.h>

#include <vector>

#include "fixtures/backend_test.h"
#include "reference/zz_demo.h"
#include "suites/zz_demo/zz_demo.h"

namespace cb::zz_demo {
namespace {

class DotTest : public cb::testing::BackendTest {};

TEST_P(DotTest, MatchesTheReference) {
  if (backend() != cb::harness::Backend::kCpu) GTEST_SKIP() << "no CUDA path";
  const std::vector<float> a = {1, 2, 3}, b = {4, -5, 6};
  EXPECT_EQ(Dot(backend(), a, b), 12.0);
  EXPECT_EQ(Dot(backend(), a, b), cb::ref::zz_demo::Dot(a, b));
}

CB_INSTANTIATE_BACKENDS(DotTest);

}  // namespace
}  // namespace cb::zz_demo

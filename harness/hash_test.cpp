// File: harness/hash_test.cpp
#include "harness/hash.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace cb::harness {
namespace {

TEST(Hash, HexRoundTrips) {
  const Hash128 h = Xxh3_128("claimbench");
  EXPECT_EQ(h.Hex().size(), 32u);
  EXPECT_EQ(Hash128::FromHex(h.Hex()), h);
  EXPECT_FALSE(Hash128::FromHex("xyz").has_value());
}

TEST(Hash, HashDoublesHashesTheBytesAndSeesEveryBit) {
  const std::vector<double> v = {1.0, -2.5, 3e-300};
  std::string bytes(v.size() * sizeof(double), '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  EXPECT_EQ(HashDoubles(v), Xxh3_128(bytes));
  EXPECT_EQ(HashDoubles({1.0, -2.5, 3e-300}), HashDoubles(v));
  EXPECT_NE(HashDoubles({0.0}), HashDoubles({-0.0}));  // equal values, different bits
  EXPECT_NE(HashDoubles({1.0, 2.0}), HashDoubles({2.0, 1.0}));
}

}  // namespace
}  // namespace cb::harness

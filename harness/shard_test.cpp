// File: harness/shard_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/shard.h: parsing, and that shards partition the cases (each
// case in exactly one shard) independently of order, roughly evenly.
#include "harness/shard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cb::harness {
namespace {

TEST(Shard, Parse) {
  EXPECT_EQ(ParseShard("0/4")->index, 0u);
  EXPECT_EQ(ParseShard("3/4")->count, 4u);
  EXPECT_TRUE(ParseShard("0/1").has_value());
  for (const char* bad : {"4/4", "1/0", "-1/4", "a/4", "1/", "/4", "1", "1/4/2", " 1/4", ""}) {
    EXPECT_FALSE(ParseShard(bad).has_value()) << bad;
  }
}

TEST(Shard, PartitionIsExactAndStable) {
  std::vector<int> per_shard(4, 0);
  for (int i = 0; i < 4000; ++i) {
    const std::string id = "suite.C" + std::to_string(i);
    int owners = 0;
    for (uint64_t s = 0; s < 4; ++s) owners += InShard(id, Shard{s, 4});
    ASSERT_EQ(owners, 1) << id;
    ++per_shard[ShardOf(id, 4)];
    EXPECT_EQ(ShardOf(id, 4), ShardOf(std::string(id), 4));
  }
  for (int count : per_shard) EXPECT_NEAR(count, 1000, 150);
  EXPECT_EQ(ShardOf("anything", 1), 0u);
}

}  // namespace
}  // namespace cb::harness

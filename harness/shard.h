// File: harness/shard.h
// -----------------------------------------------------------------------------
// Splitting one run over n machines (issue 4 "Multi-machine"): `claimbench run
// --shard i/n` keeps the claims whose identity hashes to shard i, so n
// processes (a Slurm array, a CI matrix) each run a disjoint part and
// `claimbench ledger merge` combines their ledgers. The partition depends only
// on the claim id and n, never on the order of registration or the machine:
//   shard(id) = XXH3-128(id).low mod n.
#ifndef CB_HARNESS_SHARD_H_
#define CB_HARNESS_SHARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cb::harness {

struct Shard {
  uint64_t index = 0;  // 0-based, < count
  uint64_t count = 1;
};

// ParseShard()
//
// "i/n" with integers 0 <= i < n, n >= 1; nullopt for anything else.
std::optional<Shard> ParseShard(std::string_view text);

// ShardOf()
//
// The shard, in [0, count), that the case named `identity` belongs to.
// REQUIRES: count >= 1.
uint64_t ShardOf(std::string_view identity, uint64_t count);

inline bool InShard(std::string_view identity, const Shard& s) {
  return ShardOf(identity, s.count) == s.index;
}

}  // namespace cb::harness

#endif  // CB_HARNESS_SHARD_H_

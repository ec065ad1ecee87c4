// File: harness/shard.cpp
// -----------------------------------------------------------------------------
// Deterministic partition of cases over shards (see shard.h).
#include "harness/shard.h"

#include <charconv>

#include "harness/hash.h"

namespace cb::harness {
namespace {

std::optional<uint64_t> Whole(std::string_view s) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Shard> ParseShard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto i = Whole(text.substr(0, slash));
  const auto n = Whole(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i >= *n) return std::nullopt;
  return Shard{*i, *n};
}

uint64_t ShardOf(std::string_view identity, uint64_t count) {
  return count <= 1 ? 0 : Xxh3_128(identity).low % count;
}

}  // namespace cb::harness

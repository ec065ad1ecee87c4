// File: harness/hash.cpp
// XXH3-128 wrappers over libxxhash.
#include "harness/hash.h"

#include <xxhash.h>

#include <cstdio>
#include <stdexcept>

namespace cb::harness {

std::string Hash128::Hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return buf;
}

std::optional<Hash128> Hash128::FromHex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  uint64_t words[2] = {0, 0};
  for (size_t i = 0; i < 32; ++i) {
    const char c = hex[i];
    uint64_t digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    words[i / 16] = (words[i / 16] << 4) | digit;
  }
  return Hash128{words[0], words[1]};
}

Hash128 Xxh3_128(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return Hash128{h.high64, h.low64};
}

Hash128 HashDoubles(std::span<const double> values) {
  return Xxh3_128({reinterpret_cast<const char*>(values.data()), values.size_bytes()});
}

Hasher::Hasher() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}

Hasher::~Hasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void Hasher::Update(std::string_view bytes) {
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
}

Hash128 Hasher::Digest() const {
  const XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
  return Hash128{h.high64, h.low64};
}

}  // namespace cb::harness

// File: harness/hash.h
// -----------------------------------------------------------------------------
// XXH3-128 content hashes (libxxhash), used for the ledger's row/run/chain
// hashes, platform fingerprints and generator outputs.
//
// XXH3 detects corruption and accidental or casual edits; it is not a
// cryptographic hash and does not stop a determined adversary.
#ifndef CB_HARNESS_HASH_H_
#define CB_HARNESS_HASH_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cb::harness {

struct Hash128 {
  uint64_t high = 0;
  uint64_t low = 0;

  // 32 lower-case hex digits, high word first.
  std::string Hex() const;
  // Parses exactly 32 hex digits; nullopt otherwise.
  static std::optional<Hash128> FromHex(std::string_view hex);

  friend bool operator==(const Hash128&, const Hash128&) = default;
};

// Hash of a byte string.
Hash128 Xxh3_128(std::string_view bytes);

// Hash of the bytes of an fp64 array: equal exactly when every value is
// bitwise equal (the output hash of a deterministic result row).
Hash128 HashDoubles(std::span<const double> values);
inline Hash128 HashDoubles(std::initializer_list<double> values) {
  return HashDoubles(std::span<const double>(values.begin(), values.size()));
}

// Streaming form: Update() any number of times, then Digest().
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  void Update(std::string_view bytes);
  Hash128 Digest() const;

 private:
  void* state_;  // XXH3_state_t*
};

}  // namespace cb::harness

#endif  // CB_HARNESS_HASH_H_

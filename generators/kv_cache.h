// File: generators/kv_cache.h
// -----------------------------------------------------------------------------
// Synthetic KV caches and decode queries with controllable attention
// concentration, for long-context decoding methods (Radar, issue 7):
//
//   keys   K[h, i, :] ~ N(0, key_std^2 I_d)        (kv_heads, t, d), row-major
//   values V[h, i, :] ~ N(0, I_d)                   (kv_heads, t, d)
//   query  q[g, :] = query_norm * u,  u uniform on the unit sphere   (q_heads, d)
//   needle segments: for each of the group's planted spans [start, start+len)
//          K[h, i, :] += alpha * q^[h * group, :]   (q^ = the unit query of the
//          group's first head), so q.k rises by alpha |q| for every needle key
//   RoPE (optional, base 10000, pairs (2i, 2i+1)): keys rotated by their
//          position i, queries by position t - 1; the needle direction is
//          added after rotation, so the planted alignment survives it.
// GQA: q_heads = kv_heads * group; query head g reads kv head g / group.
//
// Determinism (DESIGN §4): a pure function of (name, version, seed, params);
// keys from Rng(seed, 1 + h), values Rng(seed, 1001 + h), queries
// Rng(seed, 2001 + g), needle starts Rng(seed, 3001 + h). ContentHash covers
// the bytes and the provenance.
#ifndef CB_GENERATORS_KV_CACHE_H_
#define CB_GENERATORS_KV_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::gen {

inline constexpr int kKvCacheVersion = 1;
inline constexpr char kKvCacheName[] = "kv_cache";

struct KvCacheParams {
  int64_t t = 4096;          // tokens
  int d = 64;                // head dimension
  int kv_heads = 1;
  int group = 1;             // query heads per kv head (GQA)
  double key_std = 1.0;
  double query_norm = 0.0;   // 0: sqrt(d) / 2 (inside R1's variance-safe range)
  int needles = 0;           // planted spans per kv head
  int64_t needle_len = 0;    // tokens per span
  double alpha = 0.0;        // needle strength
  int64_t needle_lo = 0;     // spans start in [needle_lo, needle_hi - needle_len]
  int64_t needle_hi = 0;     // 0: t
  bool rope = false;
};

struct KvCache {
  KvCacheParams params;
  std::vector<double> keys, values;    // (kv_heads, t, d)
  std::vector<double> queries;         // (kv_heads * group, d)
  std::vector<int64_t> needle_starts;  // (kv_heads, needles), ascending per head
  std::string provenance;              // "key=value;..." canonical

  const double* Keys(int h) const { return keys.data() + static_cast<size_t>(h) * params.t * params.d; }
  const double* Values(int h) const { return values.data() + static_cast<size_t>(h) * params.t * params.d; }
  const double* Query(int g) const { return queries.data() + static_cast<size_t>(g) * params.d; }
};

// REQUIRES (std::invalid_argument otherwise): t >= 1, d >= 2 and even when
// rope, kv_heads, group >= 1, needles * needle_len fits non-overlapping in
// [needle_lo, needle_hi) when needles > 0.
KvCache GenerateKvCache(const KvCacheParams& params, uint64_t seed);

// XXH3-128 (hex) of the provenance, then keys, values, queries bytes.
std::string ContentHash(const KvCache& cache);

// RoPE of x (d) at position pos in place (base 10000, pairs (2i, 2i+1)).
void ApplyRope(double* x, int d, int64_t pos);

}  // namespace cb::gen

#endif  // CB_GENERATORS_KV_CACHE_H_

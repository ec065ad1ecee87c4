// File: generators/kv_cache.cpp
// Synthetic KV caches with planted needle segments (generators/kv_cache.h).
#include "generators/kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "harness/hash.h"
#include "harness/random.h"

namespace cb::gen {

void ApplyRope(double* x, int d, int64_t pos) {
  for (int i = 0; i + 1 < d; i += 2) {
    const double theta = static_cast<double>(pos) * std::pow(10000.0, -double(i) / d);
    const double c = std::cos(theta), s = std::sin(theta);
    const double a = x[i], b = x[i + 1];
    x[i] = a * c - b * s;
    x[i + 1] = a * s + b * c;
  }
}

KvCache GenerateKvCache(const KvCacheParams& p, uint64_t seed) {
  const int64_t hi = p.needle_hi > 0 ? p.needle_hi : p.t;
  if (p.t < 1 || p.d < 1 || p.kv_heads < 1 || p.group < 1 || (p.rope && p.d % 2 != 0)) {
    throw std::invalid_argument("kv_cache: need t, d, kv_heads, group >= 1 (d even with rope)");
  }
  if (p.needles > 0 && (p.needle_len < 1 || p.needle_lo < 0 || hi > p.t ||
                        p.needles * p.needle_len > hi - p.needle_lo)) {
    throw std::invalid_argument("kv_cache: needles do not fit in [needle_lo, needle_hi)");
  }
  KvCache out;
  out.params = p;
  const int d = p.d;
  const size_t per_head = static_cast<size_t>(p.t) * d;
  out.keys.resize(per_head * p.kv_heads);
  out.values.resize(per_head * p.kv_heads);
  out.queries.resize(static_cast<size_t>(p.kv_heads) * p.group * d);
  const double qnorm = p.query_norm > 0 ? p.query_norm : std::sqrt(double(d)) / 2;
  for (int g = 0; g < p.kv_heads * p.group; ++g) {
    cb::harness::Rng rng(seed, 2001 + g);
    double* q = &out.queries[static_cast<size_t>(g) * d];
    double n2 = 0;
    for (int i = 0; i < d; ++i) {
      q[i] = rng.Normal();
      n2 += q[i] * q[i];
    }
    for (int i = 0; i < d; ++i) q[i] *= qnorm / std::sqrt(n2);
    if (p.rope) ApplyRope(q, d, p.t - 1);
  }
  for (int h = 0; h < p.kv_heads; ++h) {
    cb::harness::Rng krng(seed, 1 + h), vrng(seed, 1001 + h);
    double* k = &out.keys[h * per_head];
    double* v = &out.values[h * per_head];
    for (size_t i = 0; i < per_head; ++i) k[i] = p.key_std * krng.Normal();
    for (size_t i = 0; i < per_head; ++i) v[i] = vrng.Normal();
    if (p.rope) {
      for (int64_t i = 0; i < p.t; ++i) ApplyRope(k + i * d, d, i);
    }
    if (p.needles == 0) continue;
    // Non-overlapping spans: draw `needles` slots among the free length, then
    // space them (the standard stars-and-bars placement).
    cb::harness::Rng nrng(seed, 3001 + h);
    const int64_t slack = (hi - p.needle_lo) - p.needles * p.needle_len;
    std::vector<int64_t> gaps(static_cast<size_t>(p.needles));
    for (auto& g : gaps) g = static_cast<int64_t>(nrng.UniformInt(0, static_cast<uint64_t>(slack)));
    std::sort(gaps.begin(), gaps.end());
    const double* q = &out.queries[static_cast<size_t>(h) * p.group * d];
    for (int n = 0; n < p.needles; ++n) {
      const int64_t start = p.needle_lo + gaps[n] + n * p.needle_len;
      out.needle_starts.push_back(start);
      for (int64_t i = start; i < start + p.needle_len; ++i) {
        for (int j = 0; j < d; ++j) k[i * d + j] += p.alpha * q[j] / qnorm;
      }
    }
  }
  char prov[400];
  std::snprintf(prov, sizeof prov,
                "name=%s;version=%d;seed=%llu;t=%lld;d=%d;kv_heads=%d;group=%d;key_std=%.17g;"
                "query_norm=%.17g;needles=%d;needle_len=%lld;alpha=%.17g;needle_lo=%lld;"
                "needle_hi=%lld;rope=%d",
                kKvCacheName, kKvCacheVersion, static_cast<unsigned long long>(seed),
                static_cast<long long>(p.t), d, p.kv_heads, p.group, p.key_std, qnorm, p.needles,
                static_cast<long long>(p.needle_len), p.alpha, static_cast<long long>(p.needle_lo),
                static_cast<long long>(hi), p.rope ? 1 : 0);
  out.provenance = prov;
  return out;
}

std::string ContentHash(const KvCache& c) {
  cb::harness::Hasher hasher;
  auto bytes = [](const std::vector<double>& v) {
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  };
  hasher.Update(c.provenance);
  hasher.Update(bytes(c.keys));
  hasher.Update(bytes(c.values));
  hasher.Update(bytes(c.queries));
  return hasher.Digest().Hex();
}

}  // namespace cb::gen

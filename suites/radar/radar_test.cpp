// File: suites/radar/radar_test.cpp
// -----------------------------------------------------------------------------
// The Radar reference (reference/radar.h): feature map, segment structure,
// rebuild rule, in-order appends, fallback and selection modes; the KV-cache
// generator (generators/kv_cache.h); and the fp32 paths of suites/radar/radar.h
// against the fp64 reference on every backend (CUDA skips without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <set>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/expect_invalid.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "generators/kv_cache.h"
#include "harness/random.h"
#include "reference/radar.h"
#include "suites/radar/radar.h"

namespace cb::radar {
namespace {

using cb::testing::ExpectInvalid;

namespace h = cb::harness;
namespace ref = cb::ref::radar;

// fp32 attention over <= 2^14 tokens with logits of order 10 against fp64.
constexpr double kAtol = 1e-4, kRtol = 1e-4;

std::vector<double> Gaussian(size_t n, uint64_t seed, uint64_t stream, double std = 1.0) {
  h::Rng rng(seed, stream);
  std::vector<double> x(n);
  for (double& v : x) v = std * rng.Normal();
  return x;
}

std::vector<float> ToFloat(const std::vector<double>& x) { return {x.begin(), x.end()}; }

// --- Feature map -------------------------------------------------------------

TEST(RadarPhi, MeanOverOmegaDrawsIsExpOfScaledDot) {
  const int d = 8;
  const auto q = Gaussian(d, 11, 0, 0.5), k = Gaussian(d, 11, 1, 0.5);
  const double want = std::exp(std::inner_product(q.begin(), q.end(), k.begin(), 0.0) / std::sqrt(d));
  std::vector<double> est;
  for (int draw = 0; draw < 400; ++draw) {
    const auto f = ref::MakeFeatureMap(d, 32, 7, draw);
    const auto pq = ref::Phi(f, q.data(), 0, 0), pk = ref::Phi(f, k.data(), 0, 0);
    est.push_back(std::inner_product(pq.begin(), pq.end(), pk.begin(), 0.0));
  }
  const double mean = std::accumulate(est.begin(), est.end(), 0.0) / est.size();
  double var = 0;
  for (double e : est) var += (e - mean) * (e - mean);
  const double se = std::sqrt(var / (est.size() - 1) / est.size());
  EXPECT_LT(std::abs(mean - want), 5 * se) << "mean " << mean << " want " << want << " se " << se;
}

TEST(RadarPhi, StabilisersRescaleEachHalf) {
  const auto f = ref::MakeFeatureMap(4, 8, 3, 0);
  const auto x = Gaussian(4, 3, 1);
  const auto a = ref::Phi(f, x.data(), 0, 0), b = ref::Phi(f, x.data(), 1.5, -0.5);
  for (int j = 0; j < 8; ++j) {
    EXPECT_NEAR((b[j] - 1e-18) / (a[j] - 1e-18), std::exp(-1.5), 1e-12);
    EXPECT_NEAR((b[8 + j] - 1e-18) / (a[8 + j] - 1e-18), std::exp(0.5), 1e-12);
  }
  EXPECT_EQ(ref::MakeFeatureMap(5, 0, 1, 0).D, 80);  // D = 16 d by default
}

// --- Segment structure ---------------------------------------------------------

ref::Config SmallConfig() {
  ref::Config c;
  c.d = 8;
  c.D = 32;
  c.window = 4;
  c.sink = 1;
  c.aspect = 2;
  c.topk = 2;
  return c;
}

// Drives token-by-token decode and checks c, the rebuild rule and the count.
TEST(RadarStructure, RebuildsWhenTheStoreDoublesAndCIsSqrtOverAspect) {
  const auto cfg = SmallConfig();
  ref::Cache cache(cfg);
  const int64_t steps = 3000;
  const auto keys = Gaussian(steps * cfg.d, 5, 0), vals = Gaussian(steps * cfg.d, 5, 1);
  std::vector<double> out(cfg.d);
  uint64_t rebuilds = 0;
  int64_t c = 0;
  for (int64_t i = 0; i < steps; ++i) {
    cache.Append(&keys[i * cfg.d], &vals[i * cfg.d], 1);
    cache.Decode(&keys[i * cfg.d], out.data());
    const int64_t n = std::max<int64_t>(0, cache.size() - cfg.sink - cfg.window - 1);
    const auto& ct = cache.counters();
    const double limit = 2 * cfg.aspect * cfg.aspect;
    if (ct.rebuilds != rebuilds) {
      EXPECT_EQ(ct.rebuilds, rebuilds + 1);
      // A rebuild happens exactly when floor(n / c_old) >= 2 a^2 c_old.
      if (c > 0) {
        EXPECT_GE(n / c, limit * c) << "rebuilt early at n = " << n;
      }
      rebuilds = ct.rebuilds;
      c = std::max<int64_t>(1, static_cast<int64_t>(std::floor(std::sqrt(double(n)) / cfg.aspect)));
      EXPECT_EQ(ct.segment_len, c) << "n = " << n;
    } else if (c > 0) {
      EXPECT_LT(n / c, limit * c) << "missed a rebuild at n = " << n;
    }
    if (c > 0) {
      EXPECT_LT(n - cache.segments() * c, c) << "remainder must stay below c";
      EXPECT_EQ(cache.segments(), n / c);
    }
  }
  // Once c >= 3 each rebuild grows c by ~sqrt 2, i.e. the store doubles.
  EXPECT_GE(c, 20);
  EXPECT_LE(rebuilds, 30u);
}

TEST(RadarStructure, SegmentLengthIsClampedToOneWhenTopkBelowAspectSquared) {
  auto cfg = SmallConfig();
  cfg.topk = 1;  // threshold (1/2)^2: the first build has n = 1, sqrt(1)/2 = 0
  ref::Cache cache(cfg);
  const auto keys = Gaussian(7 * cfg.d, 2, 0);
  cache.Append(keys.data(), keys.data(), 7);  // n = 7 - 1 - 4 - 1 = 1
  std::vector<double> out(cfg.d);
  cache.Decode(keys.data(), out.data());
  EXPECT_EQ(cache.segment_len(), 1);
  EXPECT_EQ(cache.segments(), 1);
}

// Upstream appends several segments at once in reverse order; here segment j
// must summarise tokens [sink + j c, sink + (j + 1) c) whatever the chunking.
TEST(RadarStructure, MultiSegmentAppendsKeepTokenOrder) {
  const auto cfg = SmallConfig();
  ref::Cache cache(cfg);
  const int64_t first = 600, chunk = 200;
  const auto keys = Gaussian((first + chunk) * cfg.d, 9, 0), vals = Gaussian((first + chunk) * cfg.d, 9, 1);
  std::vector<double> out(cfg.d);
  cache.Append(keys.data(), vals.data(), first);
  cache.Decode(keys.data(), out.data());
  const int64_t seg_before = cache.segments();
  cache.Append(&keys[first * cfg.d], &vals[first * cfg.d], chunk);
  cache.Decode(keys.data(), out.data());
  ASSERT_EQ(cache.counters().rebuilds, 1u) << "the chunk must append, not rebuild";
  ASSERT_GE(cache.segments() - seg_before, 2) << "the chunk must append several segments";
  const int64_t c = cache.segment_len();
  const int D = cache.feature_map().D;
  for (int64_t j = 0; j < cache.segments(); ++j) {
    std::vector<double> mean(2 * D, 0.0);
    for (int64_t i = cfg.sink + j * c; i < cfg.sink + (j + 1) * c; ++i) {
      const auto phi = ref::Phi(cache.feature_map(), &keys[i * cfg.d], cache.s_plus(), cache.s_minus());
      for (int f = 0; f < 2 * D; ++f) mean[f] += phi[f] / c;
    }
    const std::vector<double> got(cache.summaries().begin() + j * 2 * D,
                                  cache.summaries().begin() + (j + 1) * 2 * D);
    EXPECT_TRUE(cb::testing::AllClose(got, mean, 1e-15, 1e-12)) << "segment " << j;
  }
}

// --- Decode ---------------------------------------------------------------------

TEST(RadarDecode, FallsBackToDenseBelowThresholdAndWhenTopkCoversAll) {
  auto cfg = SmallConfig();
  const int64_t t = 400;
  CB_FRESH_SEED(seed);
  const auto keys = Gaussian(t * cfg.d, seed, 0), vals = Gaussian(t * cfg.d, seed, 1);
  const auto q = Gaussian(cfg.d, seed, 2);
  std::vector<double> dense(cfg.d), got(cfg.d);
  ref::DenseDecode(q.data(), keys.data(), vals.data(), t, cfg.d, dense.data());
  cfg.topk = 1000;  // threshold (1000/2)^2 > t: never built
  ref::Cache below(cfg);
  below.Append(keys.data(), vals.data(), t);
  below.Decode(q.data(), got.data());
  EXPECT_TRUE(below.counters().exact);
  EXPECT_TRUE(cb::testing::AllClose(got, dense, 1e-12, 1e-12));
  // Budget mode, built (n = 394 > B) with c = 9, 43 segments, 7 left over:
  // k = floor(387 / 9) = 43 covers every segment.
  cfg.budget = 387;
  ref::Cache covered(cfg);
  covered.Append(keys.data(), vals.data(), t);
  covered.Organize();
  covered.Decode(q.data(), got.data());
  EXPECT_EQ(covered.segments(), 43);
  EXPECT_TRUE(covered.counters().exact);
  EXPECT_TRUE(cb::testing::AllClose(got, dense, 1e-12, 1e-12));
}

TEST(RadarDecode, BudgetModeAttendsAtMostSinkBudgetSegmentWindow) {
  auto cfg = SmallConfig();
  cfg.budget = 40;
  cfg.window = 16;
  ref::Cache cache(cfg);
  const int64_t t = 5000;
  const auto keys = Gaussian(t * cfg.d, 4, 0), vals = Gaussian(t * cfg.d, 4, 1);
  cache.Append(keys.data(), vals.data(), t);
  std::vector<double> out(cfg.d);
  const auto tokens = cache.Decode(keys.data(), out.data());
  const auto& ct = cache.counters();
  EXPECT_FALSE(ct.exact);
  EXPECT_LE(ct.attended, uint64_t(cfg.sink + cfg.budget + ct.segment_len + cfg.window + 1));
  EXPECT_EQ(ct.attended, tokens.size());
  EXPECT_EQ(ct.decode_macs, ref::PredictedDecodeMacs(cfg.d, 32, ct.segments, ct.attended));
  EXPECT_TRUE(std::is_sorted(tokens.begin(), tokens.end()));
  EXPECT_EQ(std::set<int64_t>(tokens.begin(), tokens.end()).size(), tokens.size());
}

// Radar's segment scores are random-feature estimates, so on a rare cache it
// misses the needle (seed 24675777819689 in a CI run; none of 60 other seeds):
// asserted as a rate over five fresh caches, at least four found; the
// oracle, which scores segments exactly, finds every one.
TEST(RadarDecode, RadarAndOracleFindAPlantedNeedle) {
  cb::gen::KvCacheParams p{.t = 4096, .d = 32, .needles = 1, .needle_len = 64, .alpha = 6.0,
                           .needle_lo = 1, .needle_hi = 3000};
  CB_FRESH_SEED(seed);
  int radar_found = 0;
  constexpr int kCaches = 5;
  for (int c = 0; c < kCaches; ++c) {
    const auto kv = cb::gen::GenerateKvCache(p, seed + static_cast<uint64_t>(c));
    for (auto sel : {ref::Selection::kRadar, ref::Selection::kOracle}) {
      ref::Config cfg{.d = 32, .window = 64, .aspect = 2, .topk = 4, .selection = sel, .seed = 3};
      ref::Cache cache(cfg);
      cache.Append(kv.Keys(0), kv.Values(0), p.t);
      std::vector<double> out(32);
      const auto tokens = cache.Decode(kv.Query(0), out.data());
      const int64_t mid = kv.needle_starts[0] + p.needle_len / 2;
      const bool found = std::binary_search(tokens.begin(), tokens.end(), mid);
      if (sel == ref::Selection::kRadar) radar_found += found;
      if (sel == ref::Selection::kOracle) {
        EXPECT_TRUE(found) << "oracle, cache " << c;
      }
    }
  }
  EXPECT_GE(radar_found, kCaches - 1) << "radar found the needle in " << radar_found << " of " << kCaches;
}

TEST(RadarDecode, LastAndRandomSelections) {
  ref::Config cfg{.d = 8, .D = 32, .window = 4, .aspect = 2, .topk = 3, .selection = ref::Selection::kLast};
  const int64_t t = 2000;
  const auto keys = Gaussian(t * 8, 1, 0);
  ref::Cache last(cfg);
  last.Append(keys.data(), keys.data(), t);
  std::vector<double> out(8);
  const auto tokens = last.Decode(keys.data(), out.data());
  const int64_t c = last.segment_len(), n_seg = last.segments();
  // sink, then the last 3 segments, remainder and window: one contiguous tail
  EXPECT_EQ(tokens[1], cfg.sink + (n_seg - 3) * c);
  EXPECT_EQ(int64_t(tokens.size()), 1 + (t - (cfg.sink + (n_seg - 3) * c)));
  cfg.selection = ref::Selection::kRandom;
  ref::Cache r1(cfg), r2(cfg);
  r1.Append(keys.data(), keys.data(), t);
  r2.Append(keys.data(), keys.data(), t);
  EXPECT_EQ(r1.Decode(keys.data(), out.data()), r2.Decode(keys.data(), out.data()));
}

TEST(RadarBaselines, StreamingAttendsSinkAndWindow) {
  const auto keys = Gaussian(100 * 4, 2, 0), vals = Gaussian(100 * 4, 2, 1);
  std::vector<double> out(4);
  const auto tokens = ref::StreamingDecode(keys.data(), keys.data(), vals.data(), 100, 4, 2, 10, out.data());
  std::vector<int64_t> want{0, 1};
  for (int64_t i = 90; i < 100; ++i) want.push_back(i);
  EXPECT_EQ(tokens, want);
}

TEST(RadarConfig, RejectsBadConfigs) {
  EXPECT_THROW(ref::Cache(ref::Config{.d = 0}), std::invalid_argument);
  EXPECT_THROW(ref::Cache(ref::Config{.d = 4, .aspect = 0}), std::invalid_argument);
  EXPECT_THROW(ref::Cache(ref::Config{.d = 4, .topk = 0}), std::invalid_argument);
}

// A NaN or infinite query, key or value is refused with its position, and the
// cache is as before: the next decode equals that of a cache never given it.
TEST(RadarInput, ReferenceRefusesNonFiniteEntriesAndKeepsItsState) {
  const int d = 8;
  const int64_t t = 600;
  const auto k = Gaussian(t * d, 11, 0), v = Gaussian(t * d, 11, 1), q = Gaussian(d, 11, 2);
  ref::Config cfg{.d = d, .window = 8, .aspect = 2, .topk = 2};
  ref::Cache cache(cfg), clean(cfg);
  cache.Append(k.data(), v.data(), t);
  clean.Append(k.data(), v.data(), t);
  for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    auto bad_q = q;
    bad_q[5] = bad;
    std::vector<double> out(d);
    ExpectInvalid([&] { cache.Decode(bad_q.data(), out.data()); }, "radar: query entry 5 is ");
    auto bad_k = k;
    bad_k[3 * d + 1] = bad;
    ExpectInvalid([&] { cache.Append(bad_k.data(), v.data(), 4); }, "radar: key entry 25 is ");
    ExpectInvalid([&] { cache.Append(k.data(), bad_k.data(), 4); }, "radar: value entry 25 is ");
  }
  EXPECT_EQ(cache.size(), t);
  std::vector<double> got(d), want(d);
  EXPECT_EQ(cache.Decode(q.data(), got.data()), clean.Decode(q.data(), want.data()));
  EXPECT_EQ(got, want);
  auto nan_q = q;
  nan_q[0] = std::nan("");
  ExpectInvalid([&] { ref::DenseDecode(nan_q.data(), k.data(), v.data(), t, d, got.data()); }, "query entry 0");
  ExpectInvalid([&] { ref::StreamingDecode(nan_q.data(), k.data(), v.data(), t, d, 4, 16, got.data()); },
                "query entry 0");
}

// --- Generator -------------------------------------------------------------------

TEST(KvCacheGenerator, DeterministicShapedAndPlanted) {
  cb::gen::KvCacheParams p{.t = 512, .d = 16, .kv_heads = 2, .group = 3, .needles = 2,
                           .needle_len = 16, .alpha = 5.0};
  const auto a = cb::gen::GenerateKvCache(p, 42), b = cb::gen::GenerateKvCache(p, 42);
  const auto c = cb::gen::GenerateKvCache(p, 43);
  EXPECT_EQ(cb::gen::ContentHash(a), cb::gen::ContentHash(b));
  EXPECT_NE(cb::gen::ContentHash(a), cb::gen::ContentHash(c));
  EXPECT_EQ(a.keys.size(), size_t(2 * 512 * 16));
  EXPECT_EQ(a.queries.size(), size_t(6 * 16));
  ASSERT_EQ(a.needle_starts.size(), 4u);
  // Needle keys score alpha |q| higher on average than the rest.
  for (int hh = 0; hh < 2; ++hh) {
    const double* q = a.Query(hh * 3);
    double needle = 0, other = 0;
    int64_t nn = 0, no = 0;
    for (int64_t i = 0; i < p.t; ++i) {
      const double s = std::inner_product(q, q + 16, a.Keys(hh) + i * 16, 0.0);
      bool in = false;
      for (int n = 0; n < 2; ++n) {
        const int64_t st = a.needle_starts[hh * 2 + n];
        in |= i >= st && i < st + p.needle_len;
      }
      (in ? needle : other) += s;
      (in ? nn : no)++;
    }
    EXPECT_GT(needle / nn - other / no, 0.5 * 5.0 * 2.0);  // alpha |q| = 5 * sqrt(16)/2
  }
  EXPECT_THROW(cb::gen::GenerateKvCache({.t = 10, .d = 4, .needles = 2, .needle_len = 6}, 1),
               std::invalid_argument);
}

TEST(KvCacheGenerator, RopeIsARotation) {
  auto x = Gaussian(16, 3, 0);
  const double before = std::inner_product(x.begin(), x.end(), x.begin(), 0.0);
  cb::gen::ApplyRope(x.data(), 16, 12345);
  EXPECT_NEAR(std::inner_product(x.begin(), x.end(), x.begin(), 0.0), before, 1e-9);
}

// --- The CPU attention kernels ---------------------------------------------------

// AttendSpansCpu's two kernels (AVX-512 for d = 64 and 128 where the CPU has
// it, the portable one always) against the fp64 reference over the gathered
// tokens: spans shorter than, equal to and just over the AVX-512 kernel's
// 16-key block, single tokens, spans ending at the last row (its prefetch
// runs past the end), one and two threads, and logits up to ~+-30 (q of sd 2:
// the running maximum moves between blocks).
TEST(RadarAttendCpu, BothKernelsMatchTheReferenceOverSpans) {
  CB_FRESH_SEED(seed);
  for (int d : {64, 128, 48}) {
    const int64_t t = 40000;
    const auto k = Gaussian(t * d, seed, 10 + d), v = Gaussian(t * d, seed, 11 + d);
    const auto q = Gaussian(d, seed, 12 + d, 2.0);
    const auto kf = ToFloat(k), vf = ToFloat(v), qf = ToFloat(q);
    const std::vector<std::vector<Span>> cases = {
        {{0, t}},                                            // two threads
        {{5, 6}},                                            // one token
        {{0, 15}, {100, 116}, {300, 317}, {t - 33, t}},      // 15, 16, 17 and the last rows
        {{7, 2000}, {2001, 2002}, {39000, 39999}}};
    for (const auto& spans : cases) {
      std::vector<double> gk, gv;
      for (const auto& [a, b] : spans) {
        gk.insert(gk.end(), k.begin() + a * d, k.begin() + b * d);
        gv.insert(gv.end(), v.begin() + a * d, v.begin() + b * d);
      }
      std::vector<double> want(d);
      ref::DenseDecode(q.data(), gk.data(), gv.data(), static_cast<int64_t>(gk.size()) / d, d, want.data());
      for (bool vector : {true, false}) {
        std::vector<float> got(d, std::nanf(""));
        AttendSpansCpu(qf.data(), kf.data(), vf.data(), d, spans, got.data(), 0, vector);
        EXPECT_TRUE(cb::testing::AllClose(std::span<const float>(got), want, kAtol, kRtol))
            << "d " << d << " spans " << spans.size() << " from " << spans[0].first << " vector " << vector;
      }
    }
  }
}

// --- Backends against the reference ------------------------------------------------

class RadarBackendTest : public cb::testing::BackendTest {};

// t random tokens of width d, appended to every cache, and nq random queries.
struct RandomTokens {
  std::vector<float> keys, values, queries;
};
RandomTokens AppendRandomTokens(std::initializer_list<Cache*> caches, int d, int64_t t, int nq,
                                uint64_t seed) {
  RandomTokens x{ToFloat(Gaussian(t * d, seed, 0)), ToFloat(Gaussian(t * d, seed, 1)),
                 ToFloat(Gaussian(nq * d, seed, 2))};
  for (Cache* c : caches) c->Append(x.keys.data(), x.values.data(), t);
  return x;
}

TEST_P(RadarBackendTest, DenseDecodeMatchesReference) {
  const int d = 64;
  const int64_t t = 40000;  // > 2 x 16384: the split-K path with two parts
  CB_FRESH_SEED(seed);
  const auto k = Gaussian(t * d, seed, 0), v = Gaussian(t * d, seed, 1), q = Gaussian(d, seed, 2);
  std::vector<double> want(d);
  ref::DenseDecode(q.data(), k.data(), v.data(), t, d, want.data());
  std::vector<float> got(d, std::nanf(""));
  const auto kf = ToFloat(k), vf = ToFloat(v), qf = ToFloat(q);
  DenseDecode(backend(), qf.data(), kf.data(), vf.data(), t, d, got.data());
  EXPECT_TRUE(cb::testing::AllClose(std::span<const float>(got), want, kAtol, kRtol));
}

TEST_P(RadarBackendTest, CacheMatchesReferenceStepByStep) {
  CB_FRESH_SEED(seed);
  cb::gen::KvCacheParams p{.t = 6000, .d = 16, .needles = 2, .needle_len = 40, .alpha = 5.0};
  const auto kv = cb::gen::GenerateKvCache(p, seed);
  ref::Config cfg{.d = 16, .window = 32, .aspect = 2, .topk = 3, .seed = seed};
  ref::Cache want_cache(cfg);
  Cache got_cache(backend(), cfg);
  const auto kf = ToFloat(kv.keys), vf = ToFloat(kv.values), qf = ToFloat(kv.queries);
  // Prefill most of the cache, then chunks of 1, 7 and 300 tokens (appends of
  // several segments at once, and a rebuild).
  const std::vector<int64_t> chunks{3000, 1, 7, 300, 1, 2691};
  int64_t at = 0;
  std::vector<double> want(16);
  std::vector<float> got(16);
  for (int64_t n : chunks) {
    want_cache.Append(&kv.keys[at * 16], &kv.values[at * 16], n);
    got_cache.Append(&kf[at * 16], &vf[at * 16], n);
    at += n;
    const auto want_tokens = want_cache.Decode(kv.Query(0), want.data());
    std::fill(got.begin(), got.end(), std::nanf(""));
    const auto spans = got_cache.Decode(qf.data(), got.data());
    std::vector<int64_t> got_tokens;
    for (const auto& [a, b] : spans)
      for (int64_t i = a; i < b; ++i) got_tokens.push_back(i);
    // Needle segments are far ahead of the rest, so both pick them; the last
    // of the k picks may be a near-tie that fp32 resolves differently, so the
    // output is checked against fp64 attention over the path's own selection.
    for (int64_t start : kv.needle_starts) {
      const int64_t mid = start + p.needle_len / 2;
      if (mid >= at) continue;
      EXPECT_EQ(std::binary_search(got_tokens.begin(), got_tokens.end(), mid),
                std::binary_search(want_tokens.begin(), want_tokens.end(), mid));
    }
    if (got_tokens != want_tokens) ref::Attend(kv.Query(0), kv.keys.data(), kv.values.data(), 16, got_tokens, want.data());
    ASSERT_EQ(got_cache.segment_len(), want_cache.segment_len());
    ASSERT_EQ(got_cache.segments(), want_cache.segments());
    EXPECT_EQ(got_cache.counters().attended, want_cache.counters().attended);
    EXPECT_EQ(got_cache.counters().decode_macs, want_cache.counters().decode_macs);
    // Summaries agree in fp32 (relative to each entry; phi spans many decades).
    const auto sf = got_cache.Summaries();
    const auto& sd = want_cache.summaries();
    ASSERT_EQ(sf.size(), sd.size());
    EXPECT_TRUE(cb::testing::AllClose(std::span<const float>(sf), sd, 1e-12, 1e-3));
    EXPECT_TRUE(cb::testing::AllClose(std::span<const float>(got), want, kAtol, kRtol))
        << "after " << at << " tokens";
  }
}

// A GQA group's queries decoded together pick the same spans and give the
// same outputs as one Decode() each (on the CPU the scores come from one pass
// over the summaries, with the same summation order: bitwise equal).
TEST_P(RadarBackendTest, DecodeGroupEqualsOneDecodePerQuery) {
  CB_FRESH_SEED(seed);
  const int d = 16, nq = 4;
  const int64_t t = 5000;
  ref::Config cfg{.d = d, .window = 32, .aspect = 2, .budget = 48, .seed = seed};
  Cache group(backend(), cfg), single(backend(), cfg);
  const auto q = AppendRandomTokens({&group, &single}, d, t, nq, seed).queries;
  std::vector<float> got(nq * d, std::nanf("")), want(nq * d, std::nanf(""));
  const auto spans = group.DecodeGroup(q.data(), nq, got.data());
  ASSERT_EQ(spans.size(), size_t(nq));
  for (int i = 0; i < nq; ++i) {
    EXPECT_EQ(spans[i], single.Decode(&q[i * d], &want[i * d])) << "query " << i;
    EXPECT_EQ(group.counters().segments, single.counters().segments);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(group.counters().attended, single.counters().attended);  // both: the last query's
  EXPECT_THROW(group.DecodeGroup(q.data(), 0, got.data()), std::invalid_argument);
}

// Every entry point of the fast paths refuses a non-finite query, key or
// value before touching the cache (issue: a NaN query made the CUDA top-k
// return an index past the last segment).
TEST_P(RadarBackendTest, RefusesNonFiniteEntriesAndKeepsItsState) {
  CB_FRESH_SEED(seed);
  const int d = 16, nq = 3;
  const int64_t t = 3000;
  ref::Config cfg{.d = d, .window = 32, .aspect = 2, .budget = 48, .seed = seed};
  Cache cache(backend(), cfg), clean(backend(), cfg);
  const auto [k, v, q] = AppendRandomTokens({&cache, &clean}, d, t, nq, seed);
  std::vector<float> out(nq * d);
  for (float bad : {std::nanf(""), HUGE_VALF, -HUGE_VALF}) {
    auto bad_q = q;
    bad_q[2 * d + 7] = bad;  // the third query of the group
    ExpectInvalid([&] { cache.DecodeGroup(bad_q.data(), nq, out.data()); }, "radar: query entry 39 is ");
    ExpectInvalid([&] { cache.Decode(&bad_q[2 * d], out.data()); }, "radar: query entry 7 is ");
    ExpectInvalid([&] { cache.DecodeDense(&bad_q[2 * d], out.data()); }, "radar: query entry 7 is ");
    ExpectInvalid([&] { DenseDecode(backend(), &bad_q[2 * d], k.data(), v.data(), t, d, out.data()); },
                  "radar: query entry 7 is ");
    if (backend() == h::Backend::kCpu)
      ExpectInvalid([&] { AttendSpansCpu(&bad_q[2 * d], k.data(), v.data(), d, {{0, t}}, out.data()); },
                    "radar: query entry 7 is ");
    auto bad_kv = k;
    bad_kv[d + 2] = bad;
    ExpectInvalid([&] { cache.Append(bad_kv.data(), v.data(), 2); }, "radar: key entry 18 is ");
    ExpectInvalid([&] { cache.Append(k.data(), bad_kv.data(), 2); }, "radar: value entry 18 is ");
  }
  EXPECT_EQ(cache.size(), t);
  std::vector<float> want(nq * d);
  EXPECT_EQ(cache.DecodeGroup(q.data(), nq, out.data()), clean.DecodeGroup(q.data(), nq, want.data()));
  EXPECT_EQ(out, want);
}

// A finite query so large that phi overflows in fp32 (every score NaN)
// selects by the tie rule alone: NaN ranks as -inf and ties go to the lower
// index, so the first k segments, merged with the sink. The CUDA instance
// catches the kernel that returned index n_seg and wrote past its scores;
// the CPU one cannot catch a NaN-unsafe comparator (on this input it happens
// to keep the same order: checked by removing the NaN mapping).
TEST_P(RadarBackendTest, OverflowingQueryStillSelectsValidSegments) {
  const int d = 16;
  const int64_t t = 3000;
  ref::Config cfg{.d = d, .window = 32, .aspect = 2, .budget = 48, .seed = 5};
  Cache cache(backend(), cfg);
  AppendRandomTokens({&cache}, d, t, 0, 5);
  const std::vector<float> q(d, 3e19f);  // |q|^2 = 1.4e40: inf in fp32
  std::vector<float> out(d);
  const auto spans = cache.Decode(q.data(), out.data());
  ASSERT_FALSE(cache.counters().exact);
  const int64_t c = cache.segment_len(), k = cfg.budget / c, covered = cfg.sink + cache.segments() * c;
  ASSERT_LT(k, cache.segments());
  EXPECT_EQ(spans, (std::vector<Span>{{0, cfg.sink + k * c}, {covered, t}}));
  EXPECT_EQ(cache.counters().attended, static_cast<uint64_t>(cfg.sink + k * c + t - covered));
}

CB_INSTANTIATE_BACKENDS(RadarBackendTest);

}  // namespace
}  // namespace cb::radar

// File: suites/pf/pf_cpu.cpp
// -----------------------------------------------------------------------------
// CPU fast paths of suites/pf/pf.h.
//
// Sampling one row of V fp32 logits is one read of 4V bytes plus V keyed
// uniforms. Two savings keep it exact (the same token as the reference):
//   * one Philox block gives the 64-bit words of two consecutive tokens
//     (PhiloxU64At would compute each block twice);
//   * the logarithm is skipped when a cheap upper bound on the token's value
//     cannot beat the best so far. From the exponent e of r (r >= 2^e):
//       PF:      -log r      <= -e ln 2
//       softmax: -log(-log r) <= -log(1 - r) <= -e' ln 2, e' the exponent of
//                1 - r (exact in fp64, harness/philox.h), as -log r >= 1 - r.
//     One extra ln 2 of margin absorbs rounding, so a token whose bound is
//     <= the best cannot be the reference's choice (ties keep the lower id).
// Rows are split over two threads when the batch is large, a single long row
// in two halves (merged in id order); the second thread is pair_runner.h's
// persistent helper. The AVX-512 version of the scan (pf_cpu_avx512.cpp) adds
// vector Philox, vector bounds and skipping of whole groups before Philox.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "harness/philox.h"
#include "reference/pf/prf.h"
#include "suites/pf/pf.h"
#include "suites/pf/pair_runner.h"
#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf {

namespace internal {
namespace {

namespace h = cb::harness;

// floor(log2(x)) of a positive normal double, from its bits.
inline int Exponent(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<int>((bits >> 52) & 0x7FF) - 1023;
}

inline void Consider(Best& best, int64_t i, float logit, double temperature, Noise noise,
                     uint64_t word) {
  if (logit == -INFINITY) return;
  const double a = static_cast<double>(logit) / temperature;
  const double r = h::UniformFromBits(word);
  const double bound = noise == Noise::kExponential ? a + (1 - Exponent(r)) * kLn2
                                                    : a + (1 - Exponent(1.0 - r)) * kLn2;
  if (best.index >= 0 && bound <= best.value) return;
  const double v = ExactValue(logit, temperature, noise, word);
  if (best.index < 0 || v > best.value) best = {i, v};
}

}  // namespace

Best ScanRangeScalar(const float* row, int64_t begin, int64_t end, double temperature, Noise noise,
                     uint64_t key, uint64_t stream) {
  Best best;
  if (noise == Noise::kNone) {
    for (int64_t i = begin; i < end; ++i)
      if (best.index < 0 || row[i] > best.value) best = {i, static_cast<double>(row[i])};
    return best;
  }
  // Philox blocks for kLanes pairs at a time: the lane loop has no
  // dependencies between lanes, so the compiler can vectorise the 32x32->64
  // multiplies (pmuludq); the scan over the words then follows in id order.
  constexpr int kLanes = 8;
  const h::Philox4x32Key k = h::PhiloxKey(key);
  const uint32_t s_lo = static_cast<uint32_t>(stream), s_hi = static_cast<uint32_t>(stream >> 32);
  uint64_t words[2 * kLanes];
  for (int64_t i0 = begin; i0 < end; i0 += 2 * kLanes) {
    uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t pair = (static_cast<uint64_t>(i0) >> 1) + l;
      c0[l] = static_cast<uint32_t>(pair);
      c1[l] = static_cast<uint32_t>(pair >> 32);
      c2[l] = s_lo;
      c3[l] = s_hi;
    }
    uint32_t k0 = k.v[0], k1 = k.v[1];
    for (int round = 0; round < h::Philox4x32_10::kRounds; ++round) {
      if (round > 0) {
        k0 += h::philox_internal::kWeyl0;
        k1 += h::philox_internal::kWeyl1;
      }
      for (int l = 0; l < kLanes; ++l) {
        const uint64_t p0 = static_cast<uint64_t>(h::philox_internal::kMultiplier0) * c0[l];
        const uint64_t p1 = static_cast<uint64_t>(h::philox_internal::kMultiplier1) * c2[l];
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
        const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
        c1[l] = static_cast<uint32_t>(p1);
        c3[l] = static_cast<uint32_t>(p0);
        c0[l] = n0;
        c2[l] = n2;
      }
    }
    for (int l = 0; l < kLanes; ++l) {
      words[2 * l] = static_cast<uint64_t>(c0[l]) | (static_cast<uint64_t>(c1[l]) << 32);
      words[2 * l + 1] = static_cast<uint64_t>(c2[l]) | (static_cast<uint64_t>(c3[l]) << 32);
    }
    const int64_t count = std::min<int64_t>(2 * kLanes, end - i0);
    for (int64_t j = 0; j < count; ++j) Consider(best, i0 + j, row[i0 + j], temperature, noise, words[j]);
  }
  return best;
}

}  // namespace internal

namespace {

using internal::Best;
using cb::ref::pf::Watermark;

// hardware_concurrency() reads sysfs on every call: ask once.
int Threads() {
  static const int threads =
      static_cast<int>(std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
  return threads;
}

// The AVX-512 scan needs 1/T and logit/T well inside fp64's range.
bool VectorScanApplies(Noise noise, double temperature) {
  return noise != Noise::kNone && temperature >= 0x1p-64 && temperature <= 0x1p64 && CpuHasAvx512();
}

}  // namespace

int SampleCpuThreads(int64_t batch, int64_t vocab, Noise noise) {
  if (Threads() < 2) return 1;
  // A long single row of the noisy samplers is split in two halves (each
  // even-sized, so Philox pairs do not straddle); greedy's single row is a
  // pure read, which one thread does at cache speed. Batches split by rows.
  if (batch == 1) return vocab >= (int64_t{1} << 15) && noise != Noise::kNone ? 2 : 1;
  return batch * vocab >= (int64_t{1} << 16) ? 2 : 1;
}

void SampleCpu(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
               std::span<const uint64_t> streams, std::span<int32_t> tokens, bool allow_simd) {
  const int64_t v = logits.vocab;
  const bool simd = allow_simd && CpuHasAvx512();
  const bool vector_scan = allow_simd && VectorScanApplies(noise, temperature);
  // Scans [begin, end) of row b and checks its values there: *clean = no
  // NaN/+inf; *finite = some finite logit. The vector scan checks in its own
  // pass (one read of a row that is in DRAM: a separate check pass first
  // cost a third of a row's time at batch 64); the others check first (the
  // check pulls the range into cache for the scan).
  auto range_best = [&](int64_t b, int64_t begin, int64_t end, bool* clean, bool* finite) {
    const float* row = logits.data + b * v;
    bool bad = false;
    if (vector_scan) {
      const Best best =
          internal::ScanRangeAvx512(row, begin, end, temperature, noise, key, streams[b], &bad);
      *clean = !bad;
      *finite = best.index >= 0;
      return best;
    }
    internal::ScanLogits(row + begin, end - begin, simd, &bad, finite);
    *clean = !bad;
    Best best;
    if (bad || !*finite) return best;
    if (noise == Noise::kNone) {
      const int64_t i = begin + internal::ArgmaxRow(row + begin, end - begin, simd);
      return Best{i, static_cast<double>(row[i])};
    }
    return internal::ScanRangeScalar(row, begin, end, temperature, noise, key, streams[b]);
  };
  bool all_ok = true;
  const bool two_threads = SampleCpuThreads(logits.batch, v, noise) == 2;
  if (two_threads && logits.batch == 1) {
    const int64_t mid = (v / 2) & ~int64_t{1};
    Best lo, hi;
    bool lo_clean, lo_finite, hi_clean, hi_finite;
    RunPair([&] { hi = range_best(0, mid, v, &hi_clean, &hi_finite); },
            [&] { lo = range_best(0, 0, mid, &lo_clean, &lo_finite); });
    all_ok = lo_clean && hi_clean && (lo_finite || hi_finite);
    internal::Merge(lo, hi);  // ties: the lower id
    tokens[0] = static_cast<int32_t>(lo.index);
  } else {
    auto rows = [&](int64_t b0, int64_t b1, bool* ok) {
      *ok = true;
      for (int64_t b = b0; b < b1 && *ok; ++b) {
        bool clean, finite;
        tokens[b] = static_cast<int32_t>(range_best(b, 0, v, &clean, &finite).index);
        *ok = clean && finite;
      }
    };
    if (two_threads) {
      const int64_t half = logits.batch / 2;
      bool ok_lo, ok_hi;
      RunPair([&] { rows(half, logits.batch, &ok_hi); }, [&] { rows(0, half, &ok_lo); });
      all_ok = ok_lo && ok_hi;
    } else {
      rows(0, logits.batch, &all_ok);
    }
  }
  // Bad values somewhere: the full check names the first culprit and throws.
  if (!all_ok) CheckSampleInput(logits, temperature, streams);
}

void ScoreTermsCpu(Watermark w, const cb::ref::pf::WatermarkParams& params,
                   std::span<const int32_t> texts, int64_t count, int64_t n,
                   std::span<double> terms) {
  for (int64_t c = 0; c < count; ++c) {
    const int32_t* text = texts.data() + c * n;
    for (int64_t t = 0; t < n; ++t) {
      double term = 0;
      if (t >= params.context) {
        const uint64_t ctx = cb::ref::pf::ContextHashAt(text, t, params.context);
        const double r = cb::ref::pf::KeyedUniformAt(params.key, ctx, static_cast<uint32_t>(text[t]));
        term = w == Watermark::kPf       ? -std::log(r)
               : w == Watermark::kGumbel ? -std::log1p(-r)
                                         : (r < params.gamma ? 1.0 : 0.0);
      }
      terms[c * n + t] = term;
    }
  }
}

}  // namespace cb::pf

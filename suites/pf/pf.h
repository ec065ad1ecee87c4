// File: suites/pf/pf.h
// -----------------------------------------------------------------------------
// Permute-and-Flip decoding (Zhao, Li, Wang, ICLR 2025) at production sizes:
// fused noisy-argmax sampling over fp32 logits and watermark scoring,
// dispatched by backend (DESIGN §3). The fp64 reference (reference/pf/pf.h)
// is the spec; host-only header.
//
//   logits (batch, V) fp32 row-major, streams (batch) uint64, tokens (batch)
//   tokens[b] = argmax_i (logits[b,i] / T + noise(r(key, streams[b], i)))
//     noise: kNone (greedy: argmax logits), kExponential (PF: -log r),
//            kGumbel (softmax: -log(-log r))
//   r = reference/pf/prf.h KeyedUniformAt, in (0, 1); ties to the lowest id.
// Plain sampling passes streams[b] = step; the PF / Gumbel watermarks pass
// streams[b] = ContextHash of row b's previous m tokens.
//
// Agreement: the value of every token is computed in fp64 by the same
// expression as the reference (logit widened to double, / T, + noise), so the
// CPU path picks exactly the reference's token. The CUDA path's log() is
// within 1 ulp of glibc's, so it can only differ on a near-tie of two values
// within ~1e-16 relative, which the agreement test (fresh random logits)
// never meets; the test requires identical tokens.
//
// Errors: V = 0, batch = 0, a NaN or +inf logit (named by row and column),
// T <= 0 or non-finite: std::invalid_argument; an unavailable backend:
// std::runtime_error with its reason.
#ifndef CB_SUITES_PF_PF_H_
#define CB_SUITES_PF_PF_H_

#include <cstdint>
#include <span>
#include <vector>

#include "harness/backend.h"
#include "reference/pf/pf.h"

namespace cb::pf {

enum class Noise { kNone, kExponential, kGumbel };

struct LogitsView {
  const float* data = nullptr;
  int64_t batch = 0;
  int64_t vocab = 0;
};

// Throws as described above. The CUDA path calls it before any work; the CPU
// path calls CheckSampleShape (everything but the logits' values) first and
// checks the values in the pass that reads them (SampleCpu).
void CheckSampleInput(const LogitsView& logits, double temperature,
                      std::span<const uint64_t> streams);
void CheckSampleShape(const LogitsView& logits, double temperature,
                      std::span<const uint64_t> streams);

// Sample()
//
// One token per row. tokens: (batch).
std::vector<int32_t> Sample(cb::harness::Backend backend, const LogitsView& logits,
                            double temperature, Noise noise, uint64_t key,
                            std::span<const uint64_t> streams);

// ScoreTerms()
//
// The per-position detection terms of `texts` (count, n) int32 row-major:
// term[t] = -log r (kPf), -log(1 - r) (kGumbel), 1{r < gamma} (kKgw) for
// t >= m, with r = r(key, ContextHash(text, t, m), text[t]); 0 for t < m.
// The de-duplication (a hash set) and the p-values stay on the host
// (cb::ref::pf::Detect does both in one pass). terms: (count, n).
std::vector<double> ScoreTerms(cb::harness::Backend backend, cb::ref::pf::Watermark w,
                               const cb::ref::pf::WatermarkParams& params,
                               std::span<const int32_t> texts, int64_t count, int64_t n);

// DetectCpu()
//
// cb::ref::pf::Detect on the CPU, faster (suites/pf/pf_detect.cpp: vector
// context hashes, Philox and log, two threads for long texts). Same checks
// and errors; n' and the KGW count identical to the reference, the PF/Gumbel
// score within 1e-11 relative (libmvec log within 4 ulp, another summation
// order), so the p-value agrees to ~1e-11 relative. allow_simd = false: the
// scalar kernels (std::log, std::log1p). Keeps per-thread scratch buffers
// (about 40 bytes per token of the longest text seen) so repeated calls do
// not fault in fresh pages.
cb::ref::pf::Detection DetectCpu(cb::ref::pf::Watermark w, const cb::ref::pf::WatermarkParams& params,
                                 std::span<const int32_t> tokens,
                                 cb::ref::pf::Dedup dedup = cb::ref::pf::Dedup::kContext,
                                 bool allow_simd = true);

// The threads DetectCpu runs on for a text of `tokens` tokens with context m:
// two (RunPair) from 16384 scored positions on, else one. Benchmarks name it.
int DetectCpuThreads(int64_t tokens, int context);

// The CPU paths; call through the functions above. SampleCpu REQUIRES
// CheckSampleShape to have passed and throws CheckSampleInput's error for bad
// logit values itself; ScoreTermsCpu REQUIRES checked input.
// allow_simd = false forces the scalar kernels (the tests compare both; the
// AVX-512 kernels run only where philox_avx512.h's CpuHasAvx512() is true).
void SampleCpu(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
               std::span<const uint64_t> streams, std::span<int32_t> tokens,
               bool allow_simd = true);
void ScoreTermsCpu(cb::ref::pf::Watermark w, const cb::ref::pf::WatermarkParams& params,
                   std::span<const int32_t> texts, int64_t count, int64_t n,
                   std::span<double> terms);

// How many threads SampleCpu runs for `batch` rows of `vocab` logits: 2 (the
// caller and pair_runner.h's helper) on a machine with two or more cores for
// a batch of >= 2 rows and >= 2^16 logits, or one noisy row of >= 2^15
// logits (split in halves); else 1. Benchmarks name it (issue 32: a
// benchmark's fraction row divides by the ceiling of its thread count).
int SampleCpuThreads(int64_t batch, int64_t vocab, Noise noise);

}  // namespace cb::pf

#endif  // CB_SUITES_PF_PF_H_

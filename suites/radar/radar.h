// File: suites/radar/radar.h
// -----------------------------------------------------------------------------
// Radar decoding (Hao et al., ICLR 2025) at production sizes: fp32 fast paths
// beside the fp64 reference (reference/radar.h, the spec), dispatched by
// backend (DESIGN §3). Host-only header: never includes cuda_runtime.h.
//
//   K, V (t, d) fp32 row-major, one KV head; q (d); out (d)
//   Dense decode: out = softmax(q K^T / sqrt d) V, split-K over threads, each
//     part an online softmax over blocks of keys, parts merged (flash-decoding)
//   Radar decode: the reference's organisation (same c, thresholds, rebuild
//     rule, in-order appends), phi and summaries in fp32 (Omega rounded from the
//     reference's fp64 draw), scores phi(q).R_j, top-k, then the same split-K
//     attention over the selected token spans.
// Rebuild on the CPU: Z = K_blk Omega by cblas_sgemm over blocks of whole
// segments; each segment is summed with its own max and rescaled to the
// global stabilisers afterwards (one pass instead of two over K).
//
// Accuracy: fp32 attention over n tokens is within ~1e-5 relative of fp64 for
// the sizes tested (|q.k| / sqrt d of order 10); the tests hold the backends to
// AllClose(atol 1e-4, rtol 1e-4) on outputs, and compare selections exactly
// where scores are separated by more than 1e-3 relative.
#ifndef CB_SUITES_RADAR_RADAR_H_
#define CB_SUITES_RADAR_RADAR_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "harness/backend.h"
#include "reference/radar.h"

namespace cb::radar {

using Span = std::pair<int64_t, int64_t>;  // tokens [first, last)

// Exact attention of q over the token spans of K, V (t, d) on the CPU with
// AttendThreads(total tokens, threads) threads. out (d). REQUIRES: spans
// non-empty. A non-finite entry of q throws std::invalid_argument (K and V
// are not scanned: see DenseDecode). vector = false keeps to the portable
// kernel where the AVX-512 one would run (d = 64 or 128 on an AVX-512 CPU),
// so tests cover both.
void AttendSpansCpu(const float* q, const float* keys, const float* values, int d,
                    const std::vector<Span>& spans, float* out, int threads = 0,
                    bool vector = true);

// The threads AttendSpansCpu runs on for `tokens` attended tokens: `threads`
// (0: all cores), but one per 16384 tokens at least (a thread costs ~15 us to
// start). Benchmarks name it (issue 32: thread counts in the name).
int AttendThreads(int64_t tokens, int threads = 0);

// Dense decode on `backend` (t keys). Throws std::runtime_error when the
// backend is unavailable (with the reason), std::invalid_argument when q has
// a non-finite entry (K and V are not scanned: that pass would double the
// cost of a memory-bound step).
void DenseDecode(cb::harness::Backend backend, const float* q, const float* keys,
                 const float* values, int64_t t, int d, float* out);

// The Radar cache of one head in fp32 on one backend. Config as the reference.
class Cache {
 public:
  Cache(cb::harness::Backend backend, const cb::ref::radar::Config& config);
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Every Append and decode call throws std::invalid_argument, and changes
  // nothing, when its keys, values or queries hold a NaN or an infinity.
  void Append(const float* keys, const float* values, int64_t n);
  // One decode step; returns the attended spans (ascending).
  std::vector<Span> Decode(const float* q, float* out);
  // Decode() for nq queries q [nq, d] (the query heads of one KV head, GQA),
  // out [nq, d]; query i's spans at [i]. The same selection and output as nq
  // Decode() calls; the CPU path scores the segments of all nq in one pass
  // over the summaries (the CUDA path runs Decode() nq times). counters()
  // then describe the last query.
  std::vector<std::vector<Span>> DecodeGroup(const float* q, int nq, float* out);
  // The dense baseline on the same resident cache: attention over all tokens.
  void DecodeDense(const float* q, float* out);
  void Organize();

  int64_t size() const;
  int64_t segments() const;
  int64_t segment_len() const;
  const cb::ref::radar::Counters& counters() const;
  // R (n_seg, 2D) as fp32, copied to the host.
  std::vector<float> Summaries() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cb::radar

#endif  // CB_SUITES_RADAR_RADAR_H_

// File: suites/radar/radar_lm_experiment.h
// -----------------------------------------------------------------------------
// The paper's quality experiment at our scale (Hao et al., ICLR 2025, PG-19
// perplexity against context length; upstream run_perplexity.py): each
// sequence is fed token by token through the KV-cache decode (a 1-token
// prefill, then DecodeStep), once per method (dense, Radar, StreamingLLM at
// budgets), and every token's negative log-likelihood is kept, so perplexity
// can be read per context-length bucket and paired token by token against
// dense. Optionally the dense pass probes the model's own queries and keys at
// given steps (every layer and head): Radar's, random and last-segment
// selection's (fp64 reference caches) and StreamingLLM's output error against
// exact attention at equal budget, and Radar's recall of the high-mass
// segments (exact mass >= 10x the median segment's).
//
//   nll[m][s][p]: -log p(token p | tokens 0..p-1) under method m, sequence s;
//   p in [1, T), nll[m][s][0] = NaN.
#ifndef CB_SUITES_RADAR_RADAR_LM_EXPERIMENT_H_
#define CB_SUITES_RADAR_RADAR_LM_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "suites/lm/cpu_transformer.h"
#include "suites/radar/radar_lm.h"

namespace cb::radar {

struct LmMethodSpec {
  std::string name;        // "dense", "radar_B64", "streaming_B64", ...
  bool dense = true;       // no hook
  LmAttentionConfig attention;  // when !dense
};

struct ProbeSetting {
  std::vector<int> steps;  // contexts t (tokens in the cache, current included) probed in the dense pass
  ref::radar::Config radar;  // budget mode, d from the model; seed per (layer, KV head) added
};

// One probe: a (sequence, step, layer, query head).
struct ProbeSample {
  int seq, t, layer, head;
  double err_radar, err_random, err_last, err_streaming;  // |out - exact| / |exact| (fp64)
  int high_mass = 0, high_mass_hit = 0;  // segments with mass >= 10x median; of them in Radar's top-k
  double topk_overlap = 0;  // |Radar top-k and exact top-k| / k
  int64_t segments = 0, segment_len = 0;
};

struct PerplexityRun {
  std::vector<std::string> methods;
  std::vector<std::vector<std::vector<double>>> nll;  // [method][seq][position]
  std::vector<ProbeSample> probes;
  lm_suite::CpuKvCache last_dense_cache;  // the dense pass's cache after the last sequence
  std::vector<double> seconds;            // [method] wall time of its passes
};

// Runs every method over every sequence (each >= 2 tokens), OpenBLAS on one
// thread (harness/blas_threads.h: a single-token decode step is a chain of
// small matrix-vector products, 256 x 704 at most here, where OpenBLAS's
// thread wake-ups cost more than they save on a loaded machine). `progress`
// receives a fraction in [0, 1]. The model's decode hook is left empty.
PerplexityRun RunPerplexity(lm_suite::CpuTransformer& model, const std::vector<LmMethodSpec>& methods,
                            const std::vector<std::vector<int>>& sequences, const ProbeSetting& probes,
                            const std::function<void(double)>& progress = {});

// Context-length buckets [lo, hi) covering positions [1, T): [1, 16), then
// [2^k, 2^(k+1)), the last one ending at T.
std::vector<std::pair<int, int>> LengthBuckets(int T);

// Per-token values of method m in positions [lo, hi) over every sequence,
// minus dense's (method 0) when `paired`.
std::vector<double> BucketValues(const PerplexityRun& run, size_t m, int lo, int hi, bool paired);

}  // namespace cb::radar

#endif  // CB_SUITES_RADAR_RADAR_LM_EXPERIMENT_H_

// File: suites/mtad/mtad.h
// -----------------------------------------------------------------------------
// The batched numeric steps of MTAD (reference/mtad.h is the spec), dispatched
// by backend (DESIGN §3). Host-only header: never includes cuda_runtime.h.
//
//   ExpandScores  one draft beam-expansion step over the whole vocabulary:
//                 w (B), q (B, V) -> s (B, V), s[b, v] = w[b] q[b, v] / sum
//   AcceptDepths  batched joint-likelihood verification, one row per beam:
//                 logp, logq (B, g) -> L (B), L_b = max{ i : sum_{j<=i}
//                 (logp[b, j] - logq[b, j]) > log tau }, 0 if none
//
// The n-gram lookups that produce q and p stay on the host (the substrate's
// hash tables are host data); these are the parts that scale with B x V and
// B x (g + 1) in an LLM deployment. Both backends compute in fp64; the CUDA
// ExpandScores reduces the normaliser in a different order, so it agrees with
// the reference to a relative 1e-12 (kScoreRelTol), and AcceptDepths exactly
// (a margin within 1e-12 of log tau may flip; tests keep margins away from it).
#ifndef CB_SUITES_MTAD_MTAD_H_
#define CB_SUITES_MTAD_MTAD_H_

#include <span>

#include "harness/backend.h"

namespace cb::mtad {

inline constexpr double kScoreRelTol = 1e-12;

// Throws std::invalid_argument when the shapes disagree (w.size() * V !=
// q.size(), out of the wrong size, V < 1), a weight or probability is
// negative or not finite, or the total mass is 0; std::runtime_error when
// the backend is unavailable (with its reason); cb::harness::CudaError on CUDA failure.
void ExpandScores(cb::harness::Backend backend, std::span<const double> w,
                  std::span<const double> q, int vocab_size, std::span<double> out);

// Throws std::invalid_argument when logp/logq sizes differ or are not
// beams x gamma (gamma >= 1), depth has the wrong size, an entry is NaN or
// +infinity (-infinity is allowed: a token outside the filtered support), or
// log_tau is NaN.
void AcceptDepths(cb::harness::Backend backend, std::span<const double> logp,
                  std::span<const double> logq, int gamma, double log_tau,
                  std::span<int> depth);

#if CB_HAVE_CUDA
// The CUDA paths (mtad.cu); call through the dispatchers, which check input.
void ExpandScoresCuda(std::span<const double> w, std::span<const double> q, int vocab_size,
                      std::span<double> out);
void AcceptDepthsCuda(std::span<const double> logp, std::span<const double> logq, int gamma,
                      double log_tau, std::span<int> depth);
#endif

}  // namespace cb::mtad

#endif  // CB_SUITES_MTAD_MTAD_H_
